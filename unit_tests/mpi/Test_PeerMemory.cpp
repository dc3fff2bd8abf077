// SPDX-License-Identifier: BSD-3-Clause
// What the peer transport keeps across plans (mpi/transports/peer/KokkosDDT_PeerMemory.hpp), on CUDA builds over the
// peer transport (its ctest pass: two processes, on one GPU or two): a plan re-made over the same field maps nothing
// new and allocates no counters; a field freed and allocated again (CUDA may give it the same address) is mapped
// anew and the plan writes the new field, never the old one through a stale mapping; a loop of plans keeps the
// mappings and the device memory flat; memory that another library keeps mapped goes by message.
#include <Kokkos_Core.hpp>
#include <KokkosDDT_Transports.hpp>

#if KOKKOSDDT_HAVE_PEER && defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>

#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include <KokkosDDT_MPI.hpp>
#include <KokkosDDT_PeerMemory.hpp>

#include "support/Catch.hpp"
#include "support/MpiWorld.hpp"
#include "support/TestSpace.hpp"
#include "support/Watchdog.hpp"

using namespace KokkosDDT;

namespace {

using Field = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::CudaSpace>;
constexpr int kRows = 64, kCols = 48;  // interior of each process's block (1-D decomposition along the rows)

bool over_peer() {
  const std::string t = Test::halo_transport().name();
  return std::is_same_v<Test::ExecSpace, Kokkos::Cuda> && (t == "peer" || t == "auto");
}

// Whether the process keeps mappings no plan uses (KOKKOSDDT_PEER_IDLE_MAPPINGS=0: it does not).
bool keeps_idle() {
  const char* env = std::getenv("KOKKOSDDT_PEER_IDLE_MAPPINGS");
  return !(env && std::string(env) == "0");
}

// Fills f's interior with f(rank, i, j), its ghosts with -1; after a step each ghost row holds the neighbour's row.
void fill(const Field& f, int rank) {
  Kokkos::parallel_for(
      "fill", Kokkos::MDRangePolicy<Kokkos::Cuda, Kokkos::Rank<2>>({0, 0}, {kRows + 2, kCols + 2}),
      KOKKOS_LAMBDA(int i, int j) {
        const bool inside = i >= 1 && i <= kRows && j >= 1 && j <= kCols;
        f(i, j) = inside ? 1000.0 * rank + 10.0 * i + 0.001 * j : -1.0;
      });
  Kokkos::fence();
}

Field filled(int rank, const char* label) {
  Field f(std::string(label), kRows + 2, kCols + 2);
  fill(f, rank);
  return f;
}

// Whether f's ghost rows hold the periodic neighbours' edge rows after a step (columns inside only).
bool exchanged(const Field& f, const Test::World& w) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);
  for (int j = 1; j <= kCols; ++j) {
    if (h(0, j) != 1000.0 * w.prev() + 10.0 * kRows + 0.001 * j) return false;
    if (h(kRows + 1, j) != 1000.0 * w.next() + 10.0 + 0.001 * j) return false;
  }
  return true;
}

// One step of a plan made over f: whether it was right; `routes`, when given, gets the plan's routes as text.
bool step(MPI_Comm cart, const Field& f, const Test::World& w, std::string* routes = nullptr) {
  mpi::HaloOptions options;
  options.transport = Test::halo_transport();
  auto plan = mpi::make_halo_plan(Kokkos::Cuda(), cart, options, f);
  plan.start(Kokkos::Cuda());
  plan.wait();
  Kokkos::fence();
  if (routes) *routes = plan.describe();
  return exchanged(f, w);
}

MPI_Comm ring(const Test::World& w) {
  int dims[2] = {w.size, 1}, periods[2] = {1, 0};
  MPI_Comm cart = MPI_COMM_NULL;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  return cart;
}

}  // namespace

TEST_CASE("peer memory: a re-made plan maps nothing new; a reallocated field is mapped anew", "[transport][peer]") {
  Test::World w;
  if (!over_peer() || w.size < 2) return;
  Test::Watchdog dog("peer memory: re-made plans");
  MPI_Comm cart = ring(w);
  {
    Field f = filled(w.rank, "f");
    CHECK(step(cart, f, w));
    const Impl::PeerMemoryStats first = Impl::peer_memory_stats();
    fill(f, w.rank);  // (the same allocation, its values anew)
    CHECK(step(cart, f, w));
    const Impl::PeerMemoryStats second = Impl::peer_memory_stats();
    if (keeps_idle()) CHECK(second.opened == first.opened);  // (a plan over the same field: from the cache)
    CHECK(second.counter_blocks == first.counter_blocks);
    CHECK(second.used == 0);  // (no plan lives)
  }
  // Freed and allocated again, likely at the same address: a new allocation, so a new handle and a new mapping.
  for (int again = 0; again < 3; ++again) {
    Field g = filled(w.rank, "g");
    CHECK(step(cart, g, w));
  }
  MPI_Comm_free(&cart);
}

