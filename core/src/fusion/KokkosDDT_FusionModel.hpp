// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The fusion queue's policy pieces that are plain functions: when to launch (the threshold model) and how to wait for
// a flag (poll). Kept apart from the queue so that they can be tested on known inputs.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>

#include "KokkosDDT_Settings.hpp"

namespace KokkosDDT {

namespace Impl {

// The threshold model (chu-fusion21 leaves this "model-based prediction" as future work), from one launch's cost and
// the time of a probe moving `probe_bytes` (its launch included). A device launch is asynchronous: the device moves
// one batch while the host enqueues the next, so a launch is worth issuing once its data would take as long to move as
// the launch costs (threshold = launch cost x throughput). A synchronous host launch overlaps nothing and each one is
// pure overhead (fork/join, per-team setup), so there the queue batches until a launch costs at most 5 % of its data's
// time (threshold = 20 x launch cost x throughput). When noise hides the probe's copy time (a busy host) the estimate
// would run off to "never launch": it stays within [4 KiB, 16 x the probe].
inline std::int64_t fusion_threshold(double launch_us, std::int64_t probe_bytes, double probe_us, bool synchronous) {
  const double copy_us = std::max(probe_us - launch_us, launch_us / 16);
  const double bytes_per_us = static_cast<double>(probe_bytes) / copy_us;
  const double launch_share = synchronous ? 0.05 : 1.0;  // of the batch's copy time
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(launch_us * bytes_per_us / launch_share), 4096,
                                  16 * probe_bytes);
}

// The threshold a queue starts with: its option (FusionOptions::threshold_bytes) where given, else the setting
// KOKKOSDDT_FUSION_THRESHOLD_BYTES (`setting`), else -1: the queue measures its own. The setting is for runs that must
// not depend on timing: the MPI tests set it high so that host packs of several tiles stay pending until tested, as
// every pack on a GPU does.
inline std::int64_t chosen_threshold(std::int64_t option, std::int64_t setting) {
  return option >= 0 ? option : setting;
}

}  // namespace Impl

}  // namespace KokkosDDT
