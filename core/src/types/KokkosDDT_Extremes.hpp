// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The smallest and largest value of a list in one branch-free pass: the bounds of an index list at construction and
// at commit, where long lists (unstructured exchanges: thousands of entries) make it the cost that matters.

#include <cstddef>
#include <cstdint>
#include <utility>

namespace KokkosDDT::Impl {

// {min, max} of v[0..n), n >= 1. Four independent lanes: the comparisons of one lane wait on each other, four lanes
// keep the core busy (64-bit compares do not vectorize on baseline x86-64).
inline std::pair<std::int64_t, std::int64_t> extremes(const std::int64_t* v, std::size_t n) {
  std::int64_t lo[4] = {v[0], v[0], v[0], v[0]}, hi[4] = {v[0], v[0], v[0], v[0]};
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int k = 0; k < 4; ++k) {
      lo[k] = v[i + k] < lo[k] ? v[i + k] : lo[k];
      hi[k] = v[i + k] > hi[k] ? v[i + k] : hi[k];
    }
  for (; i < n; ++i) {
    lo[0] = v[i] < lo[0] ? v[i] : lo[0];
    hi[0] = v[i] > hi[0] ? v[i] : hi[0];
  }
  for (int k = 1; k < 4; ++k) {
    lo[0] = lo[k] < lo[0] ? lo[k] : lo[0];
    hi[0] = hi[k] > hi[0] ? hi[k] : hi[0];
  }
  return {lo[0], hi[0]};
}

}  // namespace KokkosDDT::Impl
