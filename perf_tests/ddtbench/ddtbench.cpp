// SPDX-License-Identifier: BSD-3-Clause
// The ddtbench micro-applications (ddtbench12) as a benchmark of KokkosDDT on real application datatypes.
//
//   ddtbench [--verify] [--quick] [--csv FILE] [--min-seconds S] [--test NAME]
//   mpiexec -n 2 ddtbench --pingpong [--quick] [--csv FILE]
//   ncu --metrics gpu__time_duration.sum ddtbench --device-rounds     (device time per kernel, see device_rounds())
//
// For every micro-app and problem size: the application's own pack/unpack loops, MPI_Pack/MPI_Unpack of the same
// datatype (built with MPI_Type_* calls) and KokkosDDT's pack/unpack on one host thread and on all of them; type
// creation + commit of both engines; and, in device builds, KokkosDDT on the device against a hand-written kernel
// per micro-app. Every case is verified first (see verify()); --verify stops there (the ctest entry, at the smallest
// size of each test). --pingpong runs the seed's ping-pong (Fig. 5) instead: see PingPong.cpp.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
#include <KokkosDDT_MPI.hpp>

#include "../support/Mpi.hpp"
#include "../support/OneThread.hpp"
#include "../support/Options.hpp"
#include "../support/Timing.hpp"
#include "MicroApp.hpp"
#include "MpiSide.hpp"
#include "PingPong.hpp"

