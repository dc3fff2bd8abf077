// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Typed to typed: the packed stream of a transfer exists only as positions. Each position is located in the source
// type and in the destination type (the point-based traversal, twice), and the bytes go straight from one typed
// buffer to the other: no packed buffer, one launch. The two types' signatures match (the entry point checks it), so
// position p is the same element on both sides.
//
// Hosts (BackendTraits::walks_runs) give each work item a tile of the stream and move it chunk by chunk: each chunk is
// packed from the source into a bounce buffer that stays in the L1 cache and unpacked from it into the destination, by
// the host walk's own loops over runs (locating every run on both sides is several times slower where runs are short).
// Devices give each work item one word: neighbouring threads take neighbouring positions, so their loads and stores
// coalesce wherever the types are contiguous.
//
// A combining copy (Combining: a fused batch's message a process sends itself that its receive combines, a halo's
// scatter) combines each source element into the destination's with `op` instead of storing it: devices per word (the
// transfer's word holds whole elements of `element`, unaligned where the buffers are); hosts through a second bounce
// buffer, the destination's chunk packed into it, combined, and unpacked back.

#include <cstdint>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_CarriedDescriptor.hpp"
#include "KokkosDDT_Combine.hpp"
#include "KokkosDDT_HostWalk.hpp"
#include "KokkosDDT_Traversal.hpp"
#include "KokkosDDT_Words.hpp"

namespace KokkosDDT::Impl {

// One side of a typed copy: a type's descriptor in the execution space's memory, and its typed buffer (the origin of
// displacement 0; null for absolute addresses).
template <class MemSpace>
struct CopySide {
  Kokkos::View<const DescriptorNode*, MemSpace> nodes;
  Kokkos::View<const std::int64_t*, MemSpace> lookaside;
  char* typed = nullptr;
  // The node walks begin at (0: the root; a fused copy of one shape starts below the levels its whole range shares,
  // which `typed` then includes: see start_below_shared_levels).
  std::int32_t start = 0;

  // Where the typed bytes of stream position p start, positions divided as Pos (see locate).
  template <class Pos>
  KOKKOS_INLINE_FUNCTION std::int64_t offset_at(std::int64_t p) const {
    return offset_in<Pos>(nodes.data(), lookaside.data(), p);
  }
  // The same, the descriptor read at `n` and `la` (a copy of it: the kernel's parameters, or team scratch).
  template <class Pos>
  KOKKOS_INLINE_FUNCTION std::int64_t offset_in(const DescriptorNode* n, const std::int64_t* la, std::int64_t p) const {
    const Hit h = locate<Pos, true>(n, la, p, NoPath(), n + start);
    return h.base + h.inner;
  }
};

// Walk = true (the launchers of hosts, BackendTraits::walks_runs): each tile moved chunk by chunk through a small
// bounce buffer, packed and unpacked by HostWalk; false (devices): one word per item, its position located on both
// sides. The transfer's word W keeps every word inside one run of both types (copy_word), so a device item needs
// where its word starts on each side and nothing else: no run lengths, no loop (a loop over runs there costs a fused
// self-copy of faces a sizable share of its instructions per word).
//
// CarriedBytes > 0 (devices' flat launches of types whose descriptors are small, CarriedDescriptor): each side's
// descriptor travels in the kernel's parameters (`carried`; the destination's only where the two shapes differ), read
// from the constant bank alike by every thread, instead of a device copy read by dependent global loads.
template <class ExecSpace, int W, bool Walk = false, int CarriedBytes = 0, bool Combining = false>
struct TypedCopy {
  using MemSpace = typename ExecSpace::memory_space;
  static constexpr int word = W;
  CopySide<MemSpace> src, dst;
  std::int64_t begin = 0, end = 0;
  std::int64_t tile = W;  // stream bytes per work item (a multiple of W; devices: W, whatever is set)
  // The two sides share one shape (same_shape: `dst` holds the source's descriptor over a buffer moved by their
  // delta): devices locate each word once. Hosts walk both sides' runs as ever.
  bool one_walk = false;
  std::int8_t op = 0, element = 0;  // Combining: the Op and the Primitive of every element
  CarriedDescriptor<CarriedBytes> carried[2] =
      {};  // (last: the scalars every thread reads first share the first lines)

