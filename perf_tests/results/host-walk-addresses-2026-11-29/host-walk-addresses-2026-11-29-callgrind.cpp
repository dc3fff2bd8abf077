// SPDX-License-Identifier: BSD-3-Clause
// Instruction counts (valgrind --tool=callgrind) of 100 000 calls of one operation on NAS_LU_x's contiguous type
// (60 doubles, 480 B), per mode: none, ddt-unpack, ddt-pack, mpi-unpack, memcpy. Not built by CMake: compiled by hand
// against build/openmp's library (perf_tests/results/host-walk-addresses-2026-11-29/host-walk-addresses-2026-11-29.md).
#include <mpi.h>
#include <cstdio>
#include <cstring>
#include <vector>
#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    Kokkos::ScopeGuard g(argc, argv);
    const char* mode = argc > 1 ? argv[1] : "none";
    const int reps = 100000, n = 12;
    std::vector<double> a(5 * (n + 2) * (n + 2), 1.0), buf(5 * n);
    auto t = KokkosDDT::contiguous(5 * n, KokkosDDT::primitive<double>()).commit();
    MPI_Datatype mt;
    MPI_Type_contiguous(5 * n, MPI_DOUBLE, &mt);
    MPI_Type_commit(&mt);
    Kokkos::DefaultHostExecutionSpace s;
    const int bytes = 40 * n;
    char* b = reinterpret_cast<char*>(buf.data());
    char* x = reinterpret_cast<char*>(a.data() + 5);
    if (!std::strcmp(mode, "ddt-unpack"))
      for (int i = 0; i < reps; ++i) KokkosDDT::unpack(s, b, bytes, x, 1, t);
    if (!std::strcmp(mode, "ddt-pack"))
      for (int i = 0; i < reps; ++i) KokkosDDT::pack(s, x, 1, t, b, bytes);
    if (!std::strcmp(mode, "mpi-unpack"))
      for (int i = 0; i < reps; ++i) {
        int pos = 0;
        MPI_Unpack(b, bytes, &pos, x, 1, mt, MPI_COMM_SELF);
      }
    if (!std::strcmp(mode, "memcpy"))
      for (int i = 0; i < reps; ++i) {
        std::memcpy(x, b, bytes);
        asm volatile("" ::: "memory");
      }
  }
  MPI_Finalize();
}
