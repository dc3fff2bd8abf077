// SPDX-License-Identifier: BSD-3-Clause
// The type constructors: argument checks, then the MPI properties of the new type.
//
// Bounds, true bounds, alignment and struct padding follow MPICH 4 (whose yaksa engine is our byte-for-byte
// reference), which differs from the letter of the MPI standard in two places:
//  - resized bounds are plain bounds, not "sticky" markers: inside a struct they mix with the other fields' bounds;
//  - only a struct pads its extent (to the largest alignment of its non-empty fields), and a struct whose fields all
//    have the same type is built as hindexed and not padded.
// A count of zero, an empty old type, only zero blocklengths in an indexed type, or an empty struct give the
// zero-length type: size, bounds and extent all 0 (see make_zero_length).

#include <algorithm>
#include <sstream>

#include "KokkosDDT_Constructors.hpp"
#include "KokkosDDT_Extremes.hpp"
#include "KokkosDDT_Signature.hpp"
#include "KokkosDDT_TypeNode.hpp"

namespace KokkosDDT {
namespace Impl {

namespace {

using NodePtr = std::shared_ptr<TypeNode>;

struct Bounds {
  std::int64_t lb = 0, ub = 0, true_lb = 0, true_ub = 0;
  bool any = false;

  void merge(const Bounds& b) {
    if (!any) {
      *this = b;
      any = true;
      return;
    }
    lb = std::min(lb, b.lb);
    ub = std::max(ub, b.ub);
    true_lb = std::min(true_lb, b.true_lb);
    true_ub = std::max(true_ub, b.true_ub);
  }
};

// `count` blocks of `blocklength` children, block i at byte displacement first + i * stride (yaksa's hvector rule;
// a single block at displacement d is hvector_bounds(c, d, 1, b, 0)). The signs of the stride and of the child's
// extent, not of the products, pick the bound that moves: a zero blocklength pulls ub below the child's (MPICH).
// Each bound moves by the offset of the block that sets it, so the true bounds move with the bounds without ever
// forming their difference (which need not fit 64 bits even when every bound does).
Bounds hvector_bounds(const TypeNode& c, std::int64_t first, std::int64_t count, std::int64_t blocklength,
                      std::int64_t stride, const char* where) {
  const std::int64_t e = checked_sub(c.ub, c.lb, where, "oldtype");
  const std::int64_t span = checked_mul(stride, count - 1, where, "stride");
  const std::int64_t inner = checked_mul(e, blocklength - 1, where, "blocklength");
  const std::int64_t low = checked_add(first, checked_add(stride < 0 ? span : 0, e < 0 ? inner : 0, where, "stride"),
                                       where, "displacements");
  const std::int64_t high = checked_add(first, checked_add(stride > 0 ? span : 0, e > 0 ? inner : 0, where, "stride"),
                                        where, "displacements");
  Bounds b;
  b.lb = checked_add(c.lb, low, where, "displacements");
  b.ub = checked_add(c.ub, high, where, "displacements");
  b.true_lb = checked_add(c.true_lb, low, where, "displacements");
  b.true_ub = checked_add(c.true_ub, high, where, "displacements");
  b.any = true;
  return b;
}

const TypeNode& checked_node(const Datatype& t, const char* where, const char* argument) {
  if (t.is_null())
    throw_error(ErrorCode::NullDatatype, where, argument, "is a null datatype (default-constructed or freed)");
  return *t.impl_node_ptr();
}

void require_array(std::int64_t count, const void* p, const char* where, const char* argument) {
  if (count > 0 && p == nullptr)
    throw_error(ErrorCode::NullPointer, where, argument, "is null but count is " + std::to_string(count));
}

std::string element(const char* name, std::size_t i) { return std::string(name) + "[" + std::to_string(i) + "]"; }

// Checks of an array's element i that name it ("types[3]") only when they fail: building the name for every element
// was a twentieth of a struct type's creation, and a string per block of a long index list.
void require_nonnegative_at(std::int64_t value, const char* where, const char* name, std::size_t i) {
  if (value < 0) require_nonnegative(value, where, element(name, i));
}

const TypeNode& checked_node_at(const Datatype& t, const char* where, const char* name, std::size_t i) {
  return t.is_null() ? checked_node(t, where, element(name, i).c_str()) : *t.impl_node_ptr();
}

NodePtr derived(Combiner combiner, const TypeNode& child, std::shared_ptr<const TypeNode> child_ptr) {
  auto n = std::make_shared<TypeNode>();
  n->combiner = combiner;
  n->alignment = child.alignment;
  n->children.push_back(std::move(child_ptr));
  return n;
}

void set_bounds(TypeNode& n, const Bounds& b) {
  if (!b.any) return;
  n.lb = b.lb;
  n.ub = b.ub;
  n.true_lb = b.true_lb;
  n.true_ub = b.true_ub;
}

// MPICH 4.0 turns a count of zero, an empty old type (in every constructor but subarray, resized and struct), an
// indexed type with only zero blocklengths and an empty struct into its zero-length type: nothing to move, all
// bounds zero, alignment 1.
void make_zero_length(TypeNode& n) {
  n.size = n.lb = n.ub = n.true_lb = n.true_ub = n.num_primitives = 0;
  n.alignment = 1;
  n.signature = {};
  n.primitives = 0;
}

// Fills size, num_primitives and signature for `count` blocks of `blocklength` children.
void set_uniform_content(TypeNode& n, const TypeNode& c, std::int64_t count, std::int64_t blocklength,
                         const char* where) {
  const std::int64_t copies = checked_mul(count, blocklength, where, "count");
  n.size = checked_mul(copies, c.size, where, "count");
  n.num_primitives = checked_mul(copies, c.num_primitives, where, "count");
  n.signature = repeat(c.signature, copies);
  n.primitives = copies > 0 ? c.primitives : 0;
}

// Every bound fits 64 bits by construction (checked arithmetic); their differences, the extent and the true extent,
// must too. `argument`: what to name when they do not.
void require_representable(const TypeNode& n, const char* where, const char* argument) {
  checked_sub(n.ub, n.lb, where, argument);
  checked_sub(n.true_ub, n.true_lb, where, argument);
}

Datatype finish(NodePtr n, const char* where, const char* argument) {
  require_representable(*n, where, argument);
  return Datatype(std::move(n));
}

// The yaksa object a type resolves to: MPICH builds a struct whose fields all resolve to the same object as hindexed
// (no padding). dup, contiguous(1, T) and resized(T) with T's own bounds return T's object; MPI types of one size and
// class share an object (int32/uint32, int64/uint64, the one-byte types).
const void* yaksa_identity(const TypeNode& n) {
  static const int groups[3] = {1, 4, 8};
  switch (n.combiner) {
    case Combiner::Named:
      switch (n.primitive) {
        case Primitive::Byte:
        case Primitive::Char:
        case Primitive::Bool:
        case Primitive::Int8:
        case Primitive::UInt8:
          return &groups[0];
        case Primitive::Int32:
        case Primitive::UInt32:
          return &groups[1];
        case Primitive::Int64:
        case Primitive::UInt64:
          return &groups[2];
        default:
          return &n;
      }
    case Combiner::Dup:
      return yaksa_identity(n.child());
    case Combiner::Contiguous:
      return n.count == 1 ? yaksa_identity(n.child()) : &n;
    case Combiner::Resized:
      return (n.resized_lb == n.child().lb && n.resized_extent == n.child().extent()) ? yaksa_identity(n.child()) : &n;
    default:
      return &n;
  }
}

}  // namespace
}  // namespace Impl

using namespace Impl;

// ---------------------------------------------------------------------------------------------------- derived types

Datatype contiguous(std::int64_t count, const Datatype& oldtype) {
  const char* where = "KokkosDDT::contiguous";
  require_nonnegative(count, where, "count");
  const TypeNode& c = checked_node(oldtype, where, "oldtype");
  auto n = derived(Combiner::Contiguous, c, oldtype.impl_node_ptr());
  n->count = count;
  if (count == 0 || c.size == 0) return make_zero_length(*n), finish(n, where, "count");
  set_uniform_content(*n, c, count, 1, where);
  set_bounds(*n, hvector_bounds(c, 0, count, 1, c.extent(), where));
  return finish(n, where, "count");
}

static Datatype make_hvector(Combiner combiner, std::int64_t count, std::int64_t blocklength, std::int64_t stride,
                             std::int64_t stride_bytes, const Datatype& oldtype, const char* where) {
  require_nonnegative(count, where, "count");
  require_nonnegative(blocklength, where, "blocklength");
  const TypeNode& c = checked_node(oldtype, where, "oldtype");
  auto n = derived(combiner, c, oldtype.impl_node_ptr());
  n->count = count;
  n->blocklength = blocklength;
  n->stride = stride;
  if (count == 0 || c.size == 0) return make_zero_length(*n), finish(n, where, "stride");
  set_uniform_content(*n, c, count, blocklength, where);
  set_bounds(*n, hvector_bounds(c, 0, count, blocklength, stride_bytes, where));
  return finish(n, where, "stride");
}

Datatype vector(std::int64_t count, std::int64_t blocklength, std::int64_t stride, const Datatype& oldtype) {
  const char* where = "KokkosDDT::vector";
  const TypeNode& c = checked_node(oldtype, where, "oldtype");
  return make_hvector(Combiner::Vector, count, blocklength, stride, checked_mul(stride, c.extent(), where, "stride"),
                      oldtype, where);
}

Datatype hvector(std::int64_t count, std::int64_t blocklength, std::int64_t stride_bytes, const Datatype& oldtype) {
  return make_hvector(Combiner::Hvector, count, blocklength, stride_bytes, stride_bytes, oldtype, "KokkosDDT::hvector");
}

// indexed, hindexed, indexed_block, hindexed_block: blocks at displacement[i] * unit bytes.
// `blocklengths` null: every block has `uniform_blocklength` (the _block variants).
static Datatype make_indexed(Combiner combiner, std::int64_t count, const std::int64_t* blocklengths,
                             std::int64_t uniform_blocklength, const std::int64_t* displacements, bool in_extents,
                             const Datatype& oldtype, const char* where) {
  require_nonnegative(count, where, "count");
  const bool uniform = combiner == Combiner::IndexedBlock || combiner == Combiner::HindexedBlock;
  if (!uniform) require_array(count, blocklengths, where, "blocklengths");
  require_array(count, displacements, where, "displacements");
  if (uniform) require_nonnegative(uniform_blocklength, where, "blocklength");
  const TypeNode& c = checked_node(oldtype, where, "oldtype");
  auto n = derived(combiner, c, oldtype.impl_node_ptr());
  n->count = count;
  n->blocklength = uniform_blocklength;
  n->displacements.assign(displacements, displacements + count);
  if (!uniform) n->blocklengths.assign(blocklengths, blocklengths + count);

  std::int64_t copies = 0;
  Bounds bounds;
  if (uniform && count > 0) {
    // Every block has the same shape: the bounds are those of the blocks at the extreme displacements (scaled
    // displacements are monotonic in them), so long index lists cost one pass of min/max.
    copies = checked_mul(count, uniform_blocklength, where, "blocklength");
    const auto [lo, hi] = extremes(displacements, static_cast<std::size_t>(count));
    for (const std::int64_t d : {lo, hi})
      bounds.merge(hvector_bounds(c, in_extents ? checked_mul(d, c.extent(), where, "displacements") : d, 1,
                                  uniform_blocklength, 0, where));
  }
  for (std::int64_t i = 0; i < (uniform ? 0 : count); ++i) {
    const std::int64_t bl = uniform ? uniform_blocklength : blocklengths[i];
    if (!uniform) require_nonnegative_at(bl, where, "blocklengths", static_cast<std::size_t>(i));
    copies = checked_add(copies, bl, where, "blocklengths");
    // MPICH skips zero-length blocks of (h)indexed types but not of (h)indexed_block types.
    if (bl == 0 && !uniform) continue;
    const std::int64_t d =
        in_extents ? checked_mul(displacements[i], c.extent(), where, "displacements") : displacements[i];
    bounds.merge(hvector_bounds(c, d, 1, bl, 0, where));
  }
  if (count == 0 || c.size == 0 || (!uniform && copies == 0))
    return make_zero_length(*n), finish(n, where, "displacements");
  set_uniform_content(*n, c, copies, 1, where);
  set_bounds(*n, bounds);
  return finish(n, where, "displacements");
}

Datatype indexed(std::int64_t count, const std::int64_t* blocklengths, const std::int64_t* displacements,
                 const Datatype& oldtype) {
  return make_indexed(Combiner::Indexed, count, blocklengths, 0, displacements, true, oldtype, "KokkosDDT::indexed");
}

static void require_same_length(std::size_t a, std::size_t b, const char* where, const char* argument) {
  if (a != b)
    throw_error(ErrorCode::InvalidArgument, where, argument,
                "has " + std::to_string(b) + " entries but blocklengths has " + std::to_string(a));
}

Datatype indexed(const std::vector<std::int64_t>& blocklengths, const std::vector<std::int64_t>& displacements,
                 const Datatype& oldtype) {
  require_same_length(blocklengths.size(), displacements.size(), "KokkosDDT::indexed", "displacements");
  return indexed(blocklengths.size(), blocklengths.data(), displacements.data(), oldtype);
}

Datatype hindexed(std::int64_t count, const std::int64_t* blocklengths, const std::int64_t* displacements_bytes,
                  const Datatype& oldtype) {
  return make_indexed(Combiner::Hindexed, count, blocklengths, 0, displacements_bytes, false, oldtype,
                      "KokkosDDT::hindexed");
}

Datatype hindexed(const std::vector<std::int64_t>& blocklengths, const std::vector<std::int64_t>& displacements_bytes,
                  const Datatype& oldtype) {
  require_same_length(blocklengths.size(), displacements_bytes.size(), "KokkosDDT::hindexed", "displacements");
  return hindexed(blocklengths.size(), blocklengths.data(), displacements_bytes.data(), oldtype);
}

Datatype indexed_block(std::int64_t count, std::int64_t blocklength, const std::int64_t* displacements,
                       const Datatype& oldtype) {
  return make_indexed(Combiner::IndexedBlock, count, nullptr, blocklength, displacements, true, oldtype,
                      "KokkosDDT::indexed_block");
}

Datatype indexed_block(std::int64_t blocklength, const std::vector<std::int64_t>& displacements,
                       const Datatype& oldtype) {
  return indexed_block(displacements.size(), blocklength, displacements.data(), oldtype);
}

Datatype hindexed_block(std::int64_t count, std::int64_t blocklength, const std::int64_t* displacements_bytes,
                        const Datatype& oldtype) {
  return make_indexed(Combiner::HindexedBlock, count, nullptr, blocklength, displacements_bytes, false, oldtype,
                      "KokkosDDT::hindexed_block");
}

Datatype hindexed_block(std::int64_t blocklength, const std::vector<std::int64_t>& displacements_bytes,
                        const Datatype& oldtype) {
  return hindexed_block(displacements_bytes.size(), blocklength, displacements_bytes.data(), oldtype);
}

Datatype subarray(int ndims, const std::int64_t* sizes, const std::int64_t* subsizes, const std::int64_t* starts,
                  Order order, const Datatype& oldtype) {
  const char* where = "KokkosDDT::subarray";
  if (ndims < 1)
    throw_error(ErrorCode::InvalidArgument, where, "ndims", "is " + std::to_string(ndims) + "; must be >= 1");
  require_array(ndims, sizes, where, "sizes");
  require_array(ndims, subsizes, where, "subsizes");
  require_array(ndims, starts, where, "starts");
  const TypeNode& c = checked_node(oldtype, where, "oldtype");
  if (order != Order::C && order != Order::Fortran)
    throw_error(ErrorCode::InvalidArgument, where, "order", "is neither Order::C nor Order::Fortran");
  for (int i = 0; i < ndims; ++i) {
    if (sizes[i] < 1)
      throw_error(ErrorCode::InvalidArgument, where, element("sizes", i),
                  "is " + std::to_string(sizes[i]) + "; must be >= 1");
    if (subsizes[i] < 1 || subsizes[i] > sizes[i])
      throw_error(ErrorCode::InvalidArgument, where, element("subsizes", i),
                  "is " + std::to_string(subsizes[i]) + "; must be in [1, sizes[" + std::to_string(i) +
                      "] = " + std::to_string(sizes[i]) + "]");
    if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i])
      throw_error(ErrorCode::InvalidArgument, where, element("starts", i),
                  "is " + std::to_string(starts[i]) + "; starts + subsizes must not exceed sizes (" +
                      std::to_string(subsizes[i]) + " + start > " + std::to_string(sizes[i]) + ")");
  }
  auto n = derived(Combiner::Subarray, c, oldtype.impl_node_ptr());
  n->sizes.assign(sizes, sizes + ndims);
  n->subsizes.assign(subsizes, subsizes + ndims);
  n->starts.assign(starts, starts + ndims);
  n->order = order;

  // MPICH builds hvector(subsize[d], 1, pitch[d], ...) from the fastest dimension out, places the corner with a
  // one-block hindexed_block and resizes to [0, whole array). The true bounds come from that chain.
  std::int64_t copies = 1, pitch = c.extent(), corner = 0;
  Bounds chain = hvector_bounds(c, 0, 1, 1, 0, where);
  TypeNode level;  // properties of the chain built so far
  for (int k = 0; k < ndims; ++k) {
    const int d = order == Order::C ? ndims - 1 - k : k;
    corner = checked_add(corner, checked_mul(starts[d], pitch, where, "starts"), where, "starts");
    level.lb = chain.lb;
    level.ub = chain.ub;
    level.true_lb = chain.true_lb;
    level.true_ub = chain.true_ub;
    chain = hvector_bounds(level, 0, subsizes[d], 1, pitch, where);
    copies = checked_mul(copies, subsizes[d], where, "subsizes");
    pitch = checked_mul(pitch, sizes[d], where, "sizes");
  }
  set_uniform_content(*n, c, copies, 1, where);
  n->lb = 0;
  n->ub = pitch;
  if (c.size > 0) {  // over an empty old type the chain is the zero-length type
    n->true_lb = checked_add(chain.true_lb, corner, where, "starts");
    n->true_ub = checked_add(chain.true_ub, corner, where, "starts");
  }
  return finish(n, where, "sizes");
}