namespace ddtbench {
namespace {

using Host = Kokkos::DefaultHostExecutionSpace;
constexpr bool kDevice = !std::is_same_v<ExecMem, Kokkos::HostSpace>;

struct Options {
  bool verify_only = false;
  bool quick = false;
  std::string csv = "ddtbench.csv";
  std::string only;  // a test name
  double min_seconds = 0.2;
};

// KokkosDDT's pack and unpack of a micro-app's types on `space`, complete when they return: fenced, unless the library
// guarantees that they return with every byte moved (KokkosDDT::completes_on_return: Serial, OpenMP), as MPI_Pack
// and MPI_Unpack do.
template <class Space>
void complete(const Space& space) {
  if constexpr (!KokkosDDT::completes_on_return<Space>) space.fence("ddtbench");
}
template <class Space>
void ddt_pack(const Space& space, const KokkosDDT::Datatype& t, const Origin& o, const Arrays& a, char* buf,
              std::int64_t bytes) {
  if (o.absolute)
    KokkosDDT::pack(space, KokkosDDT::bottom, o.count, t, buf, bytes);
  else
    KokkosDDT::pack(space, o.at(a), o.count, t, buf, bytes);
  complete(space);
}
template <class Space>
void ddt_unpack(const Space& space, const KokkosDDT::Datatype& t, const Origin& o, const Arrays& a, const char* buf,
                std::int64_t bytes) {
  if (o.absolute)
    KokkosDDT::unpack(space, buf, bytes, KokkosDDT::bottom, o.count, t);
  else
    KokkosDDT::unpack(space, buf, bytes, o.at(a), o.count, t);
  complete(space);
}

std::vector<char> state(const MicroApp& app, const Arrays& a) {
  std::vector<char> s;
  for (std::size_t i = 0; i < a.size(); ++i) s.insert(s.end(), a[i], a[i] + app.array_bytes[i]);
  return s;
}

// Copies of the host arrays in Exec's memory (device builds).
struct DeviceCopy {
  std::vector<Kokkos::View<char*, ExecMem>> views;
  Arrays arrays;
  DeviceCopy(const MicroApp& app, const Arrays& host) {
    for (std::size_t i = 0; i < host.size(); ++i) {
      views.emplace_back(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ddtbench device"), app.array_bytes[i]);
      arrays.push_back(views.back().data());
    }
    load(host);
  }
  void load(const Arrays& host) const {
    for (std::size_t i = 0; i < views.size(); ++i)
      Kokkos::deep_copy(views[i], Kokkos::View<const char*, Kokkos::HostSpace>(host[i], views[i].extent(0)));
  }
  void store(const Arrays& host) const {
    for (std::size_t i = 0; i < views.size(); ++i)
      Kokkos::deep_copy(Kokkos::View<char*, Kokkos::HostSpace>(host[i], views[i].extent(0)), views[i]);
  }
};

// The checks, each from freshly filled arrays:
//   1. KokkosDDT's pack (host) = MPI_Pack's bytes, and = the manual loop's where the wire orders agree; nothing written
//      past the packed bytes (guard bytes);
//   2. after pack + unpack (send type, then receive type) the arrays equal those after the manual loops' pack +
//      unpack, for KokkosDDT on the host, MPI_Pack/MPI_Unpack, and (device builds) KokkosDDT and the hand kernels on
//      the device; stray writes show up there, since every array element starts out unique.
bool verify(MicroApp& app, const Host& host) {
  const Arrays a = app.host_arrays();
  const std::int64_t n = app.packed_bytes;
  constexpr std::int64_t guard = 64;
  std::vector<char> manual(n), ours(n + guard, char(0xA5)), mpi(n);
  bool ok = true;
  auto check = [&](bool c, const char* what) {
    if (!c) std::printf("  FAILED %s %s: %s\n", app.test.c_str(), app.size.c_str(), what);
    ok = ok && c;
  };
  app.fill(a);
  const std::vector<char> initial = state(app, a);
  app.manual_pack(a, manual.data());
  app.manual_unpack(a, manual.data());
  const std::vector<char> expected = state(app, a);

  auto restore = [&] {
    std::size_t at = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      std::memcpy(a[i], initial.data() + at, app.array_bytes[i]);
      at += app.array_bytes[i];
    }
  };
  restore();
  const KokkosDDT::Datatype send = app.send_ddt(a), recv = app.recv_ddt(a);
  check(send.size() * app.send_at.count == n && recv.size() * app.recv_at.count == n, "type sizes");
  const MpiSide msend(app.send_mpi(a), app.send_at, a), mrecv(app.recv_mpi(a), app.recv_at, a);
  ddt_pack(host, send, app.send_at, a, ours.data(), n);
  msend.pack(mpi.data(), n);
  check(std::memcmp(ours.data(), mpi.data(), n) == 0, "pack != MPI_Pack");
  if (app.same_wire) check(std::memcmp(ours.data(), manual.data(), n) == 0, "pack != manual pack");
  bool guarded = true;
  for (std::int64_t i = n; i < n + guard; ++i) guarded = guarded && ours[i] == char(0xA5);
  check(guarded, "pack wrote past the packed bytes");
  ddt_unpack(host, recv, app.recv_at, a, ours.data(), n);
  check(state(app, a) == expected, "pack + unpack != manual pack + unpack");
  restore();
  msend.pack(mpi.data(), n);
  mrecv.unpack(mpi.data(), n);
  check(state(app, a) == expected, "MPI_Pack + MPI_Unpack != manual pack + unpack");

