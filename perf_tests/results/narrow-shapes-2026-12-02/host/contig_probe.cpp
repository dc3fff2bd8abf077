// Host fixed cost: a contiguous unpack/pack of n bytes, KokkosDDT against MPI_Unpack/MPI_Pack and memcpy.
#include <mpi.h>
#include <KokkosDDT.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>
template <class F>
double per_call_ns(F f) {
  std::vector<double> v;
  for (int b = 0; b < 15; ++b) {
    int iters = 20000;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) f();
    v.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / iters);
  }
  std::sort(v.begin(), v.end());
  return v[7];
}
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Kokkos::initialize(argc, argv);
  {
    using namespace KokkosDDT;
    const Kokkos::OpenMP space;
    for (int doubles : {60, 320, 510, 810}) {
      Datatype t = contiguous(doubles, named(Primitive::Double)).commit();
      MPI_Datatype m;
      MPI_Type_contiguous(doubles, MPI_DOUBLE, &m);
      MPI_Type_commit(&m);
      const int n = doubles * 8;
      std::vector<char> typed(n + 64, 1), packed(n + 64, 2);
      double ours = per_call_ns([&] { unpack(space, packed.data(), n, typed.data(), 1, t); });
      double mpi = per_call_ns([&] {
        int pos = 0;
        MPI_Unpack(packed.data(), n, &pos, typed.data(), 1, m, MPI_COMM_SELF);
      });
      double mc = per_call_ns([&] {
        std::memcpy(typed.data(), packed.data(), n);
        asm volatile("" ::: "memory");
      });
      double ours2 = per_call_ns([&] { unpack(space, packed.data(), n, typed.data(), 1, t); });
      double mpi2 = per_call_ns([&] {
        int pos = 0;
        MPI_Unpack(packed.data(), n, &pos, typed.data(), 1, m, MPI_COMM_SELF);
      });
      double po = per_call_ns([&] { pack(space, typed.data(), 1, t, packed.data(), n); });
      double pm = per_call_ns([&] {
        int pos = 0;
        MPI_Pack(typed.data(), 1, m, packed.data(), n, &pos, MPI_COMM_SELF);
      });
      std::printf("%6d B  unpack ours %6.1f %6.1f  MPI %6.1f %6.1f  memcpy %6.1f | pack ours %6.1f MPI %6.1f ns\n", n,
                  ours, ours2, mpi, mpi2, mc, po, pm);
      MPI_Type_free(&m);
    }
  }
  Kokkos::finalize();
  MPI_Finalize();
}
