// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// BackendTraits<ExecSpace>: everything about moving data that differs per execution space, and nothing else.
// GenericBackend is what any Kokkos backend gets without a folder of its own (Kokkos launches, desul fences);
// backends/<space>/ specializes BackendTraits, deriving from GenericBackend and changing what differs. Backends include
// Kokkos only, never KokkosDDT's core: core includes backends through KokkosDDT_Backend.hpp, and the dependency runs
// one way.
//
// Adding a backend (HIP, SYCL, ...): docs/DESIGN.md has the checklist.

#include <algorithm>
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>
#include <desul/atomics.hpp>

#include "KokkosDDT_Config.hpp"

namespace KokkosDDT::Impl {

// Where a raw pointer lives, as far as the build's device runtime can tell (Unknown: it cannot).
enum class PointerKind { Unknown, Pageable, Pinned, Device, Managed };

template <class ExecSpace>
struct GenericBackend {
  // Hosts walk their share of the packed stream run by run, one thread per team; devices run wide teams whose threads
  // take interleaved words, so that a warp's loads and stores coalesce. The traversal is the same code.
  static constexpr bool host = Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;
  static constexpr bool walks_runs = host;
  static constexpr int team_size = host ? 1 : 256;
  // Devices: teams smaller than team_size come in whole warps (a fused launch of less work: LaunchKind::team_size).
  static constexpr int team_granule = host ? 1 : 32;

  // True when a kernel has finished once parallel_for returns: a transfer that fits one team may then run on the
  // calling thread, and the fusion queue's threshold model counts launches as pure overhead.
  static constexpr bool synchronous = false;

  // Device launches: at most this many bytes of units per thread per tile (one 8- or 16-byte word, or eight 1-byte
  // units), once the device is full: more in flight per thread costs registers, and so resident threads.
  static constexpr std::int64_t thread_bytes = Config::thread_bytes;

  // The fused kernel's launch bounds (devices: sized so that a halo exchange's teams fit one wave).
  using fused_launch_bounds = Kokkos::LaunchBounds<>;

  // Threads this instance runs (hosts: its share of the pool; devices: resident threads).
  static int threads(const ExecSpace& space) { return std::max(1, space.concurrency()); }
  // Threads of the fused kernel resident at once (its launch bounds may hold fewer than threads()).
  static std::int64_t fused_threads(const ExecSpace& space) { return threads(space); }

  // Bytes of stack each thread of a team-policy parallel_for of Functor under Policy takes, where the backend compiles
  // kernels into functions of their own (devices: the local memory of the kernel's function); 0 on hosts.
  template <class Functor, class Policy>
  static std::int64_t kernel_stack_bytes(const ExecSpace&) {
    return 0;
  }

  // Runs kernel(i) for i in [0, threads) on `space`. Returns an error text, empty on success.
  template <class Kernel>
  static std::string launch_flat(const ExecSpace& space, const std::string& label, std::int64_t threads,
                                 const Kernel& kernel) {
    Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, threads),
                         kernel);
    return {};
  }

  // The instance's native queue, for transports that enqueue messages on it (the NCCL transport: a cudaStream_t).
  // Hosts have none: their launches are ordered by the calling thread.
  static void* native_stream(const ExecSpace&) { return nullptr; }

  // A recording of the work enqueued on an instance, replayed as one launch (CUDA graphs). Others record nothing:
  // capture() returns why, and nothing was enqueued.
  struct Graph {
    bool captured() const { return false; }
    template <class Enqueue>
    std::string capture(const ExecSpace&, const Enqueue&) {
      return std::string(ExecSpace::name()) + " has no graphs";
    }
    std::string launch(const ExecSpace&) const { return "no graph"; }
  };
  static constexpr bool has_graphs = false;

  // Whether the instance's queue is being captured (a CUDA graph: what is enqueued is recorded, not run). Hosts: never.
  static bool capturing(const ExecSpace&) { return false; }

  // Whether the work enqueued on the instance so far has completed, without waiting for it where the backend can tell
  // (a wait with a deadline polls this). Hosts: their launches have returned, or the fence waits for them.
  static bool idle(const ExecSpace& space) {
    space.fence("KokkosDDT: is the instance idle");
    return true;
  }

  // Orders this thread's earlier writes, and those it has acquired, before its later writes, for observers anywhere
  // in the node (the host included): what publishes a fused launch's data before its host-visible completion flag.
  KOKKOS_FORCEINLINE_FUNCTION static void fence_acq_rel_node() {
    desul::atomic_thread_fence(desul::MemoryOrderAcqRel(), desul::MemoryScopeNode());
  }
};

template <class ExecSpace>
struct BackendTraits : GenericBackend<ExecSpace> {};

}  // namespace KokkosDDT::Impl
