// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A fused launch's records as its teams find them: up to kCarried carried in the kernel's parameters, else in a ring in
// the execution space's memory; and which record a team works on (find).

#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_FusedRecord.hpp"

namespace KokkosDDT::Impl {

template <class MemSpace>
struct FusedRecords {
  // Launches of up to kCarried requests carry their records in the kernel's parameters: no copy to the device before
  // the launch, and the team-to-request search reads the constant cache. (Kokkos passes a functor under 4 KiB as
  // parameters when the policy is light weight, as flush() makes it.)
  static constexpr int kCarried = Config::fused_carried_records;
  // Their first teams again, packed for the lookup (find), padded to a power of two with teams no launch has.
  static constexpr int kSearch = [] {
    int k = 1;
    while (k < kCarried) k *= 2;
    return k;
  }();
  static_assert(kCarried * sizeof(FusedRecord) + kSearch * sizeof(std::int32_t) <= 3584,
                "KokkosDDT_FUSED_CARRIED_RECORDS: the records must leave room in the kernel's 4 KiB of parameters for "
                "the launch's own (Kokkos copies a larger functor to the device before each launch)");
  struct FirstTeams {
    std::int32_t at[kSearch];
    KOKKOS_FUNCTION FirstTeams() {
      for (std::int32_t& a : at) a = 0x7fffffff;
    }
  };
  // Records in memory: the teams' lookup in the parameters all the same, where the launch's chains (runs of records of
  // one first team, FusedBatch::begin_chain) are at most kHeads: each chain's first team and first record, in the
  // carried records' place. A team then reads no record to find its own (a halo's scatter: a hundred records and more,
  // where a search in memory was a dozen dependent loads before the first byte moved, and the walk back over its chain
  // more).
  static constexpr int kHeads = kCarried * static_cast<int>(sizeof(FusedRecord)) / (2 * sizeof(std::int32_t));
  struct Heads {
    std::int32_t first_team[kHeads];
    std::int32_t first_record[kHeads];
  };
  union Carried {
    FusedRecord records[kCarried];
    Heads heads;
    KOKKOS_FUNCTION Carried() : records{} {}
  };
  static_assert(sizeof(Carried) == kCarried * sizeof(FusedRecord) && std::is_trivially_copyable_v<Carried>,
                "FusedRecords: the heads take the carried records' place, copied as bytes with the kernel");
  Carried carried;
  FirstTeams carried_first;
  Kokkos::View<const FusedRecord*, MemSpace> ring;  // otherwise: a ring of `capacity`; the launch's: [start, +n)
  std::int64_t start = 0, n = 0, capacity = 1;
  std::int32_t heads = 0;  // records in memory: the chains in `carried.heads` (0: none there, a search in memory)

  // Record i of a launch of n <= kCarried, carried in the parameters (the host's, before the launch).
  void carry(std::int64_t i, const FusedRecord& r) {
    carried.records[i] = r;
    carried_first.at[i] = r.first_team;
  }
  // Records in memory: their chains' heads into the parameters, where there are at most kHeads (`records` the launch's,
  // in order); else none (the teams search the ring).
  void carry_heads(const FusedRecord* records, std::int64_t count) {
    heads = 0;
    std::int32_t h = 0;
    for (std::int64_t i = 0; i < count; ++i) {
      if (i > 0 && records[i].first_team == records[i - 1].first_team) continue;
      if (h == kHeads) return;  // (heads stays 0)
      carried.heads.first_team[h] = records[i].first_team;
      carried.heads.first_record[h] = static_cast<std::int32_t>(i);
      ++h;
    }
    heads = h;
  }

  KOKKOS_FUNCTION const FusedRecord& record(std::int64_t i) const {
    if (n <= kCarried) return carried.records[i];
    const std::int64_t j = start + i;  // < 2 capacity: wrap without a (64-bit, long) division
    return ring(j < capacity ? j : j - capacity);
  }

  // The requests of league rank `team`: [first, last], the chain it runs (first == last: a request alone), packed in
  // one word (a launch has fewer than 2^31 records): a struct of the two, returned (even one of a single word), made
  // ptxas copy the kernel's parameters, 4 KiB, to each thread's stack (a halo scatter's kernel: 4264 B against 360).
  KOKKOS_FORCEINLINE_FUNCTION static std::int64_t found(std::int64_t first, std::int64_t last) {
    return first << 32 | last;
  }
  KOKKOS_FORCEINLINE_FUNCTION static std::int64_t found_first(std::int64_t found) { return found >> 32; }
  KOKKOS_FORCEINLINE_FUNCTION static std::int64_t found_last(std::int64_t found) { return found & 0xffffffff; }
  // The last request whose first team is not after `team`, and the first of its chain. Parameter records: a binary
  // search of fixed depth over their padded first teams (unrolled, constant-bank reads), where counting the records
  // that start at or before it costs instructions for every record. Its five steps all run, whatever the count: a loop
  // from the step the launch's count needs, or a test of each step against the count, costs more than the steps it
  // would skip. Records in memory: a binary search of the chains' heads in the parameters where they are there, else
  // of the records in memory, then back over the chain.
  KOKKOS_FUNCTION std::int64_t find(std::int64_t team) const {
    if (n == 1) return 0;  // (the search's fixed steps are a noticeable share of a one-record launch's instructions)
    if (n > kCarried && heads > 0) {
      const auto t = static_cast<std::int32_t>(team);
      std::int32_t lo = 0, hi = heads;
      while (hi - lo > 1) {
        const std::int32_t mid = lo + (hi - lo) / 2;
        if (carried.heads.first_team[mid] <= t)
          lo = mid;
        else
          hi = mid;
      }
      return found(carried.heads.first_record[lo], (lo + 1 < heads ? carried.heads.first_record[lo + 1] : n) - 1);
    }
    std::int64_t last = 0;
    if (n <= kCarried) {  // (32-bit: a launch has fewer than 2^31 teams)
      const int t = static_cast<int>(team);
      int r = 0;
      for (int step = kSearch / 2; step > 0; step /= 2)  // (unrolled; entries past the launch's hold teams none has)
        if (carried_first.at[r + step] <= t) r += step;
      last = r;
    } else {
      std::int64_t lo = 0, hi = n;
      while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (record(mid).first_team <= team)
          lo = mid;
        else
          hi = mid;
      }
      last = lo;
    }
    const std::int32_t team_first = record(last).first_team;
    std::int64_t first = last;
    while (first > 0 && record(first - 1).first_team == team_first) --first;
    return found(first, last);
  }
};

}  // namespace KokkosDDT::Impl
