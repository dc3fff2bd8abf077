// SPDX-License-Identifier: BSD-3-Clause
// Host pack benchmark: the seed's microbenchmark types (jenkins-tpds14 Sec. 4.1) packed by KokkosDDT on one OpenMP
// thread and on all of them, against a hand-written loop for each type and against MPI_Pack of the same type.
// Prints a table and writes CSV (one row per case).
//
//   pack_bench_host [--quick] [--csv FILE] [--max-source-gib G] [--min-seconds S]
//
// Types (packed sizes 4 KiB ... 256 MiB, capped so the source stays under --max-source-gib, default 4):
//   contiguous doubles; vector of 8/32/128/512-byte blocks at a 512-byte stride (1024 for 512-byte blocks);
//   indexed and indexed_block with the vector's layout; a k^4 cube out of a 64^4 array of doubles (subarray);
//   struct {double, int, int, char} (24-byte extent, 17 packed bytes).
// Every result is checked against the hand-written loop and MPI_Pack byte for byte.

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
#include <KokkosDDT_MPI.hpp>

#include "support/Mpi.hpp"
#include "support/OneThread.hpp"
#include "support/Options.hpp"
#include "support/Timing.hpp"

namespace {

using Host = Kokkos::DefaultHostExecutionSpace;
using KokkosDDT::Datatype;

struct Options {
  bool quick = false;
  std::string csv = "pack_bench_host.csv";
  double max_source_gib = 4.0;
  double min_seconds = 0.2;
};

struct Case {
  std::string family;  // contiguous, vector, indexed, indexed_block, subarray4d, struct
  int block = 0;       // bytes per contiguous block (0: not applicable)
  Datatype type;
  std::int64_t count = 1;
  std::function<void(const char*, char*)> hand;  // the hand-written loop
};

std::vector<double> time_us(const std::vector<std::function<void()>>& fs, double min_seconds) {
  return bench::interleaved_medians_us(fs, min_seconds);
}

// Copies n bytes as 8-byte words (n a multiple of 8): what a hand-written typed loop does.
inline void copy_doubles(char* dst, const char* src, std::int64_t n) {
  auto* d = reinterpret_cast<double*>(dst);
  auto* s = reinterpret_cast<const double*>(src);
  for (std::int64_t i = 0; i < n / 8; ++i) d[i] = s[i];
}

std::vector<std::int64_t> packed_sizes(const Options& o) {
  if (o.quick) return {4 << 10, 64 << 10};
  std::vector<std::int64_t> s;
  for (std::int64_t b = 4 << 10; b <= (std::int64_t(256) << 20); b *= 4) s.push_back(b);  // 4K 16K ... 256M
  return s;
}

std::vector<Case> make_cases(const Options& o) {
  const auto& dbl = KokkosDDT::primitive<double>();
  const std::int64_t max_src = static_cast<std::int64_t>(o.max_source_gib * (1 << 30));
  std::vector<Case> cases;
  for (std::int64_t packed : packed_sizes(o)) {
    cases.push_back({"contiguous", 0, KokkosDDT::contiguous(packed / 8, dbl), 1,
                     [packed](const char* s, char* d) { std::memcpy(d, s, packed); }});
  }
  for (int bl : {8, 32, 128, 512}) {
    const std::int64_t stride = bl == 512 ? 1024 : 512;
    for (std::int64_t packed : packed_sizes(o)) {
      const std::int64_t n = packed / bl;
      if (n * stride > max_src) continue;
      auto loop = [n, bl, stride](const char* s, char* d) {
        for (std::int64_t i = 0; i < n; ++i) copy_doubles(d + i * bl, s + i * stride, bl);
      };
      cases.push_back({"vector", bl, KokkosDDT::vector(n, bl / 8, stride / 8, dbl), 1, loop});
      // indexed / indexed_block with the vector's layout; the hand loop walks the same displacement list.
      auto disps = std::make_shared<std::vector<std::int64_t>>(n);
      for (std::int64_t i = 0; i < n; ++i) (*disps)[i] = i * stride / 8;
      auto by_list = [n, bl, disps](const char* s, char* d) {
        const std::int64_t* dp = disps->data();
        for (std::int64_t i = 0; i < n; ++i) copy_doubles(d + i * bl, s + dp[i] * 8, bl);
      };
      cases.push_back(
          {"indexed", bl, KokkosDDT::indexed(std::vector<std::int64_t>(n, bl / 8), *disps, dbl), 1, by_list});
      cases.push_back({"indexed_block", bl, KokkosDDT::indexed_block(bl / 8, *disps, dbl), 1, by_list});
    }
  }
  for (int k : o.quick ? std::vector<int>{4, 8} : std::vector<int>{8, 16, 24, 32, 40, 48, 56}) {
    const std::int64_t N = 64, start = (N - k) / 2;
    auto loop = [k, N, start](const char* s, char* d) {
      const double* src = reinterpret_cast<const double*>(s);
      double* dst = reinterpret_cast<double*>(d);
      for (std::int64_t a = 0; a < k; ++a)
        for (std::int64_t b = 0; b < k; ++b)
          for (std::int64_t c = 0; c < k; ++c) {
            const double* row = src + (((a + start) * N + b + start) * N + c + start) * N + start;
            std::memcpy(dst, row, k * 8);
            dst += k;
          }
    };
    cases.push_back(
        {"subarray4d", k * 8,
         KokkosDDT::subarray({N, N, N, N}, {k, k, k, k}, {start, start, start, start}, KokkosDDT::Order::C, dbl), 1,
         loop});
  }
  for (std::int64_t packed : packed_sizes(o)) {
    const std::int64_t n = packed / 17;
    Datatype s = KokkosDDT::struct_type(
        {1, 1, 1, 1}, {0, 8, 12, 16},
        {dbl, KokkosDDT::primitive<int>(), KokkosDDT::primitive<int>(), KokkosDDT::primitive<char>()});
    auto loop = [n](const char* src, char* dst) {
      for (std::int64_t i = 0; i < n; ++i) std::memcpy(dst + i * 17, src + i * 24, 17);
    };
    cases.push_back({"struct", 17, s, n, loop});
  }
  return cases;
}

}  // namespace

