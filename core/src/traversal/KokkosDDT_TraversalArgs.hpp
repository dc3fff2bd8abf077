// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What a traversal functor needs to move stream bytes [begin, end) of a committed type: one named-field struct that
// the single launch and the fused kernel fill in the same way, and the per-team descriptor copy both functors share.

#include <cstdint>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Descriptor.hpp"
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
  std::int64_t tile = 0;          // stream bytes per team
  bool cache_descriptor = false;  // copy the nodes into level-0 team scratch (small descriptors)
  bool packing = true;            // the direction, for functors that take it at run time (Direction::Runtime)
  int word = 1;                   // the word size, for functors that take it at run time (W == 0)
  // Device layouts: where every position's walk starts (see skip_common_levels): node `start`, stream position
  // `start_at` (subtracted from each position) and typed offset `start_disp` (added to each address).
  std::int32_t start = 0;
  std::int64_t start_at = 0;
  std::int64_t start_disp = 0;
};

// Moves args' walk start below the descriptor levels that one element of theirs covers for the whole of [begin, end):
// a strided or listed level whose element holds every position moved adds the same offset to every address, so the
// launch adds it once instead of every thread descending through it (one dependent descriptor read fewer per word;
// a single-instance transfer always skips the instance level). `nodes`, `lookaside`: the host copy.
template <class MemSpace>
void skip_common_levels(const DescriptorNode* nodes, const std::int64_t* lookaside, TraversalArgs<MemSpace>& args) {
  std::int32_t at = 0;
  std::int64_t pos = 0, disp = 0;
  while (true) {
    const DescriptorNode& n = nodes[at];
    if ((n.kind != LayoutKind::Strided && n.kind != LayoutKind::IndexedBlock) || n.child < 0) break;
    const std::int64_t e = (args.begin - pos) / n.elem;
    if ((args.end - 1 - pos) / n.elem != e) break;
    disp += n.disp + (n.kind == LayoutKind::Strided ? e * n.stride : lookaside[n.lookaside + e]);
    pos += e * n.elem;
    at = n.child;
  }
  args.start = at;
  args.start_at = pos;
  args.start_disp = disp;
}

// The descriptor as the team reads it: each team copies the fixed-length nodes into level-0 scratch once, in 16-byte
// words (jenkins-tpds14); descriptors too large for it are read in place.
template <class Member, class MemSpace>
KOKKOS_FUNCTION const DescriptorNode* team_descriptor(const Member& team, const TraversalArgs<MemSpace>& args) {
  if (!args.cache_descriptor) return args.nodes.data();
  const int words = static_cast<int>(args.nodes.extent(0) * sizeof(DescriptorNode) / sizeof(Word<16>));
  auto* scratch =
      static_cast<Word<16>*>(team.team_scratch(0).get_shmem_aligned(words * sizeof(Word<16>), alignof(DescriptorNode)));
  if (scratch == nullptr) return args.nodes.data();  // (cannot happen: the launch reserves it)
  const auto* global = reinterpret_cast<const Word<16>*>(args.nodes.data());
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, words), [&](int i) { scratch[i] = global[i]; });
  team.team_barrier();
  return reinterpret_cast<const DescriptorNode*>(scratch);
}

// Team scratch a launch reserves for team_descriptor (plus room to align).
inline std::int64_t descriptor_scratch_bytes(std::int64_t nodes) {
  return nodes * static_cast<std::int64_t>(sizeof(DescriptorNode)) + static_cast<std::int64_t>(alignof(DescriptorNode));
}

// Descriptors up to this size are copied into team scratch; larger ones are read in place.
inline constexpr std::int64_t kMaxScratchDescriptor = 16 << 10;

}  // namespace KokkosDDT::Impl
