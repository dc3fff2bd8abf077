// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Typed to typed: the packed stream of a transfer exists only as positions. Each position is located in the source
// type and in the destination type (the point-based traversal, twice), and the bytes go straight from one typed
// buffer to the other: no packed buffer, one launch. The two types' signatures match (the entry point checks it), so
// position p is the same element on both sides.
//
// Hosts (BackendTraits::walks_runs) give each work item a tile of the stream and walk it run by run: a run is the
// longest stretch contiguous on both sides (the shorter of the two types' runs at p), copied at once. Devices give
// each work item one word: neighbouring threads take neighbouring positions, so their loads and stores coalesce
// wherever the types are contiguous.

#include <cstdint>

#include <Kokkos_Core.hpp>

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

  // The typed bytes from stream position p to the end of its run: where they start and how many there are.
  KOKKOS_INLINE_FUNCTION Span run_at(std::int64_t p) const {
    const std::int64_t* la = lookaside.data();
    const Hit h = locate(nodes.data(), la, p);
    const Span s = block_span(h.node, la, h.block, h.base);
    return {s.offset + h.inner, s.length - h.inner};
  }
};

template <class ExecSpace, int W>
struct TypedCopy {
  using MemSpace = typename ExecSpace::memory_space;
  CopySide<MemSpace> src, dst;
  std::int64_t begin = 0, end = 0;
  std::int64_t tile = W;  // stream bytes per work item (a multiple of W; devices: W)

  KOKKOS_INLINE_FUNCTION std::int64_t items() const { return (end - begin + tile - 1) / tile; }

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t item) const {
    std::int64_t p = begin + item * tile;
    const std::int64_t stop = p + tile < end ? p + tile : end;
    while (p < stop) {
      const Span s = src.run_at(p), d = dst.run_at(p);
      std::int64_t n = s.length < d.length ? s.length : d.length;
      if (n > stop - p) n = stop - p;
      copy_bytes<W>(dst.typed + d.offset, src.typed + s.offset, n);
      p += n;
    }
  }
};

}  // namespace KokkosDDT::Impl
