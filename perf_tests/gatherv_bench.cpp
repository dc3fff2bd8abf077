// SPDX-License-Identifier: BSD-3-Clause
// The seed's section 5 (traff-gatherv19): irregular gather and scatter of MPI_INT blocks, root floor(p/2), block sizes
// by problem type with average b ints per process:
//
//   same m_i = b | random uniform in [1, 2b] | spikes 5b with probability 1/5, else 1 | decreasing floor(2b(p-i)/p) + 1
//   alternating b + floor(b/2) (even i), b - floor(b/2) (odd i) | two blocks m_0 = m_{p-1} = b, others 0
//
// Contenders per problem: MPI_Gather of blocks padded to max m_i (m' = p max m_i), guideline 2's MPI_Allreduce(1 int)
// + that padded MPI_Gather, MPI_Gatherv, and KokkosDDT::gatherv (host buffers, primitive<int>); scatter likewise.
// 10 untimed calls, then `reps` timed calls, each after an MPI_Barrier; a call's time is the slowest process's;
// average and minimum over the calls (µs). Every case is checked against MPI_Gatherv / MPI_Scatterv first.
// Verdicts: G2 = guideline 2 (Gatherv(m) <= Allreduce(1) + Gather(m')), on average times, for MPI's and ours.
//
//   mpiexec -n 16 gatherv_bench [--quick] [--reps 75] [--b 1,10,100] [--csv out.csv] [--threshold bytes]
//   mpiexec -n 2 gatherv_bench --alpha-beta      (ping-pong fit t = alpha + beta n, and the threshold 2 alpha / beta)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT_Collectives.hpp>
#include <mpi.h>

#include "support/Mpi.hpp"
#include "support/Options.hpp"

namespace {

using KokkosDDT::Datatype;

int g_rank = 0, g_size = 1;

std::vector<std::int64_t> problem(const std::string& kind, int p, std::int64_t b) {
  std::vector<std::int64_t> m(p, b);
  std::mt19937 rng(20190101);
  for (int i = 0; i < p; ++i) {
    if (kind == "random") m[i] = 1 + static_cast<std::int64_t>(rng() % (2 * b));
    if (kind == "spikes") m[i] = rng() % 5 == 0 ? 5 * b : 1;
    if (kind == "decreasing") m[i] = 2 * b * (p - i) / p + 1;
    if (kind == "alternating") m[i] = i % 2 == 0 ? b + b / 2 : b - b / 2;
    if (kind == "two blocks") m[i] = i == 0 || i == p - 1 ? b : 0;
  }
  return m;
}

struct Stats {
  double avg = 0, min = 0;
};

// Slowest process per call; average and minimum over reps (after `warmup` untimed calls).
Stats measure(const std::function<void()>& call, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) call();
  double sum = 0, best = 1e30;
  for (int i = 0; i < reps; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    call();
    const double local = MPI_Wtime() - t0;
    double slowest = 0;
    MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    sum += slowest;
    best = std::min(best, slowest);
  }
  return {sum / reps * 1e6, best * 1e6};
}

std::vector<int> to_int(const std::vector<std::int64_t>& v) { return std::vector<int>(v.begin(), v.end()); }

struct Row {
  std::string op, kind;
  std::int64_t b, m, mprime;
  Stats regular, guideline2, mpiv, ours;
};