Datatype subarray(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& subsizes,
                  const std::vector<std::int64_t>& starts, Order order, const Datatype& oldtype) {
  const char* where = "KokkosDDT::subarray";
  if (subsizes.size() != sizes.size())
    throw_error(ErrorCode::InvalidArgument, where, "subsizes",
                "has " + std::to_string(subsizes.size()) + " entries but sizes has " + std::to_string(sizes.size()));
  if (starts.size() != sizes.size())
    throw_error(ErrorCode::InvalidArgument, where, "starts",
                "has " + std::to_string(starts.size()) + " entries but sizes has " + std::to_string(sizes.size()));
  return subarray(static_cast<int>(sizes.size()), sizes.data(), subsizes.data(), starts.data(), order, oldtype);
}

Datatype struct_type(std::int64_t count, const std::int64_t* blocklengths, const std::int64_t* displacements_bytes,
                     const Datatype* types) {
  const char* where = "KokkosDDT::struct_type";
  require_nonnegative(count, where, "count");
  require_array(count, blocklengths, where, "blocklengths");
  require_array(count, displacements_bytes, where, "displacements");
  require_array(count, types, where, "types");
  auto n = std::make_shared<TypeNode>();
  n->combiner = Combiner::Struct;
  n->count = count;
  n->blocklengths.assign(blocklengths, blocklengths + count);
  n->displacements.assign(displacements_bytes, displacements_bytes + count);
  Bounds bounds;
  bool homogeneous = true;
  const void* identity = nullptr;
  for (std::int64_t i = 0; i < count; ++i) {
    require_nonnegative_at(blocklengths[i], where, "blocklengths", static_cast<std::size_t>(i));
    const TypeNode& c = checked_node_at(types[i], where, "types", static_cast<std::size_t>(i));
    n->children.push_back(types[i].impl_node_ptr());
    const void* id = yaksa_identity(c);
    if (i > 0 && id != identity) homogeneous = false;
    identity = id;
    if (blocklengths[i] == 0) continue;
    n->size = checked_add(n->size, checked_mul(blocklengths[i], c.size, where, "blocklengths"), where, "blocklengths");
    n->num_primitives = checked_add(n->num_primitives, checked_mul(blocklengths[i], c.num_primitives, where, "count"),
                                    where, "blocklengths");
    n->signature = concat(n->signature, repeat(c.signature, blocklengths[i]));
    n->primitives |= c.primitives;
    n->alignment = std::max(n->alignment, c.alignment);
    bounds.merge(hvector_bounds(c, displacements_bytes[i], 1, blocklengths[i], 0, where));
  }
  if (n->size == 0) return make_zero_length(*n), finish(n, where, "displacements");
  if (homogeneous) n->alignment = n->child().alignment;
  set_bounds(*n, bounds);
  require_representable(*n, where, "displacements");
  if (!homogeneous) {  // pad the extent to the largest alignment
    const std::int64_t rem = (n->ub - n->lb) % n->alignment;
    if (rem) n->ub = checked_add(n->ub, n->alignment - rem, where, "displacements");
  }
  return finish(n, where, "displacements");
}

