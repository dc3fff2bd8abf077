// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The device layout of the traversal (jenkins-tpds14, Algorithm 1): the threads of a team take interleaved words of
// its tile (thread r: words r, r + T, r + 2T, ...) and each derives its typed-buffer address from the word's stream
// position alone (locate()), so a warp's packed-side accesses coalesce and no thread depends on another.
//
// Launched as a TeamPolicy (descriptor in team scratch; the fused kernel) or flat (thread i is rank i % T of tile
// i / T, descriptor read in place; single device launches, which gain nothing from a team's scratch copy).
//
// Dir = Runtime and W = 0 take the direction and the word size from the arguments at run time: the fused kernel's one
// instance for every request, whose code must stay small for the instruction cache (one instance per direction and
// word size would make it several times larger).
//
// CarriedBytes > 0: the descriptor travels in the functor itself (CarriedDescriptor; flat launches of small types), and
// args.nodes / args.lookaside are not read.

#include <cstdint>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_CarriedDescriptor.hpp"
#include "KokkosDDT_Combine.hpp"
#include "KokkosDDT_Traversal.hpp"
#include "KokkosDDT_TraversalArgs.hpp"
#include "KokkosDDT_Words.hpp"

namespace KokkosDDT::Impl {

template <class ExecSpace, Direction Dir, int W, int CarriedBytes = 0>
struct DeviceInterleave {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using MemSpace = typename ExecSpace::memory_space;

