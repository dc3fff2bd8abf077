// SPDX-License-Identifier: BSD-3-Clause
// Distributed conjugate gradients on Kokkos Kernels with a KokkosDDT ghost exchange: the 7-point Poisson problem
// A x = 1 on an n^3 grid, cut into uneven pieces of a Morton curve (cg_partition.hpp), each rank holding a
// KokkosSparse::CrsMatrix whose ghost columns follow its owned ones. Before every spmv, a persistent KokkosDDT
// exchange (cg_exchange.hpp) sends each neighbour the owned entries it needs, described by an indexed type, and
// receives its ghost block in place.
//
//   mpiexec -n 4 cg_poisson [n = 24] [tolerance = 1e-12] [exchange = kokkosddt | hand | mpi-ddt | plan-mpi | plan-nccl]
//
// Every rank also solves the whole problem alone and checks that the distributed solve took the same number of
// iterations (within 2) and found the same solution (1e-10 relative). Prints the time per iteration and the share of
// it spent in the exchange. Exits non-zero when the check fails.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include "cg_partition.hpp"
#include "cg_solver.hpp"

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using namespace cg_example;

CgResult solve(const std::string& exchange, const Space& space, const LocalProblem& lp, MPI_Comm comm,
               double tolerance) {
  const int max_iterations = 10 * lp.n * 3;
  if (exchange == "hand") return conjugate_gradient<HandExchange<Space>>(space, lp, comm, tolerance, max_iterations);
  if (exchange == "mpi-ddt")
    return conjugate_gradient<MpiDatatypeExchange<Space>>(space, lp, comm, tolerance, max_iterations);
  if (exchange == "plan-mpi")
    return conjugate_gradient<PlanExchange<Space, false>>(space, lp, comm, tolerance, max_iterations);
  if (exchange == "plan-nccl")
    return conjugate_gradient<PlanExchange<Space, true>>(space, lp, comm, tolerance, max_iterations);
  return conjugate_gradient<KokkosDDTExchange<Space>>(space, lp, comm, tolerance, max_iterations);
}

int run(int argc, char** argv) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int n = argc > 1 ? std::atoi(argv[1]) : 24;
  const double tolerance = argc > 2 ? std::atof(argv[2]) : 1e-12;
  const std::string exchange = argc > 3 ? argv[3] : "kokkosddt";
  if (exchange != "kokkosddt" && exchange != "hand" && exchange != "mpi-ddt" && exchange != "plan-mpi" &&
      exchange != "plan-nccl") {
    if (rank == 0) std::fprintf(stderr, "cg_poisson: unknown exchange '%s'\n", exchange.c_str());
    return 2;
  }
  Space space;
  const LocalProblem lp = build_local_problem(n, rank, ranks);
  const CgResult distributed = solve(exchange, space, lp, MPI_COMM_WORLD, tolerance);
  const CgResult alone = solve("kokkosddt", space, build_local_problem(n, 0, 1), MPI_COMM_SELF, tolerance);

  // This rank's piece of the single-rank solution against its own.
  double diff2 = 0, norm2 = 0;
  for (std::int64_t i = 0; i < lp.owned; ++i) {
    diff2 += std::pow(distributed.x[i] - alone.x[lp.first + i], 2);
    norm2 += std::pow(alone.x[lp.first + i], 2);
  }
  const double difference = std::sqrt(global_sum(diff2, MPI_COMM_WORLD) / global_sum(norm2, MPI_COMM_WORLD));
  const bool same_iterations = std::abs(distributed.iterations - alone.iterations) <= 2;
  const bool same_solution = difference <= 1e-10;
  const bool converged = distributed.relative_residual <= tolerance;

  // The partition's irregularity: pieces, neighbours and ghosts per rank.
  long long mine[3] = {lp.owned, (long long)lp.neighbors.size(), (long long)lp.ghosts.size()}, lo[3], hi[3];
  MPI_Reduce(mine, lo, 3, MPI_LONG_LONG, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(mine, hi, 3, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const int iterations = std::max(distributed.iterations, 1);
    std::printf(
        "cg_poisson: %d^3 points on %d ranks (Morton pieces of %lld-%lld rows, %lld-%lld neighbours, "
        "%lld-%lld ghosts), %s exchange, %s\n",
        n, ranks, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], exchange.c_str(), Space::name());
    std::printf("  %d iterations (single rank: %d), relative residual %.2e, solution differs by %.2e relative\n",
                distributed.iterations, alone.iterations, distributed.relative_residual, difference);
    std::printf("  %.1f us per iteration, %.1f%% of it in the exchange\n", 1e6 * distributed.seconds / iterations,
                distributed.seconds > 0 ? 100 * distributed.exchange_seconds / distributed.seconds : 0.0);
    std::printf("%s\n", converged && same_iterations && same_solution ? "PASSED" : "FAILED");
  }
  return converged && same_iterations && same_solution ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  Kokkos::initialize(argc, argv);
  try {
    status = run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cg_poisson: %s\n", e.what());
    status = 1;
  }
  Kokkos::finalize();
  MPI_Finalize();
  return status;
}
