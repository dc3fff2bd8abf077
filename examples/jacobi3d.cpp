// SPDX-License-Identifier: BSD-3-Clause
// The main job: a distributed 3-D Jacobi solve of -laplace(u) = f (7-point stencil) on an MPI process grid, the ghost
// layers exchanged each iteration by a KokkosDDT halo plan. Walls at x = 0 and x = 1 (u = 0), periodic in y and z.
//
//   mpiexec -n 4 jacobi3d [cells per dimension = 64] [iterations = 100] [transport: mpi | nccl]
//
// Each iteration overlaps the exchange with the work that does not need it, the pattern halo plans are made for:
//
//   plan.start(space);   // packs (and, over NCCL, the messages) enqueued; over MPI the receives are posted
//   interior sweep       // cells whose stencil reads no ghost, enqueued on the same instance
//   plan.wait();         // over MPI: the host posts the sends as the packs finish and completes the messages while
//                        // the interior sweep runs; the unpacks are enqueued (over NCCL nothing waits at all)
//   boundary sweep       // the cells next to the ghosts
//
// No host synchronization inside an iteration. Every rank also solves the whole problem alone (a one-process grid:
// the plan then exchanges with itself, without messages) and compares its block with that single-rank run: they must
// agree exactly. Prints the time per iteration and the exchange's share of it: one minus the time of the same
// iterations without the exchange (the sweeps alone) over the time with it.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT_MPI.hpp>
#include <mpi.h>

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Field = Kokkos::View<double***, Kokkos::LayoutRight, Space::memory_space>;

struct Block {
  std::array<int, 3> lo{}, n{};  // first global cell and cells of this rank, per dimension
};

Block block_of(MPI_Comm cart, int cells) {
  std::array<int, 3> dims{}, periods{}, coords{};
  MPI_Cart_get(cart, 3, dims.data(), periods.data(), coords.data());
  Block b;
  for (int k = 0; k < 3; ++k) {
    b.lo[k] = static_cast<int>(static_cast<long>(coords[k]) * cells / dims[k]);
    b.n[k] = static_cast<int>(static_cast<long>(coords[k] + 1) * cells / dims[k]) - b.lo[k];
  }
  return b;
}

struct Result {
  Block block;
  Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::HostSpace> u;  // the block with its ghost layers
  double seconds = 0, exchange_seconds = 0;
  int neighbors = 0, messages = 0;
  long long bytes = 0;
};

// `iterations` Jacobi sweeps on the process grid `cart`, the halo exchanged over `transport`.
Result solve(MPI_Comm cart, int cells, int iterations, KokkosDDT::mpi::TransportKind transport) {
  Result r;
  r.block = block_of(cart, cells);
  const std::array<int, 3> lo = r.block.lo, n = r.block.n;
  const double h2 = 1.0 / ((cells + 1.0) * (cells + 1.0));
  Space space;
  Field u("u", n[0] + 2, n[1] + 2, n[2] + 2), v("v", n[0] + 2, n[1] + 2, n[2] + 2);
  // Two plans, one per buffer (the sweep alternates between them): built once, run every iteration.
  KokkosDDT::mpi::HaloOptions options;
  options.transport = transport;
  auto plan_u = KokkosDDT::mpi::make_halo_plan(space, cart, options, u);
  auto plan_v = KokkosDDT::mpi::make_halo_plan(space, cart, options, v);
  r.neighbors = plan_u.neighbors();
  r.messages = plan_u.messages();
  r.bytes = plan_u.bytes_per_step();
  const int x0 = lo[0], y0 = lo[1], z0 = lo[2];
  // The sweep of the cells [lo, hi) per dimension; `shell`: only those next to a ghost layer.
  auto sweep = [&](const Field& from, const Field& to, int first, int end_offset, bool shell) {
    const int n0 = n[0], n1 = n[1], n2 = n[2];
    Kokkos::parallel_for(
        shell ? "jacobi3d::sweep_boundary" : "jacobi3d::sweep_interior",
        Kokkos::MDRangePolicy<Space, Kokkos::Rank<3>>(space, {first, first, first},
                                                      {n[0] + end_offset, n[1] + end_offset, n[2] + end_offset}),
        KOKKOS_LAMBDA(int i, int j, int k) {
          if (shell && i > 1 && i < n0 && j > 1 && j < n1 && k > 1 && k < n2) return;  // (the interior sweep's)
          // f: a unit source in a box around the domain's centre
          const int gx = x0 + i - 1, gy = y0 + j - 1, gz = z0 + k - 1;
          const double f = (gx >= cells / 4 && gx < 3 * cells / 4 && gy >= cells / 3 && gy < 2 * cells / 3 &&
                            gz >= cells / 3 && gz < 2 * cells / 3)
                               ? 1.0
                               : 0.0;
          to(i, j, k) = (from(i - 1, j, k) + from(i + 1, j, k) + from(i, j - 1, k) + from(i, j + 1, k) +
                         from(i, j, k - 1) + from(i, j, k + 1) + h2 * f) /
                        6.0;
        });
  };
  auto run = [&](bool exchange) {
    space.fence();
    MPI_Barrier(cart);
    const auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < iterations; ++it) {
      const bool even = it % 2 == 0;
      const Field& from = even ? u : v;
      const Field& to = even ? v : u;
      auto& plan = even ? plan_u : plan_v;  // ghosts of the buffer read in this sweep
      if (exchange) plan.start(space);
      sweep(from, to, 2, 0, false);  // the interior: reads no ghost
      if (exchange) plan.wait();
      sweep(from, to, 1, 1, true);  // the shell next to the ghosts
    }
    space.fence();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  r.seconds = run(true);
  r.u = Kokkos::create_mirror(Kokkos::HostSpace(), u);  // (a copy: the run below changes the fields)
  Kokkos::deep_copy(r.u, iterations % 2 == 0 ? u : v);
  r.exchange_seconds = r.seconds - run(false);
  return r;
}

