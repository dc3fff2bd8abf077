#pragma once
// The fusion queue's kernel (chu-fusion21, Sec. IV-A3): one TeamPolicy launch over the tiles of many pending
// requests. Teams go to requests in proportion to their size (a prefix sum of tile counts; a team finds its request by
// counting the parameter records before it, or by binary search in memory: see find), each team copies its request's
// fixed-length descriptor into level-0 scratch and runs the same per-tile traversal as a single pack
// (TraversalKernel::run_tile). The last team to finish a request writes the request's ticket into a host-readable flag,
// so the host learns of completion without synchronizing the stream.

#include <cstdint>

#include <Kokkos_Core.hpp>
#include <desul/atomics.hpp>

#include "KokkosDDT_Fence.hpp"
#include "impl/KokkosDDT_PackKernel.hpp"

// Requests a fused launch carries in its parameters (more make the parameters larger than Kokkos passes directly).
#ifndef KOKKOSDDT_FUSED_INLINE_RECORDS
#define KOKKOSDDT_FUSED_INLINE_RECORDS 32
#endif

namespace KokkosDDT::Impl {

// One request of a fused launch, as the kernel reads it: from the kernel's parameters for small launches, else from the
// execution space's memory. Kept compact (96 bytes) so that a halo's worth of requests fits the parameter space.
struct FusedItem {
  const Node* nodes = nullptr;  // the request's descriptor, in the execution space's memory
  const std::int64_t* lookaside = nullptr;
  std::int64_t lookaside_count = 0;
  char* user = nullptr;
  char* packed = nullptr;
  std::int64_t begin = 0, end = 0, tile = 0;  // stream bytes [begin, end), in tiles of `tile` bytes
  std::uint64_t ticket = 0;                   // written to flags[slot] once the request is done
  std::int32_t first_team = 0;                // teams of the launch's earlier requests (a launch has < 2^31)
  std::int32_t teams = 0;                     // this request's
  std::int32_t node_count = 0, slot = 0;
  std::int8_t word = 1, direction = 0, cache = 0;
};

template <class ExecSpace, class Traits = LaunchTraits<ExecSpace>>
struct FusedKernel {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using MemSpace = typename ExecSpace::memory_space;

  // Launches of up to kInline requests carry them in the kernel's parameters: no copy to the device before the launch,
  // and the team-to-request search reads the constant cache. (Kokkos passes a functor under 4 KiB as parameters when
  // the policy is light weight, as flush() makes it.)
  static constexpr int kInline = KOKKOSDDT_FUSED_INLINE_RECORDS;
  FusedItem inline_items[kInline];
  // Their first teams again, packed for the lookup: 128 bytes (two constant-cache lines) instead of one field per
  // 96-byte record.
  std::int32_t inline_first[kInline] = {};
  Kokkos::View<const FusedItem*, MemSpace> items;  // otherwise: a ring of `capacity`; the launch's at [start, start+n)
  std::int64_t start = 0, n = 0, capacity = 1;
  Kokkos::View<std::int64_t*, MemSpace> done;  // per slot: teams finished so far (reset by the last one)
  std::uint64_t* flags = nullptr;              // per slot, readable by the host

  KOKKOS_FUNCTION const FusedItem& item(std::int64_t i) const {
    if (n <= kInline) return inline_items[i];
    const std::int64_t j = start + i;  // < 2 capacity: wrap without a (64-bit, long) division
    return items(j < capacity ? j : j - capacity);
  }

  // The request of league rank `team`: the last one whose first team is not after it. Parameter records: count the
  // requests that start at or before it, with independent (unrolled, constant-bank) reads instead of a binary search's
  // chain of dependent loads. Records in memory: binary search.
  KOKKOS_FUNCTION std::int64_t find(std::int64_t team) const {
    if (n <= kInline) {  // (32-bit: a launch has fewer than 2^31 teams)
      const int count = static_cast<int>(n), t = static_cast<int>(team);
      int r = 0;
      for (int k = 1; k < kInline; ++k) r += k < count && inline_first[k] <= t;
      return r;
    }
    std::int64_t lo = 0, hi = n;
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (item(mid).first_team <= team)
        lo = mid;
      else
        hi = mid;
    }
    return lo;
  }

  template <Direction Dir, int W>
  KOKKOS_FUNCTION void run(const Member& team, const FusedItem& it, std::int64_t t) const {
    using Kernel = TraversalKernel<ExecSpace, Dir, W, Traits::sequential>;
    Kernel k{Kokkos::View<const Node*, MemSpace>(it.nodes, it.node_count),
             Kokkos::View<const std::int64_t*, MemSpace>(it.lookaside, it.lookaside_count),
             it.user,
             it.packed,
             it.begin,
             it.end,
             it.tile,
             it.cache != 0,
             team.team_size()};
    k.packing = it.direction == static_cast<std::int8_t>(Direction::Pack);
    k.word_bytes = it.word;
    if constexpr (W > 0) k.packed_wide = Kernel::packed_words_fit(it.packed, it.tile, team.team_size());
    k.run_tile(team, k.team_descriptor(team), t);
  }

  // Hosts walk runs with copies specialized per direction and word size (their code size does not matter); devices
  // take both from the request at run time, in one instance of the interleaved traversal.
  template <Direction Dir>
  KOKKOS_FUNCTION void run_word(const Member& team, const FusedItem& it, std::int64_t t) const {
    switch (it.word) {
      case 16:
        return run<Dir, 16>(team, it, t);
      case 8:
        return run<Dir, 8>(team, it, t);
      case 4:
        return run<Dir, 4>(team, it, t);
      case 2:
        return run<Dir, 2>(team, it, t);
      default:
        return run<Dir, 1>(team, it, t);
    }
  }

  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const FusedItem& it = item(find(team.league_rank()));
    const std::int64_t t = team.league_rank() - it.first_team;
    if constexpr (!Traits::sequential)
      run<Direction::Runtime, 0>(team, it, t);
    else if (it.direction == static_cast<std::int8_t>(Direction::Pack))
      run_word<Direction::Pack>(team, it, t);
    else
      run_word<Direction::Unpack>(team, it, t);
    // Completion. After the barrier one thread per team releases the team's writes (cumulative over the barrier) by
    // counting the team with a device-scope release; the request's last team (a one-team request needs no count)
    // then fences at node scope, which acquires every team's writes and publishes them, host memory included, before
    // the flag the host polls. A plain volatile store: GPUs on PCIe have no atomics on host memory.
    team.team_barrier();
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      if (it.teams > 1) {
        const std::int64_t before = desul::atomic_fetch_add(&done(it.slot), std::int64_t(1),
                                                            desul::MemoryOrderRelease(), desul::MemoryScopeDevice());
        if (before + 1 < it.teams) return;
        done(it.slot) = 0;  // nothing touches it again before the slot's next launch, which is stream-ordered
      }
      fence_acq_rel_node();
      *static_cast<volatile std::uint64_t*>(flags + it.slot) = it.ticket;
    });
  }
};

}  // namespace KokkosDDT::Impl
