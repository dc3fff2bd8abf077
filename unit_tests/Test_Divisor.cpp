// SPDX-License-Identifier: BSD-3-Clause
// The multiply-high division used at every level of the traversal must equal plain division everywhere.
#include <algorithm>
#include <limits>
#include <random>

#include "support/Catch.hpp"
#include "KokkosDDT_Divisor.hpp"

using KokkosDDT::Impl::Divisor;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

namespace {
// The fixed divisors and 2000 random ones of every magnitude.
std::vector<std::int64_t> with_random(std::vector<std::int64_t> divisors, std::mt19937_64& rng) {
  for (int i = 0; i < 2000; ++i)
    divisors.push_back(std::max<std::int64_t>(1, static_cast<std::int64_t>(rng() >> (1 + rng() % 63))));
  return divisors;
}

// Dividends in [0, limit] for divisor d: the ends, multiples of d and their neighbours, and 200 random ones below
// `limit` (whose bit length is `bits`).
std::vector<std::int64_t> dividends(std::int64_t d, std::int64_t limit, int bits, std::mt19937_64& rng) {
  std::vector<std::int64_t> ns{0, 1, limit, limit - 1, std::int64_t(1) << (bits - 1)};
  for (std::int64_t k : {1ll, 2ll, 3ll, 1000ll})
    for (std::int64_t delta : {-1ll, 0ll, 1ll})
      if (d <= (limit - 1) / k) ns.push_back(k * d + delta);
  for (int j = 0; j < 200; ++j) ns.push_back(static_cast<std::int64_t>(rng() >> (64 - bits + rng() % bits)));
  return ns;
}
}  // namespace

TEST_CASE("divisor: magic division equals n / d", "[divisor]") {
  std::mt19937_64 rng(12345);
  for (std::int64_t d : with_random({1,
                                     2,
                                     3,
                                     5,
                                     7,
                                     8,
                                     12,
                                     17,
                                     24,
                                     100,
                                     384,
                                     512,
                                     1000,
                                     4095,
                                     4097,
                                     65537,
                                     (1ll << 31) - 1,
                                     (1ll << 31) + 1,
                                     (1ll << 32) + 3,
                                     (1ll << 62) - 1,
                                     (1ll << 62) + 1,
                                     kMax},
                                    rng)) {
    const Divisor div = Divisor::make(d);
    for (std::int64_t n : dividends(d, kMax, 63, rng)) {
      INFO("n = " << n << ", d = " << d);
      REQUIRE(div.divide(n) == n / d);
    }
  }
}

// The 32-bit form (device walks whose positions fit 31 bits): every divisor, dividends below 2^31.
TEST_CASE("divisor: the 32-bit form equals n / d below 2^31", "[divisor]") {
  constexpr std::int64_t kMax32 = std::numeric_limits<std::int32_t>::max();
  std::mt19937_64 rng(54321);
  for (std::int64_t d : with_random({1, 2, 3, 7, 8, 24, 528, 34848, 65537, (1ll << 30) - 1, (1ll << 30) + 1, kMax32 - 1,
                                     kMax32, kMax32 + 1, kMax32 + 2, (1ll << 32) + 3, 1ll << 40, kMax},
                                    rng)) {
    const Divisor div = Divisor::make(d);
    for (std::int64_t n : dividends(d, kMax32, 31, rng)) {
      INFO("n = " << n << ", d = " << d);
      REQUIRE(div.divide32(static_cast<std::uint32_t>(n)) == static_cast<std::uint64_t>(n / d));
    }
  }
}
