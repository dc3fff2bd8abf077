// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Devices: a transfer of a canonical shape (KokkosDDT_Shape.hpp), one word per thread, neighbouring threads on
// neighbouring words (the packed side coalesced). A word's typed address comes from its stream position by the shape's
// own arithmetic (shape_offset): what the general traversal spends per word locating a position in a descriptor, this
// spends on a few multiplies.

#include <cstdint>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_ShapeOffset.hpp"
#include "KokkosDDT_Words.hpp"

namespace KokkosDDT::Impl {

// Dir: Pack, Unpack, or Copy (typed to typed between two types of one shape, same_shape); W: the word size (every run
// and offset is a multiple of it); Narrow: shape_narrow(shape, end) (32-bit arithmetic).
template <Direction Dir, int W, bool Narrow>
struct ShapeInterleave {
  static_assert(Dir != Direction::Runtime, "a shape's transfer has one direction");
  Shape shape;
  const std::int64_t* lookaside = nullptr;  // the type's, in the execution space's memory (listed levels only)
  char* typed = nullptr;                    // origin of displacement 0 (null with absolute addresses)
  char* packed = nullptr;  // holds stream bytes [begin, end); a copy's destination origin (moved by the types' delta)
  std::int64_t begin = 0, end = 0;

  std::int64_t items() const { return (end - begin) / W; }

  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    const std::int64_t p = begin + i * W;
    if (p >= end) return;
    const std::int64_t at = shape_offset<Narrow>(shape, lookaside, p);
    char* t = address_at(typed, at);
    if constexpr (Dir == Direction::Copy)
      store_word<W>(address_at(packed, at), load_word<W>(t));
    else if constexpr (Dir == Direction::Pack)
      store_word<W>(packed + (p - begin), load_word<W>(t));
    else
      store_word<W>(t, load_word<W>(packed + (p - begin)));
  }
};

}  // namespace KokkosDDT::Impl
