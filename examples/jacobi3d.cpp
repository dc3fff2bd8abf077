// SPDX-License-Identifier: BSD-3-Clause
// The main job: a distributed 3-D Jacobi solve of -laplace(u) = f (7-point stencil) on an MPI process grid, the ghost
// layers exchanged each iteration by a KokkosDDT halo plan. Walls at x = 0 and x = 1 (u = 0), periodic in y and z.
//
//   mpiexec -n 4 jacobi3d [cells = 64] [iterations = 100] [transport: auto | mpi | nccl | peer]
//
// cells: N for an N^3 grid, or NXxNYxNZ (e.g. 256x128x128: two ranks of 128^3 each, for weak scaling). The cell
// width is 1 / (NX + 1) in every dimension.
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
// iterations without the exchange (the sweeps alone) over the time with it. Beside it, in the same run, the same
// exchange done the way a Kokkos application does it without the library: each face deep_copy'd into a contiguous
// buffer (through a host mirror where the MPI cannot read device memory), MPI_Irecv/MPI_Isend, MPI_Waitall, and the
// ghost faces deep_copy'd back; its solution must equal the plan's.
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

#include "jacobi3d_problem.hpp"

namespace {

using jacobi::Block;
using jacobi::Cells;
using jacobi::Field;
using jacobi::Space;

struct Result {
  Block block;
  Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::HostSpace> u;  // the block with its ghost layers
  double seconds = 0, exchange_seconds = 0;
  double staged_seconds = 0;  // the same iterations with the deep_copy + MPI exchange
  Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::HostSpace> staged_u;  // its result
  int neighbors = 0, messages = 0;
  long long bytes = 0;
};

// The exchange without KokkosDDT, as Kokkos applications write it: per face, deep_copy into a contiguous buffer, MPI,
// deep_copy back (faces only: the 7-point stencil reads no edge or corner).
class StagedExchange {
  using Face = Kokkos::View<double**, Kokkos::LayoutRight, Space::memory_space>;
  using HostFace = typename Face::HostMirror;

 public:
  StagedExchange(MPI_Comm cart, const std::array<int, 3>& n) : cart_(cart), n_(n) {
    for (int k = 0; k < 3; ++k) {
      MPI_Cart_shift(cart, k, 1, &down_[k], &up_[k]);
      const int e0 = k == 0 ? n[1] : n[0], e1 = k == 2 ? n[1] : n[2];  // (the face's extents, as face() keeps them)
      for (int side = 0; side < 2; ++side) {
        send_[k][side] = Face("send", e0, e1), recv_[k][side] = Face("recv", e0, e1);
        send_host_[k][side] = Kokkos::create_mirror_view(send_[k][side]);
        recv_host_[k][side] = Kokkos::create_mirror_view(recv_[k][side]);
      }
    }
  }

  void exchange(const Space& space, const Field& f) {
    std::vector<MPI_Request> requests;
    for (int k = 0; k < 3; ++k)
      for (int side = 0; side < 2; ++side) {  // side 0 receives from below into ghost 0; side 1 from above
        requests.emplace_back();
        MPI_Irecv(recv_host_[k][side].data(), static_cast<int>(recv_host_[k][side].size()), MPI_DOUBLE,
                  side == 0 ? down_[k] : up_[k], side, cart_, &requests.back());
      }
    for (int k = 0; k < 3; ++k)
      for (int side = 0; side < 2; ++side) {  // side 0 sends the lowest interior plane down, side 1 the highest up
        Kokkos::deep_copy(space, send_[k][side], face(f, k, side == 0 ? 1 : n_[k]));
        Kokkos::deep_copy(space, send_host_[k][side], send_[k][side]);
      }
    space.fence();
    for (int k = 0; k < 3; ++k)
      for (int side = 0; side < 2; ++side) {  // (tag: the side it lands on, at the receiver)
        requests.emplace_back();
        MPI_Isend(send_host_[k][side].data(), static_cast<int>(send_host_[k][side].size()), MPI_DOUBLE,
                  side == 0 ? down_[k] : up_[k], 1 - side, cart_, &requests.back());
      }
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    for (int k = 0; k < 3; ++k)
      for (int side = 0; side < 2; ++side) {
        if ((side == 0 ? down_[k] : up_[k]) == MPI_PROC_NULL) continue;  // (a wall: the ghosts stay as they are)
        Kokkos::deep_copy(space, recv_[k][side], recv_host_[k][side]);
        Kokkos::deep_copy(space, face(f, k, side == 0 ? 0 : n_[k] + 1), recv_[k][side]);
      }
  }

 private:
  // Plane `i` of dimension k, interior cells only in the other two.
  Kokkos::View<double**, Kokkos::LayoutStride, Space::memory_space> face(const Field& f, int k, int i) const {
    const auto y = std::make_pair(1, n_[1] + 1), z = std::make_pair(1, n_[2] + 1), x = std::make_pair(1, n_[0] + 1);
    if (k == 0) return Kokkos::subview(f, i, y, z);
    if (k == 1) return Kokkos::subview(f, x, i, z);
    return Kokkos::subview(f, x, y, i);
  }

