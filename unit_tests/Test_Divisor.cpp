// The multiply-high division used at every level of the traversal must equal plain division everywhere.
#include <limits>
#include <random>

#include "support/Catch.hpp"
#include "impl/KokkosDDT_Divisor.hpp"

using KokkosDDT::Impl::Divisor;
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

TEST_CASE("divisor: magic division equals n / d", "[divisor]") {
  std::mt19937_64 rng(12345);
  std::vector<std::int64_t> divisors{1,
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
                                     kMax};
  for (int i = 0; i < 2000; ++i) divisors.push_back(static_cast<std::int64_t>(rng() >> (1 + rng() % 63)) + 1);
  for (std::int64_t d : divisors) {
    const Divisor div = Divisor::make(d);
    std::vector<std::int64_t> ns{0, 1, d - 1, d, d + 1, kMax, kMax - 1, (1ll << 62)};
    for (std::int64_t k : {2ll, 3ll, 1000ll}) {
      if (d <= (kMax) / k) ns.insert(ns.end(), {k * d - 1, k * d, k * d + 1});
    }
    for (int j = 0; j < 200; ++j) ns.push_back(static_cast<std::int64_t>(rng() >> (1 + rng() % 63)));
    for (std::int64_t n : ns) {
      if (n < 0) continue;
      INFO("n = " << n << ", d = " << d);
      REQUIRE(div.divide(n) == n / d);
    }
  }
}
