// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A union of byte ranges [lo, hi) with overlap queries in O(log n): what the fusion queue's pending requests read and
// write, so that each enqueue checks its hazards without scanning every pending request. Kept in a sorted vector
// whose storage survives clear(), so a queue in steady state does not allocate per request.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace KokkosDDT::Impl {

class ByteRanges {
 public:
  bool overlaps(std::uintptr_t lo, std::uintptr_t hi) const {
    if (lo >= hi) return false;
    auto it = first_ending_after(lo);  // ranges are disjoint and sorted, so their ends are sorted too
    return it != ranges_.end() && it->first < hi;
  }

  void insert(std::uintptr_t lo, std::uintptr_t hi) {
    if (lo >= hi) return;
    auto first = ranges_.begin() + (first_ending_after_or_at(lo) - ranges_.cbegin());
    auto last = first;
    while (last != ranges_.end() && last->first <= hi) {  // every range it touches merges into one
      lo = std::min(lo, last->first);
      hi = std::max(hi, last->second);
      ++last;
    }
    if (first == last) {
      ranges_.insert(first, {lo, hi});
    } else {
      *first = {lo, hi};
      ranges_.erase(first + 1, last);
    }
  }

  void clear() { ranges_.clear(); }
  bool empty() const { return ranges_.empty(); }

 private:
  using Range = std::pair<std::uintptr_t, std::uintptr_t>;
  std::vector<Range>::const_iterator first_ending_after(std::uintptr_t x) const {
    return std::upper_bound(ranges_.begin(), ranges_.end(), x,
                            [](std::uintptr_t v, const Range& r) { return v < r.second; });
  }
  std::vector<Range>::const_iterator first_ending_after_or_at(std::uintptr_t x) const {
    return std::lower_bound(ranges_.begin(), ranges_.end(), x,
                            [](const Range& r, std::uintptr_t v) { return r.second < v; });
  }
  std::vector<Range> ranges_;
};

}  // namespace KokkosDDT::Impl
