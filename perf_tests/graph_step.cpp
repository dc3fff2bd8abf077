// SPDX-License-Identifier: BSD-3-Clause
// Experiment (issue 22): does a CUDA graph of whole halo steps beat launching them? One rank, one GPU, the Jacobi
// iteration of examples/jacobi3d.cpp (plan.start, interior sweep, plan.wait, boundary sweep) on an n^3 block that is
// periodic in every dimension, with a stream-ordered halo plan (NCCL; a process that is its own neighbour sends nothing
// unless KOKKOSDDT_HALO_SELF_MESSAGES=1 routes it through NCCL). Host-completed steps (the MPI transport) cannot be
// captured: their host posts sends between the kernels.
//
//   mpiexec -n 1 graph_step [n = 64] [iterations = 400] [mpi | nccl = nccl] [--csv file]
//
// Prints, per step: launched one by one (eager), and replayed from a graph of two iterations captured from the
// instance's stream (cudaStreamBeginCapture, relaxed mode), the same work. The fields after the eager run and after
// the graph run must be equal: the replay is checked, not just timed.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <string>

#include <Kokkos_Core.hpp>
#include <KokkosDDT_MPI.hpp>
#include <mpi.h>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

#include "support/Mpi.hpp"
#include "support/Options.hpp"

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Field = Kokkos::View<double***, Kokkos::LayoutRight, Space::memory_space>;

struct Iteration {
  Space space;
  Field u, v;
  KokkosDDT::mpi::HaloPlan<Space> plan_u, plan_v;
  int n = 0;

  void sweep(const Field& from, const Field& to, int first, int end_offset, bool shell) const {
    const int m = n;
    Kokkos::parallel_for(
        shell ? "graph_step::boundary" : "graph_step::interior",
        Kokkos::MDRangePolicy<Space, Kokkos::Rank<3>>(space, {first, first, first},
                                                      {n + end_offset, n + end_offset, n + end_offset}),
        KOKKOS_LAMBDA(int i, int j, int k) {
          if (shell && i > 1 && i < m && j > 1 && j < m && k > 1 && k < m) return;
          to(i, j, k) = (from(i - 1, j, k) + from(i + 1, j, k) + from(i, j - 1, k) + from(i, j + 1, k) +
                         from(i, j, k - 1) + from(i, j, k + 1) + 1e-3) /
                        6.0;
        });
  }
  // Two Jacobi iterations (u -> v -> u), each with its exchange: all enqueued on `space`.
  void two() {
    for (int it = 0; it < 2; ++it) {
      const Field& from = it == 0 ? u : v;
      const Field& to = it == 0 ? v : u;
      auto& plan = it == 0 ? plan_u : plan_v;
      plan.start(space);
      sweep(from, to, 2, 0, false);
      plan.wait();
      sweep(from, to, 1, 1, true);
    }
  }
  void reset() {
    Kokkos::deep_copy(space, u, 0.0);
    Kokkos::deep_copy(space, v, 0.0);
  }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char* argv[]) {
  bench::MpiSession mpi(argc, argv);
  int status = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    int n = 64, iterations = 400;
    std::string transport = "nccl", csv;
    bench::Options args("graph_step");
    args.positional("n", n, "cells per dimension (at least 8)")
        .positional("iterations", iterations, "Jacobi iterations (at least 2, rounded down to an even number)")
        .positional("transport", transport, "the halo plans' transport", {"mpi", "nccl"})
        .option("--csv", "FILE", csv, "write the result as CSV");
    if (const auto done = args.parse(argc, argv)) return *done;
    n = std::max(8, n);
    iterations = std::max(2, iterations) / 2 * 2;
    const bool nccl = transport == "nccl";
    std::array<int, 3> dims{1, 1, 1}, periods{1, 1, 1};
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_SELF, 3, dims.data(), periods.data(), 0, &cart);
    KokkosDDT::mpi::HaloOptions options;
    options.transport = nccl ? "nccl" : "mpi";
    Iteration step;
    step.n = n;
    step.u = Field("u", n + 2, n + 2, n + 2);
    step.v = Field("v", n + 2, n + 2, n + 2);
    step.plan_u = KokkosDDT::mpi::make_halo_plan(step.space, cart, options, step.u);
    step.plan_v = KokkosDDT::mpi::make_halo_plan(step.space, cart, options, step.v);
    std::printf("graph_step: %d^3 cells, periodic, 1 rank, %s transport, %d messages per exchange, %d iterations\n", n,
                KokkosDDT::mpi::name(options.transport), step.plan_u.messages(), iterations);

    // Eager: every kernel and message launched by the host, iteration after iteration.
    step.reset();
    for (int w = 0; w < 10; ++w) step.two();  // (warm: Kokkos' first-launch queries happen outside any capture)
    step.reset();
    step.space.fence();
    auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < iterations; it += 2) step.two();
    step.space.fence();
    const double eager = seconds_since(t0) / iterations;
    auto eager_u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), step.u);

    double graph = -1;
    std::string verdict = "not tried (not a CUDA build)";
#ifdef KOKKOS_ENABLE_CUDA
    verdict = "capture failed";
    cudaStream_t stream = step.space.cuda_stream();
    cudaGraph_t g = nullptr;
    cudaGraphExec_t exec = nullptr;
    step.reset();
    step.space.fence();
    bool captured = false;
    if (nccl && cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed) == cudaSuccess) {
      try {
        step.two();
      } catch (const std::exception& e) {
        std::printf("  capture: %s\n", e.what());
      }
      const cudaError_t end = cudaStreamEndCapture(stream, &g);
      captured = end == cudaSuccess && g != nullptr && cudaGraphInstantiate(&exec, g, 0) == cudaSuccess;
      if (!captured) std::printf("  capture: %s\n", cudaGetErrorString(end));
    }
    if (captured) {
      for (int w = 0; w < 10; ++w) cudaGraphLaunch(exec, stream);  // (warm)
      step.reset();
      step.space.fence();
      t0 = std::chrono::steady_clock::now();
      for (int it = 0; it < iterations; it += 2) cudaGraphLaunch(exec, stream);
      step.space.fence();
      graph = seconds_since(t0) / iterations;
      auto graph_u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), step.u);
      bool same = true;
      for (std::size_t i = 0; i < graph_u.size(); ++i) same = same && graph_u.data()[i] == eager_u.data()[i];
      verdict = same ? "replay equals eager" : "REPLAY DIFFERS";
      if (!same) status = 1;
      cudaGraphExecDestroy(exec);
      cudaGraphDestroy(g);
    } else if (!nccl) {
      verdict = "not capturable (the MPI transport's host posts sends between kernels)";
    }
#endif
    std::printf("  %-22s %10s\n", "per iteration", "us");
    std::printf("  %-22s %10.2f\n", "eager launches", 1e6 * eager);
    if (graph > 0) std::printf("  %-22s %10.2f   (%.2fx eager)\n", "graph replay", 1e6 * graph, graph / eager);
    std::printf("  graph: %s\n", verdict.c_str());
    if (!csv.empty()) {
      if (FILE* f = std::fopen(csv.c_str(), "w")) {
        std::fprintf(f, "n,transport,messages,eager_us,graph_us,verdict\n%d,%s,%d,%.3f,%.3f,%s\n", n,
                     KokkosDDT::mpi::name(options.transport), step.plan_u.messages(), 1e6 * eager,
                     graph > 0 ? 1e6 * graph : -1.0, verdict.c_str());
        std::fclose(f);
      }
    }
    MPI_Comm_free(&cart);
  }
  return status;
}