  MPI_Comm cart_;
  std::array<int, 3> n_, down_{}, up_{};
  Face send_[3][2], recv_[3][2];
  HostFace send_host_[3][2], recv_host_[3][2];
};

// `iterations` Jacobi sweeps on the process grid `cart`, the halo exchanged over `transport`.
Result solve(MPI_Comm cart, const Cells& cells, int iterations, const KokkosDDT::mpi::TransportChoice& transport,
             bool compare_staged) {
  Result r;
  r.block = jacobi::block_of(cart, cells);
  const std::array<int, 3> n = r.block.n;
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
  StagedExchange staged(cart, n);
  auto run = [&](bool exchange, bool by_plan = true, int count = 0) {
    count = count > 0 ? count : iterations;
    space.fence();
    MPI_Barrier(cart);
    const auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < count; ++it) {
      const bool even = it % 2 == 0;
      const Field& from = even ? u : v;
      const Field& to = even ? v : u;
      auto& plan = even ? plan_u : plan_v;                     // ghosts of the buffer read in this sweep
      if (exchange && !by_plan) staged.exchange(space, from);  // (no overlap: the way it is usually written)
      if (exchange && by_plan) plan.start(space);
      jacobi::sweep_interior(space, cells, r.block, from, to);  // reads no ghost
      if (exchange && by_plan) plan.wait();
      jacobi::sweep_boundary(space, cells, r.block, from, to);  // the shell next to the ghosts
    }
    space.fence();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  // Untimed first: every kernel of every timed run launches once (CUDA loads a kernel's code at its first launch,
  // which the first timed run would count as its own: the exchange's share of an iteration at 128^3 on a GPU read 25 %
  // instead of 7-10 %, perf_tests/results/peer-2026-11-27b/peer-2026-11-27b.md). Then the fields start over.
  run(true, true, 2);
  run(false, true, 2);
  if (compare_staged) run(true, false, 2);
  Kokkos::deep_copy(u, 0.0), Kokkos::deep_copy(v, 0.0);
  r.seconds = run(true);
  r.u = Kokkos::create_mirror(Kokkos::HostSpace(), u);  // (a copy: the run below changes the fields)
  Kokkos::deep_copy(r.u, iterations % 2 == 0 ? u : v);
  const double sweeps = run(false);
  r.exchange_seconds = r.seconds - sweeps;
  if (compare_staged) {
    Kokkos::deep_copy(u, 0.0), Kokkos::deep_copy(v, 0.0);
    r.staged_seconds = run(true, false);
    r.staged_u = Kokkos::create_mirror(Kokkos::HostSpace(), u);
    Kokkos::deep_copy(r.staged_u, iterations % 2 == 0 ? u : v);
  }
  return r;
}

}  // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  Cells cells{64, 64, 64};
  if (argc > 1 && !jacobi::parse_cells(argv[1], cells)) {  // (every rank reads the same arguments: all stop together)
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
      std::fprintf(stderr, "jacobi3d: cells '%s' is neither N nor NXxNYxNZ with every extent at least 4\n", argv[1]);
    MPI_Finalize();
    return 2;
  }
  int status = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const int iterations = argc > 2 ? std::max(1, std::atoi(argv[2])) : 100;
    const KokkosDDT::mpi::TransportChoice transport = argc > 3 ? argv[3] : "auto";  // (a name this build has)
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm cart = jacobi::grid(MPI_COMM_WORLD), alone = jacobi::grid(MPI_COMM_SELF);
    std::array<int, 3> dims{}, periods{}, coords{};
    MPI_Cart_get(cart, 3, dims.data(), periods.data(), coords.data());

    const Result dist = solve(cart, cells, iterations, transport, true);
    const Result single = solve(alone, cells, iterations, "mpi",
                                false);  // the reference: the whole problem on this rank alone

    // This rank's block of the distributed solution against the same cells of the single-rank one.
    double diff = 0, norm = 0;
    const std::array<int, 3> lo = dist.block.lo, n = dist.block.n;
    for (int i = 1; i <= n[0]; ++i)
      for (int j = 1; j <= n[1]; ++j)
        for (int k = 1; k <= n[2]; ++k) {
          const double want = single.u(lo[0] + i, lo[1] + j, lo[2] + k);
          diff = std::max(diff, std::abs(dist.u(i, j, k) - want));
          diff = std::max(diff, std::abs(dist.staged_u(i, j, k) - want));  // (the exchange without the library too)
          norm = std::max(norm, std::abs(want));
        }
    double max_diff = 0, max_norm = 0, seconds = 0, exchange = 0;
    MPI_Reduce(&diff, &max_diff, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&norm, &max_norm, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&dist.seconds, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&dist.exchange_seconds, &exchange, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    // The same iterations with the exchange written without the library, and what that exchange adds to the sweeps.
    const double staged_adds = dist.staged_seconds - (dist.seconds - dist.exchange_seconds);
    double staged = 0, staged_exchange = 0;
    MPI_Reduce(&dist.staged_seconds, &staged, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&staged_adds, &staged_exchange, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      std::printf(
          "jacobi3d: %dx%dx%d cells on %d ranks (grid %d x %d x %d; walls in x, periodic in y and z), %s, %d "
          "iterations\n",
          cells[0], cells[1], cells[2], size, dims[0], dims[1], dims[2], Space::name(), iterations);
      std::printf("  halo plan on rank 0 over %s: %d neighbours, %d messages per exchange, %lld bytes\n",
                  KokkosDDT::mpi::name(transport), dist.neighbors, dist.messages, dist.bytes);
      std::printf("  time per iteration: %.1f us, of which the halo exchange adds %.1f us (%.0f %%) (slowest rank)\n",
                  1e6 * seconds / iterations, 1e6 * exchange / iterations, 100.0 * exchange / seconds);
      std::printf(
          "  without KokkosDDT (each face deep_copy'd to a buffer, MPI_Isend/Irecv, deep_copy'd back): %.1f us per "
          "iteration, the exchange adds %.1f us (%.0f %%); the plan's exchange takes %.2f of that\n",
          1e6 * staged / iterations, 1e6 * staged_exchange / iterations, 100.0 * staged_exchange / staged,
          staged_exchange > 0 ? exchange / staged_exchange : 0.0);
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