MPI_Comm grid(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::array<int, 3> dims{}, periods{0, 1, 1};
  MPI_Dims_create(size, 3, dims.data());
  MPI_Comm cart;
  MPI_Cart_create(comm, 3, dims.data(), periods.data(), 0, &cart);
  return cart;
}

}  // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const int cells = argc > 1 ? std::max(4, std::atoi(argv[1])) : 64;
    const int iterations = argc > 2 ? std::max(1, std::atoi(argv[2])) : 100;
    const bool nccl = argc > 3 && std::string(argv[3]) == "nccl";
    const auto transport = nccl ? KokkosDDT::mpi::TransportKind::NCCL : KokkosDDT::mpi::TransportKind::MPI;
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm cart = grid(MPI_COMM_WORLD), alone = grid(MPI_COMM_SELF);
    std::array<int, 3> dims{}, periods{}, coords{};
    MPI_Cart_get(cart, 3, dims.data(), periods.data(), coords.data());

    const Result dist = solve(cart, cells, iterations, transport);
    const Result single =
        solve(alone, cells, iterations,
              KokkosDDT::mpi::TransportKind::MPI);  // the reference: the whole problem on this rank alone

    // This rank's block of the distributed solution against the same cells of the single-rank one.
    double diff = 0, norm = 0;
    const std::array<int, 3> lo = dist.block.lo, n = dist.block.n;
    for (int i = 1; i <= n[0]; ++i)
      for (int j = 1; j <= n[1]; ++j)
        for (int k = 1; k <= n[2]; ++k) {
          const double want = single.u(lo[0] + i, lo[1] + j, lo[2] + k);
          diff = std::max(diff, std::abs(dist.u(i, j, k) - want));
          norm = std::max(norm, std::abs(want));
        }
    double max_diff = 0, max_norm = 0, seconds = 0, exchange = 0;
    MPI_Reduce(&diff, &max_diff, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&norm, &max_norm, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&dist.seconds, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&dist.exchange_seconds, &exchange, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      std::printf(
          "jacobi3d: %d^3 cells on %d ranks (grid %d x %d x %d; walls in x, periodic in y and z), %s, %d "
          "iterations\n",
          cells, size, dims[0], dims[1], dims[2], Space::name(), iterations);
      std::printf("  halo plan on rank 0 over %s: %d neighbours, %d messages and 2 launches per exchange, %lld bytes\n",
                  KokkosDDT::mpi::name(transport), dist.neighbors, dist.messages, dist.bytes);
      std::printf("  time per iteration: %.1f us, of which the halo exchange adds %.1f us (%.0f %%) (slowest rank)\n",
                  1e6 * seconds / iterations, 1e6 * exchange / iterations, 100.0 * exchange / seconds);
      std::printf("  against a single-rank run: max |difference| %.3g (max |u| %.3g)\n", max_diff, max_norm);
      std::printf("%s\n", max_diff == 0.0 && max_norm > 0 ? "OK: the distributed solution equals the single-rank one"
                                                          : "FAILED: the solutions differ");
    }
    status = max_diff == 0.0 && max_norm > 0 ? 0 : 1;
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&alone);
  }
  MPI_Finalize();
  return status;
}
