// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The fusion queue's kernel (chu-fusion21, Sec. IV-A3): one TeamPolicy launch over the tiles of many pending
// requests. Teams go to requests in proportion to their size (a prefix sum of tile counts; a team finds its request in
// FusedRecords), each team runs its request's tile as a single transfer would (FusedTile), and the last team to finish
// a request writes the request's ticket into a host-readable flag (FusedCompletion), so the host learns of completion
// without synchronizing the stream.

#include <cstdint>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_FusedCompletion.hpp"
#include "KokkosDDT_FusedRecord.hpp"
#include "KokkosDDT_FusedRecords.hpp"
#include "KokkosDDT_FusedTile.hpp"

namespace KokkosDDT::Impl {

// A trivially copyable functor of at most 4 KiB, so that Kokkos passes it as the kernel's parameters (FusedLaunch).
// Its kernels must compile into one function: where the compiler leaves a function apart (too large to inline) and
// passes it the address of the record or of the functor, it copies all of the parameters to each thread's stack first,
// 4 KiB of local memory written by every thread of every team (the combining kernels did, while a halo's scatter took
// 4.7-32 times its gather's time). Hence one word size's code per uniform kernel, a combining loop per element type
// only where it gains, and functions apart only with the record by value (FusedTile::run_apart); the tests check the
// kernels' stacks (FusedLaunch::largest_stack_bytes).
template <class ExecSpace>
struct FusedKernel {
  using Policy = FusedPolicy<ExecSpace>;
  using Member = typename Policy::member_type;

  FusedRecords<typename ExecSpace::memory_space> records;
  FusedCompletion<ExecSpace> completion;

  // (functors, not lambdas, for execute's steps: forced inline, where the compiler left a lambda apart and passed it
  // the record's address)
  struct Tile {
    const Member& team;
    KOKKOS_FORCEINLINE_FUNCTION void operator()(const FusedRecord& r, std::int64_t t) const {
      FusedTile<ExecSpace>::run(team, r, t);
    }
  };
  struct NoChain {
    KOKKOS_FORCEINLINE_FUNCTION bool operator()(const FusedRecord&, std::int64_t, std::int64_t, std::int64_t) const {
      return false;
    }
  };

  KOKKOS_FUNCTION void operator()(const Member& team) const { execute(team, Tile{team}, NoChain{}); }

  // The launch's work for the team's ticket (its league rank, or with phases the order it started in): its record's
  // tile through run_tile(record, tile), between the completion's begin and finish (shared by this kernel and the
  // uniform ones). A chain's records (those with the same first team, FusedBatch::begin_chain; FusedRecords::find
  // gives them) run their tile in one pass where run_chain(last record, first, last, tile) takes them
  // (FusedTile::run_chain), else one after another, a barrier between them, so that each sees the cells the one before
  // wrote (one call site of each: the kernels stay whole, FusedKernel).
  template <class RunTile, class RunChain>
  KOKKOS_FORCEINLINE_FUNCTION void execute(const Member& team, const RunTile& run_tile,
                                           const RunChain& run_chain) const {
    const FusedTicket ticket = completion.ticket(team);
    const std::int64_t found = records.find(ticket.team);
    const std::int64_t first = records.found_first(found), last = records.found_last(found);
    const FusedRecord& r = records.record(last);
    completion.begin(team, r, ticket);
    const std::int64_t t = ticket.team - r.first_team;
    if (first == last || !run_chain(r, first, last, t)) {
      for (std::int64_t i = first; i <= last; ++i) {
        if (i > first) team.team_barrier();
        run_tile(records.record(i), t);
      }
    }
    completion.finish(team, r, ticket, static_cast<std::int32_t>(last - first));
  }
};

// A device launch whose records all have one direction and word size (a step's self-copies, a batch of packs of one
// kind) runs this kernel, which holds that direction's and word's code alone: the general kernel is one function of
// thousands of instructions, and a warp of a small launch runs a few hundred of them once, from a cold instruction
// cache, so that fetching them is much of what it waits for. Separate functions, unlike instances inside the general
// one (which would make it larger still), leave each launch's code as small as its own work. Mixed launches keep the
// general kernel.
template <class ExecSpace, Direction Dir, int W, Locating L>
struct UniformFusedKernel {
  using Member = typename FusedKernel<ExecSpace>::Member;
  FusedKernel<ExecSpace> kernel;
  struct Tile {
    const Member& team;
    KOKKOS_FORCEINLINE_FUNCTION void operator()(const FusedRecord& r, std::int64_t t) const {
      FusedTile<ExecSpace>::template run_uniform<Dir, W, L>(team, r, t);
    }
  };
  // (a chain's records read from their copy in the execution space's memory, FusedRecords::ring, by a function apart:
  // passed the parameters' address, it would copy them all to each thread's stack, FusedKernel; only a fixed batch's
  // chains take one pass, and its ring holds every record, carried or not)
  struct Chain {
    const Member& team;
    const FusedRecords<typename ExecSpace::memory_space>& records;
    KOKKOS_FORCEINLINE_FUNCTION bool operator()(const FusedRecord& r, std::int64_t first, std::int64_t last,
                                                std::int64_t t) const {
      return FusedTile<ExecSpace>::template run_chain<Dir, W, L>(team, r, records.ring.data(), records.start,
                                                                 records.capacity, first, last, t);
    }
  };
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    kernel.execute(team, Tile{team}, Chain{team, kernel.records});
  }
};

}  // namespace KokkosDDT::Impl
