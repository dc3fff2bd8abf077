#pragma once
// How a traversal is laid out on an execution space: the only thing about packing that differs per backend.
//
// Host spaces run one thread per team; it walks its tile of the packed stream run by run (a locate per run, then O(1)
// steps to the next block of the same node, memcpy for long runs). Device spaces run wide teams whose threads take
// interleaved words, so that a warp's loads and stores coalesce. The traversal itself is the same code.

#include <algorithm>
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace KokkosDDT::Impl {

template <class ExecSpace, class Enable = void>
struct LaunchTraits {
  static constexpr bool host = Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;

  // Threads per team: 1 on hosts (each thread walks runs), a block of 256 on devices (threads interleave words).
  static int team_size() { return host ? 1 : 256; }

  // Packed bytes per team. Hosts: enough tiles to balance the threads, each large enough to amortize the descriptor
  // copy. Devices: a few words per thread per team.
  static std::int64_t tile_bytes(const ExecSpace& space, std::int64_t total, int word) {
    if (host) {
      const std::int64_t threads = std::max(1, space.concurrency());
      const std::int64_t balanced = (total + 4 * threads - 1) / (4 * threads);
      const std::int64_t tile = std::max<std::int64_t>(std::int64_t(64) << 10, balanced);
      return (tile + word - 1) / word * word;
    }
    return std::int64_t(team_size()) * word * 4;
  }

  // Largest descriptor (bytes) copied into level-0 team scratch; larger ones are read from memory directly.
  static constexpr std::int64_t max_scratch_descriptor = 16 << 10;
};

}  // namespace KokkosDDT::Impl
