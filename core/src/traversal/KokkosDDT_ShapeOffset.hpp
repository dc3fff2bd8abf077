// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A canonical shape's address arithmetic (KokkosDDT_Shape.hpp): the typed offset of a stream position, from the
// shape's few parameters and, for listed levels, one lookaside entry per listed level. Shared by every engine that
// moves shapes on devices (ShapeInterleave for single launches, FusedTile for fused ones).

#include <cstdint>

#include <Kokkos_Macros.hpp>

#include "KokkosDDT_Shape.hpp"

namespace KokkosDDT::Impl {

// Whether positions below `end` of shape `s` take the narrow arithmetic (shape_offset<true>): every position below 2^31
// and the shape narrow (Shape::narrow).
KOKKOS_FORCEINLINE_FUNCTION bool shape_narrow(const Shape& s, std::int64_t end) {
  return s.narrow && end <= (std::int64_t(1) << 31);
}

// Level l's offset of its element i: i strides, or the i-th entry of its list.
KOKKOS_FORCEINLINE_FUNCTION std::int64_t shape_level_offset(const Shape& s, const std::int64_t* lookaside, int l,
                                                            std::int64_t i) {
  return s.list[l] < 0 ? i * s.stride[l] : lookaside[s.list[l] + i];
}

// The typed offset of stream byte p of a Contig or Strided shape: divided by the run length and by each level's count
// (the commit-time magic numbers), with no descriptor read and no walk. The levels' loop has a constant trip count, so
// that it unrolls into straight code reading each level's fields at fixed offsets (levels past the shape's skipped).
// Narrow (shape_narrow): the divisions and the inner strided levels' offsets in 32 bits, where a 64-bit multiply takes
// several instructions on a GPU; the outermost level and listed entries (fields' addresses) stay 64-bit.
template <bool Narrow>
KOKKOS_FUNCTION std::int64_t shape_offset(const Shape& s, const std::int64_t* lookaside, std::int64_t p) {
  if (s.kind == Shape::Kind::Contig) return s.disp + p;
  if constexpr (Narrow) {
    using U = std::uint32_t;
    U q = s.div_block.divide32(static_cast<U>(p));
    U near = static_cast<U>(p) - q * static_cast<U>(s.block);  // (unsigned: negative strides wrap, and sum, exactly)
    std::int64_t far = s.disp;
    for (int l = kMaxShapeLevels - 1; l > 0; --l) {
      if (l >= s.levels) continue;
      const U above = s.div_count[l].divide32(q), i = q - above * static_cast<U>(s.count[l]);
      if (s.list[l] < 0)
        near += i * static_cast<U>(s.stride[l]);
      else
        far += lookaside[s.list[l] + i];
      q = above;
    }
    return far + static_cast<std::int32_t>(near) + shape_level_offset(s, lookaside, 0, q);
  } else {
    std::int64_t q = s.div_block.divide(p);
    std::int64_t at = s.disp + (p - q * s.block);
    for (int l = kMaxShapeLevels - 1; l > 0; --l) {  // (the outermost level takes what is left: no division)
      if (l >= s.levels) continue;
      const std::int64_t above = s.div_count[l].divide(q);
      at += shape_level_offset(s, lookaside, l, q - above * s.count[l]);
      q = above;
    }
    return at + shape_level_offset(s, lookaside, 0, q);
  }
}

}  // namespace KokkosDDT::Impl
