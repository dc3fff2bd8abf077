// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// CUDA: flat traversals launched with <<<>>> on the instance's stream instead of through Kokkos::parallel_for. A small
// pack's cost is its launch, and Kokkos' RangePolicy launch path (policy checks, block-size query, tools hooks) adds
// host time that a raw launch does not. The functor is the same.

#include <climits>
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

namespace KokkosDDT::Impl {

struct CudaLaunchStatus {
  bool launched = false;  // false: not launched here (the caller launches through Kokkos)
  std::string error;      // non-empty: the runtime refused the launch
};

#if defined(__CUDACC__)
inline constexpr int kCudaFlatBlock = 256;

// The functor is read in place from the parameter bank (__grid_constant__): it may carry the type's descriptor
// (CarriedDescriptor), which the traversal indexes at run time, and without the annotation every thread would first
// copy the whole parameter to its local memory.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700
#define KOKKOSDDT_GRID_CONSTANT __grid_constant__
#else
#define KOKKOSDDT_GRID_CONSTANT
#endif

template <class Kernel>
__global__ void __launch_bounds__(kCudaFlatBlock)
    cuda_flat_kernel(const KOKKOSDDT_GRID_CONSTANT Kernel kernel, std::int64_t threads) {
  const std::int64_t i = std::int64_t(blockIdx.x) * kCudaFlatBlock + threadIdx.x;
  if (i < threads) kernel(i);
}

// Switches to `device` for the lifetime of the guard and back to the caller's device after it (the launch must not
// change which device the caller's later CUDA calls go to).
class CudaDeviceGuard {
 public:
  explicit CudaDeviceGuard(int device) {
    if (cudaGetDevice(&previous_) != cudaSuccess) {
      error_ = cudaGetErrorString(cudaGetLastError());
      return;
    }
    if (previous_ != device && cudaSetDevice(device) != cudaSuccess) error_ = cudaGetErrorString(cudaGetLastError());
    switched_ = error_.empty() && previous_ != device;
  }
  ~CudaDeviceGuard() {
    if (switched_) cudaSetDevice(previous_);
  }
  CudaDeviceGuard(const CudaDeviceGuard&) = delete;
  CudaDeviceGuard& operator=(const CudaDeviceGuard&) = delete;
  const std::string& error() const { return error_; }

 private:
  int previous_ = -1;
  bool switched_ = false;
  std::string error_;
};

template <class Kernel>
CudaLaunchStatus cuda_launch_flat(const Kokkos::Cuda& space, std::int64_t threads, const Kernel& kernel) {
  const std::int64_t blocks = (threads + kCudaFlatBlock - 1) / kCudaFlatBlock;
  if (threads <= 0 || blocks > INT_MAX) return {};
  const CudaDeviceGuard device(space.cuda_device());
  if (!device.error().empty())
    return {true, "cudaSetDevice(" + std::to_string(space.cuda_device()) + ") failed: " + device.error()};
  cuda_flat_kernel<<<static_cast<unsigned>(blocks), kCudaFlatBlock, 0, space.cuda_stream()>>>(kernel, threads);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) return {true, std::string("kernel launch failed: ") + cudaGetErrorString(status)};
  return {true, {}};
}
#else
// Translation units not compiled by nvcc launch through Kokkos.
template <class Kernel>
CudaLaunchStatus cuda_launch_flat(const Kokkos::Cuda&, std::int64_t, const Kernel&) {
  return {};
}
#endif

}  // namespace KokkosDDT::Impl
