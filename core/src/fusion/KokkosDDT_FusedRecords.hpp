// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A fused launch's records as its teams find them: up to kCarried carried in the kernel's parameters, else in a ring in
// the execution space's memory; and which record a team works on (find).

#include <cstdint>

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
  FusedRecord carried_records[kCarried];
  FirstTeams carried_first;
  Kokkos::View<const FusedRecord*, MemSpace> ring;  // otherwise: a ring of `capacity`; the launch's: [start, +n)
  std::int64_t start = 0, n = 0, capacity = 1;

  // Record i of a launch of n <= kCarried, carried in the parameters (the host's, before the launch).
  void carry(std::int64_t i, const FusedRecord& r) {
    carried_records[i] = r;
    carried_first.at[i] = r.first_team;
  }

  KOKKOS_FUNCTION const FusedRecord& record(std::int64_t i) const {
    if (n <= kCarried) return carried_records[i];
    const std::int64_t j = start + i;  // < 2 capacity: wrap without a (64-bit, long) division
    return ring(j < capacity ? j : j - capacity);
  }

  // The request of league rank `team`: the last one whose first team is not after it. Parameter records: a binary
  // search of fixed depth over their padded first teams (unrolled, constant-bank reads), where counting the records
  // that start at or before it costs instructions for every record. Its five steps all run, whatever the count: a loop
  // from the step the launch's count needs, or a test of each step against the count, costs more than the steps it
  // would skip. Records in memory: binary search.
  KOKKOS_FUNCTION std::int64_t find(std::int64_t team) const {
    if (n == 1) return 0;  // (the search's fixed steps are a noticeable share of a one-record launch's instructions)
    if (n <= kCarried) {   // (32-bit: a launch has fewer than 2^31 teams)
      const int t = static_cast<int>(team);
      int r = 0;
      for (int step = kSearch / 2; step > 0; step /= 2)  // (unrolled; entries past the launch's hold teams none has)
        if (carried_first.at[r + step] <= t) r += step;
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
};

}  // namespace KokkosDDT::Impl
