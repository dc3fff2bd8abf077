#pragma once
// The one pack/unpack kernel: a TeamPolicy over tiles of the packed stream. Each team copies the fixed-length
// descriptor into level-0 scratch once, then its threads resolve positions with the point-based traversal and copy
// words. Direction only swaps source and destination.

#include <cstdint>
#include <cstring>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_LaunchTraits.hpp"
#include "impl/KokkosDDT_Committed.hpp"
#include "impl/KokkosDDT_Cursor.hpp"
#include "impl/KokkosDDT_Traversal.hpp"

namespace KokkosDDT::Impl {

// Runtime: chosen per request at run time (the fused kernel's device layout; see `packing`).
enum class Direction { Pack, Unpack, Runtime };

template <int W>
struct alignas(W) Word {
  unsigned char bytes[W];
};

// Copies n bytes (a multiple of W; both pointers W-aligned). Devices move aligned W-byte words; hosts, where
// unaligned moves are cheap, copy short runs with inlined fixed-size moves, the last one overlapping (run lengths
// repeat, so the branches predict), and long runs with memcpy.
template <int W>
KOKKOS_FORCEINLINE_FUNCTION void copy_bytes(char* dst, const char* src, std::int64_t n) {
  KOKKOS_IF_ON_HOST((
      if (n == W) { std::memcpy(dst, src, W); } else if (n >= 256) {
        std::memcpy(dst, src, n);
      } else if (n >= 32) {  // 32-byte moves, the last one overlapping its predecessor (src and dst never overlap)
        for (std::int64_t i = 0; i < n - 32; i += 32) std::memcpy(dst + i, src + i, 32);
        std::memcpy(dst + n - 32, src + n - 32, 32);
      } else if (n >= 16) {
        std::memcpy(dst, src, 16);
        std::memcpy(dst + n - 16, src + n - 16, 16);
      } else if (n >= 8) {
        std::memcpy(dst, src, 8);
        std::memcpy(dst + n - 8, src + n - 8, 8);
      } else {
        for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i];
      }))
  KOKKOS_IF_ON_DEVICE((for (std::int64_t i = 0; i < n; i += W) {
    *reinterpret_cast<Word<W>*>(dst + i) = *reinterpret_cast<const Word<W>*>(src + i);
  }))
}

// One aligned word, loaded and stored as such (host: memcpy, which compiles to the same move).
template <int W>
KOKKOS_FORCEINLINE_FUNCTION Word<W> load_word(const char* src) {
  Word<W> w;
  KOKKOS_IF_ON_HOST((std::memcpy(&w, src, W);))
  KOKKOS_IF_ON_DEVICE((w = *reinterpret_cast<const Word<W>*>(src);))
  return w;
}

template <int W>
KOKKOS_FORCEINLINE_FUNCTION void store_word(char* dst, const Word<W>& w) {
  KOKKOS_IF_ON_HOST((std::memcpy(dst, &w, W);))
  KOKKOS_IF_ON_DEVICE((*reinterpret_cast<Word<W>*>(dst) = w;))
}

// Runs of 9-15 and 17-31 bytes (the seed's 17-byte struct): two overlapping moves on hosts, words on devices.
KOKKOS_FORCEINLINE_FUNCTION void copy_8_16(char* dst, const char* src, std::int64_t n) {
  KOKKOS_IF_ON_HOST((std::memcpy(dst, src, 8); std::memcpy(dst + n - 8, src + n - 8, 8);))
  KOKKOS_IF_ON_DEVICE((for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i];))
}

KOKKOS_FORCEINLINE_FUNCTION void copy_16_32(char* dst, const char* src, std::int64_t n) {
  KOKKOS_IF_ON_HOST((std::memcpy(dst, src, 16); std::memcpy(dst + n - 16, src + n - 16, 16);))
  KOKKOS_IF_ON_DEVICE((for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i];))
}

