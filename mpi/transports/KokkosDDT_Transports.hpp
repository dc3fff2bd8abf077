// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The transports of this build (one folder each under mpi/transports/), and how the library's clients get one.
// Clients name a kind; only this registry and the transports' own folders know what a kind is made of.

#include <mpi.h>

#include <memory>

#include "KokkosDDT_Transport.hpp"

namespace KokkosDDT::mpi {

enum class TransportKind {
  MPI,  // host-completed messages on a duplicate of the communicator (any execution space)
  NCCL  // stream-ordered messages on a CUDA execution space's stream (CUDA builds that found NCCL)
};

const char* name(TransportKind kind);

// Whether this build has the transport.
bool has_transport(TransportKind kind);

}  // namespace KokkosDDT::mpi

namespace KokkosDDT::Impl {

// A transport of `kind` over the processes of `comm` for the library's own traffic: MPI, a duplicate owned by the
// transport; NCCL, a communicator made from comm once and cached on it (freed with it). Collective over comm. Throws
// Error(InvalidArgument) naming `where` and "transport" when the build has no such transport.
std::shared_ptr<Transport> library_transport(mpi::TransportKind kind, MPI_Comm comm, const char* where);

}  // namespace KokkosDDT::Impl