  TraversalArgs<MemSpace> args;
  std::int64_t threads_per_team = 1;  // the flat launch's T
  bool packed_wide = false;           // the packed side in PW-byte words: set at launch from packed_words_fit()
  Divisor per_team;                   // divides by threads_per_team (flat launches; set with it)
  // Flat launches: a copy of node args.start, where every walk begins, at a fixed place in the parameters. Its fields
  // are then read at constant offsets, all at once, instead of after a read of args.start (one dependent read fewer
  // before the first data load; the whole walk of a one-level type).
  DescriptorNode first_node{};
  // CarriedBytes > 0: the descriptor itself. Last, so that the scalars every thread reads first share the parameter
  // bank's first lines.
  CarriedDescriptor<CarriedBytes> carried;

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    run_tile(team, team_descriptor(team, args), team.league_rank());
  }

  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    // (A multiply-high: a 64-bit division by a run-time value is a long subroutine on GPUs, and every thread does one.)
    const std::int64_t team = per_team.divide(i), rank = i - team * threads_per_team;
    const std::int64_t first = args.begin + team * args.tile;
    interleave(nodes(), &first_node, first, Kokkos::min(args.end, first + args.tile), rank, threads_per_team);
  }

  // Tile `t` of the transfer, by the whole team.
  KOKKOS_FUNCTION void run_tile(const Member& team, const DescriptorNode* desc, std::int64_t t) const {
    const std::int64_t first = args.begin + t * args.tile;
    interleave(desc, desc + args.start, first, Kokkos::min(args.end, first + args.tile), team.team_rank(),
               team.team_size());
  }

  // The packed side of a tile is contiguous, so narrow types (W < Config::packed_word) move it in PW-byte words: thread
  // r takes packed words r, r + T, ... and gathers (pack) or scatters (unpack) their W-byte units on the typed side.
  // The typed side's loads stay in cache; the packed side's stores, which cross PCIe when packing into pinned host
  // memory, become PW bytes each instead of W.
  static constexpr int PW = W > 0 && W < Config::packed_word ? Config::packed_word : W;

  // Packed words only where the packed buffer is aligned for them and every thread of a tile gets a whole one: a
  // thread gathers its units one after another, so on small transfers (few units per thread) the unit-per-thread
  // layout finishes sooner.
  KOKKOS_FUNCTION static bool packed_words_fit(const char* packed_at, std::int64_t tile_bytes, std::int64_t threads) {
    if constexpr (PW == W) return false;
    return reinterpret_cast<std::uintptr_t>(packed_at) % PW == 0 && tile_bytes % PW == 0 && tile_bytes >= threads * PW;
  }

 private:
  KOKKOS_FORCEINLINE_FUNCTION const DescriptorNode* nodes() const {
    if constexpr (CarriedBytes > 0)
      return carried.nodes();
    else
      return args.nodes.data();
  }
  KOKKOS_FORCEINLINE_FUNCTION const std::int64_t* lookaside() const {
    if constexpr (CarriedBytes > 0)
      return carried.lookaside();
    else
      return args.lookaside.data();
  }

  KOKKOS_FUNCTION bool packs() const {
    if constexpr (Dir == Direction::Runtime)
      return args.packing;
    else
      return Dir == Direction::Pack;
  }
  KOKKOS_FUNCTION std::int64_t word() const { return W > 0 ? W : args.word; }

  // A word held in registers (W == 0: room for the widest), loaded and stored with the word size's own instructions.
  using Unit = Word<(W > 0 ? W : 16)>;
  KOKKOS_FUNCTION Unit load_unit(const char* src) const {
    Unit u;
    if constexpr (W > 0) {
      u = load_word<W>(src);
    } else {
      with_word_size(args.word, [&](auto w) {
        constexpr int V = decltype(w)::value;
        *reinterpret_cast<Word<V>*>(&u) = load_word<V>(src);
      });
    }
    return u;
  }
  KOKKOS_FUNCTION void store_unit(char* dst, const Unit& u) const {
    if constexpr (W > 0) {
      store_word<W>(dst, u);
    } else {
      with_word_size(args.word, [&](auto w) {
        constexpr int V = decltype(w)::value;
        store_word<V>(dst, *reinterpret_cast<const Word<V>*>(&u));
      });
    }
  }

  // The typed buffer's address of stream byte q (the point-based traversal), the walk beginning at node `start`, its
  // positions divided as Pos (see locate).
  template <class Pos>
  KOKKOS_FUNCTION char* typed_at(const DescriptorNode* desc, const DescriptorNode* start, std::int64_t q) const {
    const std::int64_t* la = lookaside();
    const Hit h = locate<Pos, true>(desc, la, q - args.start_at, NoPath(), start);
    return args.typed + (args.start_disp + h.base + h.inner);
  }

  // Words p, p + step, ... before `stop`, one at a time (one word in flight per thread: fewer registers, more resident
  // threads, which hide latency better than more words in flight per thread).
  template <class Pos>
  KOKKOS_FUNCTION void interleave_words(const DescriptorNode* desc, const DescriptorNode* start, std::int64_t p,
                                        std::int64_t stop, std::int64_t step) const {
    for (; p < stop; p += step) {
      char* t = typed_at<Pos>(desc, start, p);
      char* k = args.packed + (p - args.begin);
      if constexpr (Dir == Direction::Combine)
        combine_word<W>(args.op, args.element, t, k);
      else if (packs())
        store_unit(k, load_unit(t));
      else
        store_unit(t, load_unit(k));
    }
  }

  template <class Pos>
  KOKKOS_FUNCTION void interleave_packed_words(const DescriptorNode* desc, const DescriptorNode* start, std::int64_t g,
                                               std::int64_t stop, std::int64_t step) const {
    for (; g < stop; g += step) {
      if (stop - g < PW) return interleave_words<Pos>(desc, start, g, stop, W);  // the last partial word: by units
      char* k = args.packed + (g - args.begin);
      if (packs()) {
        Word<PW> out;
        for (int j = 0; j < PW / W; ++j) {
          const Word<W> w = load_word<W>(typed_at<Pos>(desc, start, g + j * W));
          for (int b = 0; b < W; ++b) out.bytes[j * W + b] = w.bytes[b];
        }
        store_word<PW>(k, out);
      } else {
        const Word<PW> in = load_word<PW>(k);
        for (int j = 0; j < PW / W; ++j) {
          Word<W> w;
          for (int b = 0; b < W; ++b) w.bytes[b] = in.bytes[j * W + b];
          store_word<W>(typed_at<Pos>(desc, start, g + j * W), w);
        }
      }
    }
  }

  // Rank r of T threads moves its share of stream bytes [first, stop). Positions below 2^31 throughout (every walk's
  // position is below args.end - args.start_at) are divided in 32 bits; only where the word size is known at compile
  // time, so that the fused kernel's one instance for every request (W = 0) keeps one walk.
  KOKKOS_FUNCTION void interleave(const DescriptorNode* desc, const DescriptorNode* start, std::int64_t first,
                                  std::int64_t stop, std::int64_t r, std::int64_t T) const {
    if constexpr (W > 0) {
      if (args.end - args.start_at <= kPositions32) return interleave_as<std::uint32_t>(desc, start, first, stop, r, T);
    }
    interleave_as<std::int64_t>(desc, start, first, stop, r, T);
  }
  template <class Pos>
  KOKKOS_FUNCTION void interleave_as(const DescriptorNode* desc, const DescriptorNode* start, std::int64_t first,
                                     std::int64_t stop, std::int64_t r, std::int64_t T) const {
    if constexpr (PW > W && Dir != Direction::Combine) {
      if (packed_wide) return interleave_packed_words<Pos>(desc, start, first + r * PW, stop, T * PW);
    }
    interleave_words<Pos>(desc, start, first + r * word(), stop, T * word());
  }
};

}  // namespace KokkosDDT::Impl
