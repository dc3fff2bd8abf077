// SPDX-License-Identifier: BSD-3-Clause
// The seed's section 5 (traff-gatherv19): irregular gather and scatter, root floor(p/2), block sizes by problem type
// with average b elements per process:
//
//   same m_i = b | random uniform in [1, 2b] | spikes 5b with probability 1/5, else 1 | decreasing floor(2b(p-i)/p) + 1
//   alternating b + floor(b/2) (even i), b - floor(b/2) (odd i) | two blocks m_0 = m_{p-1} = b, others 0
//
// Sections (--section):
//   ints     MPI_INT blocks, contiguous on both sides (the paper's setting)
//   strided  doubles, noncontiguous on both sides: each process's block is a column of its row-major array (one
//            double every 8), the root's blocks every other double; the MPI gets the same derived types
//   device   (GPU builds) the ints section's buffers in device memory: ours on them, against the MPI's v-collective
//            on host copies (copy down, MPI, copy up: what users do when their MPI is not GPU-aware)
//
// Contenders per case: MPI_Gather of blocks padded to max m_i and guideline 2's MPI_Allreduce(1) + that padded gather
// (ints only), the MPI's v-collective, the MPI's persistent v-collective where the MPI has one (MPI-4's
// MPI_Gatherv_init, or Open MPI's MPIX_ extension), and KokkosDDT: the model's choice (auto), the tree, the linear
// schedule, the persistent form (auto; start + wait, made once outside the timing), and "cold" calls of auto and of the
// tree, which alternate between two root buffers so that no call finds the schedule of the call before it (a
// nonpersistent call with the same arguments as the last one runs the cached schedule again). 10 untimed calls, then
// `reps` timed calls, each after an MPI_Barrier; a call's time is the slowest process's; average and minimum over the
// calls (us). Every KokkosDDT form is first checked against MPI_Gatherv / MPI_Scatterv.
//
//   mpiexec -n 16 gatherv_bench [--quick] [--reps 75] [--b 1,10,100] [--section ints] [--csv out.csv]
//   mpiexec -n 16 gatherv_bench --alpha-beta   (ping-pong fit t = alpha + beta n, the root's per-message gap, and the
//                                               schedule the model picks)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT_Collectives.hpp>
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include "support/Mpi.hpp"
#include "support/Options.hpp"

#if MPI_VERSION >= 4
#define BENCH_GATHERV_INIT MPI_Gatherv_init
#define BENCH_SCATTERV_INIT MPI_Scatterv_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define BENCH_GATHERV_INIT MPIX_Gatherv_init
#define BENCH_SCATTERV_INIT MPIX_Scatterv_init
#endif

namespace {

using KokkosDDT::ArgumentCheck;
using KokkosDDT::CollectiveOptions;
using KokkosDDT::CollectiveSchedule;
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
  std::string section, op, kind;
  std::int64_t b, m, mprime;
  std::vector<std::pair<std::string, Stats>> times;  // contender -> stats, in column order
  double of(const std::string& name) const {
    for (const auto& [n, s] : times)
      if (n == name) return s.avg;
    return 0;
  }
};

// The element layout of a section: `send_stride` / `root_stride` elements between consecutive elements of a block on
// the processes / at the root (1: contiguous), as a KokkosDDT type and the same MPI type.
struct Layout {
  int send_stride = 1, root_stride = 1;
  Datatype send, root;
  MPI_Datatype msend = MPI_DATATYPE_NULL, mroot = MPI_DATATYPE_NULL;
};

template <class T>
Layout make_layout(int send_stride, int root_stride) {
  Layout l{send_stride, root_stride, {}, {}};
  l.send = KokkosDDT::resized(KokkosDDT::primitive<T>(), 0, send_stride * sizeof(T));
  l.root = KokkosDDT::resized(KokkosDDT::primitive<T>(), 0, root_stride * sizeof(T));
  l.send.commit();
  l.root.commit();
  l.msend = KokkosDDT::mpi::to_mpi(l.send);
  l.mroot = KokkosDDT::mpi::to_mpi(l.root);
  return l;
}

