// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The point-based traversal (jenkins-tpds14, Algorithms 1-2): from a packed byte position alone, find where that byte
// lives in the typed buffer. No state is carried between positions, so any thread can start anywhere; the same code
// serves pack and unpack and every execution space.
//
// locate() descends the serialized tree, at each level dividing the position by the element size (a multiply-high,
// see Divisor) or binary-searching a prefix sum (Indexed, Struct), until it reaches a terminal block: a contiguous
// run. It returns that block, so that a caller walking consecutive positions can step to the next block of the same
// node in O(1) (block_span) instead of descending again.

#include <cstdint>

#include <Kokkos_Macros.hpp>

#include "KokkosDDT_Descriptor.hpp"

namespace KokkosDDT::Impl {

// Position p of a type's packed stream, resolved to a terminal block.
struct Hit {
  const DescriptorNode* node;  // the terminal node
  std::int64_t block;          // block index within it
  std::int64_t base;           // typed-buffer offset of the node's origin (its disp included)
  std::int64_t inner;          // bytes into the block
};

// A contiguous run of the typed buffer: [offset, offset + length).
struct Span {
  std::int64_t offset;
  std::int64_t length;  // 0: block `b` is not terminal (a Struct field with a derived child)
};

// Largest b in [lo, hi] with prefix[b] <= p, given prefix[lo] <= p < prefix[hi + 1] (blocks are non-empty, so prefix
// is strictly increasing).
KOKKOS_FORCEINLINE_FUNCTION std::int64_t bisect_blocks(const std::int64_t* prefix, std::int64_t lo, std::int64_t hi,
                                                       std::int64_t p) {
  ++hi;  // invariant: prefix[lo] <= p < prefix[hi]
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (prefix[mid] <= p)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

// Largest b in [0, count) with prefix[b] <= p.
//
// Without a bucket table, the search starts where the block would be if all blocks had the same length and gallops
// outwards from there before bisecting: O(1) probes when block lengths are even, O(log distance) otherwise, never
// worse than O(log count). With one (long block lists, see Lookaside), the block lies between the entries of p's
// bucket and the next: two neighbouring loads and a bisection over the few blocks starting in that bucket, whatever
// the lengths. On a GPU each probe is a dependent load, so the probes saved are latency saved.
KOKKOS_INLINE_FUNCTION std::int64_t find_block(const DescriptorNode* n, const std::int64_t* la, std::int64_t p) {
  const std::int64_t* prefix = Lookaside::prefix(n, la);
  const std::int64_t count = n->count;
  if (n->bucket_shift >= 0) {
    const std::int64_t* bucket = Lookaside::buckets(n, la) + (p >> n->bucket_shift);
    return bisect_blocks(prefix, bucket[0], bucket[1], p);
  }
  const double fraction = static_cast<double>(p) / static_cast<double>(prefix[count]);
  std::int64_t guess = static_cast<std::int64_t>(fraction * static_cast<double>(count));
  guess = guess < 0 ? 0 : guess >= count ? count - 1 : guess;
  std::int64_t lo, hi;  // invariant: prefix[lo] <= p < prefix[hi]
  if (prefix[guess] <= p) {
    lo = guess;
    std::int64_t step = 1;
    hi = lo + 1;
    while (hi < count && prefix[hi] <= p) {
      lo = hi;
      step *= 2;
      hi = lo + step < count ? lo + step : count;
    }
  } else {
    hi = guess;
    std::int64_t step = 1;
    lo = hi - 1;
    while (lo > 0 && prefix[lo] > p) {
      hi = lo;
      step *= 2;
      lo = hi - step > 0 ? hi - step : 0;
    }
  }
  return bisect_blocks(prefix, lo, hi - 1, p);
}

// Block b of terminal node n whose origin is at `base`.
KOKKOS_FORCEINLINE_FUNCTION Span block_span(const DescriptorNode* n, const std::int64_t* la, std::int64_t b,
                                            std::int64_t base) {
  switch (n->kind) {
    case LayoutKind::Contig:
      return {base, n->size};
    case LayoutKind::Strided:
      return {base + b * n->stride, n->elem};
    case LayoutKind::IndexedBlock:
      return {base + Lookaside::block_disps(n, la)[b], n->elem};
    case LayoutKind::Indexed: {
      const std::int64_t* prefix = Lookaside::prefix(n, la);
      return {base + Lookaside::disps(n, la)[b], prefix[b + 1] - prefix[b]};
    }
    default: {  // Struct: terminal fields only
      if (Lookaside::children(n, la)[b] >= 0) return {0, 0};
      const std::int64_t* prefix = Lookaside::prefix(n, la);
      return {base + Lookaside::disps(n, la)[b], prefix[b + 1] - prefix[b]};
    }
  }
}

// One non-terminal level on the way down to a terminal block: which element of `node` a position lies in.
struct Level {
  const DescriptorNode* node;
  std::int64_t block;   // block (Struct: field) index
  std::int64_t elem;    // element within the block (Indexed, Struct; 0 where blocks hold one element)
  std::int64_t origin;  // typed-buffer offset of the node's origin (its disp included)
};

struct NoPath {
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const Level&) const {}
};

// A walk whose positions are all below this may divide them in 32 bits (locate<std::uint32_t>).
inline constexpr std::int64_t kPositions32 = 0x7fffffff;

// p / d for a position of type Pos (see locate).
template <class Pos>
KOKKOS_FORCEINLINE_FUNCTION Pos divide_position(const Divisor& d, Pos p) {
  if constexpr (sizeof(Pos) == 4)
    return d.divide32(p);
  else
    return d.divide(p);
}

// Resolves packed byte p, 0 <= p < nodes[0].size (the descriptor's root is the instance level, so p may lie in any
// instance). `path` sees each non-terminal level passed on the way (Cursor records them; the default ignores them).
// `first`: start at that node (one of `nodes`, or a copy of one) instead of the root, p relative to it and the Hit's
// base without the levels above it (the device launches skip levels whose one element holds the whole transfer, see
// skip_common_levels).
//
// Resolved: the Hit's base is the terminal block's own offset (base + what block_span adds), computed where the walk
// ends, in the case that already knows the node's kind; a device's word needs its address and nothing else, and
// block_span's second dispatch on the kind would be a sizable share of a face copy's instructions per word.
//
// Pos: the type positions are divided in. std::uint32_t where every position of the walk is below 2^31 (the device
// launches check it per launch): a GPU then divides with one 32-bit multiply-high and multiplies back with one
// instruction, where 64-bit positions take a chain of four or more (over half of a level's instructions).
// Unsigned, so that widening a block index or an offset into the block to 64 bits costs nothing. Offsets stay 64-bit.
template <class Pos = std::int64_t, bool Resolved = false, class Path = NoPath>
KOKKOS_INLINE_FUNCTION Hit locate(const DescriptorNode* nodes, const std::int64_t* la, std::int64_t position,
                                  Path&& path = Path(), const DescriptorNode* first = nullptr) {
  const DescriptorNode* n = first ? first : nodes;
  Pos p = static_cast<Pos>(position);
  std::int64_t off = 0;
  while (true) {
    off += n->disp;
    switch (n->kind) {
      case LayoutKind::Contig:
        return {n, 0, off, p};
      case LayoutKind::Strided:
      case LayoutKind::IndexedBlock: {
        // (elem may not fit Pos only where it exceeds p: then b = 0, and so is the product)
        const Pos b = divide_position(n->div_elem, p);
        p -= b * static_cast<Pos>(n->elem);
        const auto block_at = [&] {
          return n->kind == LayoutKind::Strided ? b * n->stride : Lookaside::block_disps(n, la)[b];
        };
        if (n->child < 0) return {n, b, Resolved ? off + block_at() : off, p};
        path(Level{n, b, 0, off});
        off += block_at();
        n = nodes + n->child;
        continue;
      }
      case LayoutKind::Indexed: {
        const std::int64_t b = find_block(n, la, p);
        p -= static_cast<Pos>(Lookaside::prefix(n, la)[b]);
        if (n->child < 0) return {n, b, Resolved ? off + Lookaside::disps(n, la)[b] : off, p};
        const Pos e = divide_position(n->div_elem, p);
        p -= e * static_cast<Pos>(n->elem);
        path(Level{n, b, e, off});
        off += Lookaside::disps(n, la)[b] + e * n->elem_extent;
        n = nodes + n->child;
        continue;
      }
      default: {  // LayoutKind::Struct
        const std::int64_t b = find_block(n, la, p);
        p -= static_cast<Pos>(Lookaside::prefix(n, la)[b]);
        const std::int64_t c = Lookaside::children(n, la)[b];
        if (c < 0) return {n, b, Resolved ? off + Lookaside::disps(n, la)[b] : off, p};
        const DescriptorNode* child = nodes + c;
        const Pos e = divide_position(child->div_size, p);
        p -= e * static_cast<Pos>(child->size);
        path(Level{n, b, e, off});
        off += Lookaside::disps(n, la)[b] + e * child->extent;
        n = child;
        continue;
      }
    }
  }
}

}  // namespace KokkosDDT::Impl
