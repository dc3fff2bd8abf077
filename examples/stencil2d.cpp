// SPDX-License-Identifier: BSD-3-Clause
// Several fields, one message per neighbour: a 2-D 9-point smoothing of three fields of different value types
// (double, float, int) on a periodic process grid. A halo plan exchanges faces, edges and corners of all three at
// once; the result is checked against a single-rank run of the same problem.
//
//   mpiexec -n 4 stencil2d [cells per dimension = 256] [steps = 50]
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <Kokkos_Core.hpp>
#include <KokkosDDT_MPI.hpp>
#include <mpi.h>

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using M = Space::memory_space;
template <class T>
using Field = Kokkos::View<T**, Kokkos::LayoutRight, M>;

struct Fields {
  Field<double> a;
  Field<float> b;
  Field<int> c;
  Fields(int nx, int ny) : a("a", nx + 2, ny + 2), b("b", nx + 2, ny + 2), c("c", nx + 2, ny + 2) {}
};

struct Result {
  std::array<int, 2> lo{}, n{};
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> a;
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> b;
  Kokkos::View<int**, Kokkos::LayoutRight, Kokkos::HostSpace> c;
  double seconds = 0;
  int neighbors = 0;
};

Result run(MPI_Comm cart, int cells, int steps) {
  std::array<int, 2> dims{}, periods{}, coords{};
  MPI_Cart_get(cart, 2, dims.data(), periods.data(), coords.data());
  Result r;
  for (int k = 0; k < 2; ++k) {
    r.lo[k] = coords[k] * cells / dims[k];
    r.n[k] = (coords[k] + 1) * cells / dims[k] - r.lo[k];
  }
  const int nx = r.n[0], ny = r.n[1], x0 = r.lo[0], y0 = r.lo[1];
  Space space;
  Fields f0(nx, ny), f1(nx, ny);
  Kokkos::parallel_for(
      "stencil2d::init", Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>(space, {1, 1}, {nx + 1, ny + 1}),
      KOKKOS_LAMBDA(int i, int j) {
        const int gx = x0 + i - 1, gy = y0 + j - 1;
        f0.a(i, j) = (gx * 31 + gy * 17) % 101;
        f0.b(i, j) = static_cast<float>((gx * 7 + gy * 13) % 23);
        f0.c(i, j) = (gx * 3 + gy * 5) % 11;
      });
  // One plan per buffer set; each carries all three fields to all 8 neighbours.
  const KokkosDDT::mpi::HaloOptions all{1, KokkosDDT::mpi::HaloNeighbors::All};
  auto plan0 = KokkosDDT::mpi::make_halo_plan(space, cart, all, f0.a, f0.b, f0.c);
  auto plan1 = KokkosDDT::mpi::make_halo_plan(space, cart, all, f1.a, f1.b, f1.c);
  r.neighbors = plan0.neighbors();
  MPI_Barrier(cart);
  const auto t0 = std::chrono::steady_clock::now();
  for (int s = 0; s < steps; ++s) {
    const Fields& in = s % 2 == 0 ? f0 : f1;
    const Fields& out = s % 2 == 0 ? f1 : f0;
    (s % 2 == 0 ? plan0 : plan1).exchange();
    Kokkos::parallel_for(
        "stencil2d::smooth", Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>(space, {1, 1}, {nx + 1, ny + 1}),
        KOKKOS_LAMBDA(int i, int j) {
          double a = 0;
          float b = 0;
          int c = 0;
          for (int di = -1; di <= 1; ++di)
            for (int dj = -1; dj <= 1; ++dj) {
              a += in.a(i + di, j + dj);
              b += in.b(i + di, j + dj);
              c += in.c(i + di, j + dj);
            }
          out.a(i, j) = a / 9;
          out.b(i, j) = b / 9;
          out.c(i, j) = c % 1000;
        });
    space.fence();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const Fields& last = steps % 2 == 0 ? f0 : f1;
  r.a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), last.a);
  r.b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), last.b);
  r.c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), last.c);
  return r;
}

MPI_Comm grid(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::array<int, 2> dims{}, periods{1, 1};
  MPI_Dims_create(size, 2, dims.data());
  MPI_Comm cart;
  MPI_Cart_create(comm, 2, dims.data(), periods.data(), 0, &cart);
  return cart;
}

}  // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int status = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    const int cells = argc > 1 ? std::max(4, std::atoi(argv[1])) : 256;
    const int steps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 50;
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm cart = grid(MPI_COMM_WORLD), alone = grid(MPI_COMM_SELF);
    const Result dist = run(cart, cells, steps);
    const Result single = run(alone, cells, steps);
    long long wrong = 0, total = 0;
    for (int i = 1; i <= dist.n[0]; ++i)
      for (int j = 1; j <= dist.n[1]; ++j) {
        const int si = dist.lo[0] + i, sj = dist.lo[1] + j;
        wrong +=
            dist.a(i, j) != single.a(si, sj) || dist.b(i, j) != single.b(si, sj) || dist.c(i, j) != single.c(si, sj);
      }
    double seconds = 0;
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(&dist.seconds, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    total = static_cast<long long>(cells) * cells;
    if (rank == 0) {
      std::printf("stencil2d: %d^2 cells x 3 fields (double, float, int) on %d ranks, %s, %d steps\n", cells, size,
                  Space::name(), steps);
      std::printf("  halo plan on rank 0: %d neighbours (faces, edges, corners), one message each for all fields\n",
                  dist.neighbors);
      std::printf("  time per step: %.1f us (slowest rank)\n", 1e6 * seconds / steps);
      std::printf("%s: %lld of %lld cells differ from the single-rank run\n", wrong == 0 ? "OK" : "FAILED", wrong,
                  total);
    }
    status = wrong == 0 ? 0 : 1;
    MPI_Comm_free(&cart);
    MPI_Comm_free(&alone);
  }
  MPI_Finalize();
  return status;
}
