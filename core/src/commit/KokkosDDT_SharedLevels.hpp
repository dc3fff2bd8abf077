// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The levels of a serialized type that a range of stream bytes shares: where its walks may start, and whether the range
// is one dense run of bytes (a transfer that then needs no traversal at all).

#include <cstdint>

#include "KokkosDDT_Descriptor.hpp"

namespace KokkosDDT::Impl {

// Where the walks of stream bytes [begin, end) may start: below the descriptor levels that one element of theirs
// covers for the whole range. A strided or listed level whose element holds every position moved adds the same offset
// to every address, so a launch adds it once instead of every thread descending through it (one dependent descriptor
// read fewer per word; a single-instance transfer always skips the instance level). Node `start`, stream position
// `at` (subtracted from each position) and typed offset `disp` (added to each address). `nodes`, `lookaside`: the
// host copy.
struct SharedLevels {
  std::int32_t start = 0;
  std::int64_t at = 0;
  std::int64_t disp = 0;
};
inline SharedLevels shared_levels(const DescriptorNode* nodes, const std::int64_t* lookaside, std::int64_t begin,
                                  std::int64_t end) {
  SharedLevels s;
  while (true) {
    const DescriptorNode& n = nodes[s.start];
    if ((n.kind != LayoutKind::Strided && n.kind != LayoutKind::IndexedBlock) || n.child < 0) break;
    const std::int64_t e = (begin - s.at) / n.elem;
    if ((end - 1 - s.at) / n.elem != e) break;
    s.disp += n.disp + (n.kind == LayoutKind::Strided ? e * n.stride : lookaside[n.lookaside + e]);
    s.at += e * n.elem;
    s.start = n.child;
  }
  return s;
}

// Whether stream bytes [0, bytes) of a type (nodes, lookaside: the host copy) are one dense run of typed bytes; if so,
// its offset from the buffer's origin. They are when, below the levels they share, they lie in one dense block: a
// contiguous level, or one block of a strided, listed or indexed level (or one field of a struct) that holds them all.
// So one instance of a resized or strided type whose element is dense travels as it is.
inline bool dense_run(const DescriptorNode* nodes, const std::int64_t* lookaside, std::int64_t bytes,
                      std::int64_t& offset) {
  offset = 0;
  if (bytes <= 0) return true;
  const SharedLevels s = shared_levels(nodes, lookaside, 0, bytes);  // (from position 0: s.at is 0)
  const DescriptorNode& n = nodes[s.start];
  std::int64_t block = 0;  // the first block's displacement
  switch (n.kind) {
    case LayoutKind::Contig:
      break;
    case LayoutKind::Strided:
    case LayoutKind::IndexedBlock:
      if (n.child >= 0 || bytes > n.elem) return false;
      block = n.kind == LayoutKind::Strided ? 0 : Lookaside::block_disps(&n, lookaside)[0];
      break;
    case LayoutKind::Indexed:
      if (n.child >= 0 || bytes > Lookaside::prefix(&n, lookaside)[1]) return false;
      block = Lookaside::disps(&n, lookaside)[0];
      break;
    default:  // Struct: its first field, where terminal
      if (Lookaside::children(&n, lookaside)[0] >= 0 || bytes > Lookaside::prefix(&n, lookaside)[1]) return false;
      block = Lookaside::disps(&n, lookaside)[0];
  }
  offset = s.disp + n.disp + block;
  return true;
}

}  // namespace KokkosDDT::Impl
