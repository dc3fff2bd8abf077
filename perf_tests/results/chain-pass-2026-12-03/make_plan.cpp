// SPDX-License-Identifier: BSD-3-Clause
// As run for the commit memo (chain-pass-2026-12-03/README.md): a halo plan made again and again.
#include <KokkosDDT_MPI.hpp>
#include <chrono>
#include <cstdio>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Kokkos::initialize(argc, argv);
  {
    int n = argc > 1 ? atoi(argv[1]) : 16, w = argc > 2 ? atoi(argv[2]) : 2, reps = argc > 3 ? atoi(argv[3]) : 200;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
    MPI_Dims_create(size, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    Kokkos::View<double****> v("v", n + 2 * w, n + 2 * w, n + 2 * w, 4);
    namespace ddt = KokkosDDT::mpi;
    ddt::HaloOptions o{w, ddt::HaloNeighbors::All};
    o.scatter = true;
    o.components = ddt::HaloComponents::Last;
    Kokkos::DefaultExecutionSpace space;
    ddt::HaloPlan<Kokkos::DefaultExecutionSpace> plan;
    for (int r = 0; r < 20; ++r) plan = ddt::make_halo_plan(space, cart, o, v);
    MPI_Barrier(cart);
    auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) plan = ddt::make_halo_plan(space, cart, o, v);
    auto t1 = std::chrono::steady_clock::now();
    int me;
    MPI_Comm_rank(cart, &me);
    if (me == 0)
      std::printf("n %d w %d: %.1f us per make\n", n, w,
                  std::chrono::duration<double, std::micro>(t1 - t0).count() / reps);
    plan = {};
    MPI_Comm_free(&cart);
  }
  Kokkos::finalize();
  MPI_Finalize();
}
