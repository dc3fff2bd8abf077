// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where typed messages are staged. A noncontiguous send is packed into a staging buffer that a transport then sends; a
// receive lands in one and is unpacked from it. The buffer lives where both the execution space and the transport can
// reach it: the execution space's memory when the transport reaches device memory (or the space is a host space),
// pinned host memory otherwise (the pack kernel then writes across the bus, zero-copy). The transport decides
// (Transport::capabilities().device_memory: for MPI, whether it is GPU-aware). Buffers are pooled by size class
// (KokkosDDT_BlockPool.hpp), so a step of a time loop allocates nothing.

#include <cstdint>
#include <utility>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_BlockPool.hpp"
#include "KokkosDDT_Transport.hpp"

namespace KokkosDDT::Impl {

// A staging buffer (Staging, KokkosDDT_Transport.hpp): a block of its memory space's pool (KokkosDDT_BlockPool.hpp), on
// loan until the last copy of the handle goes.
template <class MemSpace>
Staging staging_block(std::int64_t bytes) {
  PooledBlock b = BlockPool<MemSpace>::take(bytes);
  return {b.data, bytes, std::move(b.keep)};
}

// A staging buffer for messages handled on ExecSpace: in its memory when the transport reaches device memory
// (`device_reachable`) or that memory is the host's, else pinned host memory.
template <class ExecSpace>
Staging take_staging(std::int64_t bytes, bool device_reachable) {
  using MemSpace = typename ExecSpace::memory_space;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible) {
    (void)device_reachable;
    return staging_block<MemSpace>(bytes);
  } else {
    if (device_reachable) return staging_block<MemSpace>(bytes);
    return staging_block<Kokkos::SharedHostPinnedSpace>(bytes);
  }
}

}  // namespace KokkosDDT::Impl
