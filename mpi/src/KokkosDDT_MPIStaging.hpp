// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where typed messages are staged. A noncontiguous send is packed into a staging buffer that a transport then sends; a
// receive lands in one and is unpacked from it. The buffer lives where both the execution space and the transport can
// reach it: the execution space's memory when the transport reaches device memory (or the space is a host space),
// pinned host memory otherwise (the pack kernel then writes across the bus, zero-copy). The transport decides
// (Transport::capabilities().device_memory: for MPI, whether it is GPU-aware). Buffers are pooled by size class, so a
// step of a time loop allocates nothing.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Transport.hpp"

namespace KokkosDDT::Impl {

// A staging buffer (Staging, KokkosDDT_Transport.hpp) is on loan from its pool; returned when the last copy of the
// handle goes.

template <class MemSpace>
class StagingPool {
 public:
  static Staging take(std::int64_t bytes) {
    StagingPool& pool = instance();
    // Size classes: powers of two up to 64 MiB, then multiples of 64 MiB (a 2.1 GB message takes 2.1 GB, not 4 GiB).
    constexpr std::int64_t large = std::int64_t(64) << 20;
    std::int64_t capacity = 64;
    while (capacity < bytes && capacity < large) capacity *= 2;
    if (capacity < bytes) capacity = (bytes + large - 1) / large * large;
    Kokkos::View<char*, MemSpace> buffer;
    {
      const std::lock_guard<std::mutex> lock(pool.mutex_);
      auto it = pool.free_.find(capacity);
      if (it != pool.free_.end()) {
        buffer = it->second;
        pool.free_.erase(it);
      }
    }
    if (!buffer.data())
      buffer = Kokkos::View<char*, MemSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "KokkosDDT::mpi::staging"),
                                             capacity);
    auto* keep = new Kokkos::View<char*, MemSpace>(buffer);
    return {buffer.data(), bytes, std::shared_ptr<void>(keep, [](void* p) {
              auto* v = static_cast<Kokkos::View<char*, MemSpace>*>(p);
              if (Kokkos::is_initialized()) give_back(*v);
              delete v;
            })};
  }

 private:
  static StagingPool& instance() {
    static StagingPool* pool = [] {
      auto* p = new StagingPool;  // lives until exit; its buffers go at Kokkos::finalize
      Kokkos::push_finalize_hook([p] {
        const std::lock_guard<std::mutex> lock(p->mutex_);
        p->free_.clear();
      });
      return p;
    }();
    return *pool;
  }
  static void give_back(const Kokkos::View<char*, MemSpace>& v) {
    StagingPool& pool = instance();
    const std::lock_guard<std::mutex> lock(pool.mutex_);
    pool.free_.emplace(static_cast<std::int64_t>(v.extent(0)), v);
  }
  std::mutex mutex_;
  std::multimap<std::int64_t, Kokkos::View<char*, MemSpace>> free_;
};

// A staging buffer for messages handled on ExecSpace: in its memory when the transport reaches device memory
// (`device_reachable`) or that memory is the host's, else pinned host memory.
template <class ExecSpace>
Staging take_staging(std::int64_t bytes, bool device_reachable) {
  using MemSpace = typename ExecSpace::memory_space;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible) {
    (void)device_reachable;
    return StagingPool<MemSpace>::take(bytes);
  } else {
    if (device_reachable) return StagingPool<MemSpace>::take(bytes);
    return StagingPool<Kokkos::SharedHostPinnedSpace>::take(bytes);
  }
}

}  // namespace KokkosDDT::Impl
