// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where a plan's setup (and teardown) time goes. With KOKKOSDDT_PROFILE_SETUP=1 each clock prints, on every process,
// the milliseconds of its phases when it goes out of scope (one line on stderr: "KokkosDDT setup: rank 0: peer route:
// counters 0.01, offers 0.03, ..., total 1.20 ms"); without it a clock reads no time and prints nothing (the settings
// are read once per process). Plans' setup (make_halo_plan, the engine, the transports' route()) keep one each, so a
// user who asks why making a plan costs what it does sees its parts, and so do our benchmarks (jacobi_bench's "make"
// column).

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "KokkosDDT_Settings.hpp"

namespace KokkosDDT::Impl {

class SetupClock {
 public:
  explicit SetupClock(const char* what) : what_(what) {
    if (enabled()) last_ = start_ = Clock::now();
  }
  SetupClock(const SetupClock&) = delete;
  SetupClock& operator=(const SetupClock&) = delete;
  ~SetupClock() {
    if (!enabled() || phases_.empty()) return;
    std::string line = "KokkosDDT setup: rank " + std::to_string(world_rank()) + ": " + what_ + ":";
    char text[64];
    for (const auto& [phase, ms] : phases_) {
      std::snprintf(text, sizeof text, " %s %.3f,", phase, ms);
      line += text;
    }
    std::snprintf(text, sizeof text, " total %.3f ms\n", ms_since(start_));
    line += text;
    std::fputs(line.c_str(), stderr);
  }
  // The phase that ends now (it began where the last one ended). KOKKOSDDT_PROFILE_SETUP=trace prints it at once
  // (where a teardown hangs, the last line says after what).
  void mark(const char* phase) {
    if (!enabled()) return;
    phases_.emplace_back(phase, ms_since(last_));
    last_ = Clock::now();
    if (tracing()) {
      std::fprintf(stderr, "KokkosDDT trace: rank %d: %s: %s done (%.3f ms)\n", world_rank(), what_, phase,
                   phases_.back().second);
      std::fflush(stderr);
    }
  }
  static bool enabled() { return settings().profile_setup != Settings::Profile::Off; }
  static bool tracing() { return settings().profile_setup == Settings::Profile::Trace; }

 private:
  using Clock = std::chrono::steady_clock;
  static int world_rank() {
    int rank = -1, up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
  }
  static double ms_since(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  }
  const char* what_;
  Clock::time_point start_{}, last_{};
  std::vector<std::pair<const char*, double>> phases_;
};

}  // namespace KokkosDDT::Impl
