// Phase times of one gather at p ranks (root p/2, b ints per rank): hand-written Irecv/Waitall vs a persistent
// KokkosDDT round vs an unchecked blocking call vs MPI_Gatherv. Per process: median of post/start and of wait.
#include <mpi.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>
#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
#include <KokkosDDT_MPI.hpp>
#include <KokkosDDT_Collectives.hpp>
using namespace KokkosDDT;
using clk = std::chrono::steady_clock;
static double ns(clk::time_point a, clk::time_point b) {
  return std::chrono::duration<double, std::nano>(b - a).count();
}
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    Kokkos::ScopeGuard g(argc, argv);
    const int b = argc > 1 ? atoi(argv[1]) : 10, reps = argc > 2 ? atoi(argv[2]) : 3000;
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const int root = p / 2;
    Kokkos::DefaultHostExecutionSpace space;
    Datatype t = primitive<int>();
    t.commit();
    std::vector<int> mine(b, me), all(p * b, -1);
    std::vector<std::int64_t> m(p, b), d(p);
    std::vector<int> im(p, b), id(p);
    for (int j = 0; j < p; ++j) d[j] = j * b, id[j] = j * b;
    CollectiveOptions unchecked;
    unchecked.check = ArgumentCheck::Local;
    mpi::Request per = gatherv_init(space, mine.data(), b, t, all.data(), m, d, t, root, MPI_COMM_WORLD);
    std::vector<MPI_Request> reqs(p);
    const char* names[4] = {"hand", "persistent", "unchecked", "mpi_gatherv"};
    std::vector<double> a[4], w[4], tot[4];
    for (int i = 0; i < reps; ++i) {
      for (int form = 0; form < 4; ++form) {
        MPI_Barrier(MPI_COMM_WORLD);
        const auto t0 = clk::now();
        clk::time_point t1;
        if (form == 0) {
          int n = 0;
          if (me == root) {
            for (int j = 0; j < p; ++j)
              if (j != root) MPI_Irecv(all.data() + id[j], b, MPI_INT, j, 7, MPI_COMM_WORLD, &reqs[n++]);
            std::copy(mine.begin(), mine.end(), all.begin() + id[root]);
          } else {
            MPI_Isend(mine.data(), b, MPI_INT, root, 7, MPI_COMM_WORLD, &reqs[n++]);
          }
          t1 = clk::now();
          MPI_Waitall(n, reqs.data(), MPI_STATUSES_IGNORE);
        } else if (form == 1) {
          per.start();
          t1 = clk::now();
          per.wait();
        } else if (form == 2) {
          mpi::Request r = igatherv(space, mine.data(), b, t, all.data(), m, d, t, root, MPI_COMM_WORLD, unchecked);
          t1 = clk::now();
          r.wait();
        } else {
          t1 = t0;
          MPI_Gatherv(mine.data(), b, MPI_INT, all.data(), im.data(), id.data(), MPI_INT, root, MPI_COMM_WORLD);
        }
        const auto t2 = clk::now();
        if (i >= 200) a[form].push_back(ns(t0, t1)), w[form].push_back(ns(t1, t2)), tot[form].push_back(ns(t0, t2));
      }
    }
    auto med = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    for (int form = 0; form < 4; ++form) {
      double mine3[3] = {med(a[form]), med(w[form]), med(tot[form])}, mx[3];
      MPI_Reduce(mine3, mx, 3, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD);
      if (me == root)
        std::printf(
            "%-12s root: start %6.0f wait %6.0f total %6.0f ns | max over ranks: start %6.0f wait %6.0f total %6.0f\n",
            names[form], mine3[0], mine3[1], mine3[2], mx[0], mx[1], mx[2]);
    }
    per = mpi::Request();
  }
  MPI_Finalize();
}
