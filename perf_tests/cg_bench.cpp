// SPDX-License-Identifier: BSD-3-Clause
// The CG example's ghost exchange (examples/cg_poisson) several ways, in the same solver on the same partition:
// KokkosDDT (persistent indexed sends, fused packs), a hand-written gather kernel + contiguous MPI, MPI derived
// datatypes (MPI_Type_create_indexed_block) handed to the MPI, and the same messages as one KokkosDDT ExchangePlan
// over MPI (plan-mpi) and, with --nccl, over NCCL (plan-nccl). Each run is `iterations` CG iterations (no early
// stop); the variants alternate within each repetition and must produce the same iterate. Prints, per grid size, the
// median time per iteration, the median exchange time per iteration and its ratio to the hand-written one.
//
//   mpiexec -n 4 cg_bench [--quick] [--host] [--nccl] [--n 32,64,128] [--iterations 100] [--reps 5] [--csv out.csv]
//
// --host: on the default host execution space (OpenMP) in a device build. --nccl: one GPU per rank.
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include "cg_partition.hpp"
#include "cg_solver.hpp"
#include "support/Mpi.hpp"
#include "support/Options.hpp"
#include "support/Timing.hpp"

namespace {

using namespace cg_example;

struct Row {
  int n = 0;
  std::string variant;
  double iteration_us = 0, exchange_us = 0;
};

// A run of CG with one exchange.
template <class S>
using Variant = CgResult (*)(const S&, const LocalProblem&, MPI_Comm, double, int);

// The exchanges on execution space S (the plan over NCCL too when `nccl`), for each grid size; `status` becomes 1 if
// an iterate differs.
template <class S>
std::vector<Row> measure(const std::vector<int>& sizes, int iterations, int reps, bool nccl, int& status) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  S space;
  std::vector<std::pair<const char*, Variant<S>>> variants = {
      {KokkosDDTExchange<S>::name, conjugate_gradient<KokkosDDTExchange<S>, S>},
      {HandExchange<S>::name, conjugate_gradient<HandExchange<S>, S>},
      {MpiDatatypeExchange<S>::name, conjugate_gradient<MpiDatatypeExchange<S>, S>},
      {PlanExchange<S, false>::name, conjugate_gradient<PlanExchange<S, false>, S>}};
  if (nccl) variants.push_back({PlanExchange<S, true>::name, conjugate_gradient<PlanExchange<S, true>, S>});
  std::vector<Row> rows;
  for (const int n : sizes) {
    const LocalProblem lp = build_local_problem(n, rank, ranks);
    std::vector<std::vector<double>> it_us(variants.size()), ex_us(variants.size());
    std::vector<double> reference;
    for (int rep = 0; rep < reps; ++rep) {
      for (std::size_t v = 0; v < variants.size(); ++v) {
        const CgResult r = variants[v].second(space, lp, MPI_COMM_WORLD, 0.0, iterations);
        it_us[v].push_back(1e6 * r.seconds / iterations);
        ex_us[v].push_back(1e6 * r.exchange_seconds / iterations);
        if (reference.empty()) reference = r.x;
        int same = r.x == reference ? 1 : 0, all = 0;
        MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!all) {
          if (rank == 0) std::fprintf(stderr, "cg_bench: n=%d %s computed another iterate\n", n, variants[v].first);
          status = 1;
        }
      }
    }
    for (std::size_t v = 0; v < variants.size(); ++v)
      rows.push_back(Row{n, variants[v].first, bench::median(it_us[v]), bench::median(ex_us[v])});
  }
  return rows;
}

}  // namespace

int main(int argc, char* argv[]) {
  bench::MpiSession mpi(argc, argv);
  int status = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    std::vector<int> sizes = {32, 64, 128};
    int iterations = 100, reps = 5;
    std::string csv;
    bool host = false, nccl = false;
    bench::Options args("cg_bench");
    const auto quick = [&] { sizes = {12}, iterations = 10, reps = 2; };
    args.flag("--quick", quick, "n = 12, 10 iterations, 2 repetitions")
        .flag("--host", host, "on the default host execution space (OpenMP) in a device build")
        .flag("--nccl", nccl, "also the plan over NCCL (CUDA builds with NCCL, one GPU per rank)")
        .option("--n", "N,...", sizes, "grid sizes (n^3 cells)")
        .option("--iterations", "N", iterations, "CG iterations per run")
        .option("--reps", "N", reps, "repetitions (the variants alternate within each)")
        .option("--csv", "FILE", csv, "write the rows as CSV");
    if (const auto done = args.parse(argc, argv, rank == 0)) return *done;
    if (nccl &&
        (host || !KokkosDDT::mpi::has_transport("nccl") ||
         Kokkos::SpaceAccessibility<Kokkos::HostSpace, Kokkos::DefaultExecutionSpace::memory_space>::accessible)) {
      if (rank == 0) std::fprintf(stderr, "cg_bench: --nccl needs a CUDA build with NCCL and no --host\n");
      return 2;
    }
    const std::vector<Row> rows =
        host ? measure<Kokkos::DefaultHostExecutionSpace>(sizes, iterations, reps, false, status)
             : measure<Kokkos::DefaultExecutionSpace>(sizes, iterations, reps, nccl, status);
    const char* space_name = host ? Kokkos::DefaultHostExecutionSpace::name() : Kokkos::DefaultExecutionSpace::name();
    if (rank == 0) {
      std::printf("cg_bench: %d ranks, %s, %d iterations x %d repetitions (medians); MPI %s\n", ranks, space_name,
                  iterations, reps,
                  host || KokkosDDT::mpi::gpu_aware() ? "reaches the vectors"
                                                      : "is not GPU-aware (hand and mpi-ddt stage through the host)");
      std::printf("%6s %-10s %14s %14s %9s %12s\n", "n", "exchange", "us/iteration", "exchange us", "share", "vs hand");
      FILE* out = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
      if (out) std::fprintf(out, "n,ranks,space,exchange,iteration_us,exchange_us,exchange_vs_hand\n");
      for (const Row& r : rows) {
        const auto hand =
            std::find_if(rows.begin(), rows.end(), [&](const Row& h) { return h.n == r.n && h.variant == "hand"; });
        const double ratio = hand->exchange_us > 0 ? r.exchange_us / hand->exchange_us : 0;
        std::printf("%6d %-10s %14.1f %14.1f %8.1f%% %11.3fx\n", r.n, r.variant.c_str(), r.iteration_us, r.exchange_us,
                    100 * r.exchange_us / r.iteration_us, ratio);
        if (out)
          std::fprintf(out, "%d,%d,%s,%s,%.3f,%.3f,%.4f\n", r.n, ranks, space_name, r.variant.c_str(), r.iteration_us,
                       r.exchange_us, ratio);
      }
      if (out) std::fclose(out);
    }
  }
  return status;
}
