// SPDX-License-Identifier: BSD-3-Clause
// The bulk 3-D halo exchange of chu-fusion21 (Sec. V) on the default execution space: an n^3 grid per field with a
// ghost layer of width w, its 26 boundary regions (faces, edges, corners) of each of F fields packed into one buffer,
// then unpacked into the ghost layer on the opposite side. Contenders, each timed to completion on the host:
//
//   fused      KokkosDDT::FusionQueue: all packs in one launch, all unpacks in a second (they read what packs wrote)
//   sync       KokkosDDT::pack / unpack per region, each followed by a fence (the seed's GPU-Sync)
//   async      KokkosDDT::pack / unpack per region, one fence at the end (GPU-Async)
//   deep_copy  Kokkos::deep_copy of each region's subview to / from a staging View, one fence at the end
//   hand       one hand-fused kernel per direction over a precomputed list of element addresses
//   plan       KokkosDDT::mpi::HaloPlan on a one-process periodic grid (MPI builds): the same exchange from records
//              built once: every neighbour is the process itself, so each region is copied typed to typed into its
//              ghost region, all in one launch (no messages, no packed buffer)
//   (fused_pack, hand_pack and dc_pack: the packing half alone of fused, hand and deep_copy)
//
// plus a breakdown of one small fused pack by phase (enqueue, flush, wait), the host cost of one enqueue, and the
// under/over-fusion sweep of the seed's Fig. 8: the same exchange with the
// queue's threshold set from 16 KiB to 4 MiB (packs and unpacks of the F fields issued field by field), next to the
// threshold the queue derives from its own measurements.
//
//   fusion_bench [--quick] [--csv FILE] [--only phases|halo|sweep]
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
#if defined(KOKKOSDDT_BENCH_MPI)
#include <KokkosDDT_MPI.hpp>
#include <mpi.h>
#endif

#if defined(KOKKOSDDT_BENCH_MPI)
#include "support/Mpi.hpp"
#endif
#include "support/Options.hpp"
#include "support/Timing.hpp"

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Mem = Space::memory_space;
using Field = Kokkos::View<double***, Kokkos::LayoutRight, Mem>;
using Range = std::pair<int, int>;

FILE* g_csv = nullptr;
bool g_quick = false;
std::vector<int> g_cell;                // --cell n,w,F: the halo grid's one cell (for ncu)
std::vector<std::string> g_contenders;  // --contenders: the halo grid's contenders to time (empty: all)
bool timed(const char* contender) {
  return g_contenders.empty() || std::find(g_contenders.begin(), g_contenders.end(), contender) != g_contenders.end();
}

struct Region {
  KokkosDDT::Datatype send, recv;
  std::array<Range, 3> send_range, recv_range;
  std::int64_t bytes = 0;
};

// The 26 regions of an n^3 interior with ghost width w in an (n + 2w)^3 array: each sends its owned boundary layer
// and receives into the ghost layer on the opposite side (periodic).
std::vector<Region> make_regions(int n, int w) {
  const int N = n + 2 * w;
  std::vector<Region> regions;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        if (dx == 0 && dy == 0 && dz == 0) continue;
        Region r;
        std::array<int, 3> d{dz, dy, dx};
        std::vector<std::int64_t> sizes(3), send_start(3), recv_start(3);
        for (int k = 0; k < 3; ++k) {
          sizes[k] = d[k] == 0 ? n : w;
          send_start[k] = d[k] < 0 ? w : d[k] > 0 ? n : w;
          recv_start[k] = d[k] < 0 ? n + w : d[k] > 0 ? 0 : w;
          r.send_range[k] = {int(send_start[k]), int(send_start[k] + sizes[k])};
          r.recv_range[k] = {int(recv_start[k]), int(recv_start[k] + sizes[k])};
        }
        const auto& dbl = KokkosDDT::primitive<double>();
        r.send = KokkosDDT::subarray({N, N, N}, sizes, send_start, KokkosDDT::Order::C, dbl).commit();
        r.recv = KokkosDDT::subarray({N, N, N}, sizes, recv_start, KokkosDDT::Order::C, dbl).commit();
        r.bytes = r.send.size();
        regions.push_back(r);
      }
  return regions;
}

