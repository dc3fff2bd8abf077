// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The fusion queue's kernel (chu-fusion21, Sec. IV-A3): one TeamPolicy launch over the tiles of many pending
// requests. Teams go to requests in proportion to their size (a prefix sum of tile counts; a team finds its request by
// bisecting the parameter records' first teams, or by binary search in memory: see find), each team copies its
// request's fixed-length descriptor into level-0 scratch and runs the same per-tile traversal as a single transfer
// (HostWalk or DeviceInterleave::run_tile). The last team to finish a request writes the request's ticket into a
// host-readable flag, so the host learns of completion without synchronizing the stream.

#include <algorithm>
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>
#include <desul/atomics.hpp>

#include "KokkosDDT_Backend.hpp"
#include "KokkosDDT_Committed.hpp"
#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_Copy.hpp"
#include "KokkosDDT_DeviceInterleave.hpp"
#include "KokkosDDT_HostWalk.hpp"
#include "KokkosDDT_SameShape.hpp"
#include "KokkosDDT_Transfer.hpp"
#include "KokkosDDT_TraversalArgs.hpp"
#include "KokkosDDT_TypedCopy.hpp"

namespace KokkosDDT::Impl {

// One request of a fused launch, as the kernel reads it: from the kernel's parameters for small launches, else from the
// execution space's memory. Kept compact (120 bytes) so that a halo's worth of records fits the parameter space.
// A copy (Direction::Copy) reads `typed` through `nodes` and writes `packed`, the destination's typed buffer, through
// `dst_nodes`: one request per message a process sends itself, with no packed buffer between.
struct FusedRecord {
  const DescriptorNode* nodes = nullptr;  // the request's descriptor, in the execution space's memory
  const std::int64_t* lookaside = nullptr;
  char* typed = nullptr;
  char* packed = nullptr;
  std::int64_t begin = 0, end = 0, tile = 0;  // stream bytes [begin, end), in tiles of `tile` bytes
  std::uint64_t ticket = 0;                   // written to flags[slot] once the request is done
  const DescriptorNode* dst_nodes = nullptr;  // a copy's destination descriptor
  const std::int64_t* dst_lookaside = nullptr;
  std::int32_t first_team = 0;  // teams of the launch's earlier requests (a launch has < 2^31)
  std::int32_t teams = 0;       // this request's
  std::int32_t node_count = 0, slot = 0;
  std::int32_t lookaside_count = 0;  // (a committed descriptor's arrays are checked to fit)
  std::int32_t dst_node_count = 0, dst_lookaside_count = 0;
  // Devices: the node every walk starts at, below the levels the whole request shares (start_below_shared_levels).
  std::int32_t start = 0;
  std::int8_t word = 1, direction = 0, cache = 0;  // cache: see cache_level
  std::int16_t gate = -1;  // the counter its teams wait for before they write (FusedBatch::gate_on; -1: none)
};
static_assert(sizeof(FusedRecord) == 120, "FusedRecord: a halo's records must fit the kernel's parameters");

// What a record's teams copy into scratch (devices; hosts cache only a pack's nodes): 0 nothing (too large), 1 the
// nodes, 2 the nodes and the lookaside. A copy's record counts both descriptors together.
inline std::int8_t cache_level(std::int64_t nodes, std::int64_t lookaside) {
  const std::int64_t node_bytes = nodes * static_cast<std::int64_t>(sizeof(DescriptorNode));
  if (node_bytes > kMaxScratchDescriptor) return 0;
  return node_bytes + lookaside * static_cast<std::int64_t>(sizeof(std::int64_t)) <= kMaxScratchDescriptor ? 2 : 1;
}

// A descriptor's arrays as a fused request counts them (32-bit).
template <class MemSpace>
void check_fused_descriptor(const Descriptor<MemSpace>& d, const char* where, const char* argument) {
  if (d.nodes.extent(0) > 0x7fffffff || d.lookaside.extent(0) > 0x7fffffff)
    throw_error(ErrorCode::Overflow, where, argument, "has a descriptor too large for a fused request (2^31 entries)");
}

// Devices: the record's walks start below the levels whose one element holds every position it moves (shared_levels):
// its positions and typed buffers (both, for a copy of one shape) move by what those levels add, once, on the host.
// Hosts walk runs from the root.
template <class ExecSpace>
void start_below_shared_levels(FusedRecord& r, const CommittedType& type) {
  if constexpr (!BackendTraits<ExecSpace>::walks_runs) {
    const SharedLevels l = shared_levels(type.nodes.data(), type.lookaside.data(), r.begin, r.end);
    r.start = l.start;
    r.begin -= l.at;
    r.end -= l.at;
    r.typed = address_at(r.typed, l.disp);
    if (r.direction == static_cast<std::int8_t>(Direction::Copy)) r.packed = address_at(r.packed, l.disp);
  }
}

// Devices: whether every walk of a record starting at node `start` reads that node alone and little of it: a terminal
// Contig node (its displacement). Such a record needs no descriptor in the kernel (make_flat), where the copy into
// scratch is a load, a store, the team's barrier and a load again, a large part of what a launch of little work waits
// for. Other walks keep the copy: a terminal Strided node read in place is slower (its walk reads the node's stride and
// divisors for every word), and deeper walks would wait for each level's load.
inline bool walk_reads_one_node(const CommittedType& type, std::int32_t start) {
  const DescriptorNode& n = type.nodes[static_cast<std::size_t>(start)];
  return n.child < 0 && n.kind == LayoutKind::Contig;
}

// A record's `start` when it is flat: its stream positions are its typed buffer's bytes, in order.
constexpr std::int32_t kFlatRecord = -1;

// How many of a launch's records are flat (LaunchKind): the uniform kernels have an instance for each answer.
enum class Flats { None, Some, All };

// Devices: a record whose every walk would read one terminal Contig node (walk_reads_one_node) needs no walk: the
// typed address of position p is that node's displacement plus p, so the node's displacement moves into the typed
// pointer here, once, and the kernel copies words between two contiguous ranges with no descriptor read at all
// (run_flat). What this removes from a one-warp launch is a dependent load and the walk's instructions.
inline void make_flat(FusedRecord& r, const CommittedType& type) {
  const std::int64_t disp = type.nodes[static_cast<std::size_t>(r.start)].disp;
  r.typed = address_at(r.typed, disp);
  if (r.direction == static_cast<std::int8_t>(Direction::Copy)) r.packed = address_at(r.packed, disp);  // (one shape)
  r.start = kFlatRecord;
  r.cache = 0;
}

// The record of a checked transfer (prepare_transfer) over its descriptor in the execution space's memory, in tiles of
// `tile` bytes; its place in a launch (first_team, slot, ticket) is the caller's. Shared by the fusion queue and fixed
// batches.
template <class ExecSpace>
FusedRecord record_of(const Transfer& t, const Descriptor<typename ExecSpace::memory_space>& d, std::int64_t tile,
                      Direction dir, const char* where) {
  check_fused_descriptor(d, where, "type");
  FusedRecord r;
  r.nodes = d.nodes.data();
  r.lookaside = d.lookaside.data();
  r.node_count = static_cast<std::int32_t>(d.nodes.extent(0));
  r.lookaside_count = static_cast<std::int32_t>(d.lookaside.extent(0));
  r.typed = t.typed;
  r.packed = t.packed;
  r.begin = t.begin;
  r.end = t.end;
  r.tile = tile;
  r.teams = static_cast<std::int32_t>((t.end - t.begin + tile - 1) / tile);  // (callers keep a launch under 2^31)
  r.word = static_cast<std::int8_t>(t.word);
  r.direction = static_cast<std::int8_t>(dir);
  r.cache = cache_level(static_cast<std::int64_t>(d.nodes.extent(0)), r.lookaside_count);
  if (dir != Direction::Copy) {
    start_below_shared_levels<ExecSpace>(r, *t.type);
    if (!BackendTraits<ExecSpace>::walks_runs && walk_reads_one_node(*t.type, r.start)) make_flat(r, *t.type);
  }
  return r;
}

// The record of a checked typed-to-typed copy (prepare_copy) over both sides' descriptors in `space`'s memory. Devices
// cache both in team scratch when together they fit: every position is located in both, and from global memory each
// level of those walks is a dependent load. Where the two types share one shape (same_shape),
// the destination's descriptor is the source's, over the destination's buffer moved by their delta (the destination's
// own is then never copied to the device): devices locate each position once, from below the levels the whole copy
// shares, and cache one descriptor (run_copy knows it by dst_nodes == nodes).
template <class ExecSpace>
FusedRecord record_of_copy(const CopyTransfer& t, const ExecSpace& space, std::int64_t tile, const char* where) {
  using MemSpace = typename ExecSpace::memory_space;
  std::int64_t delta = 0;
  const bool one_shape = same_shape(*t.src_type, *t.dst_type, delta);
  const Descriptor<MemSpace> s = descriptor<MemSpace>(*t.src_type, space);
  const Descriptor<MemSpace> d = one_shape ? s : descriptor<MemSpace>(*t.dst_type, space);
  check_fused_descriptor(s, where, "stype");
  check_fused_descriptor(d, where, "dtype");
  // The source side as a transfer whose "packed" buffer is the destination's typed one; then the destination's
  // descriptor.
  const Transfer source{t.src_type, 0, t.src, one_shape ? address_at(t.dst, delta) : t.dst, t.begin, t.end, t.word};
  FusedRecord r = record_of<ExecSpace>(source, s, tile, Direction::Copy, where);
  if (!one_shape)  // (else the source's alone, as record_of set it)
    r.cache = cache_level(static_cast<std::int64_t>(s.nodes.extent(0) + d.nodes.extent(0)),
                          static_cast<std::int64_t>(s.lookaside.extent(0) + d.lookaside.extent(0)));
  r.dst_nodes = d.nodes.data();
  r.dst_lookaside = d.lookaside.data();
  r.dst_node_count = static_cast<std::int32_t>(d.nodes.extent(0));
  r.dst_lookaside_count = static_cast<std::int32_t>(d.lookaside.extent(0));
  if (one_shape) {
    start_below_shared_levels<ExecSpace>(r, *t.src_type);
    if (!BackendTraits<ExecSpace>::walks_runs && walk_reads_one_node(*t.src_type, r.start)) make_flat(r, *t.src_type);
  }
  return r;
}

template <class ExecSpace>
struct FusedKernel {
  using Backend = BackendTraits<ExecSpace>;
  using Policy = Kokkos::TeamPolicy<ExecSpace, typename Backend::fused_launch_bounds>;
  using Member = typename Policy::member_type;
  using MemSpace = typename ExecSpace::memory_space;

