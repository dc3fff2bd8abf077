// SPDX-License-Identifier: BSD-3-Clause
// Catch2's runner in a file of its own: the larger part of the test driver's compile time, and it needs neither Kokkos
// nor MPI, so it compiles beside main.cpp (and without optimization: unit_tests/CMakeLists.txt).
#if defined(KOKKOSDDT_CATCH2_V3)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

int kokkosddt_run_catch(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
