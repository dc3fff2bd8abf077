// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Typed to typed: the packed stream of a transfer exists only as positions. Each position is located in the source
// type and in the destination type (the point-based traversal, twice), and the bytes go straight from one typed
// buffer to the other: no packed buffer, one launch. The two types' signatures match (the entry point checks it), so
// position p is the same element on both sides.
//
// Hosts (BackendTraits::walks_runs) give each work item a tile of the stream and move it chunk by chunk: each chunk is
// packed from the source into a bounce buffer that stays in the L1 cache and unpacked from it into the destination, by
// the host walk's own loops over runs (locating every run on both sides measured up to 3.7x slower). Devices lay the
// stream out as the device traversal does: teams of T threads over tiles, thread r taking words r, r + T, ... of its
// team's tile, so that neighbouring threads take neighbouring positions and their loads and stores coalesce wherever
// the types are contiguous; each thread locates its first word on both sides and steps on from there (Stepper).

#include <cstdint>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_HostWalk.hpp"
#include "KokkosDDT_Stepper.hpp"
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
};

// Walk = true (the launchers of hosts, BackendTraits::walks_runs): each tile moved chunk by chunk through a small
// bounce buffer, packed and unpacked by HostWalk; false (devices): T threads per tile, interleaved words.
template <class ExecSpace, int W, bool Walk = false>
struct TypedCopy {
  using MemSpace = typename ExecSpace::memory_space;
  CopySide<MemSpace> src, dst;
  std::int64_t begin = 0, end = 0;
  std::int64_t tile = W;              // stream bytes per work item (hosts) or per team of T threads (devices)
  std::int64_t threads_per_team = 1;  // devices: T
  Divisor per_team;                   // devices: divides by T

  KOKKOS_INLINE_FUNCTION std::int64_t items() const {
    const std::int64_t tiles = (end - begin + tile - 1) / tile;
    return Walk ? tiles : tiles * threads_per_team;
  }

  // The bounce buffer's bytes (hosts: on the stack, in the L1 cache; the fused kernel's copies on devices: in team
  // scratch). A multiple of every word size.
  static constexpr std::int64_t kBounce = 4096;

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
      // Through a bounce buffer that stays in the L1 cache: each chunk packed from the source by HostWalk, then
      // unpacked into the destination by HostWalk (their tuned loops over runs: a locate per run on each side made the
      // plans' host step up to 3.7x slower where runs are single cells; perf_tests/results/peer-2026-11-26.md).
      const std::int64_t p = begin + item * tile;
      const std::int64_t stop = p + tile < end ? p + tile : end;
      alignas(16) char bounce[kBounce];
      for (std::int64_t q = p; q < stop; q += kBounce) {
        const std::int64_t r = q + kBounce < stop ? q + kBounce : stop;
        HostWalk<ExecSpace, Direction::Pack, W>{side_args(src, bounce, q, r)}.walk(src.nodes.data(), q, r);
        HostWalk<ExecSpace, Direction::Unpack, W>{side_args(dst, bounce, q, r)}.walk(dst.nodes.data(), q, r);
      }
    } else {
      const std::int64_t team = per_team.divide(item), rank = item - team * threads_per_team;
      run_tile(team, rank, threads_per_team);
    }
  }

  // Devices, single launches: rank r of T threads moves its words of tile t, stepping through both sides at once.
  KOKKOS_INLINE_FUNCTION void run_tile(std::int64_t t, std::int64_t r, std::int64_t T) const {
    const std::int64_t first = begin + t * tile, stop = first + tile < end ? first + tile : end;
    std::int64_t p = first + r * W;
    const std::int64_t step = T * W;
    if (p >= stop) return;
    Stepper from(src.nodes.data(), src.lookaside.data(), src.nodes.data(), p);
    Stepper to(dst.nodes.data(), dst.lookaside.data(), dst.nodes.data(), p);
    const char* s = src.typed + from.fixed();
    char* d = dst.typed + to.fixed();
    store_word<W>(d + to.offset(), load_word<W>(s + from.offset()));
    if (p + step >= stop) return;  // (one word per thread: no step to take)
    const Stepper::Digits from_next = from.digits(step), to_next = to.digits(step);
    for (p += step; p < stop; p += step) {
      from.advance(from_next);
      to.advance(to_next);
      store_word<W>(d + to.offset(), load_word<W>(s + from.offset()));
    }
  }
};

}  // namespace KokkosDDT::Impl
