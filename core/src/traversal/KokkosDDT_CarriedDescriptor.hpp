// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A small descriptor carried inside the kernel's own parameters (device flat launches, see DeviceInterleave).
//
// Types whose nodes and lookaside fit Config::carried_descriptor_bytes need no copy in device memory: commit makes
// none, the first pack in a memory space allocates and synchronizes nothing, and freeing the type frees no device
// memory (cudaFree waits for the whole device). It also shortens the kernel: the descriptor reads that start every
// word's address computation come from the parameter bank, which every thread of a launch reads alike, instead of
// dependent global loads. That holds while latency bounds the launch; see carry_descriptor for the launches where it
// does not. Flat packs and unpacks have a second, larger block (Config::carried_descriptor_bytes_large) for descriptors
// over the first, in latency-bound launches only (carry_large_descriptor).

#include <cstdint>
#include <cstring>

#include <Kokkos_Macros.hpp>

#include "KokkosDDT_Descriptor.hpp"

namespace KokkosDDT::Impl {

template <int Bytes>
struct CarriedDescriptor {
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

// Whether a device launch of `words` words of `word` bytes (each located in the descriptor) carries a small
// descriptor, on a device that holds `resident` threads at once. Carried, every thread reads the descriptor from the
// constant bank; else from L1 (its copy in device memory):
// - up to two waves of words, latency bounds the kernel and the constant bank's is shorter: carried (fewer
//   long-scoreboard stalls);
// - beyond, words under 4 bytes: a walk per byte or two bounds the kernel by how fast it issues descriptor reads, and
//   indexed constant-bank loads (the MIO pipe) fall behind L1 hits: from device memory;
// - beyond, wider words: the data's loads bound the kernel, and descriptor reads from L1 would compete with them:
//   carried.
inline constexpr std::int64_t carried_descriptor_waves = 2;
inline bool carry_descriptor(std::int64_t words, int word, std::int64_t resident) {
  return words <= carried_descriptor_waves * resident || word >= 4;
}

// Whether such a launch carries a descriptor too large for the smaller parameter block in the larger one
// (Config::carried_descriptor_bytes_large): only up to two waves of words, where latency bounds the launch and the
// constant bank's is shorter. Beyond, a large descriptor is mostly per-block tables that a warp's lanes read at
// different addresses, which the constant bank serves one at a time and L1 at once: the device copy.
inline bool carry_large_descriptor(std::int64_t words, std::int64_t resident) {
  return words <= carried_descriptor_waves * resident;
}

// No carried descriptor (Config::carried_descriptor_bytes = 0): the kernel reads the descriptor's copy in its memory
// space.
template <>
struct CarriedDescriptor<0> {
  static constexpr bool fits(std::int64_t, std::int64_t) { return false; }
  void fill(const DescriptorNode*, std::int64_t, const std::int64_t*, std::int64_t) {}
};

}  // namespace KokkosDDT::Impl