  // Exec: KokkosDDT and the hand kernels (on host builds Exec is the host space: the same checks on its threads).
  restore();
  DeviceCopy d(app, a);
  const KokkosDDT::Datatype dsend = app.send_ddt(d.arrays), drecv = app.recv_ddt(d.arrays);
  Kokkos::View<char*, ExecMem> dbuf("ddtbench packed", n);
  Exec space;
  ddt_pack(space, dsend, app.send_at, d.arrays, dbuf.data(), n);
  std::vector<char> back(n);
  Kokkos::deep_copy(Kokkos::View<char*, Kokkos::HostSpace>(back.data(), n), dbuf);
  check(back == std::vector<char>(mpi.begin(), mpi.end()), "pack on Exec != MPI_Pack");
  ddt_unpack(space, drecv, app.recv_at, d.arrays, dbuf.data(), n);
  d.store(a);
  check(state(app, a) == expected, "pack + unpack on Exec != manual");
  restore();
  d.load(a);
  app.hand_pack(space, d.arrays, dbuf.data());
  space.fence();
  Kokkos::deep_copy(Kokkos::View<char*, Kokkos::HostSpace>(back.data(), n), dbuf);
  check(back == manual, "hand kernel pack != manual pack");
  app.hand_unpack(space, d.arrays, dbuf.data());
  space.fence();
  d.store(a);
  check(state(app, a) == expected, "hand kernel pack + unpack != manual");
  return ok;
}

struct HostTimes {
  double create_ddt, create_mpi;               // send type creation + commit (+ free)
  double manual[2], mpi[2], ddt1[2], ddtn[2];  // [0] pack, [1] unpack
};

HostTimes time_host(MicroApp& app, const Host& one, const Host& all, double min_seconds) {
  const Arrays a = app.host_arrays();
  const std::int64_t n = app.packed_bytes;
  std::vector<char> buf(n);
  HostTimes t{};
  const std::vector<double> c = bench::interleaved_medians_us({[&] { (void)app.send_ddt(a); },
                                                               [&] {
                                                                 MPI_Datatype m = app.send_mpi(a);
                                                                 MPI_Type_free(&m);
                                                               }},
                                                              min_seconds / 2, 100);
  t.create_ddt = c[0];
  t.create_mpi = c[1];
  const KokkosDDT::Datatype send = app.send_ddt(a), recv = app.recv_ddt(a);
  const MpiSide msend(app.send_mpi(a), app.send_at, a), mrecv(app.recv_mpi(a), app.recv_at, a);
  app.manual_pack(a, buf.data());
  const std::vector<double> p = bench::interleaved_medians_us(
      {[&] { app.manual_pack(a, buf.data()); }, [&] { msend.pack(buf.data(), n); },
       [&] { ddt_pack(one, send, app.send_at, a, buf.data(), n); }, [&] { app.manual_unpack(a, buf.data()); },
       [&] { mrecv.unpack(buf.data(), n); }, [&] { ddt_unpack(one, recv, app.recv_at, a, buf.data(), n); }},
      min_seconds);
  // All threads apart (their idle OpenMP workers spin for a while after each parallel region).
  const std::vector<double> q =
      bench::interleaved_medians_us({[&] { ddt_pack(all, send, app.send_at, a, buf.data(), n); },
                                     [&] { ddt_unpack(all, recv, app.recv_at, a, buf.data(), n); }},
                                    min_seconds / 2);
  for (int d = 0; d < 2; ++d) {
    t.manual[d] = p[3 * d];
    t.mpi[d] = p[3 * d + 1];
    t.ddt1[d] = p[3 * d + 2];
    t.ddtn[d] = q[d];
  }
  return t;
}

struct DeviceTimes {
  double ddt[2], hand[2];            // wall time of one call + fence: [0] pack, [1] unpack
  double ddt_rate[2], hand_rate[2];  // per call, 100 back-to-back calls and one fence (device time where a call's
                                     // launch is shorter than its kernel)
};

DeviceTimes time_device(MicroApp& app, double min_seconds) {
  const Arrays h = app.host_arrays();
  DeviceCopy d(app, h);
  const std::int64_t n = app.packed_bytes;
  Kokkos::View<char*, ExecMem> buf("ddtbench packed", n);
  const KokkosDDT::Datatype send = app.send_ddt(d.arrays), recv = app.recv_ddt(d.arrays);
  Exec space;
  auto pk = [&] {
    if (app.send_at.absolute)
      KokkosDDT::pack(space, KokkosDDT::bottom, app.send_at.count, send, buf.data(), n);
    else
      KokkosDDT::pack(space, app.send_at.at(d.arrays), app.send_at.count, send, buf.data(), n);
  };
  auto up = [&] {
    if (app.recv_at.absolute)
      KokkosDDT::unpack(space, buf.data(), n, KokkosDDT::bottom, app.recv_at.count, recv);
    else
      KokkosDDT::unpack(space, buf.data(), n, app.recv_at.at(d.arrays), app.recv_at.count, recv);
  };
  auto hp = [&] { app.hand_pack(space, d.arrays, buf.data()); };
  auto hu = [&] { app.hand_unpack(space, d.arrays, buf.data()); };
  auto fenced = [&](auto f) {
    return [&space, f] {
      f();
      space.fence("ddtbench");
    };
  };
  auto burst = [&](auto f) {
    return [&space, f] {
      for (int i = 0; i < 100; ++i) f();
      space.fence("ddtbench");
    };
  };
  const std::vector<double> w =
      bench::interleaved_medians_us({fenced(pk), fenced(hp), fenced(up), fenced(hu)}, min_seconds);
  const std::vector<double> r =
      bench::interleaved_medians_us({burst(pk), burst(hp), burst(up), burst(hu)}, min_seconds, 30);
  DeviceTimes t{};
  for (int k = 0; k < 2; ++k) {
    t.ddt[k] = w[2 * k];
    t.hand[k] = w[2 * k + 1];
    t.ddt_rate[k] = r[2 * k] / 100;
    t.hand_rate[k] = r[2 * k + 1] / 100;
  }
  return t;
}

// For a kernel profiler (ncu --metrics gpu__time_duration.sum): at each test's default size, a warm-up round and a
// measured round of [KokkosDDT pack, hand pack, KokkosDDT unpack, hand unpack], one kernel each, on the device; the
// profiler's kernel list then gives device time per kernel in this order. Prints the test order.
int device_rounds(const Options& o) {
  AppList apps;
  add_face_apps(apps, false);
  add_unstructured_apps(apps, false);
  add_transpose_apps(apps, false);
  for (auto& app : apps) {
    if (!app->is_default || (!o.only.empty() && app->test != o.only)) continue;
    const Arrays h = app->host_arrays();
    app->fill(h);
    DeviceCopy d(*app, h);
    const std::int64_t n = app->packed_bytes;
    Kokkos::View<char*, ExecMem> buf("ddtbench packed", n);
    const KokkosDDT::Datatype send = app->send_ddt(d.arrays), recv = app->recv_ddt(d.arrays);
    Exec space;
    for (int round = 0; round < 2; ++round) {
      ddt_pack(space, send, app->send_at, d.arrays, buf.data(), n);
      app->hand_pack(space, d.arrays, buf.data());
      space.fence();
      ddt_unpack(space, recv, app->recv_at, d.arrays, buf.data(), n);
      app->hand_unpack(space, d.arrays, buf.data());
      space.fence();
    }
    std::printf("device rounds: %s %s %lld\n", app->test.c_str(), app->size.c_str(),
                static_cast<long long>(app->packed_bytes));
  }
  return 0;
}

int run(const Options& o) {
  AppList apps;
  add_face_apps(apps, o.verify_only || o.quick);
  add_unstructured_apps(apps, o.verify_only || o.quick);
  add_transpose_apps(apps, o.verify_only || o.quick);

  Host all;
  const int threads = all.concurrency();
  Host one = bench::one_thread(all);
  std::printf("KokkosDDT %s ddtbench micro-apps: host %s (1 and %d threads)%s%s; MPI_Pack from the linked MPI\n",
              KOKKOSDDT_VERSION, Host::name(), threads, kDevice ? ", device " : "", kDevice ? Exec::name() : "");

  bool all_ok = true;
  int verified = 0;
  for (auto& app : apps) {
    if (!o.only.empty() && app->test != o.only) continue;
    const bool ok = verify(*app, all);
    all_ok = all_ok && ok;
    ++verified;
  }
  std::printf("verified %d micro-app cases: %s\n", verified, all_ok ? "all correct" : "FAILURES (see above)");
  if (o.verify_only || !all_ok) return all_ok ? 0 : 1;

  FILE* csv = std::fopen(o.csv.c_str(), "w");
  if (!csv) {
    std::fprintf(stderr, "cannot write %s\n", o.csv.c_str());
    return 1;
  }
  std::fprintf(csv,
               "test,size,default,packed_bytes,create_ddt_us,create_mpi_us,"
               "pack_manual_us,pack_mpi_us,pack_ddt_1t_us,pack_ddt_%dt_us,"
               "unpack_manual_us,unpack_mpi_us,unpack_ddt_1t_us,unpack_ddt_%dt_us,threads",
               threads, threads);
  if (kDevice)
    std::fprintf(csv,
                 ",dev_pack_ddt_us,dev_pack_hand_us,dev_unpack_ddt_us,dev_unpack_hand_us,"
                 "dev_pack_ddt_rate_us,dev_pack_hand_rate_us,dev_unpack_ddt_rate_us,dev_unpack_hand_rate_us");
  std::fprintf(csv, "\n");
  std::printf("\n%-14s %-9s %9s | %8s %8s | %-27s | %-27s | %s\n", "test", "size", "bytes", "create", "(MPI)",
              "pack us: manual MPI 1T nT", "unpack us: manual MPI 1T nT", "1T vs MPI p/u, vs manual p/u");
  for (auto& app : apps) {
    if (!o.only.empty() && app->test != o.only) continue;
    const HostTimes t = time_host(*app, one, all, o.min_seconds);
    std::printf(
        "%-14s %-9s %9lld | %8.1f %8.1f | %6.2f %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f %6.2f | %4.2f %4.2f %4.2f "
        "%4.2f\n",
        app->test.c_str(), app->size.c_str(), static_cast<long long>(app->packed_bytes), t.create_ddt, t.create_mpi,
        t.manual[0], t.mpi[0], t.ddt1[0], t.ddtn[0], t.manual[1], t.mpi[1], t.ddt1[1], t.ddtn[1], t.mpi[0] / t.ddt1[0],
        t.mpi[1] / t.ddt1[1], t.manual[0] / t.ddt1[0], t.manual[1] / t.ddt1[1]);
    std::fprintf(csv, "%s,%s,%d,%lld,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d", app->test.c_str(),
                 app->size.c_str(), app->is_default ? 1 : 0, static_cast<long long>(app->packed_bytes), t.create_ddt,
                 t.create_mpi, t.manual[0], t.mpi[0], t.ddt1[0], t.ddtn[0], t.manual[1], t.mpi[1], t.ddt1[1], t.ddtn[1],
                 threads);
    if constexpr (kDevice) {
      const DeviceTimes dt = time_device(*app, o.min_seconds);
      std::printf(
          "%-14s %-9s %9s   device us: pack %.2f (hand %.2f) unpack %.2f (hand %.2f); back-to-back pack %.2f "
          "(hand %.2f) unpack %.2f (hand %.2f)\n",
          "", "", "", dt.ddt[0], dt.hand[0], dt.ddt[1], dt.hand[1], dt.ddt_rate[0], dt.hand_rate[0], dt.ddt_rate[1],
          dt.hand_rate[1]);
      std::fprintf(csv, ",%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f", dt.ddt[0], dt.hand[0], dt.ddt[1], dt.hand[1],
                   dt.ddt_rate[0], dt.hand_rate[0], dt.ddt_rate[1], dt.hand_rate[1]);
    }
    std::fprintf(csv, "\n");
    std::fflush(stdout);
  }
  std::fclose(csv);
  std::printf("\ntimes are medians in us; ratios > 1: KokkosDDT faster. CSV: %s\n", o.csv.c_str());
  return 0;
}

}  // namespace
}  // namespace ddtbench

