// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The host layout of the traversal: one thread per team walks its tile of the packed stream in order, run by run. It
// locates its first position once (locate(), through the Cursor) and then steps: within a strided node with pointer
// increments (a hand-written loop nest's inner loop), to the next terminal node with the cursor's odometer. Each run
// is copied with a copy chosen once per node (fixed-size moves for short runs, memcpy for long ones).

#include <cstdint>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Cursor.hpp"
#include "KokkosDDT_TraversalArgs.hpp"
#include "KokkosDDT_Words.hpp"

namespace KokkosDDT::Impl {

// Dir: Pack or Unpack; W: the word size every run length and offset is a multiple of.
template <class ExecSpace, Direction Dir, int W>
struct HostWalk {
  static_assert(Dir != Direction::Runtime && W > 0, "the host walk is specialized per direction and word size");
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using MemSpace = typename ExecSpace::memory_space;

  TraversalArgs<MemSpace> args;

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    run_tile(team, team_descriptor(team, args), team.league_rank());
  }

  // Tile `t` of the transfer (the fused kernel calls this for its requests' tiles too).
  KOKKOS_FUNCTION void run_tile(const Member&, const DescriptorNode* desc, std::int64_t t) const {
    const std::int64_t first = args.begin + t * args.tile;
    walk(desc, first, Kokkos::min(args.end, first + args.tile));
  }

  // Stream bytes [p, stop), in order.
  KOKKOS_FUNCTION void walk(const DescriptorNode* desc, std::int64_t p, std::int64_t stop) const {
    Cursor cursor(desc, args.lookaside.data());
    Hit h = cursor.seek(p);
    while (true) {
      bool exhausted = false;
      p = walk_node(cursor, h, p, stop, exhausted);
      if (p >= stop) return;
      if (!exhausted || !cursor.next(h)) h = cursor.seek(p);
    }
  }

 private:
  KOKKOS_FUNCTION void move(char* typed_at, char* packed_at, std::int64_t n) const {
    if constexpr (Dir == Direction::Pack)
      copy_bytes<W>(packed_at, typed_at, n);
    else
      copy_bytes<W>(typed_at, packed_at, n);
  }

  // `count` runs of `elem` bytes, `stride` apart in the typed buffer, consecutive in the packed one; `Unroll`
  // copies per iteration keep more loads in flight when each run is a single word.
  template <int Unroll, class Copy>
  KOKKOS_FUNCTION void strided_loop(char* u, char* k, std::int64_t stride, std::int64_t count, const Copy& copy,
                                    std::int64_t elem) const {
    auto one = [&](char* typed_at, char* packed_at) {
      if constexpr (Dir == Direction::Pack)
        copy(packed_at, typed_at);
      else
        copy(typed_at, packed_at);
    };
    std::int64_t i = 0;
    for (; i + Unroll <= count; i += Unroll, u += Unroll * stride, k += Unroll * elem)
      for (int r = 0; r < Unroll; ++r) one(u + r * stride, k + r * elem);
    for (; i < count; ++i, u += stride, k += elem) one(u, k);
  }

  // Copies from h on to the end of its terminal node (exhausted = true) or to `stop`, or up to a Struct field with
  // a derived child (the caller locates that one). Returns the new position. A strided node also carries on through
  // the following instances of itself while its parent level is strided (the loop nest of a hand-written pack).
  KOKKOS_FUNCTION std::int64_t walk_node(Cursor& cursor, Hit& h, std::int64_t p, std::int64_t stop,
                                         bool& exhausted) const {
    const DescriptorNode* n = h.node;
    if (n->kind == LayoutKind::Strided) {
      // The run length is fixed for the whole loop nest: pick its copy once (constant sizes let the compiler drop
      // copy_bytes' branches).
      const std::int64_t elem = n->elem;
      if (elem == W)
        return walk_strided<4>(cursor, h, p, stop, exhausted, [](char* d, const char* s) { copy_bytes<W>(d, s, W); });
      if (elem == 2 * W)
        return walk_strided<1>(cursor, h, p, stop, exhausted,
                               [](char* d, const char* s) { copy_bytes<W>(d, s, 2 * W); });
      if (elem == 4 * W)
        return walk_strided<1>(cursor, h, p, stop, exhausted,
                               [](char* d, const char* s) { copy_bytes<W>(d, s, 4 * W); });
      if (elem == 8 * W)
        return walk_strided<1>(cursor, h, p, stop, exhausted,
                               [](char* d, const char* s) { copy_bytes<W>(d, s, 8 * W); });
      if (elem > 8 && elem < 16)
        return walk_strided<1>(cursor, h, p, stop, exhausted,
                               [elem](char* d, const char* s) { copy_8_16(d, s, elem); });
      if (elem > 16 && elem < 32)
        return walk_strided<1>(cursor, h, p, stop, exhausted,
                               [elem](char* d, const char* s) { copy_16_32(d, s, elem); });
      return walk_strided<1>(cursor, h, p, stop, exhausted,
                             [elem](char* d, const char* s) { copy_bytes<W>(d, s, elem); });
    }
    char* k = args.packed + (p - args.begin);
    std::int64_t inner = h.inner;  // other kinds: one block_span per block
    for (std::int64_t b = h.block; b < n->count; ++b) {
      const Span s = block_span(n, args.lookaside.data(), b, h.base);
      if (s.length == 0) return p;  // a derived struct field
      const std::int64_t len = Kokkos::min(s.length - inner, stop - p);
      move(args.typed + s.offset + inner, k, len);
      p += len;
      if (p >= stop) return p;
      k += len;
      inner = 0;
    }
    exhausted = true;
    return p;
  }

  // The strided case of walk_node: whole blocks with `copy`, partial ones (a tile's ends) with copy_bytes.
  template <int Unroll, class Copy>
  KOKKOS_FUNCTION std::int64_t walk_strided(Cursor& cursor, Hit& h, std::int64_t p, std::int64_t stop, bool& exhausted,
                                            const Copy& copy) const {
    const DescriptorNode* n = h.node;
    const std::int64_t elem = n->elem, stride = n->stride;
    char* k = args.packed + (p - args.begin);
    while (true) {
      char* u = args.typed + h.base + h.block * stride;
      std::int64_t left = n->count - h.block;
      if (h.inner > 0) {  // entered midway through a block
        const std::int64_t len = Kokkos::min(elem - h.inner, stop - p);
        move(u + h.inner, k, len);
        p += len;
        if (p >= stop) return p;
        k += len;
        u += stride;
        --left;
      }
      const std::int64_t full = Kokkos::min(left, (stop - p) / elem);
      strided_loop<Unroll>(u, k, stride, full, copy, elem);
      p += full * elem;
      if (full < left) {  // the tile ends inside a block
        if (p < stop) move(u + full * stride, k + full * elem, stop - p);
        return stop;
      }
      k += full * elem;
      if (p >= stop || !cursor.next_strided(h)) {
        exhausted = p < stop;
        return p;
      }
    }
  }
};

}  // namespace KokkosDDT::Impl