  // Launches of up to kInline requests carry their records in the kernel's parameters: no copy to the device before
  // the launch, and the team-to-request search reads the constant cache. (Kokkos passes a functor under 4 KiB as
  // parameters when the policy is light weight, as flush() makes it.)
  static constexpr int kInline = Config::fused_inline_records;
  // Their first teams again, packed for the lookup (find), padded to a power of two with teams no launch has.
  static constexpr int kSearch = [] {
    int k = 1;
    while (k < kInline) k *= 2;
    return k;
  }();
  static_assert(kInline * sizeof(FusedRecord) + kSearch * sizeof(std::int32_t) <= 3584,
                "KokkosDDT_FUSED_INLINE_RECORDS: the records must leave room in the kernel's 4 KiB of parameters for "
                "the launch's own (Kokkos copies a larger functor to the device before each launch)");
  struct FirstTeams {
    std::int32_t at[kSearch];
    KOKKOS_FUNCTION FirstTeams() {
      for (std::int32_t& a : at) a = 0x7fffffff;
    }
  };
  FusedRecord inline_records[kInline];
  FirstTeams inline_first;
  Kokkos::View<const FusedRecord*, MemSpace> records;  // otherwise: a ring of `capacity`; the launch's: [start, +n)
  std::int64_t start = 0, n = 0, capacity = 1;
  Kokkos::View<std::int64_t*, MemSpace> done;  // per slot: teams finished so far (reset by the last one)
  std::uint64_t* flags = nullptr;              // per slot, readable by the host
  // Device completion (FusedBatch::signal_after): once every team of the launch is done, `signal` is stored into each
  // of the `signals` counters (other processes' memory, mapped: the peer transport's "written"), at system scope.
  // Device begin (FusedBatch::gate_on), after them in the same array: the first team to start stores `signal` into
  // each of `raise_count` counters; then `gate_count` counters, one of which a gated record's teams wait for.
  const std::uintptr_t* signals = nullptr;  // (addresses: a View of pointers would be a View of rank 2)
  std::int32_t signal_count = 0, raise_count = 0, gate_count = 0;
  // Counters raised and reset in their low 32 bits, whose high half is another's (KokkosDDT_PeerLinks.hpp's
  // replayable ones): the last team also sets each gate back to 0 before the signals.
  bool low_half = false;
  std::uint64_t signal = 0;
  std::int64_t* launch_done = nullptr;     // teams of the launch finished so far (reset by the last one)
  std::int64_t* launch_started = nullptr;  // teams of the launch started so far (device begin; reset by the last one)
  std::int64_t launch_teams = 0;