// `Sequential`: each thread walks a tile's runs in order (hosts); otherwise the threads of a team interleave words
// (devices). The choice is made at compile time, so a device kernel carries no host-walk code (and its registers).
// Dir = Runtime and W = 0 (interleaved layout only) take the direction and the word size from `packing` and
// `word_bytes` at run time: one instance serves every request of a fused launch, so its code stays small enough for the
// instruction cache (one instance per direction and word size made the fused kernel 290 KiB of code).
template <class ExecSpace, Direction Dir, int W, bool Sequential>
struct TraversalKernel {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using MemSpace = typename ExecSpace::memory_space;

  Kokkos::View<const Node*, MemSpace> nodes;
  Kokkos::View<const std::int64_t*, MemSpace> lookaside;
  char* user;    // the typed buffer (origin of displacement 0)
  char* packed;  // holds stream bytes [begin, end)
  std::int64_t begin, end, tile;
  bool cache_descriptor;
  std::int64_t threads_per_team;            // the flat (RangePolicy) launch
  bool packing = Dir != Direction::Unpack;  // Dir == Runtime: pack (true) or unpack
  int word_bytes = W;                       // W == 0: the word size, 1, 2, 4, 8 or 16

  KOKKOS_FUNCTION bool packs() const {
    if constexpr (Dir == Direction::Runtime)
      return packing;
    else
      return Dir == Direction::Pack;
  }
  KOKKOS_FUNCTION std::int64_t word() const { return W > 0 ? W : word_bytes; }

  // A word held in registers (W == 0: room for the widest), loaded and stored with the word size's own instructions.
  using Unit = Word<(W > 0 ? W : 16)>;
  KOKKOS_FUNCTION Unit load_unit(const char* src) const {
    if constexpr (W > 0) {
      return load_word<W>(src);
    } else {
      Unit u;
      switch (word_bytes) {
        case 16:
          return load_word<16>(src);
        case 8:
          *reinterpret_cast<Word<8>*>(&u) = load_word<8>(src);
          break;
        case 4:
          *reinterpret_cast<Word<4>*>(&u) = load_word<4>(src);
          break;
        case 2:
          *reinterpret_cast<Word<2>*>(&u) = load_word<2>(src);
          break;
        default:
          *reinterpret_cast<Word<1>*>(&u) = load_word<1>(src);
      }
      return u;
    }
  }
  KOKKOS_FUNCTION void store_unit(char* dst, const Unit& u) const {
    if constexpr (W > 0) {
      store_word<W>(dst, u);
    } else {
      switch (word_bytes) {
        case 16:
          return store_word<16>(dst, u);
        case 8:
          return store_word<8>(dst, *reinterpret_cast<const Word<8>*>(&u));
        case 4:
          return store_word<4>(dst, *reinterpret_cast<const Word<4>*>(&u));
        case 2:
          return store_word<2>(dst, *reinterpret_cast<const Word<2>*>(&u));
        default:
          return store_word<1>(dst, *reinterpret_cast<const Word<1>*>(&u));
      }
    }
  }

  KOKKOS_FUNCTION void move(char* user_at, char* packed_at, std::int64_t n) const {
    if (packs())
      copy_bytes<W>(packed_at, user_at, n);
    else
      copy_bytes<W>(user_at, packed_at, n);
  }