using bench::median;
using bench::median_us;

void record(const char* section, int n, int w, int fields, const std::string& contender, std::int64_t threshold,
            double us, std::int64_t launches) {
  if (g_csv)
    std::fprintf(g_csv, "%s,%d,%d,%d,%s,%lld,%.3f,%lld\n", section, n, w, fields, contender.c_str(),
                 static_cast<long long>(threshold), us, static_cast<long long>(launches));
}

struct Setup {
  int n, w, fields;
  std::vector<Region> regions;
  std::vector<Field> f;
  Kokkos::View<char*, Mem> buffer;
  std::vector<std::int64_t> offset;                    // per (field, region)
  Kokkos::View<std::uintptr_t*, Mem> gather, scatter;  // hand-fused: per packed double, its source and destination
  std::int64_t bytes = 0;

  Setup(int n_, int w_, int fields_) : n(n_), w(w_), fields(fields_), regions(make_regions(n_, w_)) {
    const int N = n + 2 * w;
    for (int i = 0; i < fields; ++i) {
      f.push_back(Field("field", N, N, N));
      Kokkos::deep_copy(f.back(), 1.0 + i);
    }
    for (int i = 0; i < fields; ++i)
      for (const Region& r : regions) {
        offset.push_back(bytes);
        bytes += r.bytes;
      }
    buffer = Kokkos::View<char*, Mem>("buffer", bytes);
    // The hand-fused kernels' address lists, built on the host once (not timed).
    const std::int64_t elems = bytes / 8;
    gather = Kokkos::View<std::uintptr_t*, Mem>("gather", elems);
    scatter = Kokkos::View<std::uintptr_t*, Mem>("scatter", elems);
    auto g = Kokkos::create_mirror_view(gather);
    auto s = Kokkos::create_mirror_view(scatter);
    std::int64_t e = 0;
    for (int i = 0; i < fields; ++i)
      for (const Region& r : regions)
        for (int z = r.send_range[0].first; z < r.send_range[0].second; ++z)
          for (int y = r.send_range[1].first; y < r.send_range[1].second; ++y)
            for (int x = r.send_range[2].first; x < r.send_range[2].second; ++x, ++e) {
              const Field& fi = f[i];
              g(e) = reinterpret_cast<std::uintptr_t>(fi.data() + (std::int64_t(z) * N + y) * N + x);
              const int rz = r.recv_range[0].first + z - r.send_range[0].first;
              const int ry = r.recv_range[1].first + y - r.send_range[1].first;
              const int rx = r.recv_range[2].first + x - r.send_range[2].first;
              s(e) = reinterpret_cast<std::uintptr_t>(fi.data() + (std::int64_t(rz) * N + ry) * N + rx);
            }
    Kokkos::deep_copy(gather, g);
    Kokkos::deep_copy(scatter, s);
  }

  // The memory traffic the exchange cannot avoid: every 32-byte sector holding an owned cell that is sent (read) or a
  // ghost cell that is received (written), and the packed bytes, written once and read once.
  std::int64_t sector_bytes() const {
    const std::int64_t N = n + 2 * w;
    auto box = [&](const std::array<Range, 3>& a) {
      std::int64_t sectors = 0;
      for (int z = a[0].first; z < a[0].second; ++z)
        for (int y = a[1].first; y < a[1].second; ++y) {
          const std::int64_t row = (z * N + y) * N * 8;  // (Kokkos aligns allocations to at least 64 bytes)
          sectors += (row + a[2].second * 8 - 1) / 32 - (row + a[2].first * 8) / 32 + 1;
        }
      return sectors * 32;
    };
    std::int64_t total = 2 * bytes;
    for (const Region& r : regions) total += fields * (box(r.send_range) + box(r.recv_range));
    return total;
  }

  char* at(int i, int k) const { return buffer.data() + offset[std::size_t(i) * regions.size() + k]; }