  // Team scratch a record's teams take (the launch reserves the largest): what cache_level says, for both descriptors
  // of a copy (one where they are one). Hosts cache a pack's nodes only, and walk a copy's runs on both descriptors in
  // place.
  static std::int64_t scratch_bytes(const FusedRecord& r) {
    const bool copy = r.direction == static_cast<std::int8_t>(Direction::Copy);
    if (r.cache == 0) return 0;
    if constexpr (Backend::walks_runs) return copy ? 0 : descriptor_scratch_bytes(r.node_count);
    std::int64_t bytes = descriptor_scratch_bytes(r.node_count);
    if (r.cache > 1) bytes += lookaside_scratch_bytes(r.lookaside_count);
    if (!copy || one_walk(r)) return bytes;
    bytes += descriptor_scratch_bytes(r.dst_node_count);
    if (r.cache > 1) bytes += lookaside_scratch_bytes(r.dst_lookaside_count);
    return bytes;
  }

  // A copy between two types of one shape (record_of_copy): one descriptor, each position located once.
  KOKKOS_FUNCTION static bool one_walk(const FusedRecord& r) { return r.dst_nodes == r.nodes; }

  KOKKOS_FUNCTION const FusedRecord& record(std::int64_t i) const {
    if (n <= kInline) return inline_records[i];
    const std::int64_t j = start + i;  // < 2 capacity: wrap without a (64-bit, long) division
    return records(j < capacity ? j : j - capacity);
  }

