// SPDX-License-Identifier: BSD-3-Clause
// Where the time of one CG ghost exchange goes (examples/cg_poisson/cg_exchange.hpp), without the solver around it:
// the KokkosDDT exchange's start_all and wait_all, the hand-written exchange, and the pieces a staged exchange is made
// of: a queued pack into pinned host memory, a queued unpack out of it, a plain pack + fence, a device-to-host copy +
// fence and an empty kernel + fence. Ranks meet at a barrier before every exchange. Medians, per rank.
//
//   mpiexec -n 2 cg_phases [n = 32] [--reps 2000]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include "cg_exchange.hpp"
#include "cg_partition.hpp"
#include "support/Mpi.hpp"
#include "support/Options.hpp"
#include "support/Timing.hpp"

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Range = std::pair<std::int64_t, std::int64_t>;
using namespace cg_example;

}  // namespace

int main(int argc, char* argv[]) {
  bench::MpiSession mpi(argc, argv);
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int n = 32, reps = 2000;
    bench::Options args("cg_phases");
    args.positional("n", n, "the grid is n^3 cells").option("--reps", "N", reps, "timed repetitions of each piece");
    if (const auto done = args.parse(argc, argv, rank == 0)) return *done;
    const LocalProblem lp = build_local_problem(n, rank, ranks);
    Space space;
    Vector<Space> x("x", lp.owned + std::int64_t(lp.ghosts.size()));
    if (lp.neighbors.empty()) {
      if (rank == 0) std::printf("cg_phases: no neighbours (run on 2 or more ranks)\n");
    } else {
      const Neighbor& nb = lp.neighbors[0];
      const std::int64_t send_bytes = std::int64_t(nb.send.size()) * 8, recv_bytes = nb.ghost_count * 8;
      KokkosDDT::Datatype rows = KokkosDDT::indexed_block(1, nb.send, KokkosDDT::primitive<double>());
      KokkosDDT::Datatype block = KokkosDDT::contiguous(nb.ghost_count, KokkosDDT::primitive<double>());
      rows.commit(), block.commit();

      double t[9] = {};
      {
        KokkosDDTExchange<Space> ddt(space, lp, x, MPI_COMM_WORLD, 7);
        ddt.run();
        t[0] = bench::median_us(reps, [&] {
          MPI_Barrier(MPI_COMM_WORLD);
          ddt.run();
        });
      }
      {
        HandExchange<Space> hand(space, lp, x, MPI_COMM_WORLD, 8);
        hand.run();
        t[1] = bench::median_us(reps, [&] {
          MPI_Barrier(MPI_COMM_WORLD);
          hand.run();
        });
        t[2] = bench::median_us(reps, [&] { MPI_Barrier(MPI_COMM_WORLD); });  // the barrier alone, to subtract
      }
      Kokkos::View<char*, Kokkos::SharedHostPinnedSpace> pinned("pinned", std::max(send_bytes, recv_bytes));
      Kokkos::View<char*, Space::memory_space> device("device", std::max(send_bytes, recv_bytes));
      KokkosDDT::FusionQueue<Space> queue(space);
      t[3] = bench::median_us(reps, [&] { queue.wait(queue.pack(x.data(), 1, rows, pinned.data(), send_bytes)); });
      t[4] = bench::median_us(
          reps, [&] { queue.wait(queue.unpack(pinned.data(), recv_bytes, x.data() + lp.owned, 1, block)); });
      t[5] = bench::median_us(reps, [&] {
        KokkosDDT::pack(space, x.data(), 1, rows, pinned.data(), send_bytes);
        space.fence();
      });
      t[6] = bench::median_us(reps, [&] {
        Kokkos::deep_copy(space, Kokkos::subview(pinned, Range(0, send_bytes)),
                          Kokkos::subview(device, Range(0, send_bytes)));
        space.fence();
      });
      t[7] = bench::median_us(reps, [&] {
        Kokkos::parallel_for("cg_phases::empty", Kokkos::RangePolicy<Space>(space, 0, 1), KOKKOS_LAMBDA(int){});
        space.fence();
      });
      for (int r = 0; r < ranks; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (r != rank) continue;
        std::printf(
            "rank %d n=%d (%s, MPI %s): send %lld B, receive %lld B; medians in us, the barrier (%.1f) "
            "subtracted from the exchanges\n",
            rank, n, Space::name(), mpi_reaches<Space>() ? "reaches the vector" : "not GPU-aware",
            static_cast<long long>(send_bytes), static_cast<long long>(recv_bytes), t[2]);
        std::printf("  exchange: kokkosddt %.1f  hand %.1f\n", t[0] - t[2], t[1] - t[2]);
        std::printf(
            "  pieces: queued pack to pinned %.1f, queued unpack from pinned %.1f, pack + fence %.1f, "
            "device-to-host copy + fence %.1f, empty kernel + fence %.1f\n",
            t[3], t[4], t[5], t[6], t[7]);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
