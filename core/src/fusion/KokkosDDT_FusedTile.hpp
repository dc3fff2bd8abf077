// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a fused launch's team does with its record's tile: the same per-tile traversal a single transfer runs (HostWalk,
// DeviceInterleave::run_tile, TypedCopy), after copying the record's descriptor into team scratch where it fits; flat
// records (make_flat) copy words with no descriptor, shaped ones (make_shaped) locate them by their type's shape;
// uniform launches have one direction and word size compiled in.

#include <cstdint>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Backend.hpp"
#include "KokkosDDT_Combine.hpp"
#include "KokkosDDT_DeviceInterleave.hpp"
#include "KokkosDDT_FusedRecord.hpp"
#include "KokkosDDT_HostWalk.hpp"
#include "KokkosDDT_LaunchKind.hpp"
#include "KokkosDDT_ShapeOffset.hpp"
#include "KokkosDDT_TraversalArgs.hpp"
#include "KokkosDDT_TypedCopy.hpp"
#include "KokkosDDT_Words.hpp"

namespace KokkosDDT::Impl {

// The fused kernels' policy (the backend's launch bounds for them).
template <class ExecSpace>
using FusedPolicy = Kokkos::TeamPolicy<ExecSpace, typename BackendTraits<ExecSpace>::fused_launch_bounds>;

template <class ExecSpace>
struct FusedTile {
  using Backend = BackendTraits<ExecSpace>;
  using Member = typename FusedPolicy<ExecSpace>::member_type;
  using MemSpace = typename ExecSpace::memory_space;

  // Team scratch a record's teams take (the launch reserves the largest): what cache_level says, for both descriptors
  // of a copy (one where they are one). Hosts cache a pack's nodes only, and walk a copy's runs on both descriptors in
  // place.
  static std::int64_t scratch_bytes(const FusedRecord& r) {
    const bool copy = typed_to_typed(r);
    if (r.cache == 0) return 0;
    if constexpr (Backend::walks_runs) return copy ? 0 : descriptor_scratch_bytes(r.node_count);
    std::int64_t bytes = descriptor_scratch_bytes(r.node_count);
    if (r.cache > 1) bytes += lookaside_scratch_bytes(r.lookaside_count);
    if (!copy || one_walk(r)) return bytes;
    bytes += descriptor_scratch_bytes(r.dst_node_count);
    if (r.cache > 1) bytes += lookaside_scratch_bytes(r.dst_lookaside_count);
    return bytes;
  }

  // A copy: a record with a destination descriptor (record_of_copy), Direction::Copy, or Direction::Combine for a
  // combining copy (its elements combined into the destination's with the record's op, as a combining unpack's are).
  KOKKOS_FUNCTION static bool typed_to_typed(const FusedRecord& r) { return r.dst_nodes != nullptr; }

  // A copy between two types of one shape (record_of_copy): one descriptor, each position located once.
  KOKKOS_FUNCTION static bool one_walk(const FusedRecord& r) { return r.dst_nodes == r.nodes; }

  KOKKOS_FUNCTION static TraversalArgs<MemSpace> args_of(const FusedRecord& r) {
    TraversalArgs<MemSpace> args;
    args.nodes = Kokkos::View<const DescriptorNode*, MemSpace>(r.nodes, r.node_count);
    args.lookaside = Kokkos::View<const std::int64_t*, MemSpace>(r.lookaside, r.lookaside_count);
    args.typed = r.typed;
    args.packed = r.packed;
    args.begin = r.begin;
    args.end = r.end;
    args.tile = r.tile;
    args.cache_descriptor = r.cache != 0;
    args.start = r.start;
    args.packing = r.direction == static_cast<std::int8_t>(Direction::Pack);
    args.word = r.word;
    args.op = r.op;
    args.element = r.element;
    return args;
  }

  // A descriptor's arrays where a team reads them: in place, or its copies in team scratch.
  struct Arrays {
    const DescriptorNode* nodes;
    const std::int64_t* lookaside;
  };

