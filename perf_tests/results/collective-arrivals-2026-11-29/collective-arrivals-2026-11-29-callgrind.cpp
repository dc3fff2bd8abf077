// SPDX-License-Identifier: BSD-3-Clause
// Built by hand against build/openmp (the flags of gatherv_bench); run with
// collective-arrivals-2026-11-29-callgrind-rank0.sh:
//   mpiexec -n 8 ./rank0.sh ./cg FORM PHASE 1 500   (rank 0 under callgrind, --collect-atstart=no)
// Instructions of one gather's phases on the root, under callgrind: argv form (0 hand, 1 persistent, 2 unchecked
// igatherv, 3 MPI_Gatherv), phase (0 start/post, 1 wait), b, reps. Only the chosen (form, phase) is collected.
#include <mpi.h>
#include <valgrind/callgrind.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
#include <KokkosDDT_MPI.hpp>
#include <KokkosDDT_Collectives.hpp>
using namespace KokkosDDT;
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    Kokkos::ScopeGuard g(argc, argv);
    const int form = atoi(argv[1]), phase = atoi(argv[2]), b = atoi(argv[3]), reps = atoi(argv[4]);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const int root = 0;
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
    const bool rootme = me == root;
    auto on = [&](int ph) {
      if (rootme && ph == phase) CALLGRIND_TOGGLE_COLLECT;
    };
    for (int i = 0; i < reps + 20; ++i) {
      const bool count = i >= 20;
      MPI_Barrier(MPI_COMM_WORLD);
      if (count) on(0);
      mpi::Request r;
      int n = 0;
      if (form == 0) {
        if (rootme) {
          for (int j = 0; j < p; ++j)
            if (j != root) MPI_Irecv(all.data() + id[j], b, MPI_INT, j, 7, MPI_COMM_WORLD, &reqs[n++]);
          std::copy(mine.begin(), mine.end(), all.begin() + id[root]);
        } else {
          MPI_Isend(mine.data(), b, MPI_INT, root, 7, MPI_COMM_WORLD, &reqs[n++]);
        }
      } else if (form == 1) {
        per.start();
      } else if (form == 2) {
        r = igatherv(space, mine.data(), b, t, all.data(), m, d, t, root, MPI_COMM_WORLD, unchecked);
      }
      if (count) {
        on(0);
        on(1);
      }
      if (form == 0)
        MPI_Waitall(n, reqs.data(), MPI_STATUSES_IGNORE);
      else if (form == 1)
        per.wait();
      else if (form == 2)
        r.wait();
      else
        MPI_Gatherv(mine.data(), b, MPI_INT, all.data(), im.data(), id.data(), MPI_INT, root, MPI_COMM_WORLD);
      if (count) on(1);
    }
    per = mpi::Request();
  }
  MPI_Finalize();
}
