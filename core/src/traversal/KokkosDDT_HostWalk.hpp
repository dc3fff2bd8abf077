// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The host layout of the traversal: one thread per team walks its tile of the packed stream in order, run by run. It
// locates its first position once (locate(), through the Cursor) and then steps: within a strided node with pointer
// increments (a hand-written loop nest's inner loop), to the next terminal node with the cursor's odometer. Each run
// is copied with a copy chosen once per node (fixed-size moves for short runs, memcpy for long ones).

#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Cursor.hpp"
#include "KokkosDDT_ShapeOffset.hpp"
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

  // Whether walk_shape serves stream bytes of shape `s` as well as the walk: a Strided shape, but for an unpack not one
  // whose next-to-innermost level steps by less than its innermost (a transpose: the walk's unpack_interchanged writes
  // it in the typed buffer's order).
  static bool walks_shape(const Shape& s) {
    if (s.kind != Shape::Kind::Strided) return false;
    if constexpr (Dir == Direction::Unpack) {
      if (s.levels >= 2 && s.list[s.levels - 2] < 0 && s.list[s.levels - 1] < 0) {
        const std::int64_t a = s.stride[s.levels - 2], b = s.stride[s.levels - 1];
        if ((a < 0 ? -a : a) < (b < 0 ? -b : b)) return false;
      }
    }
    return true;
  }

  // Stream bytes [p, stop) of a shape walks_shape accepts (KokkosDDT_Shape.hpp), in order, without the descriptor: the
  // levels are an odometer of run indices, located by one division per level, each level's base address kept (a
  // listed level's from its list in `lookaside`), and the innermost level's runs move in run_loop, as walk_runs moves
  // them. What a call that moves little then costs is the copies, not the walk's setup.
  KOKKOS_FUNCTION void walk_shape(const Shape& s, const std::int64_t* lookaside, std::int64_t p,
                                  std::int64_t stop) const {
    const int inner = s.levels - 1;
    const std::int64_t block = s.block;
    std::int64_t idx[kMaxShapeLevels] = {};
    std::int64_t base[kMaxShapeLevels] = {};  // offset of level l's current element (levels above it included)
    std::int64_t q = p / block;
    const std::int64_t r = p - q * block;
    for (int l = inner; l >= 0; --l) {
      idx[l] = l > 0 ? q % s.count[l] : q;
      q /= s.count[l];
    }
    // Levels from..inner at their indices' elements.
    auto rebase = [&](int from) {
      for (int l = from; l <= inner; ++l)
        base[l] = (l > 0 ? base[l - 1] : s.disp) + shape_level_offset(s, lookaside, l, idx[l]);
    };
    rebase(0);
    const bool listed = s.list[inner] >= 0;  // (an index list: its runs' offsets from the list)
    // Moves the odometer n runs on (n <= the innermost level's runs left).
    auto advance = [&](std::int64_t n) {
      idx[inner] += n;
      if (idx[inner] < s.count[inner] || inner == 0) {
        if (listed)
          rebase(inner);
        else
          base[inner] += n * s.stride[inner];
        return;
      }
      int l = inner;
      for (; l > 0 && idx[l] == s.count[l]; --l) {
        idx[l] = 0;
        ++idx[l - 1];
      }
      rebase(l);
    };
    char* k = args.packed + (p - args.begin);
    if (r > 0) {  // entered midway through a run
      const std::int64_t len = Kokkos::min(block - r, stop - p);
      move(address_at(args.typed, base[inner] + r), k, len);
      p += len;
      k += len;
      if (p >= stop) return;
      advance(1);
    }
    with_run_copy(block, [&](auto unroll, const auto& copy) {
      constexpr int U = decltype(unroll)::value;
      while (stop - p >= block) {
        const std::int64_t left = inner > 0 ? s.count[inner] - idx[inner] : (stop - p) / block;
        const std::int64_t full = Kokkos::min(left, (stop - p) / block);
        if (listed)  // (from the level above's element)
          run_loop<true, U>(inner > 0 ? base[inner - 1] : s.disp, lookaside + s.list[inner] + idx[inner], k, 0, full,
                            copy, block);
        else
          run_loop<false, U>(base[inner], nullptr, k, s.stride[inner], full, copy, block);
        p += full * block;
        k += full * block;
        advance(full);
      }
      return std::int64_t(0);
    });
    if (p < stop) move(address_at(args.typed, base[inner]), k, stop - p);  // ends inside a run
  }

 private:
  KOKKOS_FUNCTION void move(char* typed_at, char* packed_at, std::int64_t n) const {
    if constexpr (Dir == Direction::Pack)
      copy_bytes<W>(packed_at, typed_at, n);
    else
      copy_bytes<W>(typed_at, packed_at, n);
  }

  // `count` runs of `elem` bytes, consecutive in the packed buffer; run i starts at typed offset at + i * stride
  // (Listed = false) or at + list[i] (Listed = true: an index list). Offsets are summed as integers and made an
  // address once per run (address_at): with absolute displacements a partial sum, such as a negative base, is none.
  // `Unroll` copies per iteration keep more loads in flight when each run is a single word.
  template <bool Listed, int Unroll, class Copy>
  KOKKOS_FUNCTION void run_loop(std::int64_t at, const std::int64_t* list, char* k, std::int64_t stride,
                                std::int64_t count, const Copy& copy, std::int64_t elem) const {
    char* const typed = args.typed;  // (a local: the copies' char stores could alias the member, reloaded per run)
    auto one = [&](std::int64_t typed_offset, char* packed_at) {
      char* typed_at = address_at(typed, typed_offset);
      if constexpr (Dir == Direction::Pack)
        copy(packed_at, typed_at);
      else
        copy(typed_at, packed_at);
    };
    std::int64_t i = 0;
    if constexpr (Listed) {
      for (; i + Unroll <= count; i += Unroll, k += Unroll * elem)
        for (int r = 0; r < Unroll; ++r) one(at + list[i + r], k + r * elem);
      for (; i < count; ++i, k += elem) one(at + list[i], k);
    } else {
      for (; i + Unroll <= count; i += Unroll, at += Unroll * stride, k += Unroll * elem)
        for (int r = 0; r < Unroll; ++r) one(at + r * stride, k + r * elem);
      for (; i < count; ++i, at += stride, k += elem) one(at, k);
    }
  }

  // Calls f(unroll, copy) with the copy for runs of exactly `elem` bytes, picked once per node: constant sizes let the
  // compiler drop copy_bytes' branches.
  template <class F>
  KOKKOS_FUNCTION std::int64_t with_run_copy(std::int64_t elem, const F& f) const {
    using One = std::integral_constant<int, 1>;
    if (elem == W) return f(std::integral_constant<int, 4>{}, [](char* d, const char* s) { copy_bytes<W>(d, s, W); });
    if (elem == 2 * W) return f(One{}, [](char* d, const char* s) { copy_bytes<W>(d, s, 2 * W); });
    if (elem == 3 * W) return f(One{}, [](char* d, const char* s) { copy_bytes<W>(d, s, 3 * W); });
    if (elem == 4 * W) return f(One{}, [](char* d, const char* s) { copy_bytes<W>(d, s, 4 * W); });
    if (elem == 8 * W) return f(One{}, [](char* d, const char* s) { copy_bytes<W>(d, s, 8 * W); });
    if (elem > 8 && elem < 16) return f(One{}, [elem](char* d, const char* s) { copy_8_16(d, s, elem); });
    if (elem > 16 && elem < 32) return f(One{}, [elem](char* d, const char* s) { copy_16_32(d, s, elem); });
    if (elem > 32 && elem < 64) return f(One{}, [elem](char* d, const char* s) { copy_32_64(d, s, elem); });
    return f(One{}, [elem](char* d, const char* s) { copy_bytes<W>(d, s, elem); });
  }

  // Copies from h on to the end of its terminal node (exhausted = true) or to `stop`, or up to a Struct field with
  // a derived child (the caller locates that one). Returns the new position.
  KOKKOS_FUNCTION std::int64_t walk_node(Cursor& cursor, Hit& h, std::int64_t p, std::int64_t stop,
                                         bool& exhausted) const {
    const DescriptorNode* n = h.node;
    if (n->kind == LayoutKind::Strided || n->kind == LayoutKind::IndexedBlock) {
      const bool listed = n->kind == LayoutKind::IndexedBlock;
      return with_run_copy(n->elem, [&](auto unroll, const auto& copy) {
        constexpr int U = decltype(unroll)::value;
        return listed ? walk_runs<true, U>(cursor, h, p, stop, exhausted, copy)
                      : walk_runs<false, U>(cursor, h, p, stop, exhausted, copy);
      });
    }
    char* k = args.packed + (p - args.begin);
    std::int64_t inner = h.inner;  // other kinds: one block_span per block
    for (std::int64_t b = h.block; b < n->count; ++b) {
      const Span s = block_span(n, args.lookaside.data(), b, h.base);
      if (s.length == 0) return p;  // a derived struct field
      const std::int64_t len = Kokkos::min(s.length - inner, stop - p);
      move(address_at(args.typed, s.offset + inner), k, len);
      p += len;
      if (p >= stop) return p;
      k += len;
      inner = 0;
    }
    exhausted = true;
    return p;
  }

  // walk_node for nodes whose blocks are single runs of the same length (Strided, IndexedBlock): whole blocks with
  // `copy` in a tight loop, partial ones (a tile's ends) with copy_bytes. While the parent level is strided, it carries
  // on through the following instances of the node (the loop nest of a hand-written pack).
  template <bool Listed, int Unroll, class Copy>
  KOKKOS_FUNCTION std::int64_t walk_runs(Cursor& cursor, Hit& h, std::int64_t p, std::int64_t stop, bool& exhausted,
                                         const Copy& copy) const {
    const DescriptorNode* n = h.node;
    const std::int64_t elem = n->elem, stride = n->stride;
    const std::int64_t* list = Listed ? Lookaside::block_disps(n, args.lookaside.data()) : nullptr;
    auto block_at = [&](std::int64_t b) { return h.base + (Listed ? list[b] : b * stride); };  // a typed offset
    char* k = args.packed + (p - args.begin);
    while (true) {
      if constexpr (!Listed && Dir == Direction::Unpack) {
        const std::int64_t done = h.block == 0 && h.inner == 0 ? unpack_interchanged(cursor, h, k, stop - p, copy) : 0;
        if (done > 0) {
          p += done;
          k += done;
          if (p >= stop || !cursor.next_strided(h)) {
            exhausted = p < stop;
            return p;
          }
          continue;
        }
      }
      std::int64_t b = h.block;
      if (h.inner > 0) {  // entered midway through a block
        const std::int64_t len = Kokkos::min(elem - h.inner, stop - p);
        move(address_at(args.typed, block_at(b) + h.inner), k, len);
        p += len;
        if (p >= stop) return p;
        k += len;
        ++b;
      }
      const std::int64_t left = n->count - b;
      const std::int64_t full = Kokkos::min(left, (stop - p) / elem);
      run_loop<Listed, Unroll>(Listed ? h.base : block_at(b), list + (Listed ? b : 0), k, stride, full, copy, elem);
      p += full * elem;
      if (full < left) {  // the tile ends inside a block
        if (p < stop) move(address_at(args.typed, block_at(b + full)), k + full * elem, stop - p);
        return stop;
      }
      k += full * elem;
      if (p >= stop || !cursor.next_strided(h)) {
        exhausted = p < stop;
        return p;
      }
    }
  }

  // Loop interchange for unpacks of transposing types. When the strided parent A steps through the typed buffer by
  // less than this strided node B does (|stride A| < |stride B|: e.g. a matrix transpose, whose rows are B and whose
  // columns are A), the stream order writes the typed buffer B-stride apart, a new cache line (often a new page) per
  // run. Walking A innermost writes it A-stride apart (contiguously when A's stride is the run length) and reads the
  // packed buffer strided instead, the order a hand-written transpose uses: stores to scattered lines cost more than
  // loads. Applies to the whole instances of B that start here and lie in the tile (at least two); returns the bytes
  // moved (0: not applicable) and leaves the cursor on the last of those instances.
  template <class Copy>
  KOKKOS_FUNCTION std::int64_t unpack_interchanged(Cursor& cursor, Hit& h, char* k, std::int64_t room,
                                                   const Copy& copy) const {
    Level* a = cursor.parent_level();
    if (a == nullptr || a->node->kind != LayoutKind::Strided) return 0;
    const DescriptorNode* b = h.node;
    const std::int64_t sa = a->node->stride, sb = b->stride, e = b->elem, run = b->count * e;
    const std::int64_t abs_a = sa < 0 ? -sa : sa, abs_b = sb < 0 ? -sb : sb;
    if (b->count < 2 || a->node->elem != run || abs_a < e || abs_a >= abs_b) return 0;
    // The whole instances of B that start here and lie in the tile, no more than fit side by side within one step of
    // B: the runs reordered are then disjoint, so the order of their writes cannot matter.
    // At most this many instances of B per interchanged block: the packed lines they read (one per instance and
    // column) then stay in the L1 cache while the next columns reuse them. (A local value: nvcc also compiles this
    // host-only functor's members for the device, where a static member taken by reference is undefined.)
    constexpr std::int64_t max_rows = 256;
    const std::int64_t m =
        Kokkos::min(Kokkos::min(a->node->count - a->block, room / run), Kokkos::min(abs_b / abs_a, max_rows));
    if (m < 2) return 0;
    char* const typed = args.typed;  // (see run_loop)
    std::int64_t u = h.base;         // typed offsets (see run_loop)
    for (std::int64_t j = 0; j < b->count; ++j, u += sb, k += e) {
      std::int64_t t = u;
      const char* q = k;
      for (std::int64_t i = 0; i < m; ++i, t += sa, q += run) copy(address_at(typed, t), q);
    }
    a->block += m - 1;
    h.base += (m - 1) * sa;
    return m * run;
  }
};

}  // namespace KokkosDDT::Impl
