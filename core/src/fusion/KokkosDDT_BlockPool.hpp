// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Allocations that a process makes again and again, pooled by size class: a plan's fused batches (their records and
// counters in the execution space's memory, their completion flags in pinned host memory) and the messages' staging
// buffers. A device allocation costs tens of microseconds and its free synchronizes the whole device; a plan made in
// every run of a time loop (Cabana's halo is) would pay both for each of its batches. A block goes back to its pool
// when the last copy of its handle goes, and is handed out again as it is (not zeroed).
//
// The pool does not know what may still read a block: whoever gives one back must have seen the work that reads it
// complete (a fused batch fences the instances it launched on; a staging buffer's owner its step's instance).

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include <Kokkos_Core.hpp>

namespace KokkosDDT::Impl {

// A block on loan: `bytes` usable at `data` (at least what was asked for), back to the pool with the last copy of
// `keep`.
struct PooledBlock {
  char* data = nullptr;
  std::int64_t bytes = 0;
  std::shared_ptr<void> keep;
};

template <class MemSpace>
class BlockPool {
 public:
  static PooledBlock take(std::int64_t bytes) {
    const std::int64_t capacity = size_class(bytes);
    BlockPool& pool = instance();
    Kokkos::View<char*, MemSpace> block;
    {
      const std::lock_guard<std::mutex> lock(pool.mutex_);
      auto it = pool.free_.find(capacity);
      if (it != pool.free_.end()) {
        block = it->second;
        pool.free_.erase(it);
      }
    }
    if (!block.data())
      block = Kokkos::View<char*, MemSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosDDT::pooled block"),
                                            capacity);
    auto* held = new Kokkos::View<char*, MemSpace>(block);
    return {block.data(), capacity, std::shared_ptr<void>(held, [](void* p) {
              auto* v = static_cast<Kokkos::View<char*, MemSpace>*>(p);
              if (Kokkos::is_initialized()) give_back(*v);  // (after finalize: the View's own free, or none)
              delete v;
            })};
  }

  // Powers of two from 64 bytes up to 64 MiB, then multiples of 64 MiB (2.1 GB takes 2.1 GB, not 4 GiB).
  static std::int64_t size_class(std::int64_t bytes) {
    constexpr std::int64_t large = std::int64_t(64) << 20;
    std::int64_t capacity = 64;
    while (capacity < bytes && capacity < large) capacity *= 2;
    if (capacity < bytes) capacity = (bytes + large - 1) / large * large;
    return capacity;
  }

  // Blocks waiting in the pool (tests).
  static std::int64_t idle_blocks() {
    BlockPool& pool = instance();
    const std::lock_guard<std::mutex> lock(pool.mutex_);
    return static_cast<std::int64_t>(pool.free_.size());
  }

 private:
  static BlockPool& instance() {
    static BlockPool* pool = [] {
      auto* p = new BlockPool;  // lives until exit; its blocks are freed at Kokkos::finalize
      Kokkos::push_finalize_hook([p] {
        const std::lock_guard<std::mutex> lock(p->mutex_);
        p->free_.clear();
      });
      return p;
    }();
    return *pool;
  }
  static void give_back(const Kokkos::View<char*, MemSpace>& v) {
    BlockPool& pool = instance();
    const std::lock_guard<std::mutex> lock(pool.mutex_);
    pool.free_.emplace(static_cast<std::int64_t>(v.extent(0)), v);
  }
  std::mutex mutex_;
  std::multimap<std::int64_t, Kokkos::View<char*, MemSpace>> free_;  // by capacity
};

}  // namespace KokkosDDT::Impl
