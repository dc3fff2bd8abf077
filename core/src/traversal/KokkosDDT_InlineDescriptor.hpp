// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A small descriptor carried inside the kernel's own parameters (device flat launches, see DeviceInterleave).
//
// Types whose nodes and lookaside fit Config::inline_descriptor_bytes need no copy in device memory: commit makes
// none, the first pack in a memory space allocates and synchronizes nothing, and freeing the type frees no device
// memory (cudaFree waits for the whole device). It also shortens the kernel: the descriptor reads that start every
// word's address computation come from the parameter bank, which every thread of a launch reads alike, instead of
// dependent global loads (perf_tests/results/engine-2026-11-24.md).

#include <cstdint>
#include <cstring>

#include <Kokkos_Macros.hpp>

#include "KokkosDDT_Descriptor.hpp"

namespace KokkosDDT::Impl {

template <int Bytes>
struct InlineDescriptor {
  static_assert(Bytes % 16 == 0, "the nodes are 16-byte aligned");
  std::int32_t lookaside_at = 0;  // byte offset of the lookaside entries (after the nodes); first, next to the nodes
  alignas(16) unsigned char bytes[Bytes];

  static constexpr bool fits(std::int64_t nodes, std::int64_t lookaside) {
    return nodes * static_cast<std::int64_t>(sizeof(DescriptorNode)) +
               lookaside * static_cast<std::int64_t>(sizeof(std::int64_t)) <=
           Bytes;
  }

  // Host only; the caller checked fits().
  void fill(const DescriptorNode* nodes, std::int64_t node_count, const std::int64_t* lookaside,
            std::int64_t lookaside_count) {
    const std::size_t node_bytes = static_cast<std::size_t>(node_count) * sizeof(DescriptorNode);
    std::memcpy(bytes, nodes, node_bytes);
    if (lookaside_count > 0)
      std::memcpy(bytes + node_bytes, lookaside, static_cast<std::size_t>(lookaside_count) * sizeof(std::int64_t));
    lookaside_at = static_cast<std::int32_t>(node_bytes);
  }

  KOKKOS_FORCEINLINE_FUNCTION const DescriptorNode* nodes() const {
    return reinterpret_cast<const DescriptorNode*>(bytes);
  }
  KOKKOS_FORCEINLINE_FUNCTION const std::int64_t* lookaside() const {
    return reinterpret_cast<const std::int64_t*>(bytes + lookaside_at);
  }
};

// No inline descriptor (Config::inline_descriptor_bytes = 0): the kernel reads the descriptor's copy in its memory
// space.
template <>
struct InlineDescriptor<0> {
  static constexpr bool fits(std::int64_t, std::int64_t) { return false; }
  void fill(const DescriptorNode*, std::int64_t, const std::int64_t*, std::int64_t) {}
};

}  // namespace KokkosDDT::Impl