Datatype struct_type(const std::vector<std::int64_t>& blocklengths,
                     const std::vector<std::int64_t>& displacements_bytes, const std::vector<Datatype>& types) {
  const char* where = "KokkosDDT::struct_type";
  require_same_length(blocklengths.size(), displacements_bytes.size(), where, "displacements");
  require_same_length(blocklengths.size(), types.size(), where, "types");
  return struct_type(blocklengths.size(), blocklengths.data(), displacements_bytes.data(), types.data());
}

Datatype resized(const Datatype& oldtype, std::int64_t lb, std::int64_t extent) {
  const char* where = "KokkosDDT::resized";
  const TypeNode& c = checked_node(oldtype, where, "oldtype");
  require_nonnegative(extent, where, "extent");
  auto n = derived(Combiner::Resized, c, oldtype.impl_node_ptr());
  n->resized_lb = lb;
  n->resized_extent = extent;
  n->size = c.size;
  n->num_primitives = c.num_primitives;
  n->signature = c.signature;
  n->primitives = c.primitives;
  n->lb = lb;
  n->ub = checked_add(lb, extent, where, "extent");
  n->true_lb = c.true_lb;
  n->true_ub = c.true_ub;
  return finish(n, where, "lb");
}

Datatype dup(const Datatype& oldtype) {
  const char* where = "KokkosDDT::dup";
  const TypeNode& c = checked_node(oldtype, where, "oldtype");
  auto n = derived(Combiner::Dup, c, oldtype.impl_node_ptr());
  n->size = c.size;
  n->num_primitives = c.num_primitives;
  n->signature = c.signature;
  n->primitives = c.primitives;
  n->lb = c.lb;
  n->ub = c.ub;
  n->true_lb = c.true_lb;
  n->true_ub = c.true_ub;
  return finish(n, where, "oldtype");
}

}  // namespace KokkosDDT
