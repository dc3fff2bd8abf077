// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Op: what an unpack does with each element it reaches. Replace overwrites (a plain unpack); the others combine the
// incoming element into the one already there, as MPI_Reduce_local(incoming, existing) does with MPI's predefined
// operation on the element's own primitive type (MPI_Accumulate's operations; Cabana's ScatterReduce).
//
// Which operations apply to which primitives follows MPI's categories:
//   Sum, Prod            integers, floating point, complex
//   Min, Max             integers, floating point
//   Band, Bor, Bxor      integers and Byte
//   Replace              every primitive, Opaque included
// Char and Bool combine with Replace only (MPI_CHAR is in no category; MPI's logical operations are not offered), and
// Opaque (a T carried as bytes) has no arithmetic at all.

#include <cstdint>

#include "KokkosDDT_Datatype.hpp"

namespace KokkosDDT {

enum class Op : std::uint8_t { Replace, Sum, Prod, Min, Max, Band, Bor, Bxor };

const char* op_name(Op op) noexcept;           // "replace", "sum", ...
bool op_applies(Op op, Primitive p) noexcept;  // MPI's categories, above

namespace Impl {

// Throws InvalidArgument naming `op` where it does not apply to one of the primitives `type` holds (or is not an Op).
void require_op_applies(Op op, const Datatype& type, const char* where);

// The one primitive a type's elements all have, or Primitive::Opaque with `single` false where they have several
// (or none: an empty type). An Opaque type's own single primitive is Opaque.
struct SinglePrimitive {
  bool single = false;
  Primitive primitive = Primitive::Opaque;
};
SinglePrimitive single_primitive(const Datatype& type);

}  // namespace Impl
}  // namespace KokkosDDT
