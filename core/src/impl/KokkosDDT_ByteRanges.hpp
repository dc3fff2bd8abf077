#pragma once
// A union of byte ranges [lo, hi) with overlap queries and inserts in O(log n): what the fusion queue's pending
// requests read and write, so that each enqueue checks its hazards without scanning every pending request.

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>

namespace KokkosDDT::Impl {

class ByteRanges {
 public:
  bool overlaps(std::uintptr_t lo, std::uintptr_t hi) const {
    if (lo >= hi) return false;
    auto it = ranges_.upper_bound(lo);  // the first range starting after lo
    if (it != ranges_.end() && it->first < hi) return true;
    return it != ranges_.begin() && std::prev(it)->second > lo;
  }

  void insert(std::uintptr_t lo, std::uintptr_t hi) {
    if (lo >= hi) return;
    auto it = ranges_.upper_bound(lo);
    if (it != ranges_.begin() && std::prev(it)->second >= lo) {  // merge with the range that starts before lo
      --it;
      lo = it->first;
      hi = std::max(hi, it->second);
      it = ranges_.erase(it);
    }
    while (it != ranges_.end() && it->first <= hi) {  // and with every range it reaches
      hi = std::max(hi, it->second);
      it = ranges_.erase(it);
    }
    ranges_.emplace(lo, hi);
  }

  void clear() { ranges_.clear(); }
  bool empty() const { return ranges_.empty(); }

 private:
  std::map<std::uintptr_t, std::uintptr_t> ranges_;
};

}  // namespace KokkosDDT::Impl