// Buffers of one case, in memory the execution space reaches; `host_*` mirror them for the MPI contenders.
template <class T, class Space>
struct Buffers {
  using View = Kokkos::View<T*, typename Space::memory_space>;
  View mine, all, other;  // (other: a second root buffer, for the cold calls)
  std::vector<T> host_mine, host_all;
  Buffers(std::int64_t mine_n, std::int64_t all_n)
      : mine("mine", std::max<std::int64_t>(mine_n, 1)),
        all("all", std::max<std::int64_t>(all_n, 1)),
        other("other", std::max<std::int64_t>(all_n, 1)),
        host_mine(mine.extent(0)),
        host_all(all.extent(0)) {}
  void down() {  // device -> host mirrors
    Kokkos::deep_copy(Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(host_mine.data(),
                                                                                                   host_mine.size()),
                      mine);
    Kokkos::deep_copy(
        Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(host_all.data(), host_all.size()),
        all);
  }
  void up(bool gather) {  // the result back: the root's buffer (gather) or every process's own (scatter)
    if (gather)
      Kokkos::deep_copy(all, Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                 host_all.data(), host_all.size()));
    else
      Kokkos::deep_copy(mine, Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                  host_mine.data(), host_mine.size()));
  }
};

struct Config {
  int reps = 75, warmup = 10;
  std::int64_t threshold = -1;
};