TEST_CASE("peer memory: a loop of plans keeps the open mappings and the device memory flat", "[transport][peer]") {
  Test::World w;
  if (!over_peer() || w.size < 2) return;
  Test::Watchdog dog("peer memory: a loop of plans", 120);
  MPI_Comm cart = ring(w);
  Field f = filled(w.rank, "f");
  CHECK(step(cart, f, w));
  const Impl::PeerMemoryStats before = Impl::peer_memory_stats();
  std::size_t free_before = 0, free_after = 0, total = 0;
  cudaMemGetInfo(&free_before, &total);
  bool all = true;
  for (int i = 0; i < 1000; ++i) {  // (the loop: 1 000 plans made, stepped and destroyed)
    fill(f, w.rank);
    all = step(cart, f, w) && all;
  }
  CHECK(all);
  cudaMemGetInfo(&free_after, &total);
  const Impl::PeerMemoryStats after = Impl::peer_memory_stats();
  INFO("rank " << w.rank << ": device memory free " << free_before << " -> " << free_after << " bytes; counter blocks "
               << before.counter_blocks << " -> " << after.counter_blocks << ", mappings opened " << before.opened
               << " -> " << after.opened);
  if (keeps_idle()) CHECK(after.opened == before.opened);
  CHECK(after.open == before.open);
  CHECK(after.landing_buffers == before.landing_buffers);
  CHECK(free_after + (std::size_t{4} << 20) >= free_before);  // (flat: within 4 MiB of allocator slack)
  MPI_Comm_free(&cart);
}

// A CUDA-aware MPI keeps its IPC mappings of buffers their owner has freed (Open MPI's smcuda cache), and CUDA may give
// the owner's next allocation that memory: this process then cannot map it ("already mapped", seen with Cabana's halo
// beside ours). Such a message takes the plan's message transport instead of failing the plan. Here each process's
// buffer is mapped by its ring neighbours as such a cache would, then freed, and the field allocated anew at its size
// (CUDA's choice whether it reuses the memory: either way the step must be right).
TEST_CASE("peer memory: memory another library keeps mapped goes by message", "[transport][peer]") {
  Test::World w;
  if (!over_peer() || w.size < 2) return;
  Test::Watchdog dog("peer memory: another library's mappings");
  MPI_Comm cart = ring(w);
  const std::size_t bytes = sizeof(double) * (kRows + 2) * (kCols + 2);
  void* buffer = nullptr;
  REQUIRE(cudaMalloc(&buffer, bytes) == cudaSuccess);
  cudaIpcMemHandle_t mine{}, prev{}, next{};
  REQUIRE(cudaIpcGetMemHandle(&mine, buffer) == cudaSuccess);
  MPI_Sendrecv(&mine, sizeof mine, MPI_BYTE, w.next(), 0, &prev, sizeof prev, MPI_BYTE, w.prev(), 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(&mine, sizeof mine, MPI_BYTE, w.prev(), 1, &next, sizeof next, MPI_BYTE, w.next(), 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  std::vector<void*> held;  // ("the other library's" mappings)
  for (const cudaIpcMemHandle_t* h : {&prev, &next}) {
    void* at = nullptr;
    if (cudaIpcOpenMemHandle(&at, *h, cudaIpcMemLazyEnablePeerAccess) == cudaSuccess) held.push_back(at);
    (void)cudaGetLastError();  // (2 processes: prev and next are one buffer, which CUDA may refuse to open twice)
  }
  MPI_Barrier(MPI_COMM_WORLD);
  REQUIRE(cudaFree(buffer) == cudaSuccess);
  void* memory = nullptr;
  REQUIRE(cudaMalloc(&memory, bytes) == cudaSuccess);
  MPI_Barrier(MPI_COMM_WORLD);
  {
    Field f(static_cast<double*>(memory), kRows + 2, kCols + 2);
    fill(f, w.rank);
    std::string routes;
    const bool right = step(cart, f, w, &routes);
    INFO("rank " << w.rank << "'s routes:\n" << routes);
    CHECK(right);
  }
  for (void* at : held) (void)cudaIpcCloseMemHandle(at);
  (void)cudaGetLastError();
  CHECK(cudaFree(memory) == cudaSuccess);
  MPI_Comm_free(&cart);
}

#endif
