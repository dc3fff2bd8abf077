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
