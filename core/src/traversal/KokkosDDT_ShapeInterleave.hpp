// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Devices: a transfer of a canonical shape (KokkosDDT_Shape.hpp), one word per thread, neighbouring threads on
// neighbouring words (the packed side coalesced). A word's typed address comes from its stream position by the shape's
// own arithmetic: a Contig shape adds its displacement; a Strided one divides by the run length and by each level's
// count (the commit-time magic numbers, in 32 bits where every position fits), with no descriptor read and no walk.
// What the general traversal spends per word locating a position in a descriptor, this spends on a few multiplies.

#include <cstdint>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Shape.hpp"
#include "KokkosDDT_Words.hpp"

namespace KokkosDDT::Impl {

// Dir: Pack or Unpack; W: the word size (every run and offset is a multiple of it); Small: every stream position is
// below 2^31 (32-bit divisions).
template <Direction Dir, int W, bool Small>
struct ShapeInterleave {
  static_assert(Dir == Direction::Pack || Dir == Direction::Unpack, "a shape's transfer has one direction");
  Shape shape;
  char* typed = nullptr;   // origin of displacement 0 (null with absolute addresses)
  char* packed = nullptr;  // holds stream bytes [begin, end)
  std::int64_t begin = 0, end = 0;

  std::int64_t items() const { return (end - begin) / W; }

  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    const std::int64_t p = begin + i * W;
    if (p >= end) return;
    char* t = address_at(typed, offset(p));
    char* k = packed + (p - begin);
    if constexpr (Dir == Direction::Pack)
      store_word<W>(k, load_word<W>(t));
    else
      store_word<W>(t, load_word<W>(k));
  }

  // The typed offset of stream byte p.
  KOKKOS_FUNCTION std::int64_t offset(std::int64_t p) const {
    if (shape.kind == Shape::Kind::Contig) return shape.disp + p;
    std::int64_t q = divide(shape.div_block, p);
    std::int64_t at = shape.disp + (p - q * shape.block);
    for (int l = shape.levels - 1; l > 0; --l) {  // (the outermost level takes what is left: no division)
      const std::int64_t above = divide(shape.div_count[l], q);
      at += (q - above * shape.count[l]) * shape.stride[l];
      q = above;
    }
    return at + q * shape.stride[0];
  }

  KOKKOS_FORCEINLINE_FUNCTION static std::int64_t divide(const Divisor& d, std::int64_t n) {
    if constexpr (Small)
      return static_cast<std::int64_t>(d.divide32(static_cast<std::uint32_t>(n)));
    else
      return d.divide(n);
  }
};

}  // namespace KokkosDDT::Impl
