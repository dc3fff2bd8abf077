#pragma once
// CUDA: small flat traversals are launched with <<<>>> on the instance's stream instead of through
// Kokkos::parallel_for. A small pack's cost is its launch, and Kokkos' RangePolicy launch path (policy checks, block
// size query, tools hooks) adds host time that a raw launch does not (measured on the H100: perf_tests/results).
// The functor and the traversal are the same; only the launch differs. With a Kokkos tool loaded the launch goes
// through Kokkos, so that tools still see the labelled kernel.
#ifndef KOKKOSDDT_CUDA_DIRECT_LAUNCH  // 0: every launch through Kokkos (for comparison)
#define KOKKOSDDT_CUDA_DIRECT_LAUNCH 1
#endif
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__) && KOKKOSDDT_CUDA_DIRECT_LAUNCH

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Error.hpp"

namespace KokkosDDT::Impl {

inline constexpr int kDirectBlock = 256;

template <class Kernel>
__global__ void __launch_bounds__(kDirectBlock) direct_flat_kernel(const Kernel kernel, std::int64_t threads) {
  const std::int64_t i = std::int64_t(blockIdx.x) * kDirectBlock + threadIdx.x;
  if (i < threads) kernel(i);
}

template <class Kernel>
void launch_flat(const Kokkos::Cuda& space, const char* label, std::int64_t threads, const Kernel& kernel) {
  if (threads <= 0) return;  // a launch of zero blocks is an error
  const std::int64_t blocks = (threads + kDirectBlock - 1) / kDirectBlock;
  if (Kokkos::Tools::profileLibraryLoaded() || blocks > INT_MAX) {
    Kokkos::parallel_for(label, Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<std::int64_t>>(space, 0, threads),
                         kernel);
    return;
  }
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess || device != space.cuda_device()) cudaSetDevice(space.cuda_device());
  direct_flat_kernel<<<static_cast<unsigned>(blocks), kDirectBlock, 0, space.cuda_stream()>>>(kernel, threads);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess)
    throw_error(ErrorCode::Backend, label, "launch", std::string("failed: ") + cudaGetErrorString(status));
}

}  // namespace KokkosDDT::Impl

#endif
