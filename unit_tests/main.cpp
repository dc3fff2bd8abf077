// SPDX-License-Identifier: BSD-3-Clause
// The test driver of every test executable: MPI (the MPI_Pack reference, the multi-rank tests) and Kokkos are
// initialized once for all test cases, which Catch2 runs (catch_runner.cpp). Under mpiexec every rank runs every test
// case, and the exit status is the worst of all ranks', so that a failure on any rank fails the test.
#include <Kokkos_Core.hpp>
#if defined(KOKKOSDDT_TEST_MPI)
#include <mpi.h>
#endif

int kokkosddt_run_catch(int argc, char* argv[]);  // catch_runner.cpp

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
    result = kokkosddt_run_catch(argc, argv);
  }
#if defined(KOKKOSDDT_TEST_MPI)
  int worst = 0;
  MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
#else
  return result;
#endif
}
