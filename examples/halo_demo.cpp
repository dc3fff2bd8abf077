// SPDX-License-Identifier: BSD-3-Clause
// KokkosDDT demo: the ghost-cell exchange of a periodic 3-D field, driven by MPI-style datatypes.
//
// A field of (n+2)^3 doubles has one ghost layer. Each of its 26 neighbour regions (6 faces, 12 edges, 8 corners) is
// described once by a subarray datatype for the interior cells that are sent and one for the ghost cells that
// receive them. Every step packs all 26 regions into one contiguous buffer, exactly what an MPI halo exchange would
// send, and unpacks it into the ghost layer on the opposite side (periodic wrap-around, so the demo needs no MPI).
// The result is checked cell by cell, and timed against Kokkos::deep_copy of the same subviews.
//
//   halo_demo [n] [steps]      (defaults: 64, 20)

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Field = Kokkos::View<double***, Kokkos::LayoutRight, Space::memory_space>;

struct Region {
  std::array<int, 3> dir;          // -1, 0 or +1 per axis
  KokkosDDT::Datatype send, recv;  // interior cells next to side `dir`, ghost cells on side -dir
  std::int64_t offset = 0;         // where this region sits in the packed buffer
  std::array<std::pair<int, int>, 3> send_range, recv_range;  // the same regions as index ranges, for deep_copy
  const char* kind() const {
    const int zeros = (dir[0] == 0) + (dir[1] == 0) + (dir[2] == 0);
    return zeros == 2 ? "face" : zeros == 1 ? "edge" : "corner";
  }
};

// Per axis: interior cells next to side d, and the ghost cells on the opposite side that receive them.
std::pair<int, int> send_range(int d, int n) {
  return d < 0 ? std::pair{1, 2} : d > 0 ? std::pair{n, n + 1} : std::pair{1, n + 1};
}
std::pair<int, int> recv_range(int d, int n) {
  return d < 0 ? std::pair{n + 1, n + 2} : d > 0 ? std::pair{0, 1} : std::pair{1, n + 1};
}

std::vector<Region> make_regions(int n) {
  std::vector<Region> regions;
  const std::vector<std::int64_t> sizes(3, n + 2);
  std::int64_t offset = 0;
  for (int i = -1; i <= 1; ++i)
    for (int j = -1; j <= 1; ++j)
      for (int k = -1; k <= 1; ++k) {
        if (i == 0 && j == 0 && k == 0) continue;
        Region r;
        r.dir = {i, j, k};
        std::vector<std::int64_t> sub(3), from(3), to(3);
        for (int a = 0; a < 3; ++a) {
          r.send_range[a] = send_range(r.dir[a], n);
          r.recv_range[a] = recv_range(r.dir[a], n);
          sub[a] = r.send_range[a].second - r.send_range[a].first;
          from[a] = r.send_range[a].first;
          to[a] = r.recv_range[a].first;
        }
        r.send = KokkosDDT::subarray(sizes, sub, from, KokkosDDT::Order::C, KokkosDDT::primitive<double>()).commit();
        r.recv = KokkosDDT::subarray(sizes, sub, to, KokkosDDT::Order::C, KokkosDDT::primitive<double>()).commit();
        r.offset = offset;
        offset += r.send.size();
        regions.push_back(r);
      }
  return regions;
}

// One exchange: 26 packs into one buffer, then 26 unpacks, all enqueued on one instance, one fence.
void exchange(const Space& space, const Field& f, const std::vector<Region>& regions,
              const Kokkos::View<char*, Space::memory_space>& buffer) {
  char* buf = buffer.data();
  for (const Region& r : regions) KokkosDDT::pack(space, f.data(), 1, r.send, buf + r.offset, r.send.size());
  for (const Region& r : regions) KokkosDDT::unpack(space, buf + r.offset, r.recv.size(), f.data(), 1, r.recv);
  space.fence("halo_demo: exchange");
}

// The same exchange through a fusion queue: the 26 packs go out as one launch, the 26 unpacks (which read what the
// packs wrote, so the queue orders them after) as a second one.
void exchange_fused(KokkosDDT::FusionQueue<Space>& q, const Field& f, const std::vector<Region>& regions,
                    const Kokkos::View<char*, Space::memory_space>& buffer) {
  char* buf = buffer.data();
  for (const Region& r : regions) q.pack(f.data(), 1, r.send, buf + r.offset, r.send.size());
  for (const Region& r : regions) q.unpack(buf + r.offset, r.recv.size(), f.data(), 1, r.recv);
  q.wait_all();
}

// The same exchange the way a Kokkos code without datatypes does it: deep_copy each subview into a contiguous
// staging View (the message) and back out of it.
using Staging = Kokkos::View<double***, Kokkos::LayoutRight, Space::memory_space, Kokkos::MemoryUnmanaged>;
Staging staging(const Kokkos::View<char*, Space::memory_space>& buffer, const Region& r) {
  return Staging(reinterpret_cast<double*>(buffer.data() + r.offset), r.send_range[0].second - r.send_range[0].first,
                 r.send_range[1].second - r.send_range[1].first, r.send_range[2].second - r.send_range[2].first);
}