  KOKKOS_FUNCTION const Node* team_descriptor(const Member& team) const {
    if (!cache_descriptor) return nodes.data();
    const int words = static_cast<int>(nodes.extent(0) * sizeof(Node) / sizeof(Word<16>));
    auto* scratch =
        static_cast<Word<16>*>(team.team_scratch(0).get_shmem_aligned(words * sizeof(Word<16>), alignof(Node)));
    if (scratch == nullptr) return nodes.data();  // (cannot happen: launch_traversal reserves it)
    const auto* global = reinterpret_cast<const Word<16>*>(nodes.data());
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, words), [&](int i) { scratch[i] = global[i]; });
    team.team_barrier();
    return reinterpret_cast<const Node*>(scratch);
  }

  // `count` runs of `elem` bytes, `stride` apart in the user buffer, consecutive in the packed one; `Unroll`
  // copies per iteration keep more loads in flight when each run is a single word.
  template <int Unroll, class Copy>
  KOKKOS_FUNCTION void strided_loop(char* u, char* k, std::int64_t stride, std::int64_t count, const Copy& copy,
                                    std::int64_t elem) const {
    auto one = [&](char* user_at, char* packed_at) {
      if (packs())
        copy(packed_at, user_at);
      else
        copy(user_at, packed_at);
    };
    std::int64_t i = 0;
    for (; i + Unroll <= count; i += Unroll, u += Unroll * stride, k += Unroll * elem)
      for (int r = 0; r < Unroll; ++r) one(u + r * stride, k + r * elem);
    for (; i < count; ++i, u += stride, k += elem) one(u, k);
  }

  // One thread, consecutive positions: locate the first one, then walk each terminal node's blocks with pointer
  // increments (a hand-written loop's inner loop) and let the cursor find the next terminal node.
  KOKKOS_FUNCTION void walk_runs(const Node* desc, std::int64_t p, std::int64_t stop) const {
    Cursor cursor(desc, lookaside.data());
    Hit h = cursor.seek(p);
    while (true) {
      bool exhausted = false;
      p = walk_node(cursor, h, p, stop, exhausted);
      if (p >= stop) return;
      if (!exhausted || !cursor.next(h)) h = cursor.seek(p);
    }
  }

  // Copies from h on to the end of its terminal node (exhausted = true) or to `stop`, or up to a Struct field with
  // a derived child (the caller locates that one). Returns the new position. A strided node also carries on through
  // the following instances of itself while its parent level is strided (the loop nest of a hand-written pack).
  KOKKOS_FUNCTION std::int64_t walk_node(Cursor& cursor, Hit& h, std::int64_t p, std::int64_t stop,
                                         bool& exhausted) const {
    const Node* n = h.node;
    if (n->kind == kStrided) {
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
    char* k = packed + (p - begin);
    std::int64_t inner = h.inner;  // other kinds: one block_span per block
    for (std::int64_t b = h.block; b < n->count; ++b) {
      const Span s = block_span(n, lookaside.data(), b, h.base);
      if (s.length == 0) return p;  // a derived struct field
      const std::int64_t len = Kokkos::min(s.length - inner, stop - p);
      move(user + s.offset + inner, k, len);
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
    const Node* n = h.node;
    const std::int64_t elem = n->elem, stride = n->stride;
    char* k = packed + (p - begin);
    while (true) {
      char* u = user + h.base + h.block * stride;
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

  // Many threads, interleaved words: thread r takes words r, r + T, r + 2T, ... of the tile, kWordsInFlight at a
  // time, all loads issued before the stores (more in flight per thread costs registers, hence resident threads).
#ifndef KOKKOSDDT_WORDS_IN_FLIGHT  // 1 measured best on the H100 (fewer registers, more resident threads)
#define KOKKOSDDT_WORDS_IN_FLIGHT 1
#endif
  static constexpr int kWordsInFlight = KOKKOSDDT_WORDS_IN_FLIGHT;

  // The typed buffer's address of stream byte q (the point-based traversal).
  KOKKOS_FUNCTION char* typed_at(const Node* desc, std::int64_t q) const {
    const Hit h = locate(desc, lookaside.data(), q);
    return user + block_span(h.node, lookaside.data(), h.block, h.base).offset + h.inner;
  }

  KOKKOS_FUNCTION void interleave_words(const Node* desc, std::int64_t p, std::int64_t stop, std::int64_t step) const {
    for (; p < stop; p += kWordsInFlight * step) {
      Unit words[kWordsInFlight];
      char* to[kWordsInFlight];
      for (int i = 0; i < kWordsInFlight; ++i) {
        const std::int64_t q = p + i * step;
        to[i] = nullptr;
        if (q >= stop) continue;
        char* u = typed_at(desc, q);
        char* k = packed + (q - begin);
        to[i] = packs() ? k : u;
        words[i] = load_unit(packs() ? u : k);
      }
      for (int i = 0; i < kWordsInFlight; ++i)
        if (to[i]) store_unit(to[i], words[i]);
    }
  }

  // The packed side of a tile is contiguous, so narrow types (W < KOKKOSDDT_PACKED_WORD) move it in PW-byte words:
  // thread r takes packed words r, r + T, ... and gathers (pack) or scatters (unpack) their W-byte units on the typed
  // side. The typed side's loads stay in cache; the packed side's stores, which cross PCIe when packing into pinned
  // host memory, become PW bytes each instead of W. Needs the packed buffer PW-aligned and tiles a multiple of PW.
#ifndef KOKKOSDDT_PACKED_WORD
#define KOKKOSDDT_PACKED_WORD 8
#endif
  static constexpr int PW = W < KOKKOSDDT_PACKED_WORD ? KOKKOSDDT_PACKED_WORD : W;  // (W == 0: not used)
  bool packed_wide = false;  // set at launch: packed_words_fit() (never with W == 0)

  // Packed words only where the packed buffer is aligned for them and every thread of a tile gets a whole one: a
  // thread gathers its units one after another, so on small transfers (few units per thread) the unit-per-thread
  // layout finishes sooner (measured on the H100: a 3 KiB struct pack 7.8 us by units, 10.9 us by packed words;
  // 15 MiB 78 vs 65 us, and 513 vs 330 us into pinned host memory).
  KOKKOS_FUNCTION static bool packed_words_fit(const char* packed_at, std::int64_t tile_bytes, std::int64_t threads) {
    return reinterpret_cast<std::uintptr_t>(packed_at) % PW == 0 && tile_bytes % PW == 0 && tile_bytes >= threads * PW;
  }

  KOKKOS_FUNCTION void interleave_packed_words(const Node* desc, std::int64_t g, std::int64_t stop,
                                               std::int64_t step) const {
    for (; g < stop; g += step) {
      if (stop - g < PW) return interleave_words(desc, g, stop, W);  // the range's last partial word: by units
      char* k = packed + (g - begin);
      if (packs()) {
        Word<PW> out;
        for (int j = 0; j < PW / W; ++j) {
          const Word<W> w = load_word<W>(typed_at(desc, g + j * W));
          for (int b = 0; b < W; ++b) out.bytes[j * W + b] = w.bytes[b];
        }
        store_word<PW>(k, out);
      } else {
        const Word<PW> in = load_word<PW>(k);
        for (int j = 0; j < PW / W; ++j) {
          Word<W> w;
          for (int b = 0; b < W; ++b) w.bytes[b] = in.bytes[j * W + b];
          store_word<W>(typed_at(desc, g + j * W), w);
        }
      }
    }
  }

  // Rank r of T threads moves its share of stream bytes [first, stop).
  KOKKOS_FUNCTION void interleave(const Node* desc, std::int64_t first, std::int64_t stop, std::int64_t r,
                                  std::int64_t T) const {
    if constexpr (W > 0 && PW > W) {
      if (packed_wide) return interleave_packed_words(desc, first + r * PW, stop, T * PW);
    }
    interleave_words(desc, first + r * word(), stop, T * word());
  }

  // Tile `t` of this transfer, by the whole team (the fused kernel calls this for its requests' tiles too).
  KOKKOS_FUNCTION void run_tile(const Member& team, const Node* desc, std::int64_t t) const {
    const std::int64_t first = begin + t * tile;
    const std::int64_t stop = Kokkos::min(end, first + tile);
    if constexpr (Sequential)
      walk_runs(desc, first, stop);
    else
      interleave(desc, first, stop, team.team_rank(), team.team_size());
  }

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    run_tile(team, team_descriptor(team), team.league_rank());
  }

  // The same work without teams: thread i is rank i % T of tile i / T; the descriptor is read in place.
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    const std::int64_t team = i / threads_per_team, rank = i - team * threads_per_team;
    const std::int64_t first = begin + team * tile;
    interleave(nodes.data(), first, Kokkos::min(end, first + tile), rank, threads_per_team);
  }
};

// Moves stream bytes [begin, end) of `type` between `user` and `packed` on `space` (asynchronously).
// `Traits` (LaunchTraits<ExecSpace> by default) lets the tests run the device layout on a host backend.
template <class ExecSpace, Direction Dir, int W, class Traits>
void launch_traversal(const ExecSpace& space, const CommittedType& type, char* user, char* packed, std::int64_t begin,
                      std::int64_t end) {
  using Kernel = TraversalKernel<ExecSpace, Dir, W, Traits::sequential>;
  if (end <= begin) return;  // nothing to move (and a launch of zero blocks is an error on CUDA)
  const auto d = descriptor<typename ExecSpace::memory_space>(type);
  const std::int64_t tile = Traits::tile_bytes(space, end - begin, W);
  const std::int64_t teams = (end - begin + tile - 1) / tile;
  const std::int64_t descriptor_bytes = static_cast<std::int64_t>(type.nodes.size() * sizeof(Node));
  const bool cache = descriptor_bytes <= Traits::max_scratch_descriptor;
  const int team_size = Traits::team_size();
  Kernel kernel{d.nodes, d.lookaside, user, packed, begin, end, tile, cache, team_size};
  kernel.packed_wide = Kernel::packed_words_fit(packed, tile, team_size);
  const char* label = Dir == Direction::Pack ? "KokkosDDT::pack" : "KokkosDDT::unpack";
  if constexpr (Traits::sequential && Traits::inline_single_team) {
    if (teams == 1) {  // one tile: the same walk on the calling thread, without a fork/join
      const bool tools = Kokkos::Tools::profileLibraryLoaded();
      if (tools) Kokkos::Profiling::pushRegion(label);  // tools still see the operation
      kernel.walk_runs(d.nodes.data(), begin, end);
      if (tools) Kokkos::Profiling::popRegion();
      return;
    }
  }
  if constexpr (!Traits::sequential) {
    if (teams <= Traits::flat_launch_teams) {  // see LaunchTraits::flat_launch_teams
      launch_flat(space, label, teams * team_size, kernel);
      return;
    }
  }
  typename Kernel::Policy policy(space, static_cast<int>(teams), team_size);
  if (cache) policy.set_scratch_size(0, Kokkos::PerTeam(descriptor_bytes + alignof(Node)));  // + room to align
  Kokkos::parallel_for(label, policy, kernel);
}

template <class ExecSpace, Direction Dir, class Traits = LaunchTraits<ExecSpace>>
void launch_traversal(const ExecSpace& space, const CommittedType& type, char* user, char* packed, std::int64_t begin,
                      std::int64_t end, int word) {
  switch (word) {
    case 16:
      return launch_traversal<ExecSpace, Dir, 16, Traits>(space, type, user, packed, begin, end);
    case 8:
      return launch_traversal<ExecSpace, Dir, 8, Traits>(space, type, user, packed, begin, end);
    case 4:
      return launch_traversal<ExecSpace, Dir, 4, Traits>(space, type, user, packed, begin, end);
    case 2:
      return launch_traversal<ExecSpace, Dir, 2, Traits>(space, type, user, packed, begin, end);
    default:
      return launch_traversal<ExecSpace, Dir, 1, Traits>(space, type, user, packed, begin, end);
  }
}

}  // namespace KokkosDDT::Impl
