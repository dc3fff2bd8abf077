// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Host wall-time medians shared by the benchmarks.
#include <algorithm>
#include <functional>
#include <vector>

#include <Kokkos_Timer.hpp>

namespace bench {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median host wall time (us) of f() over `reps` calls, after `warmup` untimed ones; f must finish its work (fence or
// wait) before it returns.
template <class F>
double median_us(int reps, F&& f, int warmup = 3) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    Kokkos::Timer timer;
    f();
    t.push_back(timer.seconds() * 1e6);
  }
  return median(t);
}

// Median wall time (us) of each function. The functions take turns, round after round, so that drift (frequency,
// the other core's load, cache state) hits them alike; the number of rounds fills min_seconds (3 to max_rounds).
// A sample times a batch of calls that lasts at least kMinSampleUs (one call for anything slower) and counts the
// batch's time per call: a single call of tens of nanoseconds is below the clock's resolution and the timer's own
// cost, which would otherwise dominate (and compress) the comparison of small packs.
inline constexpr double kMinSampleUs = 5;

inline std::vector<double> interleaved_medians_us(const std::vector<std::function<void()>>& fs, double min_seconds,
                                                  int max_rounds = 200) {
  double round = 0;
  std::vector<int> batch;
  for (const auto& f : fs) {
    f();  // warm-up: page faults, caches, lazy initialization
    Kokkos::Timer once;
    f();
    const double us = once.seconds() * 1e6;
    batch.push_back(static_cast<int>(std::clamp(kMinSampleUs / std::max(us, 1e-3), 1.0, 1000.0)));
    round += us * batch.back();
  }
  const int rounds = static_cast<int>(std::clamp(min_seconds / std::max(round * 1e-6, 1e-7), 3.0, double(max_rounds)));
  std::vector<std::vector<double>> t(fs.size(), std::vector<double>(rounds));
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < fs.size(); ++i) {
      Kokkos::Timer timer;
      for (int k = 0; k < batch[i]; ++k) fs[i]();
      t[i][r] = timer.seconds() * 1e6 / batch[i];
    }
  std::vector<double> medians;
  for (auto& v : t) medians.push_back(median(v));
  return medians;
}

}  // namespace bench
