// SPDX-License-Identifier: BSD-3-Clause
// The named primitives (MPI's predefined types) and opaque types: size, alignment, name and signature.

#include "KokkosDDT_Constructors.hpp"
#include "KokkosDDT_Signature.hpp"
#include "KokkosDDT_TypeNode.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace KokkosDDT {
namespace Impl {

std::int64_t primitive_size(Primitive p) {
  switch (p) {
    case Primitive::Byte:
    case Primitive::Char:
    case Primitive::Bool:
    case Primitive::Int8:
    case Primitive::UInt8:
      return 1;
    case Primitive::Int16:
    case Primitive::UInt16:
      return 2;
    case Primitive::Int32:
    case Primitive::UInt32:
    case Primitive::Float:
      return 4;
    case Primitive::Int64:
    case Primitive::UInt64:
    case Primitive::Double:
    case Primitive::ComplexFloat:
      return 8;
    case Primitive::ComplexDouble:
      return 16;
    case Primitive::Opaque:
      return 0;  // per type, see opaque()
  }
  return 0;
}

std::int64_t primitive_alignment(Primitive p) {
  switch (p) {
    case Primitive::ComplexFloat:
      return 4;
    case Primitive::ComplexDouble:
      return 8;
    default:
      return std::max<std::int64_t>(1, primitive_size(p));
  }
}

const char* primitive_name(Primitive p) {
  switch (p) {
    case Primitive::Byte:
      return "byte";
    case Primitive::Char:
      return "char";
    case Primitive::Bool:
      return "bool";
    case Primitive::Int8:
      return "int8";
    case Primitive::Int16:
      return "int16";
    case Primitive::Int32:
      return "int32";
    case Primitive::Int64:
      return "int64";
    case Primitive::UInt8:
      return "uint8";
    case Primitive::UInt16:
      return "uint16";
    case Primitive::UInt32:
      return "uint32";
    case Primitive::UInt64:
      return "uint64";
    case Primitive::Float:
      return "float";
    case Primitive::Double:
      return "double";
    case Primitive::ComplexFloat:
      return "complex<float>";
    case Primitive::ComplexDouble:
      return "complex<double>";
    case Primitive::Opaque:
      return "opaque";
  }
  return "?";
}

}  // namespace Impl

using namespace Impl;

// Primitives are committed from the start, as MPI's predefined types are. Left to the user, whether primitive<T>()
// could be packed depended on whether some earlier code had committed a copy of its one shared handle. (Commit touches
// no device and makes no View, so it may run before Kokkos::initialize.)
static Datatype committed(std::shared_ptr<TypeNode> n) {
  Datatype type(std::move(n));
  type.commit();
  return type;
}

static Datatype make_named(Primitive p) {
  auto n = std::make_shared<TypeNode>();
  n->combiner = Combiner::Named;
  n->primitive = p;
  n->size = n->ub = n->true_ub = primitive_size(p);
  n->num_primitives = 1;
  n->alignment = primitive_alignment(p);
  n->signature = signature_of(p);
  n->primitives = 1u << static_cast<int>(p);
  return committed(std::move(n));
}

Datatype named(Primitive p) {
  constexpr int kNamed = static_cast<int>(Primitive::Opaque);  // the named kinds precede Opaque
  const int index = static_cast<int>(p);
  if (index < 0 || index >= kNamed)
    throw_error(ErrorCode::InvalidArgument, "KokkosDDT::named", "p",
                "is not a named primitive (Opaque types come from KokkosDDT::opaque(size, alignment))");
  static const std::vector<Datatype> table = [] {  // one handle per primitive
    std::vector<Datatype> t;
    for (int i = 0; i < kNamed; ++i) t.push_back(make_named(static_cast<Primitive>(i)));
    return t;
  }();
  return table[index];
}

Datatype opaque(std::int64_t size, std::int64_t alignment) {
  const char* where = "KokkosDDT::opaque";
  if (size <= 0) throw_error(ErrorCode::InvalidArgument, where, "size", "is " + std::to_string(size) + "; must be > 0");
  if (alignment <= 0 || (alignment & (alignment - 1)))
    throw_error(ErrorCode::InvalidArgument, where, "alignment",
                "is " + std::to_string(alignment) + "; must be a power of two");
  auto n = std::make_shared<TypeNode>();
  n->combiner = Combiner::Named;
  n->primitive = Primitive::Opaque;
  n->size = n->ub = n->true_ub = size;
  n->num_primitives = 1;
  n->alignment = alignment;
  n->signature = opaque_signature(size);
  n->primitives = 1u << static_cast<int>(Primitive::Opaque);
  return committed(std::move(n));
}

}  // namespace KokkosDDT
