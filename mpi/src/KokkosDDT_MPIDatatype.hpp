// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// MPI_Datatype import and export. Both walk the constructor tree, so a type keeps its combiners across the boundary:
// to_mpi(from_mpi(t)) builds the same typemap as t, and MPI's pack of to_mpi(t) is byte-for-byte KokkosDDT's pack.

#include <mpi.h>

#include "KokkosDDT_Datatype.hpp"

namespace KokkosDDT::mpi {

// A new, committed MPI datatype with the same typemap (combiner by combiner). The caller frees it with
// MPI_Type_free. Opaque primitives become contiguous MPI_BYTEs (MPI cannot know their alignment, so a struct holding
// one may pad differently). Counts beyond int need MPI-4 (the _c constructors). Throws KokkosDDT::Error.
MPI_Datatype to_mpi(const Datatype& type);

// The predefined MPI handle of a named primitive (not to be freed); MPI_DATATYPE_NULL for Opaque.
MPI_Datatype to_mpi(Primitive p);

// The KokkosDDT equivalent of an MPI datatype (named types, dup, contiguous, vector, hvector, indexed, hindexed,
// indexed_block, hindexed_block, subarray, darray, struct, resized; classic and MPI-4 large-count contents), with the
// linked MPI's bounds at every level: where this MPI's lb or extent differs from KokkosDDT's rules (Open MPI and
// MPICH disagree on resized types inside structs and on struct padding), the imported level is resized to the MPI's,
// so count > 1 instances walk memory exactly as this MPI does. Throws Error(Unsupported) for the Fortran-90
// parameterized types and pair types such as MPI_DOUBLE_INT; Error(MPI) when an MPI call fails.
Datatype from_mpi(MPI_Datatype type);

}  // namespace KokkosDDT::mpi
