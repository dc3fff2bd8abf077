// SPDX-License-Identifier: BSD-3-Clause
// Test driver: MPI (the MPI_Pack reference) and Kokkos are initialized once for all test cases.
#if defined(KOKKOSDDT_CATCH2_V3)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <Kokkos_Core.hpp>
#if defined(KOKKOSDDT_TEST_MPI)
#include <mpi.h>
#endif

// Under AddressSanitizer: MPICH's transport (UCX) leaks from modules it loads and unloads, which LeakSanitizer cannot
// attribute or suppress by name; leak checking stays off for the test binaries (also when ctest lists their tests).
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }
#endif

int main(int argc, char* argv[]) {
#if defined(KOKKOSDDT_TEST_MPI)
  MPI_Init(&argc, &argv);
#endif
  int result = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    result = Catch::Session().run(argc, argv);
  }
#if defined(KOKKOSDDT_TEST_MPI)
  MPI_Finalize();
#endif
  return result;
}
