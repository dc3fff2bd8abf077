// SPDX-License-Identifier: BSD-3-Clause
// The micro-benchmark of perf_tests/results/host-packs-2026-11-28/host-packs-2026-11-28.md (not built by CMake): ns per
// call of KokkosDDT pack/unpack of NAS_LU_x's types on one OpenMP thread, a fence, MPI_Pack/MPI_Unpack and memcpy; best
// of 5 rounds.
#include <mpi.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
template <class F>
double ns(F f, int n = 2000000) {
  for (int i = 0; i < 10000; ++i) f();
  double best = 1e9;
  for (int r = 0; r < 5; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count() / n);
  }
  return best;
}
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    Kokkos::ScopeGuard g(argc, argv);
    int n = argc > 1 ? atoi(argv[1]) : 12;
    std::vector<double> a(5 * (n + 2) * (n + 2), 1.0), buf(5 * n);
    auto t = KokkosDDT::contiguous(5 * n, KokkosDDT::primitive<double>()).commit();
    auto v = KokkosDDT::vector(n, 1, n + 2, KokkosDDT::contiguous(5, KokkosDDT::primitive<double>())).commit();
    MPI_Datatype mt, mv, c5;
    MPI_Type_contiguous(5 * n, MPI_DOUBLE, &mt);
    MPI_Type_commit(&mt);
    MPI_Type_contiguous(5, MPI_DOUBLE, &c5);
    MPI_Type_vector(n, 1, n + 2, c5, &mv);
    MPI_Type_commit(&mv);
    Kokkos::DefaultHostExecutionSpace s;
    const int bytes = 40 * n;
    char* b = reinterpret_cast<char*>(buf.data());
    char* x = reinterpret_cast<char*>(a.data() + 5);
    std::printf("n=%d bytes=%d\n", n, bytes);
    for (int k = 0; k < 2; ++k) {
      const KokkosDDT::Datatype& dt = k == 0 ? t : v;
      MPI_Datatype m = k == 0 ? mt : mv;
      std::printf("%s\n", k == 0 ? "contiguous" : "vector of 5 doubles");
      std::printf("  ddt pack            %6.1f ns\n", ns([&] { KokkosDDT::pack(s, x, 1, dt, b, bytes); }));
      std::printf("  ddt unpack          %6.1f ns\n", ns([&] { KokkosDDT::unpack(s, b, bytes, x, 1, dt); }));
      std::printf("  ddt unpack + fence  %6.1f ns\n", ns([&] {
                    KokkosDDT::unpack(s, b, bytes, x, 1, dt);
                    s.fence("ddtbench");
                  }));
      std::printf("  fence alone         %6.1f ns\n", ns([&] { s.fence("ddtbench"); }));
      std::printf("  MPI_Pack            %6.1f ns\n", ns([&] {
                    int pos = 0;
                    MPI_Pack(x, 1, m, b, bytes, &pos, MPI_COMM_WORLD);
                  }));
      std::printf("  MPI_Unpack          %6.1f ns\n", ns([&] {
                    int pos = 0;
                    MPI_Unpack(b, bytes, &pos, x, 1, m, MPI_COMM_WORLD);
                  }));
      std::printf("  memcpy              %6.1f ns\n", ns([&] {
                    std::memcpy(x, b, bytes);
                    asm volatile("" ::: "memory");
                  }));
    }
  }
  MPI_Finalize();
}