  // Interior cells: their index and field; ghost cells: -1 (so that an exchange shows).
  void fill(const Space& space) const {
    const int N = n + 2 * w, lo = w, hi = n + w;
    for (int i = 0; i < fields; ++i) {
      const Field x = f[i];
      Kokkos::parallel_for(
          "fusion_bench::fill", Kokkos::MDRangePolicy<Space, Kokkos::Rank<3>>(space, {0, 0, 0}, {N, N, N}),
          KOKKOS_LAMBDA(int a, int b, int c) {
            const bool inside = a >= lo && a < hi && b >= lo && b < hi && c >= lo && c < hi;
            x(a, b, c) = inside ? i * 1e7 + (double(a) * N + b) * N + c : -1.0;
          });
    }
    space.fence();
  }

  std::vector<double> fields_on_host() const {
    std::vector<double> all;
    for (const Field& x : f) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
      all.insert(all.end(), h.data(), h.data() + h.size());
    }
    return all;
  }

  void enqueue_packs(KokkosDDT::FusionQueue<Space>& q) const {
    for (int i = 0; i < fields; ++i)
      for (std::size_t k = 0; k < regions.size(); ++k)
        q.pack(f[i].data(), 1, regions[k].send, at(i, int(k)), regions[k].bytes);
  }

  void enqueue_unpacks(KokkosDDT::FusionQueue<Space>& q, KokkosDDT::Op op = KokkosDDT::Op::Replace) const {
    for (int i = 0; i < fields; ++i)
      for (std::size_t k = 0; k < regions.size(); ++k)
        q.unpack(at(i, int(k)), regions[k].bytes, f[i].data(), 1, regions[k].recv, op);
  }

  // The unpacks alone (what a halo's receiving side runs), replacing or summing into the ghosts.
  void fused_unpack(KokkosDDT::FusionQueue<Space>& q, KokkosDDT::Op op) const {
    enqueue_unpacks(q, op);
    q.wait_all();
  }

  void fused(KokkosDDT::FusionQueue<Space>& q) const {
    enqueue_packs(q);
    enqueue_unpacks(q);
    q.wait_all();
  }

  void fused_pack(KokkosDDT::FusionQueue<Space>& q) const {
    enqueue_packs(q);
    q.wait_all();
  }

  void each(const Space& space, bool fence_each) const {
    for (int i = 0; i < fields; ++i)
      for (std::size_t k = 0; k < regions.size(); ++k) {
        KokkosDDT::pack(space, f[i].data(), 1, regions[k].send, at(i, int(k)), regions[k].bytes);
        if (fence_each) space.fence();
      }
    for (int i = 0; i < fields; ++i)
      for (std::size_t k = 0; k < regions.size(); ++k) {
        KokkosDDT::unpack(space, at(i, int(k)), regions[k].bytes, f[i].data(), 1, regions[k].recv);
        if (fence_each) space.fence();
      }
    space.fence();
  }

  // Region k of field i's slot in the packed buffer, shaped like the region (the staging View of a deep_copy).
  using Staging = Kokkos::View<double***, Kokkos::LayoutRight, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Staging staging(int i, int k, const std::array<Range, 3>& a) const {
    return Staging(reinterpret_cast<double*>(at(i, k)), a[0].second - a[0].first, a[1].second - a[1].first,
                   a[2].second - a[2].first);
  }

  void deep_copy_packs(const Space& space) const {
    for (int i = 0; i < fields; ++i)
      for (std::size_t k = 0; k < regions.size(); ++k) {
        const auto& a = regions[k].send_range;
        Kokkos::deep_copy(space, staging(i, int(k), a), Kokkos::subview(f[i], a[0], a[1], a[2]));
      }
  }

  void deep_copy_pack(const Space& space) const {
    deep_copy_packs(space);
    space.fence();
  }

  void deep_copies(const Space& space) const {
    deep_copy_packs(space);
    for (int i = 0; i < fields; ++i)
      for (std::size_t k = 0; k < regions.size(); ++k) {
        const auto& a = regions[k].recv_range;
        Kokkos::deep_copy(space, Kokkos::subview(f[i], a[0], a[1], a[2]), staging(i, int(k), a));
      }
    space.fence();
  }

  void launch_hand_pack(const Space& space) const {
    auto g = gather;
    auto* out = reinterpret_cast<double*>(buffer.data());
    Kokkos::parallel_for(
        "fusion_bench::hand_pack", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, bytes / 8),
        KOKKOS_LAMBDA(std::int64_t e) { out[e] = *reinterpret_cast<const double*>(g(e)); });
  }

  void hand_pack(const Space& space) const {
    launch_hand_pack(space);
    space.fence();
  }

  void hand(const Space& space) const {
    launch_hand_pack(space);
    auto s = scatter;
    auto* out = reinterpret_cast<double*>(buffer.data());
    Kokkos::parallel_for(
        "fusion_bench::hand_unpack", Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, bytes / 8),
        KOKKOS_LAMBDA(std::int64_t e) { *reinterpret_cast<double*>(s(e)) = out[e]; });
    space.fence();
  }
};

