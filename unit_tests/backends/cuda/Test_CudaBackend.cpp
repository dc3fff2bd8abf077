// SPDX-License-Identifier: BSD-3-Clause
// CUDA only: memory-space checks that need device memory, the direct launch leaving the caller's device alone, and
// a fused batch's device begin.
#include <cuda_runtime.h>

#include <cstdint>

#include "support/Catch.hpp"
#include "support/Errors.hpp"
#include "KokkosDDT.hpp"
#include "KokkosDDT_FusedBatch.hpp"

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

// Device begin (the peer transport's, without peers): the launch raises its counters as it starts, a gated record
// writes nothing before its gate is raised (from another stream, while the kernel polls), an ungated one does not wait,
// and device completion stores the signal after every write; replayable counters keep their high half and the gate
// is set back to 0.
TEST_CASE("cuda: a fused batch's device begin raises, waits for its gate, resets it, then signals", "[cuda][fusion]") {
  using Batch = Impl::FusedBatch<Kokkos::Cuda>;
  constexpr std::uint64_t kHigh = std::uint64_t{1} << 32;
  const Kokkos::Cuda space;
  const Datatype column = vector(64, 1, 4, primitive<double>()).commit();
  Kokkos::View<double*, Kokkos::CudaSpace> src("src", 256), packed("packed", 64), copied("copied", 64);
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<Kokkos::Cuda>(space, 0, 256), KOKKOS_LAMBDA(int i) { src(i) = i; });
  cudaStream_t side;
  REQUIRE(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) == cudaSuccess);
  auto set = [&](std::uint64_t* at, std::uint64_t value) {
    REQUIRE(cudaMemcpyAsync(at, &value, 8, cudaMemcpyHostToDevice, side) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(side) == cudaSuccess);
  };
  auto get = [&](const std::uint64_t* at) {
    std::uint64_t value = 0;
    REQUIRE(cudaMemcpyAsync(&value, at, 8, cudaMemcpyDeviceToHost, side) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(side) == cudaSuccess);
    return value;
  };
  auto first = [&](const Kokkos::View<double*, Kokkos::CudaSpace>& v) {  // (read beside the running kernel)
    double value = -1;
    REQUIRE(cudaMemcpyAsync(&value, v.data() + 1, 8, cudaMemcpyDeviceToHost, side) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(side) == cudaSuccess);
    return value;
  };
  for (const bool low_half : {false, true}) {
    Kokkos::View<std::uint64_t*, Kokkos::CudaSpace> c("counters", 3);  // written, raised, gate
    const std::uint64_t signal = low_half ? 1 : 7;
    if (low_half) set(c.data(), kHigh);  // an "ended" high half, which no store may clear
    Kokkos::deep_copy(space, packed, -1.0);
    Kokkos::deep_copy(space, copied, -1.0);
    space.fence();
    Batch batch(space);
    batch.add_copy(src.data(), false, 1, column, copied.data(), false, 64, primitive<double>());  // (ungated)
    batch.gate(0);
    batch.add_pack(src.data(), 1, column, packed.data(), 64 * 8);
    batch.gate(-1);
    batch.signal_after({c.data()}, low_half);
    batch.gate_on({c.data() + 1}, {c.data() + 2});
    batch.set_signal(signal);
    batch.launch_ordered(space);
    for (int i = 0; i < 1000 && get(c.data() + 1) != signal; ++i) {
    }
    CHECK(get(c.data() + 1) == signal);  // raised as the launch started
    CHECK(first(packed) == -1.0);        // the gated record waits
    CHECK(get(c.data()) == (low_half ? kHigh : 0));
    set(c.data() + 2, signal);
    space.fence();
    CHECK(first(packed) == 4.0);
    CHECK(first(copied) == 4.0);
    CHECK(get(c.data()) == (low_half ? kHigh + 1 : signal));
    CHECK(get(c.data() + 2) == (low_half ? 0 : signal));
  }
  cudaStreamDestroy(side);
}
