// SPDX-License-Identifier: BSD-3-Clause
// Operations: names, MPI's categories, and the check an operation's unpack makes before it writes anything.

#include "KokkosDDT_Op.hpp"

#include <string>

#include "KokkosDDT_TypeNode.hpp"

namespace KokkosDDT {

const char* op_name(Op op) noexcept {
  switch (op) {
    case Op::Replace:
      return "replace";
    case Op::Sum:
      return "sum";
    case Op::Prod:
      return "prod";
    case Op::Min:
      return "min";
    case Op::Max:
      return "max";
    case Op::Band:
      return "band";
    case Op::Bor:
      return "bor";
    case Op::Bxor:
      return "bxor";
  }
  return "(not an Op)";
}

namespace {
bool integer(Primitive p) {
  switch (p) {
    case Primitive::Int8:
    case Primitive::Int16:
    case Primitive::Int32:
    case Primitive::Int64:
    case Primitive::UInt8:
    case Primitive::UInt16:
    case Primitive::UInt32:
    case Primitive::UInt64:
      return true;
    default:
      return false;
  }
}
bool floating(Primitive p) { return p == Primitive::Float || p == Primitive::Double; }
bool complex(Primitive p) { return p == Primitive::ComplexFloat || p == Primitive::ComplexDouble; }
}  // namespace

bool op_applies(Op op, Primitive p) noexcept {
  switch (op) {
    case Op::Replace:
      return true;
    case Op::Sum:
    case Op::Prod:
      return integer(p) || floating(p) || complex(p);
    case Op::Min:
    case Op::Max:
      return integer(p) || floating(p);
    case Op::Band:
    case Op::Bor:
    case Op::Bxor:
      return integer(p) || p == Primitive::Byte;
  }
  return false;
}

namespace Impl {

void require_op_applies(Op op, const Datatype& type, const char* where) {
  const std::uint32_t primitives = type.impl_node(where).primitives;
  if (static_cast<unsigned>(op) > static_cast<unsigned>(Op::Bxor))
    throw_error(ErrorCode::InvalidArgument, where, "op",
                "is " + std::to_string(static_cast<int>(op)) + ", not one of KokkosDDT::Op's values");
  for (int p = 0; p <= static_cast<int>(Primitive::Opaque); ++p)
    if ((primitives >> p & 1u) && !op_applies(op, static_cast<Primitive>(p)))
      throw_error(ErrorCode::InvalidArgument, where, "op",
                  std::string("is ") + op_name(op) + ", which does not apply to the type's " +
                      primitive_name(static_cast<Primitive>(p)) + " elements (MPI's categories: see KokkosDDT_Op.hpp)");
}

SinglePrimitive single_primitive(const Datatype& type) {
  const std::uint32_t primitives = type.impl_node("KokkosDDT::single_primitive").primitives;
  if (primitives == 0 || (primitives & (primitives - 1)) != 0) return {};
  return {true, static_cast<Primitive>(__builtin_ctz(primitives))};
}

}  // namespace Impl
}  // namespace KokkosDDT
