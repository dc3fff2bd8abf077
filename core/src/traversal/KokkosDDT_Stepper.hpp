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
#if defined(__CUDA_ARCH__) || defined(__clang__)
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

  // A step (under 2^31 bytes: a team's width of words) in the walk's digits (regular walks), or as bytes (others:
  // `inner` holds it). 32-bit: they stay in registers beside the walk's own state.
  struct Digits {
    std::int32_t block[kLevels];  // per level, [0] the top
    std::int32_t inner;
  };

  // The walk from node `start` (one of `nodes`, p relative to it: see locate()) at position p.
  KOKKOS_FORCEINLINE_FUNCTION Stepper(const DescriptorNode* nodes, const std::int64_t* la, const DescriptorNode* start,
                                      std::int64_t p)
      : la_(la) {
    // The levels from the start down while they stay regular, within kLevels. (Every index below is a constant once
    // the loops are unrolled, so that the arrays stay in registers: a GPU puts an array indexed at run time in local
    // memory.)
    const DescriptorNode* n = start;
    KOKKOSDDT_UNROLL
    for (int i = 0; i < kLevels; ++i) {
      if (!(n->kind == LayoutKind::Contig || regular(n))) break;
      node_[i] = n;
      fixed_ += n->disp;
      if (n->kind == LayoutKind::Contig || n->child < 0) {
        levels_ = i + 1;
        break;
      }
      n = nodes + n->child;
    }
    if (levels_ == 0) {  // irregular or too deep: locate each position
      node_[0] = start;
      node_[1] = nodes;
      fixed_ = 0;
      inner_ = p;
      return;
    }
    inner_ = decompose(p, block_);
  }

  // A step of `delta` bytes as this walk's digits.
  KOKKOS_FORCEINLINE_FUNCTION Digits digits(std::int64_t delta) const {
    Digits d{};
    if (levels_ == 0) {
      d.inner = static_cast<std::int32_t>(delta);
      return d;
    }
    std::int64_t block[kLevels] = {};
    d.inner = static_cast<std::int32_t>(decompose(delta, block));
    KOKKOSDDT_UNROLL
    for (int i = 0; i < kLevels; ++i) d.block[i] = static_cast<std::int32_t>(block[i]);
    return d;
  }

  // The part of every offset that does not change along the walk (the levels' disps): a caller adds it to its base
  // address once.
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t fixed() const { return fixed_; }

  // Typed-buffer offset of the current position, relative to the start node's origin, without fixed().
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t offset() const {
    if (levels_ == 0) {
      const Hit h = locate(node_[1], la_, inner_, NoPath(), node_[0]);
      return block_span(h.node, la_, h.block, h.base).offset + h.inner;
    }
    std::int64_t off = inner_;
    KOKKOSDDT_UNROLL
    for (int i = 0; i < kLevels; ++i) {
      if (i >= levels_) break;
      const DescriptorNode* n = node_[i];
      if (n->kind == LayoutKind::Strided)
        off += block_[i] * n->stride;
      else if (n->kind == LayoutKind::IndexedBlock)
        off += Lookaside::block_disps(n, la_)[block_[i]];
    }
    return off;
  }

  // Moves on by `d` (digits of this walk): digit-wise addition with carries from the terminal up, the top level
  // taking the last carry.
  KOKKOS_FORCEINLINE_FUNCTION void advance(const Digits& d) {
    if (levels_ == 0) {
      inner_ += d.inner;
      return;
    }
    std::int64_t carry = 0;
    KOKKOSDDT_UNROLL
    for (int i = kLevels - 1; i >= 0; --i) {
      if (i >= levels_) continue;
      const DescriptorNode* n = node_[i];
      if (i == levels_ - 1) {  // the terminal: its bytes first
        const std::int64_t unit = n->kind == LayoutKind::Contig ? n->size : n->elem;
        inner_ += d.inner;
        carry = inner_ >= unit ? 1 : 0;
        inner_ -= carry * unit;
      }
      block_[i] += d.block[i] + carry;
      if (i == 0) break;  // the top: no wrap (positions stay inside the walk's range)
      carry = block_[i] >= n->count ? 1 : 0;
      block_[i] -= carry * n->count;
    }
  }

 private:
  // v stream bytes as block indices per level, from the top down (each level's element is one instance of the level
  // below, so the remainder at one level is the position within the next); returns the bytes into the terminal block.
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t decompose(std::int64_t v, std::int64_t (&block)[kLevels]) const {
    KOKKOSDDT_UNROLL
    for (int i = 0; i < kLevels; ++i) {
      if (i >= levels_) break;
      const DescriptorNode* n = node_[i];
      const std::int64_t b = n->kind == LayoutKind::Contig ? 0 : n->div_elem.divide(v);
      block[i] = b;
      v -= b * n->elem;
    }
    return v;
  }

  KOKKOS_FORCEINLINE_FUNCTION static bool regular(const DescriptorNode* n) {
    return n->kind == LayoutKind::Strided || n->kind == LayoutKind::IndexedBlock;
  }

  const std::int64_t* la_;
  // Regular walks: the levels' nodes, [0] the start. Irregular walks: [0] the start, [1] the descriptor's first node
  // (what locate() needs; shared, since GPU registers are what this class must save).
  const DescriptorNode* node_[kLevels] = {};
  int levels_ = 0;                            // 0: an irregular walk
  std::int64_t fixed_ = 0;                    // the disps of the levels' nodes
  std::int64_t block_[kLevels] = {};
  std::int64_t inner_ = 0;  // bytes into the terminal block (irregular walks: the position)
};

}  // namespace KokkosDDT::Impl

#undef KOKKOSDDT_UNROLL