template <class T, class Space>
Row run_case(const std::string& section, bool gather, const std::string& kind, std::int64_t b, const Layout& L,
             const Config& cfg, bool device, int& failures) {
  const int p = g_size, root = p / 2, me = g_rank;
  const MPI_Datatype mtype = sizeof(T) == 4 ? MPI_INT : MPI_DOUBLE;
  const std::vector<std::int64_t> m = problem(kind, p, b);
  const std::int64_t mx = *std::max_element(m.begin(), m.end());
  std::vector<std::int64_t> displs(p);
  std::int64_t total = 0;
  for (int j = 0; j < p; ++j) displs[j] = total, total += m[j];
  const std::vector<int> icounts = to_int(m), idispls = to_int(displs);
  const int n = static_cast<int>(m[me]), imx = static_cast<int>(mx);
  Buffers<T, Space> buf(m[me] * L.send_stride, total * L.root_stride);
  // Values: process j's element i is 1000 j + i (gather: its block; scatter: block j at the root).
  std::vector<T> init_mine(buf.host_mine.size(), T(-1)), init_all(buf.host_all.size(), T(-1));
  for (std::int64_t i = 0; i < m[me]; ++i) init_mine[i * L.send_stride] = T(1000 * me + i);
  for (int j = 0; j < p; ++j)
    for (std::int64_t i = 0; i < m[j]; ++i) init_all[(displs[j] + i) * L.root_stride] = T(1000 * j + i);
  auto reset = [&] {
    buf.host_mine = gather ? init_mine : std::vector<T>(init_mine.size(), T(-1));
    buf.host_all = gather ? std::vector<T>(init_all.size(), T(-1)) : init_all;
    buf.up(true);
    buf.up(false);
  };
  Space space;
  CollectiveOptions autos, tree, linear, unchecked;
  autos.direct_threshold = tree.direct_threshold = linear.direct_threshold = unchecked.direct_threshold = cfg.threshold;
  tree.schedule = CollectiveSchedule::Tree;
  linear.schedule = CollectiveSchedule::Linear;
  autos.check = tree.check = linear.check = ArgumentCheck::All;  // (whatever KOKKOSDDT_CHECK_ARGUMENTS says)
  unchecked.check = ArgumentCheck::Local;                        // no agreement, as MPI's own
  auto ours = [&](const CollectiveOptions& o) {
    if (gather)
      KokkosDDT::gatherv(space, buf.mine, m[me], L.send, buf.all, m, displs, L.root, root, MPI_COMM_WORLD, o);
    else
      KokkosDDT::scatterv(space, buf.all, m, displs, L.root, buf.mine, m[me], L.send, root, MPI_COMM_WORLD, o);
  };
  KokkosDDT::mpi::Request persistent = gather ? KokkosDDT::gatherv_init(space, buf.mine, m[me], L.send, buf.all, m,
                                                                        displs, L.root, root, MPI_COMM_WORLD, autos)
                                              : KokkosDDT::scatterv_init(space, buf.all, m, displs, L.root, buf.mine,
                                                                         m[me], L.send, root, MPI_COMM_WORLD, autos);
  auto ours_persistent = [&] {
    persistent.start();
    persistent.wait();
  };
  // MPI's v-collective on the host buffers (device: through the host copies).
  auto mpi_v = [&] {
    if (device) buf.down();
    if (gather)
      MPI_Gatherv(buf.host_mine.data(), n, L.msend, buf.host_all.data(), icounts.data(), idispls.data(), L.mroot, root,
                  MPI_COMM_WORLD);
    else
      MPI_Scatterv(buf.host_all.data(), icounts.data(), idispls.data(), L.mroot, buf.host_mine.data(), n, L.msend, root,
                   MPI_COMM_WORLD);
    if (device) buf.up(gather);
  };
  // Correctness first: every form of ours against MPI's.
  reset();
  mpi_v();
  const std::vector<T> want = gather ? buf.host_all : buf.host_mine;
  // Cold: the root buffer alternates between calls (the first call uses `all`, so that it is checked like the rest).
  bool flip = false;
  auto cold = [&](const CollectiveOptions& o) {
    auto& root_buf = flip ? buf.other : buf.all;
    flip = !flip;
    if (gather)
      KokkosDDT::gatherv(space, buf.mine, m[me], L.send, root_buf, m, displs, L.root, root, MPI_COMM_WORLD, o);
    else
      KokkosDDT::scatterv(space, root_buf, m, displs, L.root, buf.mine, m[me], L.send, root, MPI_COMM_WORLD, o);
  };
  const std::vector<std::pair<const char*, std::function<void()>>> forms = {
      {"auto", [&] { ours(autos); }},         {"tree", [&] { ours(tree); }},       {"linear", [&] { ours(linear); }},
      {"persistent", ours_persistent},        {"auto_cold", [&] { cold(autos); }}, {"tree_cold", [&] { cold(tree); }},
      {"unchecked", [&] { ours(unchecked); }}};
  for (const auto& [name, call] : forms) {
    reset();
    flip = false;
    call();
    buf.down();
    const std::vector<T>& got = gather ? buf.host_all : buf.host_mine;
    if ((gather ? me == root : true) && got != want) {
      ++failures;
      std::fprintf(stderr, "%s %s mismatch on rank %d: %s b=%lld\n", name, gather ? "gatherv" : "scatterv", me,
                   kind.c_str(), static_cast<long long>(b));
    }
  }
  reset();
  Row row{section, gather ? "gather" : "scatter", kind, b, total, p * mx, {}};
  auto time = [&](const char* name, const std::function<void()>& call) {
    row.times.emplace_back(name, measure(call, cfg.warmup, cfg.reps));
  };
  if (section == "ints") {  // the paper's regular contenders: blocks padded to the largest
    std::vector<T> mine(std::max<std::int64_t>(mx, 1)), padded(static_cast<std::size_t>(p * std::max(imx, 1)));
    auto padded_regular = [&] {
      if (gather)
        MPI_Gather(mine.data(), imx, mtype, padded.data(), imx, mtype, root, MPI_COMM_WORLD);
      else
        MPI_Scatter(padded.data(), imx, mtype, mine.data(), imx, mtype, root, MPI_COMM_WORLD);
    };
    time("padded_regular", padded_regular);
    time("guideline2", [&] {
      int local = n, out = 0;
      MPI_Allreduce(&local, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      padded_regular();
    });
    // The linear schedule written by hand on the host buffers: the root posts a receive (scatter: a send) per nonempty
    // block and copies its own, the others send (receive) theirs, no checks. What a persistent round of ours does.
    std::vector<MPI_Request> reqs(static_cast<std::size_t>(p));
    time("hand_linear", [&] {
      if (me != root) {
        if (n == 0) return;
        if (gather)
          MPI_Send(buf.host_mine.data(), n, L.msend, root, 7, MPI_COMM_WORLD);
        else
          MPI_Recv(buf.host_mine.data(), n, L.msend, root, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return;
      }
      int posted = 0;
      for (int j = 0; j < p; ++j) {
        if (j == root || icounts[j] == 0) continue;
        T* at = buf.host_all.data() + idispls[j];
        if (gather)
          MPI_Irecv(at, icounts[j], L.mroot, j, 7, MPI_COMM_WORLD, &reqs[posted++]);
        else
          MPI_Isend(at, icounts[j], L.mroot, j, 7, MPI_COMM_WORLD, &reqs[posted++]);
      }
      T* own = buf.host_all.data() + idispls[root];
      if (gather)
        std::copy(buf.host_mine.begin(), buf.host_mine.begin() + n, own);
      else
        std::copy(own, own + n, buf.host_mine.begin());
      MPI_Waitall(posted, reqs.data(), MPI_STATUSES_IGNORE);
    });
    // What our agreement costs alone: the MPI_Allreduce of six 64-bit integers every nonpersistent call begins with.
    time("agreement", [&] {
      std::uint64_t in[6] = {1, 2, 3, 4, 5, 6}, out[6];
      MPI_Allreduce(in, out, 6, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    });
  }
  time("mpi_v", mpi_v);
#if defined(BENCH_GATHERV_INIT)
  if (!device) {
    MPI_Request req = MPI_REQUEST_NULL;
    if (gather)
      BENCH_GATHERV_INIT(buf.host_mine.data(), n, L.msend, buf.host_all.data(), icounts.data(), idispls.data(), L.mroot,
                         root, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    else
      BENCH_SCATTERV_INIT(buf.host_all.data(), icounts.data(), idispls.data(), L.mroot, buf.host_mine.data(), n,
                          L.msend, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    time("mpi_v_persistent", [&] {
      MPI_Start(&req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    });
    MPI_Request_free(&req);
  }
#endif
  for (const auto& [name, call] : forms) time((std::string("kokkosddt_") + name).c_str(), call);
  return row;
}

// Ping-pong between ranks 0 and 1 (half round trip, 8 B .. 1 MiB, least squares), then the root's gap: every other
// rank sends 8 bytes to rank 0 at once, (time - t(8 B)) / (p - 2) per message beyond the first.
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
  // Fan-in: 8 bytes from every rank to rank 0, all posted at once; the minimum over rounds of the slowest process.
  double gap = 0;
  if (g_size > 2) {
    std::vector<std::int64_t> in(g_size);
    std::vector<MPI_Request> reqs(g_size);
    const Stats s = measure(
        [&] {
          if (g_rank == 0) {
            for (int j = 1; j < g_size; ++j) MPI_Irecv(&in[j], 1, MPI_INT64_T, j, 1, MPI_COMM_WORLD, &reqs[j - 1]);
            MPI_Waitall(g_size - 1, reqs.data(), MPI_STATUSES_IGNORE);
          } else {
            MPI_Send(&in[0], 1, MPI_INT64_T, 0, 1, MPI_COMM_WORLD);
          }
        },
        100, 2000);
    gap = std::max(0.0, (s.min - t.front()) / (g_size - 2));  // (beyond one 8-byte message)
    if (g_rank == 0) std::printf("fan-in of %d 8-byte messages: min %.3f us, avg %.3f us\n", g_size - 1, s.min, s.avg);
  }
  // The agreement's reduction by its size: whether fewer integers would make it cheaper.
  for (int count : {1, 2, 4, 6, 8}) {
    std::uint64_t in[8] = {}, out[8];
    const Stats s = measure([&] { MPI_Allreduce(in, out, count, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD); }, 100, 2000);
    if (g_rank == 0) std::printf("MPI_Allreduce of %d uint64: min %.3f us, avg %.3f us\n", count, s.min, s.avg);
  }
  if (g_rank == 0) {
    std::printf(
        "alpha = %.3f us, beta = %.4f ns/B (%.2f GB/s), gap = %.3f us; direct threshold 2 alpha / beta = %.0f B\n",
        alpha, beta * 1e3, 1e-3 / beta, gap, 2 * alpha / beta);
    // The schedule model's start-up is the small message's (the fit's intercept is the large messages' overhead).
    const KokkosDDT::CollectiveModel model{t.front(), gap, beta * 1e3};
    const auto name = [&](int p, bool equal) {
      return KokkosDDT::Impl::choose_schedule(CollectiveSchedule::Auto, model, p, equal) == CollectiveSchedule::Linear
                 ? "linear"
                 : "tree";
    };
    for (int p : {4, 16, 32, 64, 256, 1024})
      std::printf(
          "  p = %4d: model linear %.1f us, tree %.1f us (blocks of one size: %.1f) (+ beta m each) -> %s (%s)\n", p,
          KokkosDDT::Impl::linear_time(model, p, 0), KokkosDDT::Impl::tree_time(model, p, 0),
          KokkosDDT::Impl::tree_time(model, p, 0, true), name(p, false), name(p, true));
    std::printf("KOKKOSDDT_COLLECTIVE_MODEL=%.3f,%.3f,%.4f\n", t.front(), gap, beta * 1e3);
  }
}

void print_and_write(const std::vector<Row>& rows, const Config& cfg, const std::string& csv) {
  std::printf(
      "p = %d, root = %d, %d timed calls (avg / min us, slowest process); x = ours (auto) / MPI v, xp = ours "
      "persistent / MPI v, xu = ours unchecked / MPI v (avg)\n",
      g_size, g_size / 2, cfg.reps);
  std::string section;
  for (const Row& r : rows) {
    if (r.section != section) {
      section = r.section;
      std::printf("\n[%s]\n%-7s %-11s %6s |", section.c_str(), "op", "problem", "b");
      for (const auto& [name, s] : r.times) std::printf(" %17s |", name.c_str());
      std::printf(" %5s %5s %5s\n", "x", "xp", "xu");
    }
    std::printf("%-7s %-11s %6lld |", r.op.c_str(), r.kind.c_str(), static_cast<long long>(r.b));
    for (const auto& [name, s] : r.times) std::printf(" %8.1f %8.1f |", s.avg, s.min);
    std::printf(" %5.2f %5.2f %5.2f\n", r.of("kokkosddt_auto") / r.of("mpi_v"),
                r.of("kokkosddt_persistent") / r.of("mpi_v"), r.of("kokkosddt_unchecked") / r.of("mpi_v"));
  }
  if (csv.empty()) return;
  FILE* out = std::fopen(csv.c_str(), "w");
  if (!out) return;
  std::fprintf(out, "section,op,problem,b,p,m,mprime,contender,avg_us,min_us\n");
  for (const Row& r : rows)
    for (const auto& [name, s] : r.times)
      std::fprintf(out, "%s,%s,%s,%lld,%d,%lld,%lld,%s,%.3f,%.3f\n", r.section.c_str(), r.op.c_str(), r.kind.c_str(),
                   static_cast<long long>(r.b), g_size, static_cast<long long>(r.m), static_cast<long long>(r.mprime),
                   name.c_str(), s.avg, s.min);
  std::fclose(out);
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
    std::vector<std::string> sections = {"ints", "strided"};
    Config cfg;
    std::string csv;
    bool ab = false;
    bench::Options args("gatherv_bench");
    const auto quick = [&] { bs = {1, 10}, cfg.reps = 5, cfg.warmup = 2; };
    args.flag("--quick", quick, "b = 1 and 10, 5 timed calls after 2 untimed ones")
        .option("--reps", "N", cfg.reps, "timed calls per contender and case")
        .option("--b", "B,...", bs, "average block sizes b (elements per process)")
        .option("--section", "S,...", sections, "ints, strided, device (GPU builds)")
        .option("--csv", "FILE", csv, "write the rows as CSV")
        .option("--threshold", "BYTES", cfg.threshold,
                "a subtree with this much data sends it straight to the root (-1: the library's default)")
        .flag("--alpha-beta", ab, "measure the cost model instead (ping-pong of ranks 0 and 1, fan-in to rank 0)");
    if (const auto done = args.parse(argc, argv, g_rank == 0)) return *done;
    if (ab) {
      if (g_size >= 2) alpha_beta();
    } else {
      std::vector<Row> rows;
      for (const std::string& section : sections) {
        const bool device = section == "device";
        if (device && std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::DefaultHostExecutionSpace>) continue;
        const Layout L = section == "strided" ? make_layout<double>(8, 2) : make_layout<int>(1, 1);
        for (bool gather : {true, false})
          for (const char* kind : {"same", "random", "spikes", "decreasing", "alternating", "two blocks"})
            for (std::int64_t b : bs) {
              if (section == "strided")
                rows.push_back(run_case<double, Kokkos::DefaultHostExecutionSpace>(section, gather, kind, b, L, cfg,
                                                                                   false, failures));
              else if (device)
                rows.push_back(
                    run_case<int, Kokkos::DefaultExecutionSpace>(section, gather, kind, b, L, cfg, true, failures));
              else
                rows.push_back(run_case<int, Kokkos::DefaultHostExecutionSpace>(section, gather, kind, b, L, cfg, false,
                                                                                failures));
            }
        MPI_Datatype msend = L.msend, mroot = L.mroot;
        MPI_Type_free(&msend);
        MPI_Type_free(&mroot);
      }
      int all_failures = 0;
      MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      failures = all_failures;
      if (g_rank == 0) {
        print_and_write(rows, cfg, csv);
        if (failures) std::printf("MISMATCH against MPI_Gatherv / MPI_Scatterv in %d case(s)\n", failures);
      }
    }
  }
  return failures ? 1 : 0;
}
