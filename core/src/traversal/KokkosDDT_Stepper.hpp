// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A device thread's walk over the positions p, p + step, p + 2 step, ... of a packed stream (the interleaved layout:
// each thread's words are a team's width apart), with each position's typed-buffer offset found by strength reduction
// instead of a descent per word.
//
// The rule: where every level from the walk's start down to the terminal node is strided or block-listed (or the
// terminal is contiguous), every position passes the same nodes, and a position is a mixed-radix number: one digit
// per level (the block index, radix the level's count) and the bytes into the terminal block (radix its element
// size). The step is such a number too, computed once; moving to the next position adds it digit by digit with
// carries (an add, a compare and a select per level) where locate() divides at every level and reads every node it
// passes. Levels above the terminal are at most kLevels deep (a 3D subarray under the instance level); deeper or
// irregular types (an indexed or struct level on the way) locate each position, as before.
//
// The offsets are exactly locate()'s: Test_DeviceLayout and Test_Copy run both paths on random types.

#include <cstdint>

#include <Kokkos_Macros.hpp>

#include "KokkosDDT_Traversal.hpp"

// The levels' loops have a constant trip count and run-time guards, unrolled so that the per-level arrays stay in
// registers (a GPU puts an array indexed at run time in local memory).
#if defined(__CUDACC__) || defined(__clang__)
#define KOKKOSDDT_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define KOKKOSDDT_UNROLL _Pragma("GCC unroll 4")
#else
#define KOKKOSDDT_UNROLL
#endif

namespace KokkosDDT::Impl {

class Stepper {
 public:
  static constexpr int kLevels = 3;

  // A stream distance in the walk's digits (regular walks), or as bytes (others: `inner` holds it).
  struct Digits {
    std::int64_t block[kLevels];  // [0]: the terminal level
    std::int64_t inner;
  };

  // The walk from node `start` (one of `nodes`, p relative to it: see locate()) at position p.
  KOKKOS_INLINE_FUNCTION Stepper(const DescriptorNode* nodes, const std::int64_t* la, const DescriptorNode* start,
                                 std::int64_t p)
      : nodes_(nodes), la_(la), start_(start) {
    // The chain of nodes from the start down, top first, while it stays regular and within kLevels.
    const DescriptorNode* chain[kLevels] = {};
    const DescriptorNode* n = start;
    int depth = 0;
    bool complete = false;
    KOKKOSDDT_UNROLL
    for (int i = 0; i < kLevels; ++i) {
      if (!(n->kind == LayoutKind::Contig || regular(n))) break;
      chain[i] = n;
      depth = i + 1;
      fixed_ += n->disp;
      if (n->kind == LayoutKind::Contig || n->child < 0) {
        complete = true;
        break;
      }
      n = nodes + n->child;
    }
    if (!complete) {  // irregular or too deep: locate each position
      p_ = p;
      return;
    }
    levels_ = depth;
    // Level l (0: the terminal) is chain[depth - 1 - l]; picked with constant indices so that both arrays stay in
    // registers.
    KOKKOSDDT_UNROLL
    for (int l = 0; l < kLevels; ++l) {
      KOKKOSDDT_UNROLL
      for (int i = 0; i < kLevels; ++i)
        if (i == depth - 1 - l) node_[l] = chain[i];
    }
    const Digits at = digits(p);
    inner_ = at.inner;
    KOKKOSDDT_UNROLL
    for (int l = 0; l < kLevels; ++l) block_[l] = at.block[l];
  }

  // `delta` stream bytes as this walk's digits: the levels' block indices from the top down (each level's element is
  // one instance of the level below, so the remainder at one level is the position within the next).
  KOKKOS_INLINE_FUNCTION Digits digits(std::int64_t delta) const {
    Digits d{};
    if (levels_ == 0) {
      d.inner = delta;
      return d;
    }
    KOKKOSDDT_UNROLL
    for (int l = kLevels - 1; l >= 0; --l) {
      if (l >= levels_) continue;
      const DescriptorNode* n = node_[l];
      const std::int64_t b = n->kind == LayoutKind::Contig ? 0 : n->div_elem.divide(delta);
      d.block[l] = b;
      delta -= b * n->elem;
    }
    d.inner = delta;
    return d;
  }

  // Typed-buffer offset of the current position (relative to the start node's origin, its disp included).
  KOKKOS_INLINE_FUNCTION std::int64_t offset() const {
    if (levels_ == 0) {
      const Hit h = locate(nodes_, la_, p_, NoPath(), start_);
      return block_span(h.node, la_, h.block, h.base).offset + h.inner;
    }
    std::int64_t off = fixed_ + inner_;
    KOKKOSDDT_UNROLL
    for (int l = 0; l < kLevels; ++l) {
      if (l >= levels_) break;
      const DescriptorNode* level = node_[l];
      if (level->kind == LayoutKind::Strided)
        off += block_[l] * level->stride;
      else if (level->kind == LayoutKind::IndexedBlock)
        off += Lookaside::block_disps(level, la_)[block_[l]];
    }
    return off;
  }

  // Moves on by `d` (digits of this walk): digit-wise addition with carries, the top level taking the last carry.
  KOKKOS_INLINE_FUNCTION void advance(const Digits& d) {
    if (levels_ == 0) {
      p_ += d.inner;
      return;
    }
    const DescriptorNode* n = node_[0];
    const std::int64_t unit = n->kind == LayoutKind::Contig ? n->size : n->elem;
    inner_ += d.inner;
    std::int64_t carry = inner_ >= unit ? 1 : 0;
    inner_ -= carry * unit;
    KOKKOSDDT_UNROLL
    for (int l = 0; l < kLevels; ++l) {
      if (l >= levels_) break;
      block_[l] += d.block[l] + carry;
      if (l + 1 == levels_) break;  // the top level: no wrap (positions stay inside the walk's range)
      const std::int64_t count = node_[l]->count;
      carry = block_[l] >= count ? 1 : 0;
      block_[l] -= carry * count;
    }
  }

 private:
  KOKKOS_FORCEINLINE_FUNCTION static bool regular(const DescriptorNode* n) {
    return n->kind == LayoutKind::Strided || n->kind == LayoutKind::IndexedBlock;
  }

  const DescriptorNode* nodes_;
  const std::int64_t* la_;
  const DescriptorNode* start_;
  const DescriptorNode* node_[kLevels] = {};  // level l's node, 0: the terminal
  int levels_ = 0;                            // 0: an irregular walk
  std::int64_t fixed_ = 0;                    // the disps of the levels' nodes
  std::int64_t block_[kLevels] = {};
  std::int64_t inner_ = 0;
  std::int64_t p_ = 0;  // irregular walks: the position
};

}  // namespace KokkosDDT::Impl

#undef KOKKOSDDT_UNROLL
