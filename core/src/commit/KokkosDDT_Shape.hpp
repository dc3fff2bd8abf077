// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A committed type's canonical shape: what its normalized descriptor is, when it is one of a small closed set that code
// compiled for it moves without walking the descriptor.
//
//   Contig   one dense run: stream byte p at typed offset disp + p (a contiguous type, and any count of it).
//   Strided  dense runs of `block` bytes on a grid of up to kMaxShapeLevels levels, outermost first: stream byte
//            p = q * block + r lies at typed offset disp + sum(offset_l(i_l)) + r, where the i_l are the digits of q in
//            the levels' counts (the innermost fastest) and a level's offset is i * stride (a strided level) or the
//            i-th entry of a displacement list in the lookaside (a listed level). A vector, a column, a face of a 2-D
//            or 3-D subarray (strided levels); an indexed block of constant length (a listed level over runs); a
//            struct of one shaped field at several addresses, such as a halo message's fields (a listed level above
//            strided ones). The instance level (instances one extent apart) is the outermost, so any count of them too.
//   General  anything else (index lists of varying lengths, structs of fields of different layouts, deeper grids):
//            the descriptor's walk.
//
// The rule (shape_of) reads only the serialized nodes: from the root, every node is Strided or IndexedBlock with one
// child whose packed size is the element's, down to a terminal Strided or IndexedBlock node (its dense elements are the
// runs) or a terminal Contig node. Normalization has already folded what can be folded (nested strided levels that form
// one, contiguous children, counts of one, structs of one layout into indexed blocks), so the rule needs no knowledge
// of how the type was built. To add a shape: a Kind, its rule here, its offset (KokkosDDT_ShapeOffset.hpp) and the
// engines' dispatch (docs/DESIGN.md, "Canonical shapes").

#include <cstdint>

#include "KokkosDDT_Descriptor.hpp"

namespace KokkosDDT::Impl {

inline constexpr int kMaxShapeLevels = 4;  // the instance level and three below it

struct Shape {
  enum class Kind : std::int8_t { General, Contig, Strided };
  Kind kind = Kind::General;
  // Strided: the run and the inner strided levels span less than 2^31 bytes (block + the sum over levels 1.. of
  // |stride| * (count - 1)) and each inner count is below 2^31, so that their offsets sum in 32 bits (shape_offset).
  bool narrow = false;
  int levels = 0;          // Strided: 1 .. kMaxShapeLevels
  std::int64_t disp = 0;   // typed offset of stream byte 0
  std::int64_t block = 0;  // Strided: bytes of one dense run
  std::int64_t count[kMaxShapeLevels] = {};
  std::int64_t stride[kMaxShapeLevels] = {};
  // A listed level's displacements: their first entry in the lookaside; -1: a strided level.
  std::int64_t list[kMaxShapeLevels] = {-1, -1, -1, -1};
  Divisor div_block;                   // divides by block
  Divisor div_count[kMaxShapeLevels];  // divides by count[l] (the outermost level's is never used)

  // Whether any level is listed (its code then reads the lookaside).
  KOKKOS_FUNCTION bool listed() const {
    for (int l = 0; l < levels; ++l)
      if (list[l] >= 0) return true;
    return false;
  }
};

// Whether a Strided shape's run and inner strided levels span less than 2^31 bytes (Shape::narrow).
inline bool narrow_shape(const Shape& s) {
  constexpr std::int64_t limit = std::int64_t(1) << 31;
  unsigned __int128 span = static_cast<std::uint64_t>(s.block);  // (below 2^96: no overflow)
  for (int l = 1; l < s.levels; ++l) {
    if (s.count[l] >= limit) return false;
    const std::uint64_t stride = s.stride[l] < 0 ? 0 - static_cast<std::uint64_t>(s.stride[l]) : s.stride[l];
    if (s.list[l] < 0) span += static_cast<unsigned __int128>(stride) * static_cast<std::uint64_t>(s.count[l] - 1);
  }
  return span < static_cast<unsigned __int128>(limit);
}

// The magic numbers of a Strided shape's divisions and whether it is narrow (host only: commit time).
inline Shape with_divisors(Shape s) {
  s.div_block = Divisor::make(s.block);
  for (int l = 1; l < s.levels; ++l) s.div_count[l] = Divisor::make(s.count[l]);
  s.narrow = s.kind == Shape::Kind::Strided && narrow_shape(s);
  return s;
}

inline Shape shape_of(const DescriptorNode* nodes) {
  Shape s;
  for (std::int32_t i = 0;;) {
    const DescriptorNode& n = nodes[i];
    s.disp += n.disp;
    if (n.kind == LayoutKind::Contig && n.child < 0) {
      if (s.levels == 0) {
        s.kind = Shape::Kind::Contig;
      } else {  // (a strided level over dense elements that normalization left as a child)
        s.block = n.size;
        s.kind = Shape::Kind::Strided;
      }
      return with_divisors(s);
    }
    const bool listed = n.kind == LayoutKind::IndexedBlock;
    if ((n.kind != LayoutKind::Strided && !listed) || s.levels == kMaxShapeLevels) return Shape{};
    s.count[s.levels] = n.count;
    s.stride[s.levels] = listed ? 0 : n.stride;
    s.list[s.levels] = listed ? n.lookaside : -1;
    ++s.levels;
    if (n.child < 0) {
      s.block = n.elem;
      s.kind = Shape::Kind::Strided;
      return with_divisors(s);
    }
    if (nodes[n.child].size != n.elem) return Shape{};  // (its element is the child: always so when serialized)
    i = n.child;
  }
}

}  // namespace KokkosDDT::Impl
