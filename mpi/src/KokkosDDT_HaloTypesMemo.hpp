// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a halo plan's messages are, kept for the next plan made over the same fields (make_halo_plan's "types": the
// regions of every neighbour and the scatter's pieces, committed). A code that makes its halo anew every run (as
// Cabana's benchmark does) passes the same fields at the same addresses each time; the commit memo already makes each
// commit a lookup, but building and looking up a hundred descriptions was still half of a host plan's making. Only
// this process's own description is kept: the plan's setup with its neighbours runs every time.
//
// The key is everything the types follow from (the caller's list: fields by address, extents, order and element,
// the grid and this process's place and neighbours in it, the options that shape messages, the agreed choices), so
// equal keys make equal types; the types are at absolute addresses, right for whatever lives there when a key
// matches. The 16 most recently used are kept (a plan's types hold a few KiB of descriptors).

#include <cstdint>
#include <list>
#include <mutex>
#include <utility>
#include <vector>

namespace KokkosDDT::Impl {

template <class Value>
class HaloTypesMemo {
 public:
  using Key = std::vector<std::int64_t>;
  static constexpr std::size_t kEntries = 16;

  // The memo of one kind of value (a plan's regions, per execution space), for the process's lifetime.
  static HaloTypesMemo& instance() {
    static HaloTypesMemo* m = new HaloTypesMemo;  // never destroyed: usable from any static destructor
    return *m;
  }

  // Value kept under `key`, copied into `out`; false if there is none.
  bool find(const Key& key, Value& out) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->first != key) continue;
      entries_.splice(entries_.begin(), entries_, it);  // (most recently used first)
      out = it->second;
      return true;
    }
    return false;
  }

  void keep(Key key, Value value) {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.emplace_front(std::move(key), std::move(value));
    if (entries_.size() > kEntries) entries_.pop_back();
  }

 private:
  std::mutex mutex_;
  std::list<std::pair<Key, Value>> entries_;
};

}  // namespace KokkosDDT::Impl
