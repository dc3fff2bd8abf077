// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Host wall-time medians shared by the benchmarks.
#include <algorithm>
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

}  // namespace bench