void exchange_deep_copy(const Space& space, const Field& f, const std::vector<Region>& regions,
                        const Kokkos::View<char*, Space::memory_space>& buffer) {
  for (const Region& r : regions)
    Kokkos::deep_copy(space, staging(buffer, r), Kokkos::subview(f, r.send_range[0], r.send_range[1], r.send_range[2]));
  for (const Region& r : regions)
    Kokkos::deep_copy(space, Kokkos::subview(f, r.recv_range[0], r.recv_range[1], r.recv_range[2]), staging(buffer, r));
  space.fence("halo_demo: deep_copy exchange");
}

double value(int i, int j, int k) { return 1e6 * i + 1e3 * j + k; }

// Every cell, ghosts included, must hold the value of its periodic image in the interior.
std::int64_t count_wrong(const Field& f, int n) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);
  auto wrap = [n](int x) { return x == 0 ? n : x == n + 1 ? 1 : x; };
  std::int64_t wrong = 0;
  for (int i = 0; i < n + 2; ++i)
    for (int j = 0; j < n + 2; ++j)
      for (int k = 0; k < n + 2; ++k) wrong += h(i, j, k) != value(wrap(i), wrap(j), wrap(k));
  return wrong;
}

void fill_interior(const Field& f, int n) {
  Kokkos::parallel_for(
      "halo_demo: fill", Kokkos::MDRangePolicy<Space, Kokkos::Rank<3>>({0, 0, 0}, {n + 2, n + 2, n + 2}),
      KOKKOS_LAMBDA(int i, int j, int k) {
        const bool inside = i >= 1 && i <= n && j >= 1 && j <= n && k >= 1 && k <= n;
        f(i, j, k) = inside ? 1e6 * i + 1e3 * j + k : -1.0;
      });
  Kokkos::fence();
}

template <class F>
double median_us(int steps, F&& f) {
  std::vector<double> t;
  for (int s = 0; s < steps; ++s) {
    Kokkos::Timer timer;
    f();
    t.push_back(timer.seconds() * 1e6);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 64;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 20;
  Space space;
  std::printf("KokkosDDT %s halo demo on %s (concurrency %d): periodic %d^3 field of doubles, ghost width 1\n\n",
              KOKKOSDDT_VERSION, Space::name(), space.concurrency(), n);

  const std::vector<Region> regions = make_regions(n);
  std::int64_t bytes = 0;
  for (const Region& r : regions) bytes += r.send.size();
  std::printf("26 regions, %lld bytes per exchange. Three of them, as built and as committed:\n",
              static_cast<long long>(bytes));
  for (int idx : {12, 1, 0}) {  // the k-face (fully strided), an edge, a corner
    const Region& r = regions[idx];
    std::printf("  %-6s (%2d,%2d,%2d) %6lld B  %s\n      committed: %s\n", r.kind(), r.dir[0], r.dir[1], r.dir[2],
                static_cast<long long>(r.send.size()), r.send.describe().c_str(), r.send.layout().c_str());
  }

  Field f("field", n + 2, n + 2, n + 2);
  Kokkos::View<char*, Space::memory_space> buffer("packed", bytes);
  fill_interior(f, n);
  exchange(space, f, regions, buffer);
  const std::int64_t wrong = count_wrong(f, n);
  std::printf("\nexchange with KokkosDDT: %lld of %lld cells wrong\n", static_cast<long long>(wrong),
              static_cast<long long>(f.size()));

  fill_interior(f, n);
  exchange_deep_copy(space, f, regions, buffer);
  const std::int64_t wrong_dc = count_wrong(f, n);

  KokkosDDT::FusionOptions fuse_all;
  fuse_all.threshold_bytes = std::int64_t(1) << 40;  // one launch per direction, whatever the size
  KokkosDDT::FusionQueue<Space> queue(space, fuse_all);
  fill_interior(f, n);
  exchange_fused(queue, f, regions, buffer);
  const std::int64_t wrong_fused = count_wrong(f, n);
  const long long fused_launches = queue.launches();  // of one exchange
  std::printf("exchange with the fusion queue: %lld cells wrong, %lld launches\n", static_cast<long long>(wrong_fused),
              fused_launches);

  const double t_ddt = median_us(steps, [&] { exchange(space, f, regions, buffer); });
  const double t_dc = median_us(steps, [&] { exchange_deep_copy(space, f, regions, buffer); });
  const double t_fused = median_us(steps, [&] { exchange_fused(queue, f, regions, buffer); });
  std::printf("\nmedian of %d steps (pack + unpack of all 26 regions, one fence):\n", steps);
  std::printf("  KokkosDDT pack/unpack   %10.1f us  (%6.2f GB/s moved)\n", t_ddt, 2.0 * bytes / t_ddt * 1e-3);
  std::printf("  KokkosDDT fusion queue  %10.1f us  (%lld fused launches)\n", t_fused, fused_launches);
  std::printf("  Kokkos::deep_copy       %10.1f us  (each subview to and from a staging View)\n", t_dc);
  const bool ok = wrong == 0 && wrong_dc == 0 && wrong_fused == 0;
  std::printf("\n%s\n", ok ? "OK: every ghost cell holds its periodic image" : "FAILED: wrong cells");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
