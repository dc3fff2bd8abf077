// SPDX-License-Identifier: BSD-3-Clause
// The fusion queue's threshold model (Impl::fusion_threshold) on known inputs: launch cost x throughput on devices,
// 20 times that on synchronous hosts, and the clamp that keeps a noisy probe from meaning "never launch".
#include "support/Catch.hpp"

#include <KokkosDDT.hpp>

using KokkosDDT::Impl::fusion_threshold;

TEST_CASE("fusion model: threshold = launch cost x throughput, x 20 on synchronous hosts", "[fusion]") {
  const std::int64_t probe = std::int64_t(4) << 20;
  // 5 us per launch; the probe's 4 MiB take 1000 us beyond it: 4194.304 bytes per us.
  CHECK(fusion_threshold(5.0, probe, 1005.0, false) == 20971);
  CHECK(fusion_threshold(5.0, probe, 1005.0, true) == 419430);
  // Faster copies raise it in proportion.
  CHECK(fusion_threshold(5.0, probe, 105.0, false) == 209715);
}

TEST_CASE("fusion model: the threshold stays within [4 KiB, 16 x the probe]", "[fusion]") {
  const std::int64_t probe = std::int64_t(4) << 20;
  CHECK(fusion_threshold(0.1, probe, 1000.1, false) == 4096);  // a launch worth 419 bytes: at least 4 KiB
  // A probe no slower than an empty launch (noise on a busy host): not "never launch".
  CHECK(fusion_threshold(5.0, probe, 3.0, false) == 16 * probe);
  CHECK(fusion_threshold(5.0, probe, 5.0, true) == 16 * probe);
}

TEST_CASE("fusion model: a queue's option, else KOKKOSDDT_FUSION_THRESHOLD_BYTES, else a measurement", "[fusion]") {
  // (Parsing the variable is Test_Settings'; here, which value a queue starts with.)
  using KokkosDDT::Impl::chosen_threshold;
  CHECK(chosen_threshold(100, 5) == 100);  // the option wins over the setting
  CHECK(chosen_threshold(0, 5) == 0);      // (0: launch at every request)
  CHECK(chosen_threshold(-1, 5) == 5);     // no option: the setting
  CHECK(chosen_threshold(-1, 0) == 0);
  CHECK(chosen_threshold(-1, -1) == -1);  // neither: the queue measures
  KokkosDDT::FusionOptions options;
  options.threshold_bytes = 12345;
  CHECK(KokkosDDT::FusionQueue<Kokkos::DefaultHostExecutionSpace>({}, options).threshold_bytes() == 12345);
}
