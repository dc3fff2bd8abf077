// SPDX-License-Identifier: BSD-3-Clause
// CUDA only: memory-space checks that need device memory, and the direct launch leaving the caller's device alone.
#include <cuda_runtime.h>

#include "support/Catch.hpp"
#include "support/Errors.hpp"
#include "KokkosDDT.hpp"

using namespace KokkosDDT;
using Test::require_error;

TEST_CASE("cuda: device and host memory refused where the execution space cannot access it", "[errors][cuda]") {
  Kokkos::View<double*, Kokkos::CudaSpace> device("d", 8);
  Kokkos::View<double*, Kokkos::HostSpace> host("h", 8);
  Datatype t = contiguous(8, primitive<double>()).commit();
  require_error([&] { pack(Kokkos::DefaultHostExecutionSpace(), device, 1, t, host); }, ErrorCode::Inaccessible, "src");
  require_error([&] { pack(Kokkos::Cuda(), host, 1, t, device); }, ErrorCode::Inaccessible, "src");
}

// A pack on an instance of another device must switch to that device for the launch and back afterwards (the
// caller's later CUDA calls go to the device it chose). Needs two GPUs.
TEST_CASE("cuda: a launch on another device's instance restores the caller's device", "[cuda][multi-gpu]") {
  int devices = 0;
  REQUIRE(cudaGetDeviceCount(&devices) == cudaSuccess);
  if (devices < 2) {
    WARN("one GPU: the device-restore check needs two");
    return;
  }
  const int home = Kokkos::Cuda().cuda_device();
  const int other = home == 0 ? 1 : 0;
  REQUIRE(cudaSetDevice(other) == cudaSuccess);
  cudaStream_t stream;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  REQUIRE(cudaSetDevice(home) == cudaSuccess);
  {
    Kokkos::Cuda instance(stream, Kokkos::Impl::ManageStream::no);
    REQUIRE(instance.cuda_device() == other);
    Kokkos::View<double*, Kokkos::CudaSpace> src(Kokkos::view_alloc(instance, "src"), 64);
    Kokkos::View<double*, Kokkos::CudaSpace> dst(Kokkos::view_alloc(instance, "dst"), 32);
    REQUIRE(cudaSetDevice(home) == cudaSuccess);
    Datatype t = vector(32, 1, 2, primitive<double>()).commit();
    pack(instance, src, 1, t, dst);
    int now = -1;
    REQUIRE(cudaGetDevice(&now) == cudaSuccess);
    CHECK(now == home);
    instance.fence();
  }
  REQUIRE(cudaSetDevice(other) == cudaSuccess);
  cudaStreamDestroy(stream);
  REQUIRE(cudaSetDevice(home) == cudaSuccess);
}