  // The request of league rank `team`: the last one whose first team is not after it. Parameter records: a binary
  // search of fixed depth over their padded first teams (unrolled, constant-bank reads), where counting the records
  // that start at or before it costs instructions for every record. Its five steps all run, whatever the count: a loop
  // from the step the launch's count needs, or a test of each step against the count, costs more than the steps it
  // would skip. Records in memory: binary search.
  KOKKOS_FUNCTION std::int64_t find(std::int64_t team) const {
    if (n == 1) return 0;  // (the search's fixed steps are a noticeable share of a one-record launch's instructions)
    if (n <= kInline) {    // (32-bit: a launch has fewer than 2^31 teams)
      const int t = static_cast<int>(team);
      int r = 0;
      for (int step = kSearch / 2; step > 0; step /= 2)  // (unrolled; entries past the launch's hold teams none has)
        if (inline_first.at[r + step] <= t) r += step;
      return r;
    }
    std::int64_t lo = 0, hi = n;
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (record(mid).first_team <= team)
        lo = mid;
      else
        hi = mid;
    }
    return lo;
  }

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
  template <int W>
  KOKKOS_FUNCTION static TypedCopy<ExecSpace, W, Backend::walks_runs> copy_of(const FusedRecord& r, std::int64_t tile,
                                                                              Arrays src, Arrays dst) {
    using Nodes = Kokkos::View<const DescriptorNode*, MemSpace>;
    using Lookaside = Kokkos::View<const std::int64_t*, MemSpace>;
    return {{Nodes(src.nodes, r.node_count), Lookaside(src.lookaside, r.lookaside_count), r.typed, r.start},
            {Nodes(dst.nodes, r.dst_node_count), Lookaside(dst.lookaside, r.dst_lookaside_count), r.packed},
            r.begin,
            r.end,
            tile,
            one_walk(r)};
  }

  // Tile t of a copy: hosts walk it run by run on one thread; on devices each thread of the team takes one word at a
  // time, neighbouring threads neighbouring words, locating it in both descriptors, or once where they are one (in
  // team scratch when cached). Word: the record's word size when known at compile time (uniform launches), else 0.
  template <int Word = 0, bool MayBeFlat = true>
  KOKKOS_FUNCTION static void run_copy(const Member& team, const FusedRecord& r, std::int64_t t) {
    Arrays src{r.nodes, r.lookaside}, dst{r.dst_nodes, r.dst_lookaside};
    if constexpr (!Backend::walks_runs) {
      if constexpr (MayBeFlat)
        if (r.start == kFlatRecord) return run_flat<Direction::Copy, Word>(team, r, t);
      if (r.cache > 0) {
        const bool one = one_walk(r);
        cache(team, r, src, one ? nullptr : &dst);
        if (one) dst = src;
        team.team_barrier();
      }
    }
    if constexpr (Word > 0)
      copy_tile<Word>(team, r, t, src, dst);
    else
      with_word_size(r.word, [&](auto w) { copy_tile<decltype(w)::value>(team, r, t, src, dst); });
  }
  template <int W>
  KOKKOS_FUNCTION static void copy_tile(const Member& team, const FusedRecord& r, std::int64_t t, Arrays src,
                                        Arrays dst) {
    if constexpr (Backend::walks_runs) {
      copy_of<W>(r, r.tile, src, dst)(t);
    } else {
      const std::int64_t first = r.begin + t * r.tile, stop = first + r.tile < r.end ? first + r.tile : r.end;
      copy_of<W>(r, W, src, dst).move_words(first + team.team_rank() * W, stop, team.team_size() * W);
    }
  }

