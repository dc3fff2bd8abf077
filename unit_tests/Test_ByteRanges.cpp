// SPDX-License-Identifier: BSD-3-Clause
// The fusion queue's hazard sets: a union of byte ranges, checked against a brute-force byte map.
#include <random>
#include <vector>

#include "support/Catch.hpp"
#include "KokkosDDT_ByteRanges.hpp"

TEST_CASE("byte ranges: overlap queries agree with a byte map", "[fusion]") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    KokkosDDT::Impl::ByteRanges ranges;
    std::vector<bool> covered(256, false);
    for (int i = 0; i < 12; ++i) {
      const std::uintptr_t lo = rng() % 256, hi = lo + rng() % 24;
      ranges.insert(lo, std::min<std::uintptr_t>(hi, 256));
      for (std::uintptr_t b = lo; b < std::min<std::uintptr_t>(hi, 256); ++b) covered[b] = true;
      for (int q = 0; q < 20; ++q) {
        const std::uintptr_t qlo = rng() % 256, qhi = std::min<std::uintptr_t>(qlo + rng() % 16, 256);
        bool want = false;
        for (std::uintptr_t b = qlo; b < qhi; ++b) want = want || covered[b];
        REQUIRE(ranges.overlaps(qlo, qhi) == want);
      }
    }
    ranges.clear();
    CHECK(ranges.empty());
  }
}