  // What cache_level(r) says of the record's descriptors (a copy's two, `dst` null for a pack's or unpack's one),
  // copied into the team's scratch under one allocation, array after array in 64-bit words (an allocation per array
  // costs every thread of a copy a sizable share of its instructions). The caller's barrier makes them visible.
  KOKKOS_FUNCTION static void cache(const Member& team, const FusedRecord& r, Arrays& src, Arrays* dst) {
    using Int = std::int64_t;
    constexpr int kNodeWords = sizeof(DescriptorNode) / sizeof(Int);  // (even: every array stays 16-byte aligned)
    const bool lookaside = r.cache > 1;  // (cached sizes are below kMaxScratchDescriptor: ints)
    const int n0 = r.node_count * kNodeWords, n1 = dst ? r.dst_node_count * kNodeWords : 0;
    const int l0 = lookaside ? static_cast<int>(r.lookaside_count) : 0,
              l1 = lookaside && dst ? r.dst_lookaside_count : 0;
    Int* at = static_cast<Int*>(
        team.team_scratch(0).get_shmem_aligned((n0 + n1 + l0 + l1) * sizeof(Int), alignof(DescriptorNode)));
    if (at == nullptr) return;  // (cannot happen: the launch reserves scratch_bytes(r))
    auto copy = [&](const void* from, int count) {
      const Int* words = static_cast<const Int*>(from);
      Int* to = at;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](int i) { to[i] = words[i]; });
      at += count;
      return to;
    };
    src.nodes = reinterpret_cast<const DescriptorNode*>(copy(src.nodes, n0));
    if (dst) dst->nodes = reinterpret_cast<const DescriptorNode*>(copy(dst->nodes, n1));
    if (l0 > 0) src.lookaside = copy(src.lookaside, l0);
    if (l1 > 0) dst->lookaside = copy(dst->lookaside, l1);
  }

  // A copy's typed-to-typed kernel over stream bytes [r.begin, r.end), `tile` bytes per item, reading the two
  // descriptors at `src` and `dst` (the record's arrays, or the team's copies of them).
  template <int W, bool Combining = false>
  KOKKOS_FUNCTION static TypedCopy<ExecSpace, W, Backend::walks_runs, 0, Combining> copy_of(const FusedRecord& r,
                                                                                            std::int64_t tile,
                                                                                            Arrays src, Arrays dst) {
    using Nodes = Kokkos::View<const DescriptorNode*, MemSpace>;
    using Lookaside = Kokkos::View<const std::int64_t*, MemSpace>;
    return {{Nodes(src.nodes, r.node_count), Lookaside(src.lookaside, r.lookaside_count), r.typed, r.start},
            {Nodes(dst.nodes, r.dst_node_count), Lookaside(dst.lookaside, r.dst_lookaside_count), r.packed},
            r.begin,
            r.end,
            tile,
            one_walk(r),
            r.op,
            r.element};
  }

  // Tile t of a copy: hosts walk it run by run on one thread; on devices each thread of the team takes one word at a
  // time, neighbouring threads neighbouring words, locating it in both descriptors, or once where they are one (in
  // team scratch when cached). Word: the record's word size when known at compile time (uniform launches), else 0.
  // Combining: a combining copy's (Direction::Combine), whose words combine into the destination.
  template <int Word = 0, bool Combining = false>
  KOKKOS_FUNCTION static void run_copy(const Member& team, const FusedRecord& r, std::int64_t t) {
    if constexpr (!Backend::walks_runs) {
      if (r.start < 0) return run_located < Combining ? Direction::Combine : Direction::Copy, Word > (team, r, t);
    }
    walk_copy<Word, Combining>(team, r, t);
  }
  // (a copy that walks)
  template <int Word, bool Combining>
  KOKKOS_FUNCTION static void walk_copy(const Member& team, const FusedRecord& r, std::int64_t t) {
    Arrays src{r.nodes, r.lookaside}, dst{r.dst_nodes, r.dst_lookaside};
    if constexpr (!Backend::walks_runs) {
      if (r.cache > 0) {
        const bool one = one_walk(r);
        cache(team, r, src, one ? nullptr : &dst);
        if (one) dst = src;
        team.team_barrier();
      }
    }
    if constexpr (Word > 0)
      copy_tile<Word, Combining>(team, r, t, src, dst);
    else
      with_word_size(r.word, [&](auto w) { copy_tile<decltype(w)::value, Combining>(team, r, t, src, dst); });
  }
  template <int W, bool Combining>
  KOKKOS_FUNCTION static void copy_tile(const Member& team, const FusedRecord& r, std::int64_t t, Arrays src,
                                        Arrays dst) {
    if constexpr (Backend::walks_runs) {
      copy_of<W, Combining>(r, r.tile, src, dst)(t);
    } else {
      const std::int64_t first = r.begin + t * r.tile, stop = first + r.tile < r.end ? first + r.tile : r.end;
      copy_of<W, Combining>(r, W, src, dst).move_words(first + team.team_rank() * W, stop, team.team_size() * W);
    }
  }

  // Hosts walk runs with copies specialized per direction and word size (their code size does not matter); devices
  // take both from the record at run time, in one instance of the interleaved traversal.
  KOKKOS_FUNCTION static void run(const Member& team, const FusedRecord& r, std::int64_t t) {
    if (r.direction == static_cast<std::int8_t>(Direction::Copy)) {
      run_copy(team, r, t);
    } else if constexpr (Backend::walks_runs) {
      if (r.direction == static_cast<std::int8_t>(Direction::Combine) && typed_to_typed(r))
        return run_copy<0, true>(team, r, t);
      if (r.direction == static_cast<std::int8_t>(Direction::Combine)) {
        const std::int64_t first = r.begin + t * r.tile;
        return combine_on_host(r, first, first + r.tile < r.end ? first + r.tile : r.end);
      }
      with_word_size(r.word, [&](auto w) {
        constexpr int W = decltype(w)::value;
        if (r.direction == static_cast<std::int8_t>(Direction::Pack)) {
          const HostWalk<ExecSpace, Direction::Pack, W> kernel{args_of(r)};
          kernel.run_tile(team, team_descriptor(team, kernel.args), t);
        } else {
          const HostWalk<ExecSpace, Direction::Unpack, W> kernel{args_of(r)};
          kernel.run_tile(team, team_descriptor(team, kernel.args), t);
        }
      });
    } else {
      run_interleaved<Direction::Runtime, 0>(team, r, t);
    }
  }

  // Hosts: stream bytes [first, stop) of a combining unpack (Direction::Combine), through a bounce buffer that stays in
  // the L1 cache: the destination's elements packed into it by HostWalk, the incoming ones combined into them, and the
  // result unpacked back (bounce-sized chunks begin on element boundaries: tiles and the record's begin do).
  static constexpr std::int64_t kBounce = 4096;
  KOKKOS_FUNCTION static void combine_on_host(const FusedRecord& r, std::int64_t first, std::int64_t stop) {
    with_word_size(r.word, [&](auto w) {
      constexpr int W = decltype(w)::value;
      alignas(16) char bounce[kBounce];
      for (std::int64_t q = first; q < stop; q += kBounce) {
        const std::int64_t end = q + kBounce < stop ? q + kBounce : stop;
        TraversalArgs<MemSpace> a = args_of(r);
        a.packed = bounce;
        a.begin = q;
        a.end = end;
        a.tile = end - q;
        HostWalk<ExecSpace, Direction::Pack, W>{a}.walk(r.nodes, q, end);
        combine_bytes(static_cast<Op>(r.op), static_cast<Primitive>(r.element), bounce, r.packed + (q - r.begin),
                      end - q);
        HostWalk<ExecSpace, Direction::Unpack, W>{a}.walk(r.nodes, q, end);
      }
    });
  }

  // Devices: a pack's or unpack's tile t, the team's threads on interleaved words (Dir, W: Runtime and 0 read them
  // from the record).
  template <Direction Dir, int W>
  KOKKOS_FUNCTION static void run_interleaved(const Member& team, const FusedRecord& r, std::int64_t t) {
    if (r.start < 0) return run_located<Dir, W>(team, r, t);
    walk_interleaved<Dir, W>(team, r, t);
  }
  // (a pack or unpack that walks)
  template <Direction Dir, int W>
  KOKKOS_FUNCTION static void walk_interleaved(const Member& team, const FusedRecord& r, std::int64_t t) {
    TraversalArgs<MemSpace> args = args_of(r);
    Arrays at{r.nodes, r.lookaside};
    if (r.cache > 0) {
      cache(team, r, at, nullptr);
      team.team_barrier();
      args.lookaside = Kokkos::View<const std::int64_t*, MemSpace>(at.lookaside, r.lookaside_count);
    }
    const DeviceInterleave<ExecSpace, Dir, W> kernel{args, team.team_size(), false, {}, {}, {}};
    kernel.run_tile(team, at.nodes, t);
  }

  // Devices: tile t of a record that needs no walk: flat (run_flat) or shaped (run_shaped). Compact: a combining
  // record's words one at a time (combine_words), in a kernel that also walks.
  template <Direction Dir, int W, bool Compact = false>
  KOKKOS_FUNCTION static void run_located(const Member& team, const FusedRecord& r, std::int64_t t) {
    if (r.start == kFlatRecord)
      run_flat<Dir, W, Compact>(team, r, t);
    else
      run_shaped<Dir, W, Compact>(team, r, t);
  }

  // Devices: tile t of a shaped record (make_shaped), the team's threads on interleaved words, each word's typed
  // offset from its position by the shape's arithmetic (shape_offset; the shape and, for listed levels, one lookaside
  // entry per level read from the execution space's memory). A copy's destination, in r.packed, is at the same offset.
  template <Direction Dir, int W, bool Compact = false>
  KOKKOS_FUNCTION static void run_shaped(const Member& team, const FusedRecord& r, std::int64_t t) {
    if constexpr (W == 0) {  // (the general kernel: shaped records have words of 4 bytes or more)
      if (r.word >= 8)
        run_shaped<Dir, 8, Compact>(team, r, t);
      else
        run_shaped<Dir, 4, Compact>(team, r, t);
    } else if (shape_narrow(*r.shape, r.end)) {
      const Shape shape = *r.shape;  // (in registers: the words' stores could alias it, and every word would reload it)
      shaped_words<Dir, W, true, Compact>(team, r, t, shape);
    } else {  // (read where it is: positions past 2^31 are rare, and their 64-bit fields in registers would crowd those
              // of every shaped launch, whose kernel is one)
      shaped_words<Dir, W, false, Compact>(team, r, t, *r.shape);
    }
  }
  // A thread's words of the tile, kWordsInFlight at a time: their offsets first, then every load, then every store, so
  // that the loads wait for memory together (a thread of a large launch moves tens of words, and moved one at a time
  // each waits for its load before the next is issued: the shaped kernel's stalls are those loads, not its
  // instructions).
  static constexpr int kWordsInFlight = 4;
  template <Direction Dir, int W, bool Narrow, bool Compact>
  KOKKOS_FUNCTION static void shaped_words(const Member& team, const FusedRecord& r, std::int64_t t,
                                           const Shape& shape) {
    const bool packs =
        Dir == Direction::Runtime ? r.direction == static_cast<std::int8_t>(Direction::Pack) : Dir == Direction::Pack;
    const bool copies = Dir == Direction::Copy || (Dir == Direction::Combine && typed_to_typed(r));
    const std::int64_t first = r.begin + t * r.tile, stop = first + r.tile < r.end ? first + r.tile : r.end;
    const std::int64_t step = static_cast<std::int64_t>(team.team_size()) * W;
    // Word p's source and destination, its typed offset `at` known.
    auto source = [&](std::int64_t p, std::int64_t at) -> const char* {
      return copies || packs ? address_at(r.typed, at) : r.packed + (p - r.begin);
    };
    auto destination = [&](std::int64_t p, std::int64_t at) {
      return copies ? address_at(r.packed, at) : packs ? r.packed + (p - r.begin) : address_at(r.typed, at);
    };
    std::int64_t p = first + static_cast<std::int64_t>(team.team_rank()) * W;
    if constexpr (Dir == Direction::Combine) {  // (each word read, combined and written where it is)
      combine_words<W, Compact>(r, p, stop, step, [&](std::int64_t q) {
        const std::int64_t at = shape_offset<Narrow>(shape, r.lookaside, q);
        return WordEnds{destination(q, at), source(q, at)};
      });
    } else {
      constexpr int U = kWordsInFlight;
      for (; p + (U - 1) * step < stop; p += U * step) {
        std::int64_t at[U];
        Word<W> w[U];
        for (int u = 0; u < U; ++u) at[u] = shape_offset<Narrow>(shape, r.lookaside, p + u * step);
        for (int u = 0; u < U; ++u) w[u] = load_word<W>(source(p + u * step, at[u]));
        for (int u = 0; u < U; ++u) store_word<W>(destination(p + u * step, at[u]), w[u]);
      }
      for (; p < stop; p += step) {
        const std::int64_t at = shape_offset<Narrow>(shape, r.lookaside, p);
        store_word<W>(destination(p, at), load_word<W>(source(p, at)));
      }
    }
  }

  // Devices: a thread's words p, p + step, ... before `stop` of a combining record, `ends(p)` its word's destination
  // and source. Elements of 4 bytes or more in words of 8 bytes or less: kCombinedInFlight words at a time, every load
  // issued before any is combined (a word's combine needs both its loads, so one word at a time a thread waits for
  // memory once per word), combined in registers without a branch (combine_selected) and stored; a loop per element
  // type. Otherwise one word at a time (combine_word): narrower elements, 16-byte words (two in flight spill), and
  // every record in a kernel that also walks (Compact): a loop per type where it gains nothing made the kernels too
  // large to inline (FusedKernel says what that costs).
  struct WordEnds {
    char* dst;
    const char* src;
  };
  // (Two words of 8 bytes, one of 16: more spill the registers under the fused kernels' launch bounds.)
  template <int W>
  static constexpr int kCombinedInFlight = W > 8 ? 1 : 2;
  template <int W, bool Compact, class Ends>
  KOKKOS_FUNCTION static void combine_words(const FusedRecord& r, std::int64_t p, std::int64_t stop, std::int64_t step,
                                            const Ends& ends) {
    constexpr int U = kCombinedInFlight<W>;
    const auto element = static_cast<Primitive>(r.element);
    const int size = element_size(element);
    if (!Compact && U > 1 && size >= 4) {
      with_element_type(element, [&](auto t) {
        using T = decltype(t);
        if constexpr (sizeof(T) >= 4 && sizeof(T) <= W) combine_words_as<W, T>(r, p, stop, step, ends);
      });
      return;
    }
    for (; p < stop; p += step) {
      const WordEnds e = ends(p);
      combine_word<W>(r.op, r.element, e.dst, e.src);
    }
  }
  template <int W, class T, class Ends>
  KOKKOS_FUNCTION static void combine_words_as(const FusedRecord& r, std::int64_t p, std::int64_t stop,
                                               std::int64_t step, const Ends& ends) {
    constexpr int U = kCombinedInFlight<W>;
    const auto op = static_cast<Op>(r.op);
    auto aligned = [](const WordEnds& e) {
      return ((reinterpret_cast<std::uintptr_t>(e.dst) | reinterpret_cast<std::uintptr_t>(e.src)) & (W - 1)) == 0;
    };
    // (elements at odd offsets: each one's bytes)
    auto unaligned = [&](const WordEnds& e) {
      for (int i = 0; i + static_cast<int>(sizeof(T)) <= W; i += static_cast<int>(sizeof(T)))
        store_value(e.dst + i, combine_selected(op, load_value<T>(e.dst + i), load_value<T>(e.src + i)));
    };
    for (; p + (U - 1) * step < stop; p += U * step) {
      WordEnds e[U];
      bool all = true;
      for (int u = 0; u < U; ++u) {
        e[u] = ends(p + u * step);
        all = all && aligned(e[u]);
      }
      if (!all) {  // (ends again: an index into e[] that is not unrolled puts it in memory)
        for (std::int64_t q = p; q < p + U * step; q += step) unaligned(ends(q));
        continue;
      }
      Word<W> existing[U], incoming[U];
      for (int u = 0; u < U; ++u) existing[u] = load_word<W>(e[u].dst);
      for (int u = 0; u < U; ++u) incoming[u] = load_word<W>(e[u].src);
      for (int u = 0; u < U; ++u) combine_in_word<W, T>(op, existing[u], incoming[u]);
      for (int u = 0; u < U; ++u) store_word<W>(e[u].dst, existing[u]);
    }
    for (; p < stop; p += step) {
      const WordEnds e = ends(p);
      if (!aligned(e)) {
        unaligned(e);
        continue;
      }
      Word<W> existing = load_word<W>(e.dst);
      combine_in_word<W, T>(op, existing, load_word<W>(e.src));
      store_word<W>(e.dst, existing);
    }
  }

  // Devices: tile t of a chain of combining records (FusedBatch::begin_chain: the same cells, in the order added) in
  // one pass, where every record locates its positions alike without a walk (all flat, or all shaped by one narrow
  // shape) and combines one element type of 4 to W bytes (chain_in_one_pass): the team's threads first read one
  // member's source each into team scratch, in parallel; then each thread reads its word of the cells once, the
  // members' incoming words kChainInFlight at a time (their loads issued together), combines them in the chain's order
  // (as the records one after another would, bitwise) and stores the word once. One record after another, a barrier
  // between, a thread waits for memory twice per record, and a halo's corner cell has 7; a kernel that checked the
  // chain itself read its records one after another, a dependent load each, before the first word moved.
  static constexpr int kChainInFlight = 4;
  // Launches of words of 4 to kChainWordMax bytes: a launch of 16-byte words keeps its records one after another
  // (kChainInFlight words of 16 bytes spill, and 8-byte passes in it measured slower: chain-scratch-2026-12-03).
  static constexpr int kChainWordMax = 8;
  // A member's incoming word of position p, at typed offset `at`: at base + (by_offset ? at : p) + shift.
  struct ChainSource {
    const char* base;
    std::int64_t shift;
    std::int8_t op;
    bool by_offset;
  };
  // Team scratch a one-pass chain of `members` records takes (FusedBatch::mark_one_pass_chains reserves it).
  static std::int64_t chain_scratch_bytes(std::int64_t members) {
    return members * static_cast<std::int64_t>(sizeof(ChainSource)) + static_cast<std::int64_t>(alignof(ChainSource));
  }
  // Whether the chain [r, r + n) combines in one pass on this backend's devices, in a launch of `kind`: every record
  // combining, flat or shaped by one shape (`shape`, the host's copy of it; narrow, positions below 2^31), over the
  // same stream positions and tile, one element type of 4 bytes to the launch's word (at most kChainWordMax), in a
  // kernel without walks (whose code stays as small as it was). Decided once, on the host, as the batch is built.
  static bool chain_in_one_pass(const FusedRecord* r, std::int64_t n, const Shape& shape, const LaunchKind& kind) {
    if constexpr (Backend::walks_runs) {
      return false;
    } else {
      const FusedRecord& f = r[0];
      if (f.start >= 0 || (f.start == kShapedRecord && !shape_narrow(shape, f.end))) return false;
      const int size = element_size(static_cast<Primitive>(f.element)), word = kind.combining_word();
      if (word < 4 || word > kChainWordMax || kind.locating() == Locating::Walks || size < 4 || size > word)
        return false;
      for (std::int64_t i = 0; i < n; ++i)
        if (r[i].direction != static_cast<std::int8_t>(Direction::Combine) || r[i].element != f.element ||
            r[i].start != f.start || r[i].shape != f.shape || r[i].begin != f.begin || r[i].end != f.end ||
            r[i].tile != f.tile)
          return false;
      return true;
    }
  }
  // `last_record` the chain's last one (its one_pass: chain_in_one_pass said so for this launch). False, having done
  // nothing, where it did not (the records then run one after another).
  template <Direction Dir, int W, Locating L>
  KOKKOS_FORCEINLINE_FUNCTION static bool run_chain(const Member& team, const FusedRecord& last_record,
                                                    const FusedRecord* ring, std::int64_t start, std::int64_t capacity,
                                                    std::int64_t first, std::int64_t last, std::int64_t t) {
    if constexpr (Backend::walks_runs || Dir != Direction::Combine || W < 4 || W > kChainWordMax ||
                  L == Locating::Walks) {
      return false;
    } else {
      if (!last_record.one_pass) return false;
      chain_apart<W>(team, ring, start, capacity, first, last, t);
      return true;
    }
  }
  // (apart, its arguments by value, the records read from the ring: the kernel's own code stays as small as before)
  template <int W>
  __attribute__((noinline)) KOKKOS_FUNCTION static void chain_apart(const Member& team, const FusedRecord* ring,
                                                                    std::int64_t start, std::int64_t capacity,
                                                                    std::int64_t first, std::int64_t last,
                                                                    std::int64_t t) {
    auto record = [&](std::int64_t i) -> const FusedRecord& {  // (FusedRecords::record's ring)
      const std::int64_t j = start + i;
      return ring[j < capacity ? j : j - capacity];
    };
    const FusedRecord& r = record(last);  // (the members' positions, tile, cells, shape and element are its)
    const auto element = static_cast<Primitive>(r.element);
    const auto members = static_cast<int>(last - first + 1);
    auto* sources = static_cast<ChainSource*>(
        team.team_scratch(0).get_shmem_aligned(members * sizeof(ChainSource), alignof(ChainSource)));
    for (int u = team.team_rank(); u < members; u += team.team_size()) {
      const FusedRecord& r = record(first + u);
      const bool copy = typed_to_typed(r);
      sources[u] = {copy ? r.typed : r.packed, copy ? 0 : -r.begin, r.op, copy};
    }
    const std::int64_t begin = r.begin + t * r.tile, stop = begin + r.tile < r.end ? begin + r.tile : r.end;
    char* const cells = typed_to_typed(r) ? r.packed : r.typed;  // (a combining copy's destination: r.packed)
    const Shape* shape = r.start == kFlatRecord ? nullptr : r.shape;
    const std::int64_t* lookaside = r.lookaside;
    team.team_barrier();
    with_element_type(element, [&](auto v) {
      using T = decltype(v);
      if constexpr (sizeof(T) >= 4 && sizeof(T) <= W)
        chain_words<W, T>(team, shape, lookaside, cells, begin, stop, sources, members);
    });
  }
  // (a thread's words of the tile: apart too, one element type's code each, few registers)
  template <int W, class T>
  __attribute__((noinline)) KOKKOS_FUNCTION static void chain_words(const Member& team, const Shape* shape,
                                                                    const std::int64_t* lookaside, char* cells,
                                                                    std::int64_t begin, std::int64_t stop,
                                                                    const ChainSource* sources, int members) {
    const std::int64_t step = static_cast<std::int64_t>(team.team_size()) * W;
    const std::int64_t mine = begin + static_cast<std::int64_t>(team.team_rank()) * W;
    if (shape == nullptr)
      return chain_words_located<W, T>(mine, stop, step, cells, sources, members, [](auto p) { return p; });
    const Shape s = *shape;  // (in registers: the words' stores could alias it, and every word would reload it)
    chain_words_located<W, T>(mine, stop, step, cells, sources, members,
                              [&](std::int64_t p) { return shape_offset<true>(s, lookaside, p); });
  }
  template <int W, class T, class Locate>
  KOKKOS_FORCEINLINE_FUNCTION static void chain_words_located(std::int64_t p, std::int64_t stop, std::int64_t step,
                                                              char* cells, const ChainSource* sources, int members,
                                                              const Locate& locate) {
    constexpr int U = kChainInFlight;
    auto address = [](const void* base, std::int64_t offset) {
      return reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(offset));
    };
    auto aligned = [](const void* a) { return (reinterpret_cast<std::uintptr_t>(a) & (W - 1)) == 0; };
    for (; p < stop; p += step) {
      const std::int64_t at = locate(p);
      char* const cell = address(cells, at);
      auto source = [&](int m) {
        const ChainSource& c = sources[m];
        return address(c.base, (c.by_offset ? at : p) + c.shift);
      };
      bool all = aligned(cell);
      for (int m = 0; m < members; ++m) all = all && aligned(source(m));
      if (!all) {  // (elements at odd offsets: each member's, element by element, in order)
        for (int m = 0; m < members; ++m)
          for (int k = 0; k + static_cast<int>(sizeof(T)) <= W; k += static_cast<int>(sizeof(T)))
            store_value(cell + k, combine_selected(static_cast<Op>(sources[m].op), load_value<T>(cell + k),
                                                   load_value<T>(source(m) + k)));
        continue;
      }
      Word<W> cell_word = load_word<W>(cell);
      for (int m = 0; m < members; m += U) {
        Word<W> incoming[U];
        for (int u = 0; u < U; ++u)
          if (m + u < members) incoming[u] = load_word<W>(source(m + u));
        for (int u = 0; u < U; ++u)
          if (m + u < members) combine_in_word<W, T>(static_cast<Op>(sources[m + u].op), cell_word, incoming[u]);
      }
      store_word<W>(cell, cell_word);
    }
  }

  // Devices: tile t of a flat record (make_flat), the team's threads on interleaved words of two contiguous ranges (a
  // pack's or unpack's typed and packed buffers; a copy's source and destination).
  template <Direction Dir, int W, bool Compact = false>
  KOKKOS_FUNCTION static void run_flat(const Member& team, const FusedRecord& r, std::int64_t t) {
    if constexpr (W == 0) {  // (the general kernel: two instances, not five, so that its registers do not spill)
      if (r.word >= 8)
        run_flat<Dir, 8, Compact>(team, r, t);
      else
        run_flat<Dir, 1, Compact>(team, r, t);
    } else {
      // (a copy's destination, in r.packed, is addressed as its source is)
      const bool packs = Dir == Direction::Runtime ? r.direction == static_cast<std::int8_t>(Direction::Pack)
                                                   : Dir != Direction::Unpack && Dir != Direction::Combine;
      const std::int64_t packed_at = Dir == Direction::Copy ? 0 : r.begin;
      const bool copies = Dir == Direction::Combine && typed_to_typed(r);  // (a combining copy: into r.packed)
      const std::int64_t first = r.begin + t * r.tile, stop = first + r.tile < r.end ? first + r.tile : r.end;
      const std::int64_t step = static_cast<std::int64_t>(team.team_size()) * W;
      const std::int64_t mine = first + static_cast<std::int64_t>(team.team_rank()) * W;
      if constexpr (Dir == Direction::Combine) {
        combine_words<W, Compact>(r, mine, stop, step, [&](std::int64_t p) {
          return copies ? WordEnds{r.packed + p, r.typed + p} : WordEnds{r.typed + p, r.packed + (p - packed_at)};
        });
      } else {
        for (std::int64_t p = mine; p < stop; p += step) {
          char* typed = r.typed + p;
          char* packed = r.packed + (p - packed_at);
          if (packs)
            store_word<W>(packed, load_word<W>(typed));
          else
            store_word<W>(typed, load_word<W>(packed));
        }
      }
    }
  }

  // A uniform launch's tile (UniformFusedKernel): every record has direction Dir and word size W (a combining launch's
  // records W or more: LaunchKind::combining_word); Locating says how they locate their positions (a launch with only
  // flat records has no arithmetic, one with flat and shaped ones no walk). A combining launch without a combining
  // word runs W = 0 (and Walks): each record's word size is dispatched here.
  template <Direction Dir, int W, Locating L>
  KOKKOS_FUNCTION static void run_uniform(const Member& team, const FusedRecord& r, std::int64_t t) {
    if constexpr (Dir == Direction::Combine && W == 0) {
      with_word_size(r.word, [&](auto w) { run_apart<Dir, decltype(w)::value, L>(team, r, t); });
    } else if constexpr (L == Locating::Flat) {
      run_flat<Dir, W>(team, r, t);
    } else if constexpr (L == Locating::Shapes) {
      run_located<Dir, W>(team, r, t);
    } else {
      // Flat and shaped records as the other kernels run them, once, then a copy's walk or a pack's or unpack's (a
      // combining record's: a combining copy's or unpack's): run_flat and shaped_words address a copy's sides
      // themselves, so the Flat and Shapes kernels hold no walk's code, whose registers and instructions a small
      // launch of phases pays for in every team. (Once: twice made the combining kernels too large to inline.)
      if (r.start < 0) return run_located<Dir, W, true>(team, r, t);
      if constexpr (Dir == Direction::Copy || Dir == Direction::Combine) {
        if (Dir == Direction::Copy || typed_to_typed(r)) return walk_copy<W, Dir == Direction::Combine>(team, r, t);
      }
      walk_interleaved<Dir, W>(team, r, t);
    }
  }

  // run_uniform in a function of its own that takes the record by value: a kernel holding every word size's code is
  // too large to inline, and must not pass on its record's address (FusedKernel).
  template <Direction Dir, int W, Locating L>
  __attribute__((noinline)) KOKKOS_FUNCTION static void run_apart(const Member& team, const FusedRecord r,
                                                                  std::int64_t t) {
    run_uniform<Dir, W, L>(team, r, t);
  }

  // Synchronous hosts: one request on the calling thread, as a one-tile pack runs (no fork of the thread pool).
  static void run_on_calling_thread(const FusedRecord& r) {
    with_word_size(r.word, [&](auto w) {
      constexpr int W = decltype(w)::value;
      if (r.direction == static_cast<std::int8_t>(Direction::Copy))
        copy_of<W>(r, r.end - r.begin, {r.nodes, r.lookaside}, {r.dst_nodes, r.dst_lookaside})(0);
      else if (r.direction == static_cast<std::int8_t>(Direction::Combine) && typed_to_typed(r))
        copy_of<W, true>(r, r.end - r.begin, {r.nodes, r.lookaside}, {r.dst_nodes, r.dst_lookaside})(0);
      else if (r.direction == static_cast<std::int8_t>(Direction::Combine))
        combine_on_host(r, r.begin, r.end);
      else if (r.direction == static_cast<std::int8_t>(Direction::Pack))
        HostWalk<ExecSpace, Direction::Pack, W>{args_of(r)}.walk(r.nodes, r.begin, r.end);
      else
        HostWalk<ExecSpace, Direction::Unpack, W>{args_of(r)}.walk(r.nodes, r.begin, r.end);
    });
  }
};

}  // namespace KokkosDDT::Impl