  // Hosts walk runs with copies specialized per direction and word size (their code size does not matter); devices
  // take both from the record at run time, in one instance of the interleaved traversal.
  KOKKOS_FUNCTION void run(const Member& team, const FusedRecord& r, std::int64_t t) const {
    if (r.direction == static_cast<std::int8_t>(Direction::Copy)) {
      run_copy(team, r, t);
    } else if constexpr (Backend::walks_runs) {
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

  // Devices: a pack's or unpack's tile t, the team's threads on interleaved words (Dir, W: Runtime and 0 read them
  // from the record).
  template <Direction Dir, int W, bool MayBeFlat = true>
  KOKKOS_FUNCTION static void run_interleaved(const Member& team, const FusedRecord& r, std::int64_t t) {
    if constexpr (MayBeFlat)
      if (r.start == kFlatRecord) return run_flat<Dir, W>(team, r, t);
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

  // Devices: tile t of a flat record (make_flat), the team's threads on interleaved words of two contiguous ranges (a
  // pack's or unpack's typed and packed buffers; a copy's source and destination).
  template <Direction Dir, int W>
  KOKKOS_FUNCTION static void run_flat(const Member& team, const FusedRecord& r, std::int64_t t) {
    if constexpr (W == 0) {  // (the general kernel: two instances, not five, so that its registers do not spill)
      if (r.word >= 8)
        run_flat<Dir, 8>(team, r, t);
      else
        run_flat<Dir, 1>(team, r, t);
    } else {
      // (a copy's destination, in r.packed, is addressed as its source is)
      const bool packs = Dir == Direction::Runtime ? r.direction == static_cast<std::int8_t>(Direction::Pack)
                                                   : Dir != Direction::Unpack;
      const std::int64_t packed_at = Dir == Direction::Copy ? 0 : r.begin;
      const std::int64_t first = r.begin + t * r.tile, stop = first + r.tile < r.end ? first + r.tile : r.end;
      const std::int64_t step = static_cast<std::int64_t>(team.team_size()) * W;
      for (std::int64_t p = first + static_cast<std::int64_t>(team.team_rank()) * W; p < stop; p += step) {
        char* typed = r.typed + p;
        char* packed = r.packed + (p - packed_at);
        if (packs)
          store_word<W>(packed, load_word<W>(typed));
        else
          store_word<W>(typed, load_word<W>(packed));
      }
    }
  }

  // A uniform launch's tile (UniformFusedKernel): every record has direction Dir and word size W; Flats says how many
  // of them are flat (make_flat), so that a launch with none does not test for them and one with only flat ones has
  // no walk at all.
  template <Direction Dir, int W, Flats F>
  KOKKOS_FUNCTION static void run_uniform(const Member& team, const FusedRecord& r, std::int64_t t) {
    if constexpr (F == Flats::All)
      run_flat<Dir, W>(team, r, t);
    else if constexpr (Dir == Direction::Copy)
      run_copy<W, F == Flats::Some>(team, r, t);
    else
      run_interleaved<Dir, W, F == Flats::Some>(team, r, t);
  }

  // Synchronous hosts: one request on the calling thread, as a one-tile pack runs (no fork of the thread pool).
  static void run_on_calling_thread(const FusedRecord& r) {
    with_word_size(r.word, [&](auto w) {
      constexpr int W = decltype(w)::value;
      if (r.direction == static_cast<std::int8_t>(Direction::Copy))
        copy_of<W>(r, r.end - r.begin, {r.nodes, r.lookaside}, {r.dst_nodes, r.dst_lookaside})(0);
      else if (r.direction == static_cast<std::int8_t>(Direction::Pack))
        HostWalk<ExecSpace, Direction::Pack, W>{args_of(r)}.walk(r.nodes, r.begin, r.end);
      else
        HostWalk<ExecSpace, Direction::Unpack, W>{args_of(r)}.walk(r.nodes, r.begin, r.end);
    });
  }

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    execute(team, [&](const FusedRecord& r, std::int64_t t) { run(team, r, t); });
  }

  // The launch's work for league rank team.league_rank(): its record's tile through run_tile(record, tile), then the
  // completion (shared by this kernel and the uniform ones).
  template <class RunTile>
  KOKKOS_FUNCTION void execute(const Member& team, const RunTile& run_tile) const {
    const FusedRecord& r = record(find(team.league_rank()));
    if (gate_count > 0) begin(team, r);  // (device begin: FusedBatch::gate_on has gates)
    run_tile(r, team.league_rank() - r.first_team);
    // (no flags: a stream-ordered launch, whose completion is the stream's: FusedBatch::launch_ordered)
    if (flags == nullptr && signal_count == 0) return;
    // Completion. After the barrier one thread per team releases the team's writes (cumulative over the barrier) by
    // counting the team with a device-scope release; the last team (of the request, or of the launch; a one-team
    // request needs no count) then fences at system scope, which acquires every counted team's writes and publishes
    // them, host and peers' memory included, before the flag the host polls or the counters peers wait for. Plain
    // volatile stores: GPUs on PCIe have no atomics on host memory.
    team.team_barrier();
    if (leads(team)) {
      if (flags) complete(r);
      if (signal_count > 0) complete_launch();
    }
  }

 private:
  // Device begin. The first team to start raises the counters (once per launch: a replayable counter raised again
  // after its reader's reset would open its next step early); a gated record's teams then wait, one thread polling,
  // until their gate reaches `signal` (compared as the stream's wait compares: (int64)(counter - value) >= 0, which a
  // terminal or "ended" value meets), and acquire what was published before it.
  KOKKOS_FUNCTION void begin(const Member& team, const FusedRecord& r) const {
    const bool gated = gate_count > 0 && r.gate >= 0;
    if (leads(team)) {
      if (raise_count > 0 && desul::atomic_fetch_add(launch_started, std::int64_t(1), desul::MemoryOrderRelaxed(),
                                                     desul::MemoryScopeDevice()) == 0)
        for (std::int32_t k = 0; k < raise_count; ++k) store(signals[signal_count + k], signal);
      if (gated) {
        const auto* at = reinterpret_cast<volatile const std::uint64_t*>(signals[signal_count + raise_count + r.gate]);
        while (static_cast<std::int64_t>(*at - signal) < 0) {
        }
        Backend::fence_acq_rel_node();
      }
    }
    if (gated) team.team_barrier();
  }
  // The team's one thread that raises, waits and completes. Not Kokkos::single(PerTeam): on CUDA it computes a
  // __syncwarp mask with two integer divisions by the vector length in every warp of every team, a sizable share of a
  // halo pack's instructions; the launches' vector length is 1 and nothing here needs that sync.
  KOKKOS_FUNCTION static bool leads(const Member& team) { return team.team_rank() == 0; }
  KOKKOS_FUNCTION void store(std::uintptr_t at, std::uint64_t value) const {
    if (low_half)  // (little-endian: the low half comes first)
      *reinterpret_cast<volatile std::uint32_t*>(at) = static_cast<std::uint32_t>(value);
    else
      *reinterpret_cast<volatile std::uint64_t*>(at) = value;
  }
  KOKKOS_FUNCTION bool last_of(std::int64_t* counter, std::int64_t teams) const {
    if (teams <= 1) return true;
    const std::int64_t before =
        desul::atomic_fetch_add(counter, std::int64_t(1), desul::MemoryOrderRelease(), desul::MemoryScopeDevice());
    if (before + 1 < teams) return false;
    *counter = 0;  // nothing touches it again before the next launch, which is stream-ordered
    return true;
  }
  KOKKOS_FUNCTION void complete(const FusedRecord& r) const {
    if (!last_of(&done(r.slot), r.teams)) return;
    Backend::fence_acq_rel_node();
    *static_cast<volatile std::uint64_t*>(flags + r.slot) = r.ticket;
  }
  KOKKOS_FUNCTION void complete_launch() const {
    if (!last_of(launch_done, launch_teams)) return;
    if (raise_count > 0) *launch_started = 0;  // (every team has started: it counted itself at its start)
    if (low_half)                              // (every team is past its wait)
      for (std::int32_t k = 0; k < gate_count; ++k) store(signals[signal_count + raise_count + k], 0);
    Backend::fence_acq_rel_node();
    for (std::int32_t k = 0; k < signal_count; ++k) store(signals[k], signal);
  }
};

// Devices: words per thread for a launch of `words` words on a device that holds `threads` of the fused kernel at once
// (BackendTraits::fused_threads): one, until the launch outnumbers them; then enough that the launch is one wave. Each
// record was tiled on its own (LaunchShape::tile_bytes: one word per thread until the record alone fills the device),
// but a halo's records together can hold several times the device's threads (many fields of a large grid), and a fused
// thread's setup (its record, the descriptor copied into scratch, the barrier) is most of its instructions when it
// moves one word.
inline std::int64_t launch_words_per_thread(std::int64_t words, std::int64_t threads) {
  return threads > 0 && words > threads ? (words + threads - 1) / threads : 1;
}

// Record r's tile widened to `per_thread` words per thread of `team_size`-thread teams (never narrowed, never past its
// bytes); returns its teams.
inline std::int64_t widen_tile(FusedRecord& r, std::int64_t per_thread, int team_size) {
  const std::int64_t bytes = r.end - r.begin;
  if (per_thread > 1) {
    const std::int64_t wanted = std::int64_t(team_size) * r.word * per_thread;
    r.tile = std::max(r.tile, std::min(wanted, (bytes + r.word - 1) / r.word * r.word));
    r.teams = static_cast<std::int32_t>((bytes + r.tile - 1) / r.tile);  // (fewer than before)
  }
  return r.teams;
}

// What a launch's records share, for the uniform kernels: their direction and word size, or word 0 where they differ
// (or where there are none); and the most words one of their teams moves, for the team size. The caller adds each
// record as it places it in the launch, on the host, wherever the kernel will read them from.
class LaunchKind {
 public:
  void add(const FusedRecord& r) {
    if (count_++ == 0) {
      direction_ = r.direction;
      word_ = r.word;
    } else if (r.direction != direction_ || r.word != word_) {
      word_ = 0;
    }
    flat_ += r.start == kFlatRecord;
    const std::int64_t bytes = r.end - r.begin < r.tile ? r.end - r.begin : r.tile;
    const std::int64_t words = (bytes + r.word - 1) / r.word;
    if (words > widest_) widest_ = words;
  }
  Direction direction() const { return static_cast<Direction>(direction_); }
  int word() const { return count_ > 0 ? word_ : 0; }
  Flats flats() const { return flat_ == 0 ? Flats::None : flat_ == count_ ? Flats::All : Flats::Some; }
  // Threads per team: the backend's, or fewer where no team has that many words to move (whole warps). A team's
  // threads take its words in turn, so any size is correct; a tiny launch's one busy warp then waits at the team's
  // barriers for no idle ones, the largest of its stalls.
  template <class Backend>
  int team_size() const {
    const std::int64_t g = Backend::team_granule;
    const std::int64_t wanted = (widest_ + g - 1) / g * g;
    return static_cast<int>(wanted < g ? g : wanted < Backend::team_size ? wanted : Backend::team_size);
  }

 private:
  std::int64_t count_ = 0, widest_ = 0, flat_ = 0;
  std::int8_t direction_ = 0, word_ = 0;
};

// A device launch whose records all have one direction and word size (a step's self-copies, a batch of packs of one
// kind) runs this kernel, which holds that direction's and word's code alone: the general kernel is one function of
// thousands of instructions, and a warp of a small launch runs a few hundred of them once, from a cold instruction
// cache, so that fetching them is much of what it waits for. Separate functions, unlike instances inside the general
// one (which would make it larger still), leave each launch's code as small as its own work. Mixed launches keep the
// general kernel.
template <class ExecSpace, Direction Dir, int W, Flats F>
struct UniformFusedKernel {
  using Member = typename FusedKernel<ExecSpace>::Member;
  FusedKernel<ExecSpace> kernel;
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    kernel.execute(team, [&](const FusedRecord& r, std::int64_t t) {
      FusedKernel<ExecSpace>::template run_uniform<Dir, W, F>(team, r, t);
    });
  }
};

// The fused kernel's launch: `teams` teams of the backend's team size with `scratch` bytes of level-0 team scratch each
// (the fusion queue's and the fixed batches'), light weight (Kokkos then passes the 3 KiB functor as a kernel parameter
// instead of copying it to constant memory first, a copy and an event per launch); and one record on the calling
// thread (synchronous hosts). A class, so that the library compiles the kernel once per backend (explicit
// instantiation, below), not once for the queue and once for the batches.
template <class ExecSpace>
struct FusedLaunch {
  static void launch(const ExecSpace& space, const FusedKernel<ExecSpace>& kernel, const LaunchKind& kind,
                     std::int64_t teams, std::int64_t scratch, const std::string& label);
  static void run_on_calling_thread(const FusedRecord& r);

