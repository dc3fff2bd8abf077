// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A canonical shape's address arithmetic (KokkosDDT_Shape.hpp): the typed offset of a stream position, from the
// shape's few parameters and, for listed levels, one lookaside entry per listed level. Shared by every engine that
// moves shapes on devices (ShapeInterleave for single launches, FusedTile for fused ones).

#include <cstdint>

#include <Kokkos_Macros.hpp>

#include "KokkosDDT_Shape.hpp"

namespace KokkosDDT::Impl {

// Small: every stream position is below 2^31 (the divisions in 32 bits).
template <bool Small>
KOKKOS_FORCEINLINE_FUNCTION std::int64_t shape_divide(const Divisor& d, std::int64_t n) {
  if constexpr (Small)
    return static_cast<std::int64_t>(d.divide32(static_cast<std::uint32_t>(n)));
  else
    return d.divide(n);
}

// Level l's offset of its element i: i strides, or the i-th entry of its list.
KOKKOS_FORCEINLINE_FUNCTION std::int64_t shape_level_offset(const Shape& s, const std::int64_t* lookaside, int l,
                                                            std::int64_t i) {
  return s.list[l] < 0 ? i * s.stride[l] : lookaside[s.list[l] + i];
}

// The typed offset of stream byte p of a Contig or Strided shape: divided by the run length and by each level's count
// (the commit-time magic numbers), with no descriptor read and no walk. The levels' loop has a constant trip count, so
// that it unrolls into straight code reading each level's fields at fixed offsets (levels past the shape's skipped).
template <bool Small>
KOKKOS_FUNCTION std::int64_t shape_offset(const Shape& s, const std::int64_t* lookaside, std::int64_t p) {
  if (s.kind == Shape::Kind::Contig) return s.disp + p;
  std::int64_t q = shape_divide<Small>(s.div_block, p);
  std::int64_t at = s.disp + (p - q * s.block);
  for (int l = kMaxShapeLevels - 1; l > 0; --l) {  // (the outermost level takes what is left: no division)
    if (l >= s.levels) continue;
    const std::int64_t above = shape_divide<Small>(s.div_count[l], q);
    at += shape_level_offset(s, lookaside, l, q - above * s.count[l]);
    q = above;
  }
  return at + shape_level_offset(s, lookaside, 0, q);
}

}  // namespace KokkosDDT::Impl
