// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// CUDA: wide teams of interleaved words, flat launches with <<<>>> on the instance's stream, an acquire-release system
// fence before completion flags, and pointer queries through the CUDA runtime.

#include "KokkosDDT_BackendTraits.hpp"
#include "KokkosDDT_CudaGraph.hpp"
#include "KokkosDDT_CudaLaunch.hpp"
#include "KokkosDDT_CudaPointer.hpp"
#include "KokkosDDT_CudaInstances.hpp"

namespace KokkosDDT::Impl {

template <>
struct BackendTraits<Kokkos::Cuda> : GenericBackend<Kokkos::Cuda> {
  // 4 teams per multiprocessor (at most 64 registers at 256 threads), so that a halo exchange's few hundred teams run
  // in one wave on a large device.
  static constexpr int fused_teams_per_sm = 4;
  using fused_launch_bounds = Kokkos::LaunchBounds<team_size, fused_teams_per_sm>;
  // The fused kernels that walk descriptors use nearly all of the registers these bounds allow, so a multiprocessor
  // holds exactly fused_teams_per_sm of their teams: half of what concurrency() counts. (Launches of flat records
  // alone use fewer and could hold more; they are counted alike rather than asked per kernel.)
  static std::int64_t fused_threads(const Kokkos::Cuda& space) {
    return std::int64_t(space.cuda_device_prop().multiProcessorCount) * fused_teams_per_sm * team_size;
  }

  template <class Kernel>
  static std::string launch_flat(const Kokkos::Cuda& space, const std::string& label, std::int64_t threads,
                                 const Kernel& kernel) {
    if (Config::cuda_direct_launch && !Kokkos::Tools::profileLibraryLoaded())
      if (const auto status = cuda_launch_flat(space, threads, kernel); status.launched) return status.error;
    // With a Kokkos tool loaded, the launch goes through Kokkos so that tools see the labelled kernel.
    return GenericBackend<Kokkos::Cuda>::launch_flat(space, label, threads, kernel);
  }

  // (Kokkos's attributes of the kernel its parallel_for launches for that functor and policy.)
  template <class Functor, class Policy>
  static std::int64_t kernel_stack_bytes(const Kokkos::Cuda& space) {
    using Closure = Kokkos::Impl::ParallelFor<Functor, Policy>;
    using Launch = Kokkos::Impl::CudaParallelLaunch<Closure, typename Policy::launch_bounds>;
    return static_cast<std::int64_t>(Launch::get_cuda_func_attributes(space.cuda_device()).localSizeBytes);
  }

  static void* native_stream(const Kokkos::Cuda& space) { return static_cast<void*>(space.cuda_stream()); }
  static bool idle(const Kokkos::Cuda& space) { return cudaStreamQuery(space.cuda_stream()) != cudaErrorNotReady; }
  using Graph = CudaGraph;
  static constexpr bool has_graphs = true;
  static bool capturing(const Kokkos::Cuda& space) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    return cudaStreamIsCapturing(space.cuda_stream(), &status) == cudaSuccess && status != cudaStreamCaptureStatusNone;
  }
  // An instance on a stream someone else owns: a transport's own stream, which lives as long as the process
  // (Step::own_stream). Making an instance is slow (Kokkos's per-instance setup), so each stream's is made once and
  // found again by later plans; Kokkos::finalize drops them.
  static Kokkos::Cuda instance_on(void* stream) { return cuda_instance_on(static_cast<cudaStream_t>(stream)); }

  // desul's fences are sequentially consistent (MEMBAR.SC), stronger than the release a completion flag needs; CUDA's
  // acquire-release fence does it for less.
  KOKKOS_FORCEINLINE_FUNCTION static void fence_acq_rel_node() {
#if defined(__CUDA_ARCH__)
    asm volatile("fence.acq_rel.sys;" ::: "memory");
#else
    GenericBackend<Kokkos::Cuda>::fence_acq_rel_node();
#endif
  }
};

}  // namespace KokkosDDT::Impl