// Device-to-device copy bandwidth, counting the bytes read and written (a 1 GiB deep_copy, best of 5).
double copy_bytes_per_us(const Space& space) {
  const std::int64_t bytes = g_quick ? (std::int64_t(64) << 20) : (std::int64_t(1) << 30);
  Kokkos::View<char*, Mem> a(Kokkos::view_alloc(Kokkos::WithoutInitializing, "a"), bytes),
      b(Kokkos::view_alloc(Kokkos::WithoutInitializing, "b"), bytes);
  Kokkos::deep_copy(space, b, a);
  space.fence();
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    Kokkos::Timer t;
    Kokkos::deep_copy(space, b, a);
    space.fence();
    best = std::min(best, t.seconds() * 1e6);
  }
  return 2.0 * static_cast<double>(bytes) / best;
}

void halo_table(const Space& space) {
  const double bandwidth = copy_bytes_per_us(space);
  std::printf("\nbulk 3-D halo: 26 regions x F fields packed, then unpacked; host wall time to completion (us)\n");
  std::printf(
      "floor: the 32-byte sectors the exchange must touch (owned cells sent, ghost cells received, packed\n"
      "bytes written and read) at the device-to-device copy bandwidth of this run, %.0f GB/s (read + write)\n",
      bandwidth / 1e3);
  std::printf("%5s %2s %3s %9s | %9s %9s %9s %9s %9s %9s %9s | %8s %9s | %10s %9s %9s\n", "n", "w", "F", "packed",
              "fused", "sync", "async", "deep_copy", "hand", "plan", "floor", "launches", "enqueue", "fused_pack",
              "hand_pack", "dc_pack");
  const std::vector<int> sizes = g_quick ? std::vector<int>{16} : std::vector<int>{16, 32, 64, 128, 256};
  const std::vector<int> field_counts = g_quick ? std::vector<int>{1, 2} : std::vector<int>{1, 8, 32};
  for (int n : sizes)
    for (int w : {1, 2})
      for (int F : field_counts) {
        if (n == 256 && F > 8) continue;  // 32 fields of 260^3 doubles: 4.5 GB
        if (g_cell.size() == 3 && (n != g_cell[0] || w != g_cell[1] || F != g_cell[2])) continue;
        Setup s(n, w, F);
        KokkosDDT::FusionOptions all;  // one launch per direction: a ring that holds the whole exchange
        all.threshold_bytes = std::int64_t(1) << 40;
        all.capacity = 52 * F + 8;
        KokkosDDT::FusionQueue<Space> q(space, all);
        const int reps = g_quick ? 3 : (n >= 128 ? 30 : 100);
        // (a contender not timed reads -1)
        const auto timed_us = [&](const char* contender, int r, auto&& f) {
          return timed(contender) ? median_us(r, f) : -1;
        };
        const double fused = timed_us("fused", reps, [&] { s.fused(q); });
        const std::int64_t launches_before = q.launches();
        if (timed("fused")) s.fused(q);
        const std::int64_t launches = q.launches() - launches_before;
        // Host cost of one enqueue: the packs of one exchange, timed without their launch.
        std::vector<double> per{-1};
        for (int rep = 0; rep < (g_quick ? 3 : 20) && timed("enqueue"); ++rep) {
          Kokkos::Timer t;
          s.enqueue_packs(q);
          per.push_back(t.seconds() * 1e6 / (26.0 * F));
          q.wait_all();
        }
        if (per.size() > 1) per.erase(per.begin());
        const double enqueue = median(per);
        const double sync = timed_us("sync", std::max(3, reps / 4), [&] { s.each(space, true); });
        const double async = timed_us("async", reps, [&] { s.each(space, false); });
        const double dc = timed_us("deep_copy", std::max(3, reps / 2), [&] { s.deep_copies(space); });
        const double hand = timed_us("hand", reps, [&] { s.hand(space); });
        const double fpack = timed_us("fused_pack", reps, [&] { s.fused_pack(q); });
        const double hpack = timed_us("hand_pack", reps, [&] { s.hand_pack(space); });
        const double dpack = timed_us("deep_copy_pack", std::max(3, reps / 2), [&] { s.deep_copy_pack(space); });
        // Unpacks alone, replacing and summing (Op::Sum: one pass per word, in launches that keep requests whose
        // destination bounds overlap in the order they were enqueued).
        const double unpack_us = timed_us("unpack", reps, [&] { s.fused_unpack(q, KokkosDDT::Op::Replace); });
        const double sum_us = timed_us("sum", reps, [&] { s.fused_unpack(q, KokkosDDT::Op::Sum); });
        if (timed("sum")) {
          const std::int64_t before = q.launches();
          s.fused_unpack(q, KokkosDDT::Op::Sum);
          record("halo", n, w, F, "sum", 0, sum_us, q.launches() - before);
          std::printf("      unpacks alone: replace %.2f us, sum %.2f us (%lld launches), sum/replace %.2f\n",
                      unpack_us, sum_us, static_cast<long long>(q.launches() - before), sum_us / unpack_us);
        }
        if (timed("unpack")) record("halo", n, w, F, "unpack", 0, unpack_us, 1);
        double plan_us = -1;
#if defined(KOKKOSDDT_BENCH_MPI)
        if (timed("plan")) {
          // The plan on a one-process periodic grid; its ghosts checked against per-region packs first.
          MPI_Comm alone;
          const int dims[3] = {1, 1, 1}, periods[3] = {1, 1, 1};
          MPI_Cart_create(MPI_COMM_SELF, 3, dims, periods, 0, &alone);
          auto plan =
              KokkosDDT::mpi::make_halo_plan(space, alone, {w, KokkosDDT::mpi::HaloNeighbors::All, 0x4b44, "mpi"}, s.f);
          s.fill(space);
          s.each(space, false);
          const auto want = s.fields_on_host();
          s.fill(space);
          plan.exchange();
          if (s.fields_on_host() != want) std::printf("MISMATCH: the halo plan and per-region packs differ\n");
          const std::int64_t before = plan.launches();
          plan.exchange();
          const std::int64_t plan_launches = plan.launches() - before;  // (per exchange)
          plan_us = median_us(reps, [&] { plan.exchange(); });
          record("halo", n, w, F, "plan", 0, plan_us, plan_launches);
          plan = {};
          MPI_Comm_free(&alone);
        }
        if (timed("scatter")) {
          // The same plan's other direction: every ghost region summed back into the owned cells it mirrors (a launch
          // of packs, then one combining launch per scatter order: 7 for 26 neighbours).
          MPI_Comm alone;
          const int dims[3] = {1, 1, 1}, periods[3] = {1, 1, 1};
          MPI_Cart_create(MPI_COMM_SELF, 3, dims, periods, 0, &alone);
          KokkosDDT::mpi::HaloOptions o{w, KokkosDDT::mpi::HaloNeighbors::All, 0x4b44, "mpi"};
          o.scatter = true;
          auto plan = KokkosDDT::mpi::make_halo_plan(space, alone, o, s.f);
          plan.scatter(KokkosDDT::Op::Sum);
          const std::int64_t before = plan.scatter_launches();
          plan.scatter(KokkosDDT::Op::Sum);
          const std::int64_t scatter_launches = plan.scatter_launches() - before;
          const double gather_us = median_us(reps, [&] { plan.exchange(); });
          const double scatter_us = median_us(reps, [&] { plan.scatter(KokkosDDT::Op::Sum); });
          record("halo", n, w, F, "scatter", 0, scatter_us, scatter_launches);
          record("halo", n, w, F, "gather", 0, gather_us, 1);
          std::printf(
              "      plan scatter (sum) %.2f us (%lld launches; %lld chains, %lld in one pass), its gather %.2f us, "
              "scatter/gather %.2f\n",
              scatter_us, static_cast<long long>(scatter_launches), static_cast<long long>(plan.scatter_chains()),
              static_cast<long long>(plan.scatter_one_pass_chains()), gather_us, scatter_us / gather_us);
          plan = {};
          MPI_Comm_free(&alone);
        }
#endif
        const double floor_us = static_cast<double>(s.sector_bytes()) / bandwidth;
        std::printf(
            "%5d %2d %3d %8.0fK | %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f | %8lld %9.3f | %10.2f %9.2f %9.2f\n", n, w,
            F, s.bytes / 1024.0, fused, sync, async, dc, hand, plan_us, floor_us, static_cast<long long>(launches),
            enqueue, fpack, hpack, dpack);
        record("halo", n, w, F, "floor", 0, floor_us, 0);
        record("halo", n, w, F, "fused_pack", 0, fpack, 1);
        record("halo", n, w, F, "hand_pack", 0, hpack, 1);
        record("halo", n, w, F, "deep_copy_pack", 0, dpack, 26 * F);
        record("halo", n, w, F, "fused", 0, fused, launches);
        record("halo", n, w, F, "sync", 0, sync, 52 * F);
        record("halo", n, w, F, "async", 0, async, 52 * F);
        record("halo", n, w, F, "deep_copy", 0, dc, 52 * F);
        record("halo", n, w, F, "hand", 0, hand, 2);
        record("halo", n, w, F, "enqueue", 0, enqueue, 0);
      }
}

