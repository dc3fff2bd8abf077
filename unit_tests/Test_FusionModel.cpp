// SPDX-License-Identifier: BSD-3-Clause
// The fusion queue's threshold model (Impl::fusion_threshold) on known inputs: launch cost x throughput on devices,
// 20 times that on synchronous hosts, and the clamp that keeps a noisy probe from meaning "never launch".
#include "support/Catch.hpp"

#include <KokkosDDT.hpp>
#include <cstdlib>
#include <string>

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

TEST_CASE("fusion model: KOKKOSDDT_FUSION_THRESHOLD_BYTES fixes the threshold without a measurement", "[fusion]") {
  // (Parsing is Test_Settings'; here, that a queue takes the setting when it is given.)
  const std::int64_t set = KokkosDDT::Impl::settings().fusion_threshold_bytes;
  CHECK(KokkosDDT::Impl::fusion_threshold_from_environment() == set);
  if (set >= 0) CHECK(KokkosDDT::FusionQueue<Kokkos::DefaultHostExecutionSpace>().threshold_bytes() == set);
}