  KOKKOS_INLINE_FUNCTION std::int64_t items() const {
    if constexpr (Walk)
      return (end - begin + tile - 1) / tile;
    else
      return (end - begin) / W;  // (a multiple of W: copy_word)
  }

  static constexpr std::int64_t kBounce = 4096;  // (a multiple of every word size)

  // One side as a host walk's arguments: stream bytes [q, r) packed at `buffer`.
  KOKKOS_INLINE_FUNCTION static TraversalArgs<MemSpace> side_args(const CopySide<MemSpace>& side, char* buffer,
                                                                  std::int64_t q, std::int64_t r) {
    TraversalArgs<MemSpace> a;
    a.nodes = side.nodes;
    a.lookaside = side.lookaside;
    a.typed = side.typed;
    a.packed = buffer;
    a.begin = q;
    a.end = r;
    a.tile = r - q;
    a.word = W;
    return a;
  }

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t item) const {
    if constexpr (Walk) {
      std::int64_t p = begin + item * tile;
      const std::int64_t stop = p + tile < end ? p + tile : end;
      // Through a bounce buffer that stays in the L1 cache: each chunk packed from the source by HostWalk, then
      // unpacked into the destination by HostWalk (their tuned loops over runs: a locate per run on each side is
      // several times slower where runs are single cells).
      alignas(16) char bounce[kBounce];
      for (std::int64_t q = p; q < stop; q += kBounce) {
        const std::int64_t r = q + kBounce < stop ? q + kBounce : stop;
        HostWalk<ExecSpace, Direction::Pack, W>{side_args(src, bounce, q, r)}.walk(src.nodes.data(), q, r);
        if constexpr (Combining) {  // (chunks begin on element boundaries: tiles and `begin` do)
          alignas(16) char existing[kBounce];
          HostWalk<ExecSpace, Direction::Pack, W>{side_args(dst, existing, q, r)}.walk(dst.nodes.data(), q, r);
          combine_bytes(static_cast<Op>(op), static_cast<Primitive>(element), existing, bounce, r - q);
          HostWalk<ExecSpace, Direction::Unpack, W>{side_args(dst, existing, q, r)}.walk(dst.nodes.data(), q, r);
        } else {
          HostWalk<ExecSpace, Direction::Unpack, W>{side_args(dst, bounce, q, r)}.walk(dst.nodes.data(), q, r);
        }
      }
    } else {
      const std::int64_t p = begin + item * W;  // (one word: no loop)
      if (end <= kPositions32)
        move<std::uint32_t>(p);
      else
        move<std::int64_t>(p);
    }
  }

  // Devices: the words at stream positions p, p + step, ... before `stop` (a fused team's share of its tile).
  KOKKOS_INLINE_FUNCTION void move_words(std::int64_t p, std::int64_t stop, std::int64_t step) const {
    if (end <= kPositions32)
      for (; p < stop; p += step) move<std::uint32_t>(p);
    else
      for (; p < stop; p += step) move<std::int64_t>(p);
  }

  // Devices: the word at stream position p.
  template <class Pos>
  KOKKOS_INLINE_FUNCTION void move(std::int64_t p) const {
    const std::int64_t from = offset<Pos>(src, 0, p);
    char* to = dst.typed + (one_walk ? from : offset<Pos>(dst, 1, p));
    if constexpr (Combining)
      combine_word<W>(op, element, to, src.typed + from);
    else
      store_word<W>(to, load_word<W>(src.typed + from));
  }

 private:
  template <class Pos>
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t offset(const CopySide<MemSpace>& side, int which, std::int64_t p) const {
    if constexpr (CarriedBytes > 0)
      return side.template offset_in<Pos>(carried[which].nodes(), carried[which].lookaside(), p);
    else
      return side.template offset_at<Pos>(p);
  }
};

}  // namespace KokkosDDT::Impl