// Where the time of a small fused pack goes: the host's enqueues, the host's flush (records + launch), and the wait
// from there until the last completion flag is seen (the kernel's run, plus its launch latency). One field, width 1.
void phases(const Space& space) {
  std::printf("\nfused pack of 26 regions, 1 field, by phase (host wall time, us, medians)\n");
  std::printf("%5s | %9s %9s %9s | %9s\n", "n", "enqueue", "flush", "wait", "total");
  for (int n : g_quick ? std::vector<int>{16} : std::vector<int>{16, 64, 128}) {
    Setup s(n, 1, 1);
    KokkosDDT::FusionOptions all;
    all.threshold_bytes = std::int64_t(1) << 40;
    KokkosDDT::FusionQueue<Space> q(space, all);
    std::vector<double> enq, fl, wt, total;
    for (int rep = 0; rep < (g_quick ? 5 : 300); ++rep) {
      Kokkos::Timer t;
      s.enqueue_packs(q);
      const double a = t.seconds();
      q.flush();
      const double b = t.seconds();
      q.wait_all();
      const double c = t.seconds();
      if (rep < (g_quick ? 1 : 10)) continue;  // warm-up
      enq.push_back(a * 1e6), fl.push_back((b - a) * 1e6), wt.push_back((c - b) * 1e6), total.push_back(c * 1e6);
    }
    std::printf("%5d | %9.2f %9.2f %9.2f | %9.2f\n", n, median(enq), median(fl), median(wt), median(total));
    record("phases", n, 1, 1, "enqueue", 0, median(enq), 0);
    record("phases", n, 1, 1, "flush", 0, median(fl), 1);
    record("phases", n, 1, 1, "wait", 0, median(wt), 0);
    record("phases", n, 1, 1, "total", 0, median(total), 1);
  }
}