// Ping-pong between ranks 0 and 1: half round trip for sizes 8 B .. 1 MiB, least-squares line.
void alpha_beta() {
  std::vector<char> buf(1 << 20);
  std::vector<double> n, t;
  for (int bytes = 8; bytes <= (1 << 20); bytes *= 4) {
    const int reps = bytes < (1 << 16) ? 2000 : 200;
    double best = 1e30;
    for (int round = 0; round < 5; ++round) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int r = 0; r < reps && g_rank < 2; ++r) {
        if (g_rank == 0) {
          MPI_Send(buf.data(), bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
          MPI_Recv(buf.data(), bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
          MPI_Recv(buf.data(), bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buf.data(), bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
      }
      best = std::min(best, (MPI_Wtime() - t0) / reps / 2 * 1e6);
    }
    n.push_back(bytes);
    t.push_back(best);
    if (g_rank == 0) std::printf("  %9d B  %10.3f us\n", bytes, best);
  }
  double sn = 0, st = 0, snn = 0, snt = 0;
  for (std::size_t i = 0; i < n.size(); ++i) sn += n[i], st += t[i], snn += n[i] * n[i], snt += n[i] * t[i];
  const double k = static_cast<double>(n.size());
  const double beta = (k * snt - sn * st) / (k * snn - sn * sn), alpha = (st - beta * sn) / k;
  if (g_rank == 0)
    std::printf("alpha = %.3f us, beta = %.4f ns/B (%.2f GB/s); direct threshold 2 alpha / beta = %.0f bytes\n", alpha,
                beta * 1e3, 1e-3 / beta, 2 * alpha / beta);
}

}  // namespace

int main(int argc, char* argv[]) {
  bench::MpiSession mpi(argc, argv);
  int failures = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    std::vector<std::int64_t> bs = {1, 10, 100, 1000, 10000};
    int reps = 75, warmup = 10;
    std::string csv;
    bool ab = false;
    KokkosDDT::CollectiveOptions options;
    bench::Options args("gatherv_bench");
    const auto quick = [&] { bs = {1, 10}, reps = 5, warmup = 2; };
    args.flag("--quick", quick, "b = 1 and 10, 5 timed calls after 2 untimed ones")
        .option("--reps", "N", reps, "timed calls per contender and case")
        .option("--b", "B,...", bs, "average block sizes b (ints per process)")
        .option("--csv", "FILE", csv, "write the rows as CSV")
        .option("--threshold", "BYTES", options.direct_threshold,
                "a subtree with this much data sends it straight to the root (-1: the library's default)")
        .flag("--alpha-beta", ab, "measure the latency/bandwidth model instead (ranks 0 and 1)");
    if (const auto done = args.parse(argc, argv, g_rank == 0)) return *done;
    if (ab) {
      if (g_size >= 2) alpha_beta();
    } else {
      const int p = g_size, root = p / 2, me = g_rank;
      Kokkos::DefaultHostExecutionSpace space;
      Datatype type = KokkosDDT::primitive<int>();
      type.commit();
      std::vector<Row> rows;
      for (const char* op : {"gather", "scatter"}) {
        for (const char* kind : {"same", "random", "spikes", "decreasing", "alternating", "two blocks"}) {
          for (std::int64_t b : bs) {
            const std::vector<std::int64_t> m = problem(kind, p, b);
            const std::int64_t mx = *std::max_element(m.begin(), m.end());
            std::vector<std::int64_t> displs(p);
            std::int64_t total = 0;
            for (int j = 0; j < p; ++j) displs[j] = total, total += m[j];
            const std::vector<int> icounts = to_int(m), idispls = to_int(displs);
            std::vector<int> mine(std::max<std::int64_t>(mx, 1), me), all(std::max<std::int64_t>(total, 1), -1),
                padded(static_cast<std::size_t>(p * std::max<std::int64_t>(mx, 1)), 0), check(all.size(), -2);
            for (std::int64_t j = 0; j < total; ++j) all[j] = static_cast<int>(j);
            Row row{op, kind, b, total, p * mx, {}, {}, {}, {}};
            const bool gather = std::string(op) == "gather";
            const int n = static_cast<int>(m[me]), imx = static_cast<int>(mx);
            auto allreduce = [&] {
              int local = n, out = 0;
              MPI_Allreduce(&local, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            };
            if (gather) {
              // Correctness first: ours against MPI_Gatherv.
              std::vector<int> ref(all.size(), -3);
              std::vector<int> src(std::max(n, 1));
              for (int i = 0; i < n; ++i) src[i] = 7 * me + i;
              MPI_Gatherv(src.data(), n, MPI_INT, ref.data(), icounts.data(), idispls.data(), MPI_INT, root,
                          MPI_COMM_WORLD);
              KokkosDDT::gatherv(space, src.data(), n, type, check.data(), m, displs, type, root, MPI_COMM_WORLD,
                                 options);
              if (me == root && check != ref) {
                ++failures;
                std::fprintf(stderr, "gatherv mismatch: %s b=%lld\n", kind, static_cast<long long>(b));
              }
              row.regular = measure(
                  [&] { MPI_Gather(mine.data(), imx, MPI_INT, padded.data(), imx, MPI_INT, root, MPI_COMM_WORLD); },
                  warmup, reps);
              row.guideline2 = measure(
                  [&] {
                    allreduce();
                    MPI_Gather(mine.data(), imx, MPI_INT, padded.data(), imx, MPI_INT, root, MPI_COMM_WORLD);
                  },
                  warmup, reps);
              row.mpiv = measure(
                  [&] {
                    MPI_Gatherv(mine.data(), n, MPI_INT, all.data(), icounts.data(), idispls.data(), MPI_INT, root,
                                MPI_COMM_WORLD);
                  },
                  warmup, reps);
              row.ours = measure(
                  [&] {
                    KokkosDDT::gatherv(space, mine.data(), n, type, all.data(), m, displs, type, root, MPI_COMM_WORLD,
                                       options);
                  },
                  warmup, reps);
            } else {
              std::vector<int> ref(std::max(n, 1), -3), got(std::max(n, 1), -3);
              MPI_Scatterv(all.data(), icounts.data(), idispls.data(), MPI_INT, ref.data(), n, MPI_INT, root,
                           MPI_COMM_WORLD);
              KokkosDDT::scatterv(space, all.data(), m, displs, type, got.data(), n, type, root, MPI_COMM_WORLD,
                                  options);
              if (got != ref) {
                ++failures;
                std::fprintf(stderr, "scatterv mismatch on rank %d: %s b=%lld\n", me, kind, static_cast<long long>(b));
              }
              row.regular = measure(
                  [&] { MPI_Scatter(padded.data(), imx, MPI_INT, mine.data(), imx, MPI_INT, root, MPI_COMM_WORLD); },
                  warmup, reps);
              row.guideline2 = measure(
                  [&] {
                    allreduce();
                    MPI_Scatter(padded.data(), imx, MPI_INT, mine.data(), imx, MPI_INT, root, MPI_COMM_WORLD);
                  },
                  warmup, reps);
              row.mpiv = measure(
                  [&] {
                    MPI_Scatterv(all.data(), icounts.data(), idispls.data(), MPI_INT, mine.data(), n, MPI_INT, root,
                                 MPI_COMM_WORLD);
                  },
                  warmup, reps);
              row.ours = measure(
                  [&] {
                    KokkosDDT::scatterv(space, all.data(), m, displs, type, mine.data(), n, type, root, MPI_COMM_WORLD,
                                        options);
                  },
                  warmup, reps);
            }
            rows.push_back(row);
          }
        }
      }
      int all_failures = 0;
      MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      failures = all_failures;
      if (me == 0) {
        std::printf(
            "p = %d, root = %d, %d timed calls (avg / min us, slowest process); * = guideline 2 violated "
            "(avg); x = ours / MPI v-collective (avg)\n",
            p, root, reps);
        std::printf("%-7s %-11s %6s %9s %9s | %17s | %17s | %18s | %18s | %6s\n", "op", "problem", "b", "m", "m'",
                    "padded regular", "guideline 2", "MPI v", "KokkosDDT v", "x");
        FILE* out = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
        if (out) std::fprintf(out, "op,problem,b,p,m,mprime,contender,avg_us,min_us\n");
        for (const Row& r : rows) {
          const char* mpi_mark = r.mpiv.avg > r.guideline2.avg ? "*" : " ";
          const char* our_mark = r.ours.avg > r.guideline2.avg ? "*" : " ";
          std::printf(
              "%-7s %-11s %6lld %9lld %9lld | %8.1f %8.1f | %8.1f %8.1f | %8.1f %8.1f%s | %8.1f %8.1f%s | %6.2f\n",
              r.op.c_str(), r.kind.c_str(), static_cast<long long>(r.b), static_cast<long long>(r.m),
              static_cast<long long>(r.mprime), r.regular.avg, r.regular.min, r.guideline2.avg, r.guideline2.min,
              r.mpiv.avg, r.mpiv.min, mpi_mark, r.ours.avg, r.ours.min, our_mark, r.ours.avg / r.mpiv.avg);
          if (out) {
            const std::pair<const char*, Stats> cs[] = {{"padded_regular", r.regular},
                                                        {"guideline2", r.guideline2},
                                                        {"mpi_v", r.mpiv},
                                                        {"kokkosddt_v", r.ours}};
            for (const auto& [name, s] : cs)
              std::fprintf(out, "%s,%s,%lld,%d,%lld,%lld,%s,%.3f,%.3f\n", r.op.c_str(), r.kind.c_str(),
                           static_cast<long long>(r.b), p, static_cast<long long>(r.m),
                           static_cast<long long>(r.mprime), name, s.avg, s.min);
          }
        }
        if (out) std::fclose(out);
        if (failures) std::printf("MISMATCH against MPI_Gatherv / MPI_Scatterv in %d case(s)\n", failures);
      }
    }
  }
  return failures ? 1 : 0;
}
