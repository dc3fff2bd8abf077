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
inline std::vector<double> interleaved_medians_us(const std::vector<std::function<void()>>& fs, double min_seconds,
                                                  int max_rounds = 200) {
  double round = 0;
  for (const auto& f : fs) {
    f();  // warm-up: page faults, caches, lazy initialization
    Kokkos::Timer once;
    f();
    round += once.seconds();
  }
  const int rounds = static_cast<int>(std::clamp(min_seconds / std::max(round, 1e-7), 3.0, double(max_rounds)));
  std::vector<std::vector<double>> t(fs.size(), std::vector<double>(rounds));
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < fs.size(); ++i) {
      Kokkos::Timer timer;
      fs[i]();
      t[i][r] = timer.seconds() * 1e6;
    }
  std::vector<double> medians;
  for (auto& v : t) medians.push_back(median(v));
  return medians;
}

}  // namespace bench