int main(int argc, char* argv[]) {
  bench::MpiSession mpi(argc, argv);
  Kokkos::ScopeGuard guard(argc, argv);
  Options o;
  bench::Options args("pack_bench_host");
  const auto quick = [&] { o.quick = true, o.min_seconds = 0.0; };
  args.flag("--quick", quick, "4 and 64 KiB packed, --min-seconds 0 (3 rounds per case)")
      .option("--csv", "FILE", o.csv, "write one row per case as CSV")
      .option("--max-source-gib", "G", o.max_source_gib, "the largest source of a vector or indexed case, GiB")
      .option("--min-seconds", "S", o.min_seconds, "timing per case (contenders in turn, 3 to 200 rounds)");
  if (const auto done = args.parse(argc, argv)) return *done;

  // One thread: a one-thread partition of the host space; all threads: the whole space.
  Host all;
  const int threads = all.concurrency();
  Host one = bench::one_thread(all);
  std::printf("KokkosDDT %s host pack benchmark: %s, 1 and %d threads; MPI_Pack from the linked MPI library\n",
              KOKKOSDDT_VERSION, Host::name(), threads);

  std::vector<Case> cases = make_cases(o);
  std::int64_t max_src = 0, max_packed = 0;
  for (auto& c : cases) {
    c.type.commit();
    const std::int64_t reach = (c.count - 1) * c.type.extent() + c.type.true_lb() + c.type.true_extent();
    max_src = std::max(max_src, reach);
    max_packed = std::max(max_packed, c.count * c.type.size());
  }
  // Buffers shared by all cases; the source is filled once with a pattern.
  Kokkos::View<char*, Kokkos::HostSpace> src(Kokkos::view_alloc(Kokkos::WithoutInitializing, "src"), max_src);
  Kokkos::View<char*, Kokkos::HostSpace> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "out"), max_packed);
  Kokkos::View<char*, Kokkos::HostSpace> ref(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ref"), max_packed);
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<Host>(0, max_src), KOKKOS_LAMBDA(std::int64_t i) { src(i) = char(i * 131 + 7); });
  Kokkos::fence();

  // Fixed costs, for reading the small sizes: a fence alone, and a one-word pack plus its fence.
  {
    Datatype word = KokkosDDT::contiguous(1, KokkosDDT::primitive<double>()).commit();
    const std::vector<double> t = time_us({[&] { one.fence("bench"); },
                                           [&] {
                                             KokkosDDT::pack(one, src.data(), 1, word, out.data(), 8);
                                             one.fence("bench");
                                           }},
                                          o.min_seconds);
    std::printf("fixed costs (1 thread): fence %.3f us; 8-byte pack + fence %.3f us\n", t[0], t[1]);
  }

  FILE* csv = std::fopen(o.csv.c_str(), "w");
  if (!csv) {
    std::fprintf(stderr, "cannot write %s\n", o.csv.c_str());
    return 1;
  }
  std::fprintf(csv, "family,block_bytes,packed_bytes,hand_us,mpi_pack_us,ddt_1t_us,ddt_%dt_us,threads\n", threads);
  std::printf("\n%-13s %5s %10s | %10s %10s %10s %10s | %7s %7s %7s | %s\n", "type", "block", "packed KiB", "hand us",
              "MPI_Pack", "ddt 1T", "ddt allT", "vs hand", "vs MPI", "speedup", "goal (1T)");
  bool all_correct = true, all_goals = true;
  for (const Case& c : cases) {
    const std::int64_t bytes = c.count * c.type.size();
    MPI_Datatype m = KokkosDDT::mpi::to_mpi(c.type);
    auto hand_loop = [&] { c.hand(src.data(), ref.data()); };
    auto mpi_pack = [&] {
      int position = 0;
      MPI_Pack(src.data(), static_cast<int>(c.count), m, out.data(), static_cast<int>(bytes), &position, MPI_COMM_SELF);
    };
    auto ddt = [&](const Host& space) {
      return [&, space] {
        KokkosDDT::pack(space, src.data(), c.count, c.type, out.data(), bytes);
        space.fence("bench");  // a short label: Kokkos builds a std::string from it on every fence
      };
    };
    // Correctness first: each producer's bytes against the hand loop's.
    hand_loop();
    bool correct = true;
    for (const auto& f : std::vector<std::function<void()>>{mpi_pack, ddt(one), ddt(all)}) {
      std::memset(out.data(), 0, bytes);
      f();
      correct = correct && std::memcmp(out.data(), ref.data(), bytes) == 0;
    }
    // One-thread contenders take turns; the all-threads run is timed apart, so that its idle OpenMP workers (which
    // spin for a while after each parallel region) do not share the cores with the one-thread runs.
    const std::vector<double> t = time_us({hand_loop, mpi_pack, ddt(one)}, o.min_seconds);
    const double hand = t[0], mpi = t[1], t1 = t[2], tn = time_us({ddt(all)}, o.min_seconds / 3)[0];
    MPI_Type_free(&m);

    // Goals (issue 2): >= 1.0x MPI_Pack everywhere, >= 0.9x the hand loop for blocks >= 64 B, one thread.
    const bool goal = mpi / t1 >= 1.0 && (c.block < 64 || hand / t1 >= 0.9);
    all_goals = all_goals && goal;
    all_correct = all_correct && correct;
    std::printf("%-13s %5d %10.0f | %10.1f %10.1f %10.1f %10.1f | %7.2f %7.2f %7.2f | %s%s\n", c.family.c_str(),
                c.block, bytes / 1024.0, hand, mpi, t1, tn, hand / t1, mpi / t1, t1 / tn, goal ? "met" : "MISSED",
                correct ? "" : "  WRONG RESULT");
    std::fprintf(csv, "%s,%d,%lld,%.3f,%.3f,%.3f,%.3f,%d\n", c.family.c_str(), c.block, static_cast<long long>(bytes),
                 hand, mpi, t1, tn, threads);
    std::fflush(stdout);
  }
  std::fclose(csv);
  std::printf("\nratios are speed ratios (>1: KokkosDDT faster); speedup = 1 thread / %d threads. CSV: %s\n", threads,
              o.csv.c_str());
  std::printf("%s; goals %s\n",
              all_correct ? "all results byte-identical to the hand loop and MPI_Pack" : "WRONG RESULTS",
              all_goals ? "met on every case" : "missed on some cases (see the goal column)");
  return all_correct ? 0 : 1;
}
