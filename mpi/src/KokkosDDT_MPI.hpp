// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// KokkosDDT's MPI layer, in the order data takes through it:
//   KokkosDDT_MPIDatatype.hpp  MPI_Datatype import (from_mpi) and export (to_mpi)
//   KokkosDDT_MPIStaging.hpp   where messages are staged (pooled buffers, where the transport reaches them)
//   KokkosDDT_MPISendOrder.hpp sends to one destination reach MPI in the order they were started
//   KokkosDDT_MPIRequest.hpp   requests: test, wait, wait_all, wait_any, persistent start
//   KokkosDDT_MPIP2P.hpp       typed isend/irecv and send_init/recv_init
//   KokkosDDT_ExchangePlan.hpp persistent typed exchanges of any pattern, on any transport (typed p2p over NCCL)
//   KokkosDDT_HaloPlan.hpp     persistent halo exchange on a Cartesian communicator
//   (KokkosDDT_ExchangeMatch.hpp and KokkosDDT_ExchangeEngine.hpp: what both plans are built from)
//   (KokkosDDT_MPIAgreement.hpp: what every process must pass alike, settled before anything depends on it)
//   (KokkosDDT_Communicators.hpp: every communicator the library makes, and the state it keeps on users')
//   (beneath them, mpi/transports/: the transports that move the bytes; a byte message of any size as one MPI message
//   is the MPI transport's KokkosDDT_MpiBytes.hpp, whether the MPI reads device memory its KokkosDDT_MpiGpuAware.hpp,
//   how each message of a plan travels KokkosDDT_Routes.hpp)

#include "KokkosDDT.hpp"
#include "KokkosDDT_ExchangePlan.hpp"
#include "KokkosDDT_HaloPlan.hpp"
#include "KokkosDDT_MPIDatatype.hpp"
#include "KokkosDDT_MPIError.hpp"
#include "KokkosDDT_MPIP2P.hpp"
#include "KokkosDDT_MPIRequest.hpp"
#include "KokkosDDT_MPIStaging.hpp"
#include "KokkosDDT_MpiGpuAware.hpp"
