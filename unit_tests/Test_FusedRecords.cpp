// SPDX-License-Identifier: BSD-3-Clause
// Which records a team of a fused launch runs (FusedRecords::find): carried in the parameters, in memory with the
// chains' heads carried, and in memory alone (more chains than the heads' room), against a count over the records.
#include <random>
#include <vector>

#include "support/Catch.hpp"
#include "KokkosDDT_FusedRecords.hpp"
#include "KokkosDDT_LaunchKind.hpp"

using namespace KokkosDDT::Impl;
using Records = FusedRecords<Kokkos::HostSpace>;

namespace {

// Records of `chains` chains, each of 1-7 records on 1-3 teams (ascending first teams, as FusedBatch places them).
std::vector<FusedRecord> launch(int chains, std::mt19937& rng) {
  std::vector<FusedRecord> out;
  std::int32_t team = 0;
  for (int c = 0; c < chains; ++c) {
    const int length = 1 + static_cast<int>(rng() % 7), teams = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < length; ++k) {
      FusedRecord r;
      r.first_team = team;
      r.teams = teams;
      out.push_back(r);
    }
    team += teams;
  }
  return out;
}

// Every team of the launch finds its chain: [first, last] the records whose first team is the last one <= team.
void check(const std::vector<FusedRecord>& all, bool carried, bool heads) {
  Records records;
  records.n = static_cast<std::int64_t>(all.size());
  Kokkos::View<FusedRecord*, Kokkos::HostSpace> ring("ring", all.size());
  for (std::size_t i = 0; i < all.size(); ++i) ring(i) = all[i];
  records.ring = ring;
  records.capacity = records.n;
  if (carried)
    for (std::size_t i = 0; i < all.size(); ++i) records.carry(static_cast<std::int64_t>(i), all[i]);
  else
    records.carry_heads(all.data(), records.n);
  CHECK((records.heads > 0) == heads);
  const std::int32_t teams = all.back().first_team + all.back().teams;
  int wrong = 0;
  for (std::int32_t t = 0; t < teams; ++t) {
    std::int64_t first = -1, last = -1;
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i].first_team <= t) last = static_cast<std::int64_t>(i);
    first = last;
    while (first > 0 && all[first - 1].first_team == all[last].first_team) --first;
    const std::int64_t found = records.find(t);
    wrong += Records::found_first(found) != first || Records::found_last(found) != last;
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("fused records: each team finds its chain, carried, in memory with heads carried, in memory alone",
          "[fusion]") {
  std::mt19937 rng(73);
  for (int round = 0; round < 20; ++round) {
    std::vector<FusedRecord> few = launch(1 + static_cast<int>(rng() % 6), rng);
    if (static_cast<int>(few.size()) <= Records::kCarried) check(few, true, false);
    std::vector<FusedRecord> many = launch(Records::kCarried + 1 + static_cast<int>(rng() % 200), rng);
    check(many, false, true);  // (more records than carried, chains within the heads' room)
  }
  std::vector<FusedRecord> most = launch(Records::kHeads + 5, rng);
  check(most, false, false);  // (more chains than heads: the search in memory)
  std::vector<FusedRecord> one(1);
  one[0].teams = 4;
  check(one, true, false);
}

// A chain's team moves every member's words: its tile is narrower by their number, never under one word.
TEST_CASE("fused records: a chain's words per thread", "[fusion]") {
  CHECK(chain_words_per_thread(1, 1) == 1);
  CHECK(chain_words_per_thread(8, 1) == 8);
  CHECK(chain_words_per_thread(8, 3) == 2);
  CHECK(chain_words_per_thread(8, 7) == 1);
  CHECK(chain_words_per_thread(4, 9) == 1);
  CHECK(chain_words_per_thread(6, 0) == 6);  // (a lone record)
}
