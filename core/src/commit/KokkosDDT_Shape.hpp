// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A committed type's canonical shape: what its normalized descriptor is, when it is one of a small closed set that code
// compiled for it moves without walking the descriptor.
//
//   Contig   one dense run: stream byte p at typed offset disp + p (a contiguous type, and any count of it).
//   Strided  dense runs of `block` bytes on a grid of up to kMaxShapeLevels strided levels, outermost first: stream
//            byte p = q * block + r lies at typed offset disp + sum(i_l * stride[l]) + r, where the i_l are the digits
//            of q in the levels' counts (the innermost fastest). A vector, a column, a face of a 2-D or 3-D subarray;
//            the instance level (instances one extent apart) is the outermost, so any count of them too.
//   General  anything else (index lists, structs of several fields, irregular blocks): the descriptor's walk.
//
// The rule (shape_of) reads only the serialized nodes: from the root, every node is Strided with one child whose
// packed size is the element's, down to a terminal Strided node (its dense elements are the runs) or a terminal Contig
// node. Normalization has already folded what can be folded (nested strided levels that form one, contiguous children,
// counts of one), so the rule needs no knowledge of how the type was built.

#include <cstdint>

#include "KokkosDDT_Descriptor.hpp"

namespace KokkosDDT::Impl {

inline constexpr int kMaxShapeLevels = 4;  // the instance level and three below it

struct Shape {
  enum class Kind : std::int8_t { General, Contig, Strided };
  Kind kind = Kind::General;
  int levels = 0;          // Strided: 1 .. kMaxShapeLevels
  std::int64_t disp = 0;   // typed offset of stream byte 0
  std::int64_t block = 0;  // Strided: bytes of one dense run
  std::int64_t count[kMaxShapeLevels] = {};
  std::int64_t stride[kMaxShapeLevels] = {};
  Divisor div_block;                   // divides by block
  Divisor div_count[kMaxShapeLevels];  // divides by count[l] (the outermost level's is never used)
};

// The magic numbers of a Strided shape's divisions (host only: commit time).
inline Shape with_divisors(Shape s) {
  s.div_block = Divisor::make(s.block);
  for (int l = 1; l < s.levels; ++l) s.div_count[l] = Divisor::make(s.count[l]);
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
    if (n.kind != LayoutKind::Strided || s.levels == kMaxShapeLevels) return Shape{};
    s.count[s.levels] = n.count;
    s.stride[s.levels] = n.stride;
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