int main(int argc, char* argv[]) {
  bench::MpiSession mpi(argc, argv);
  Kokkos::ScopeGuard guard(argc, argv);
  int rank = 0;  // (--pingpong runs under mpiexec: rank 0 alone reports a bad command line)
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  ddtbench::Options o;
  bool pingpong_only = false, device_rounds = false;
  bench::Options args("ddtbench");
  const auto quick = [&] { o.quick = true, o.min_seconds = 0.0; };
  args.flag("--verify", o.verify_only, "verify every micro-app at its smallest size, then stop")
      .flag("--quick", quick, "the smallest size of each test, --min-seconds 0")
      .flag("--pingpong", pingpong_only, "the seed's ping-pong instead (mpiexec -n 2)")
      .flag("--device-rounds", device_rounds, "a warm-up and a measured round of kernels per test, for ncu")
      .option("--csv", "FILE", o.csv, "write one row per case as CSV")
      .option("--test", "NAME", o.only, "only this test (WRF_x_vec, FFT, ...)")
      .option("--min-seconds", "S", o.min_seconds, "timing per case (contenders in turn)");
  if (const auto done = args.parse(argc, argv, rank == 0)) return *done;
  return pingpong_only   ? ddtbench::pingpong(o.quick, o.csv, o.min_seconds)
         : device_rounds ? ddtbench::device_rounds(o)
                         : ddtbench::run(o);
}
