// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A small descriptor carried inside the kernel's own parameters (device flat launches, see DeviceInterleave).
//
// Types whose nodes and lookaside fit Config::inline_descriptor_bytes need no copy in device memory: commit makes
// none, the first pack in a memory space allocates and synchronizes nothing, and freeing the type frees no device
// memory (cudaFree waits for the whole device). It also shortens the kernel: the descriptor reads that start every
// word's address computation come from the parameter bank, which every thread of a launch reads alike, instead of
// dependent global loads (perf_tests/results/engine-2026-11-24.md). That holds while latency bounds the launch; see
// carry_descriptor for the launches where it does not.

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

// Whether a device launch of `words` words (each located in the descriptor) carries a small descriptor, on a device
// that holds `resident` threads at once: up to two waves of them. In such launches latency bounds the kernel and the
// constant bank's is shorter than the global loads' (a face copy's long-scoreboard stalls 21 -> 8 cycles per
// instruction, 3.20 -> 2.62 us). In larger ones the kernel is bound by how fast it issues, and the indexed reads of the
// constant bank (the MIO pipe: short-scoreboard stalls 0.1 -> 5.4) fall behind L1 hits on the device copy: 1-byte
// copies of 1 MiB (four waves on an H200) were 3-19 % slower carried (ncu, perf_tests/results/launch-rules-2026-11-29.md).
inline constexpr std::int64_t carried_descriptor_waves = 2;
inline bool carry_descriptor(std::int64_t words, std::int64_t resident) {
  return words <= carried_descriptor_waves * resident;
}

// No inline descriptor (Config::inline_descriptor_bytes = 0): the kernel reads the descriptor's copy in its memory
// space.
template <>
struct InlineDescriptor<0> {
  static constexpr bool fits(std::int64_t, std::int64_t) { return false; }
  void fill(const DescriptorNode*, std::int64_t, const std::int64_t*, std::int64_t) {}
};

}  // namespace KokkosDDT::Impl