// Fig. 8: with a finite threshold the queue launches while requests are still arriving; too small a threshold pays
// many launches, too large one waits for everything. Requests arrive field by field, as from a solver's loop.
void threshold_sweep(const Space& space) {
  const int n = g_quick ? 16 : 64, F = g_quick ? 2 : 32;
  Setup s(n, 1, F);
  // One queue per threshold, the model's last; the repetitions go round the queues, so that drift in the machine's
  // speed (a shared host) affects every threshold alike.
  std::vector<std::int64_t> thresholds;
  for (std::int64_t t = 16 << 10; t <= (4 << 20); t *= 2) thresholds.push_back(t);
  thresholds.push_back(-1);
  std::vector<std::unique_ptr<KokkosDDT::FusionQueue<Space>>> queues;
  for (std::int64_t t : thresholds) {
    KokkosDDT::FusionOptions o;
    o.threshold_bytes = t;
    o.capacity = 52 * F + 8;
    queues.push_back(std::make_unique<KokkosDDT::FusionQueue<Space>>(space, o));
  }
  thresholds.back() = queues.back()->threshold_bytes();
  std::printf("\nthreshold sweep: n = %d, w = 1, %d fields (%.0f KiB per direction); model threshold %lld bytes\n", n,
              F, s.bytes / 1024.0, static_cast<long long>(thresholds.back()));
  std::printf("%12s | %9s %8s\n", "threshold", "us", "launches");
  std::vector<std::vector<double>> times(queues.size());
  const int reps = g_quick ? 3 : 50;
  for (int rep = -2; rep < reps; ++rep)  // two rounds of warm-up
    for (std::size_t i = 0; i < queues.size(); ++i) {
      Kokkos::Timer timer;
      s.fused(*queues[i]);
      if (rep >= 0) times[i].push_back(timer.seconds() * 1e6);
    }
  double best = 1e300;
  std::int64_t best_t = 0;
  for (std::size_t i = 0; i < queues.size(); ++i) {
    const double us = median(times[i]);
    const std::int64_t before = queues[i]->launches();
    s.fused(*queues[i]);
    const std::int64_t launches = queues[i]->launches() - before;
    const bool is_model = i + 1 == queues.size();
    std::printf("%12lld | %9.2f %8lld%s\n", static_cast<long long>(thresholds[i]), us, static_cast<long long>(launches),
                is_model ? "   <- the model's threshold" : "");
    record("sweep", n, 1, F, is_model ? "model" : "fixed", thresholds[i], us, launches);
    if (!is_model && us < best) best = us, best_t = thresholds[i];
  }
  std::printf("best fixed threshold %lld bytes: %.2f us\n", static_cast<long long>(best_t), best);
}

}  // namespace

