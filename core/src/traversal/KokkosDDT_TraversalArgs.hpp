// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a traversal functor needs to move stream bytes [begin, end) of a committed type: one named-field struct that
// the single launch and the fused kernel fill in the same way, and the per-team descriptor copy both functors share.

#include <cstdint>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Descriptor.hpp"
#include "KokkosDDT_SharedLevels.hpp"
#include "KokkosDDT_Words.hpp"

namespace KokkosDDT::Impl {

template <class MemSpace>
struct TraversalArgs {
  Kokkos::View<const DescriptorNode*, MemSpace> nodes;  // the descriptor, in the execution space's memory
  Kokkos::View<const std::int64_t*, MemSpace> lookaside;
  char* typed = nullptr;   // the typed buffer: origin of displacement 0
  char* packed = nullptr;  // holds stream bytes [begin, end)
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int64_t tile = 0;            // stream bytes per team
  bool cache_descriptor = false;    // copy the nodes into level-0 team scratch (small descriptors)
  bool packing = true;              // the direction, for functors that take it at run time (Direction::Runtime)
  int word = 1;                     // the word size, for functors that take it at run time (W == 0)
  std::int8_t op = 0, element = 0;  // Direction::Combine: the operation and the elements' primitive (FusedRecord)
  // Device layouts: where every position's walk starts (see skip_common_levels): node `start`, stream position
  // `start_at` (subtracted from each position) and typed offset `start_disp` (added to each address).
  std::int32_t start = 0;
  std::int64_t start_at = 0;
  std::int64_t start_disp = 0;
};

// Moves args' walk start below the levels their whole range shares (shared_levels).
template <class MemSpace>
void skip_common_levels(const DescriptorNode* nodes, const std::int64_t* lookaside, TraversalArgs<MemSpace>& args) {
  const SharedLevels s = shared_levels(nodes, lookaside, args.begin, args.end);
  args.start = s.start;
  args.start_at = s.at;
  args.start_disp = s.disp;
}

// `count` elements of T (16-byte words, 64-bit integers) copied into the team's level-0 scratch, after whatever the
// team took from it before; the caller's team barrier makes them visible. (The launch reserved room for them.)
template <class T, class Member>
KOKKOS_FUNCTION const T* scratch_copy(const Member& team, const T* from, std::int64_t count) {
  if (count == 0) return from;
  auto* scratch = static_cast<T*>(team.team_scratch(0).get_shmem_aligned(count * sizeof(T), alignof(T)));
  if (scratch == nullptr) return from;  // (cannot happen: the launch reserves it)
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, static_cast<int>(count)), [&](int i) { scratch[i] = from[i]; });
  return scratch;
}

// A descriptor's `count` nodes copied into the team's scratch (in 16-byte words: the nodes are fixed-length).
template <class Member>
KOKKOS_FUNCTION const DescriptorNode* scratch_nodes(const Member& team, const DescriptorNode* nodes,
                                                    std::int64_t count) {
  constexpr std::int64_t words = sizeof(DescriptorNode) / sizeof(Word<16>);
  return reinterpret_cast<const DescriptorNode*>(
      scratch_copy(team, reinterpret_cast<const Word<16>*>(nodes), count * words));
}

// The descriptor as the team reads it: each team copies the fixed-length nodes into level-0 scratch once
// (jenkins-tpds14); descriptors too large for it are read in place. On a GPU every level of a walk reads the node
// its parent names, so a walk over global memory is a chain of dependent loads, each a cache miss in a cold
// multiprocessor; from scratch it is a chain of shared-memory loads.
template <class Member, class MemSpace>
KOKKOS_FUNCTION const DescriptorNode* team_descriptor(const Member& team, const TraversalArgs<MemSpace>& args) {
  if (!args.cache_descriptor) return args.nodes.data();
  const DescriptorNode* nodes = scratch_nodes(team, args.nodes.data(), static_cast<std::int64_t>(args.nodes.extent(0)));
  team.team_barrier();
  return nodes;
}

// Team scratch a launch reserves for team_descriptor (plus room to align).
inline std::int64_t descriptor_scratch_bytes(std::int64_t nodes) {
  return nodes * static_cast<std::int64_t>(sizeof(DescriptorNode)) + static_cast<std::int64_t>(alignof(DescriptorNode));
}

// ... and for a lookaside copied beside it.
inline std::int64_t lookaside_scratch_bytes(std::int64_t entries) {
  return entries * static_cast<std::int64_t>(sizeof(std::int64_t)) + static_cast<std::int64_t>(alignof(std::int64_t));
}

// Descriptors up to this size are copied into team scratch; larger ones are read in place.
inline constexpr std::int64_t kMaxScratchDescriptor = 16 << 10;

}  // namespace KokkosDDT::Impl
