#pragma once
// How a traversal is laid out on an execution space: the only thing about packing that differs per backend.
//
// Host spaces run one thread per team; it walks its tile of the packed stream run by run (a locate per run, then O(1)
// steps to the next block of the same node, memcpy for long runs). Device spaces run wide teams whose threads take
// interleaved words, so that a warp's loads and stores coalesce. The traversal itself is the same code.

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "cuda/KokkosDDT_CudaLaunch.hpp"

// Tuning knobs for device launches (defaults measured on the H100; see perf_tests/results). Override with -D.
#ifndef KOKKOSDDT_FLAT_LAUNCH_TEAMS  // device launches of more tiles than this use the TeamPolicy (default: none)
#define KOKKOSDDT_FLAT_LAUNCH_TEAMS INT64_MAX
#endif
#ifndef KOKKOSDDT_THREAD_BYTES
#define KOKKOSDDT_THREAD_BYTES 8
#endif

namespace KokkosDDT::Impl {

// Runs kernel(i) for i in [0, threads) on `space`: a Kokkos RangePolicy. Backends may launch it their own way
// (cuda/KokkosDDT_CudaLaunch.hpp).
template <class ExecSpace, class Kernel>
void launch_flat(const ExecSpace& space, const char* label, std::int64_t threads, const Kernel& kernel) {
  Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, threads),
                       kernel);
}

// Threads of this instance. OpenMP's concurrency() reports the whole pool even for a partition_space instance (and
// constructs a default instance to do so), so ask the instance itself.
template <class ExecSpace>
int host_threads(const ExecSpace& space) {
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::OpenMP>) return std::max(1, space.impl_thread_pool_size());
#endif
  return std::max(1, space.concurrency());
}

template <class ExecSpace>
constexpr bool synchronous_host() {
#if defined(KOKKOS_ENABLE_SERIAL)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Serial>) return true;
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::OpenMP>) return true;
#endif
  return false;
}

template <class ExecSpace, class Enable = void>
struct LaunchTraits {
  static constexpr bool host = Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;

  // Hosts walk runs in order, one thread per team; devices interleave words across a team.
  static constexpr bool sequential = host;

  // Devices: up to this many tiles go out as a flat RangePolicy (the same mapping: thread i is rank i % T of tile
  // i / T, descriptor read from the kernel's parameters or memory) instead of a TeamPolicy with the descriptor in team
  // scratch. Measured on the H100 (perf_tests/results/gpu-2026-11-21-tuning.txt), the flat form is as fast or faster at
  // every size: a TeamPolicy launch costs 0.1-0.4 us more host time ("host cost" in gpu-2026-11-21.txt), and each
  // 2-KiB tile's scratch copy and barrier cost 0-5 % at 256 MiB (resident teams looping over tiles were slower still).
  // The TeamPolicy form stays for hosts, for the fused kernel, and behind this knob; the device-layout tests run both
  // forms on every backend.
  static constexpr std::int64_t flat_launch_teams = KOKKOSDDT_FLAT_LAUNCH_TEAMS;

  // Threads per team: 1 on hosts (each thread walks runs), a block of 256 on devices (threads interleave words).
  static int team_size() { return host ? 1 : 256; }

  // Packed bytes per team. Hosts: enough tiles to balance the threads, each large enough to amortize the descriptor
  // copy. Devices: a few words per thread per team.
  static std::int64_t tile_bytes(const ExecSpace& space, std::int64_t total, int word) {
    if (host) {
      constexpr std::int64_t min_tile = std::int64_t(64) << 10;
      if (total <= min_tile) return min_tile;  // one team, and no need to ask for the thread count
      const std::int64_t threads = host_threads(space);
      if (threads == 1) return (total + word - 1) / word * word;  // nothing to balance: one team walks it all
      const std::int64_t balanced = (total + 4 * threads - 1) / (4 * threads);
      const std::int64_t tile = std::max<std::int64_t>(min_tile, balanced);
      return (tile + word - 1) / word * word;
    }
    // Devices: enough threads to fill the device first (concurrency() = resident threads); beyond that, more work per
    // thread only for narrow words (up to KOKKOSDDT_THREAD_BYTES bytes' worth): measured on the H100, one
    // 8- or 16-byte word per thread packs fastest, while 1-byte words want 8 per thread.
    const std::int64_t words = (total + word - 1) / word;
    const std::int64_t threads = std::max<std::int64_t>(1, space.concurrency());
    const std::int64_t most = std::max<std::int64_t>(1, KOKKOSDDT_THREAD_BYTES / word);
    const std::int64_t per_thread = std::clamp<std::int64_t>((words + threads - 1) / threads, 1, most);
    return std::int64_t(team_size()) * word * per_thread;
  }

  // Largest descriptor (bytes) copied into level-0 team scratch; larger ones are read from memory directly.
  static constexpr std::int64_t max_scratch_descriptor = 16 << 10;

  // Serial and OpenMP finish a kernel before parallel_for returns, so work that fits one team may run on the calling
  // thread instead: a small pack then costs what MPI_Pack's does, not a fork/join (about 0.7 us on OpenMP).
  static constexpr bool inline_single_team = synchronous_host<ExecSpace>();
};

}  // namespace KokkosDDT::Impl