 private:
  template <class Functor>
  static void launch_as(const ExecSpace& space, const Functor& functor, const LaunchKind& kind, std::int64_t teams,
                        std::int64_t scratch, const std::string& label);
  template <Direction Dir>
  static void launch_uniform(const ExecSpace& space, const FusedKernel<ExecSpace>& kernel, const LaunchKind& kind,
                             std::int64_t teams, std::int64_t scratch, const std::string& label);
};

template <class ExecSpace>
void FusedLaunch<ExecSpace>::launch(const ExecSpace& space, const FusedKernel<ExecSpace>& kernel,
                                    const LaunchKind& kind, std::int64_t teams, std::int64_t scratch,
                                    const std::string& label) {
  if constexpr (!BackendTraits<ExecSpace>::walks_runs) {  // (hosts' code is specialized per record already)
    if (kind.word() > 0) {
      switch (kind.direction()) {
        case Direction::Copy:
          return launch_uniform<Direction::Copy>(space, kernel, kind, teams, scratch, label);
        case Direction::Pack:
          return launch_uniform<Direction::Pack>(space, kernel, kind, teams, scratch, label);
        case Direction::Unpack:
          return launch_uniform<Direction::Unpack>(space, kernel, kind, teams, scratch, label);
        case Direction::Runtime:
          break;  // (no record has it)
      }
    }
  }
  launch_as(space, kernel, kind, teams, scratch, label);
}

template <class ExecSpace>
template <Direction Dir>
void FusedLaunch<ExecSpace>::launch_uniform(const ExecSpace& space, const FusedKernel<ExecSpace>& kernel,
                                            const LaunchKind& kind, std::int64_t teams, std::int64_t scratch,
                                            const std::string& label) {
  with_word_size(kind.word(), [&](auto w) {
    constexpr int W = decltype(w)::value;
    switch (kind.flats()) {
      case Flats::None:
        return launch_as(space, UniformFusedKernel<ExecSpace, Dir, W, Flats::None>{kernel}, kind, teams, scratch,
                         label);
      case Flats::Some:
        return launch_as(space, UniformFusedKernel<ExecSpace, Dir, W, Flats::Some>{kernel}, kind, teams, scratch,
                         label);
      case Flats::All:
        return launch_as(space, UniformFusedKernel<ExecSpace, Dir, W, Flats::All>{kernel}, kind, teams, scratch, label);
    }
  });
}

template <class ExecSpace>
template <class Functor>
void FusedLaunch<ExecSpace>::launch_as(const ExecSpace& space, const Functor& functor, const LaunchKind& kind,
                                       std::int64_t teams, std::int64_t scratch, const std::string& label) {
  using Policy = typename FusedKernel<ExecSpace>::Policy;
  auto policy =
      Kokkos::Experimental::require(Policy(space, static_cast<int>(teams), kind.team_size<BackendTraits<ExecSpace>>()),
                                    Kokkos::Experimental::WorkItemProperty::HintLightWeight);
  if (scratch > 0) policy.set_scratch_size(0, Kokkos::PerTeam(scratch));
  Kokkos::parallel_for(label, policy, functor);
}

template <class ExecSpace>
void FusedLaunch<ExecSpace>::run_on_calling_thread(const FusedRecord& r) {
  FusedKernel<ExecSpace>::run_on_calling_thread(r);
}

// Compiled once per backend in the library (core/src/eti/KokkosDDT_ETI_FusedLaunch.cpp).
#define KOKKOSDDT_EXTERN_FUSED_LAUNCH(Space) extern template struct FusedLaunch<Space>;
KOKKOSDDT_ETI_SPACES(KOKKOSDDT_EXTERN_FUSED_LAUNCH)
#undef KOKKOSDDT_EXTERN_FUSED_LAUNCH

}  // namespace KokkosDDT::Impl
