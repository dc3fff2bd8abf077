// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// KokkosDDT: MPI derived datatypes on Kokkos. Build a Datatype with the MPI constructors (or from a View), commit it,
// and pack/unpack it on any Kokkos execution space with one launch, or many requests in one launch with a FusionQueue.

#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_Datatype.hpp"
#include "KokkosDDT_Constructors.hpp"
#include "KokkosDDT_Primitives.hpp"
#include "KokkosDDT_ViewDatatype.hpp"
#include "KokkosDDT_Op.hpp"
#include "KokkosDDT_Pack.hpp"
#include "KokkosDDT_UnpackOp.hpp"
#include "KokkosDDT_Copy.hpp"
#include "KokkosDDT_FusionQueue.hpp"