int run(const std::string& csv, const std::string& only);

int main(int argc, char** argv) {
#if defined(KOKKOSDDT_BENCH_MPI)
  bench::MpiSession mpi(argc, argv);
#endif
  Kokkos::ScopeGuard guard(argc, argv);
  std::string csv = "fusion_bench.csv", only;
  bench::Options args("fusion_bench");
  args.flag("--quick", g_quick, "small sizes, few repetitions")
      .option("--csv", "FILE", csv, "write every measurement as CSV")
      .option("--only", "SECTION", only, "run this section only", {"phases", "halo", "sweep"})
      .option("--cell", "N,W,F", g_cell, "the halo grid's cell of this size, halo width and field count only")
      .option(
          "--contenders", "LIST", g_contenders,
          "the halo grid's contenders to time (fused, enqueue, sync, async, deep_copy, hand, fused_pack, unpack, sum, "
          "hand_pack, deep_copy_pack, plan, scatter; default: all; the others read -1)");
  if (const auto done = args.parse(argc, argv)) return *done;
  return run(csv, only);
}

int run(const std::string& csv, const std::string& only) {
  {
    Space space;
    std::printf("KokkosDDT %s fusion benchmark on %s (concurrency %d)\n", KOKKOSDDT_VERSION, Space::name(),
                space.concurrency());
    g_csv = std::fopen(csv.c_str(), "w");
    if (g_csv) std::fprintf(g_csv, "section,n,w,fields,contender,threshold,us,launches\n");
    // Correctness first: the fused exchange leaves the same bytes as per-region packs.
    {
      Setup s(16, 2, 2);
      KokkosDDT::FusionQueue<Space> q(space);
      s.fused(q);
      auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.buffer);
      Kokkos::deep_copy(s.buffer, 0);
      s.each(space, false);
      auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.buffer);
      if (std::memcmp(a.data(), b.data(), s.bytes) != 0) {
        std::printf("MISMATCH: fused and per-region packs differ\n");
        return 1;
      }
    }
    if (only.empty() || only == "phases") phases(space);
    if (only.empty() || only == "halo") halo_table(space);
    if (only.empty() || only == "sweep") threshold_sweep(space);
    if (g_csv) std::fclose(g_csv);
    std::printf("\nCSV: %s\n", csv.c_str());
  }
  return 0;
}
