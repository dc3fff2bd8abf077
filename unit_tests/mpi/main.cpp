// SPDX-License-Identifier: BSD-3-Clause
// Multi-rank test driver (run under mpiexec): MPI and Kokkos initialized once; every rank runs every test case,
// and the exit status is the worst of all ranks', so that a failure on any rank fails the test.
#if defined(KOKKOSDDT_CATCH2_V3)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <Kokkos_Core.hpp>
#include <mpi.h>

#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }
#endif

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int result = 0, worst = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    result = Catch::Session().run(argc, argv);
  }
  MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
