// SPDX-License-Identifier: BSD-3-Clause
// The seed's ping-pong (ddtbench12 Fig. 4): rank 0 packs, sends, receives the reply and unpacks; rank 1 receives,
// unpacks, packs and sends back. Per micro-app, rank 0 times the round trip of
//   reference  the same bytes, contiguous (t_net)
//   manual     the application's loops + contiguous send/receive
//   MPI DDT    MPI_Send/MPI_Recv of the MPI datatype (the MPI's engine packs inside)
//   MPI_Pack   MPI_Pack + send + receive + MPI_Unpack
//   KokkosDDT  mpi::isend/irecv with the KokkosDDT datatype (KokkosDDT::bottom for absolute addresses)
// and reports the packing overhead (t_pp - t_net) / t_pp (the seed's Fig. 5) on one host thread.
#include "PingPong.hpp"

#include <mpi.h>

#include <cstdio>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
#include <KokkosDDT_MPI.hpp>

#include "../support/OneThread.hpp"
#include "../support/Timing.hpp"
#include "MicroApp.hpp"
#include "MpiSide.hpp"

namespace ddtbench {
namespace {

using Host = Kokkos::DefaultHostExecutionSpace;

// Median round-trip time (us, rank 0) of `reps` round trips of `trip(rank)`, after warm-up and a barrier.
template <class F>
double round_trips(MPI_Comm comm, int rank, int reps, const F& trip) {
  for (int i = 0; i < 3; ++i) trip(rank);
  MPI_Barrier(comm);
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    Kokkos::Timer timer;
    trip(rank);
    t.push_back(timer.seconds() * 1e6);
  }
  return bench::median(t);
}

}  // namespace

int pingpong(bool quick, const std::string& csv_name, double min_seconds) {
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (world_size < 2) {
    if (world_rank == 0) std::fprintf(stderr, "--pingpong needs 2 ranks (mpiexec -n 2)\n");
    return 2;
  }
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank < 2 ? 0 : MPI_UNDEFINED, world_rank, &comm);
  if (comm == MPI_COMM_NULL) return 0;
  const int rank = world_rank, peer = 1 - rank;
  const int reps = quick ? 3 : std::max(20, static_cast<int>(min_seconds * 100));
  AppList apps;
  add_face_apps(apps, quick);
  add_unstructured_apps(apps, quick);
  add_transpose_apps(apps, quick);

  Host all;
  const Host one = bench::one_thread(all);
  FILE* csv = rank == 0 ? std::fopen(csv_name.c_str(), "w") : nullptr;
  if (rank == 0) {
    if (!csv) std::fprintf(stderr, "cannot write %s\n", csv_name.c_str());
    std::printf(
        "ddtbench ping-pong, ranks 0 and 1, one host thread each; round trips in us (overhead = (t - t_net) / t)"
        "\n%-14s %-9s %9s | %9s | %9s %9s %9s %9s | %5s %5s %5s %5s\n",
        "test", "size", "bytes", "t_net", "manual", "MPI DDT", "MPI_Pack", "KokkosDDT", "ovh", "ovh", "ovh", "ovh");
    if (csv) std::fprintf(csv, "test,size,packed_bytes,net_us,manual_us,mpi_ddt_us,mpi_pack_us,kokkosddt_us\n");
  }
  for (auto& app : apps) {
    const Arrays a = app->host_arrays();
    app->fill(a);
    const std::int64_t n = app->packed_bytes;
    const int bytes = static_cast<int>(n);
    std::vector<char> buf(n);
    const KokkosDDT::Datatype send = app->send_ddt(a), recv = app->recv_ddt(a);
    const MpiSide msend(app->send_mpi(a), app->send_at, a), mrecv(app->recv_mpi(a), app->recv_at, a);
    char* sat = app->send_at.at(a);  // KokkosDDT's origins (null: KokkosDDT::bottom)
    char* rat = app->recv_at.at(a);
    const int scount = static_cast<int>(app->send_at.count), rcount = static_cast<int>(app->recv_at.count);

    auto contiguous = [&](int r) {
      if (r == 0) {
        MPI_Send(buf.data(), bytes, MPI_BYTE, peer, 0, comm);
        MPI_Recv(buf.data(), bytes, MPI_BYTE, peer, 0, comm, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buf.data(), bytes, MPI_BYTE, peer, 0, comm, MPI_STATUS_IGNORE);
        MPI_Send(buf.data(), bytes, MPI_BYTE, peer, 0, comm);
      }
    };
    // Both sides of a round trip with explicit pack / unpack functions.
    auto explicit_trip = [&](auto pack, auto unpack) {
      return [&, pack, unpack](int r) {
        if (r == 0) {
          pack();
          MPI_Send(buf.data(), bytes, MPI_BYTE, peer, 0, comm);
          MPI_Recv(buf.data(), bytes, MPI_BYTE, peer, 0, comm, MPI_STATUS_IGNORE);
          unpack();
        } else {
          MPI_Recv(buf.data(), bytes, MPI_BYTE, peer, 0, comm, MPI_STATUS_IGNORE);
          unpack();
          pack();
          MPI_Send(buf.data(), bytes, MPI_BYTE, peer, 0, comm);
        }
      };
    };
    auto manual = explicit_trip([&] { app->manual_pack(a, buf.data()); }, [&] { app->manual_unpack(a, buf.data()); });
    auto mpi_ddt = [&](int r) {
      if (r == 0) {
        MPI_Send(msend.origin, msend.count, msend.use(), peer, 0, comm);
        MPI_Recv(mrecv.origin, mrecv.count, mrecv.use(), peer, 0, comm, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(mrecv.origin, mrecv.count, mrecv.use(), peer, 0, comm, MPI_STATUS_IGNORE);
        MPI_Send(msend.origin, msend.count, msend.use(), peer, 0, comm);
      }
    };
    auto mpi_pack = explicit_trip([&] { msend.pack(buf.data(), n); }, [&] { mrecv.unpack(buf.data(), n); });
    // KokkosDDT through the MPI layer (types with absolute addresses from KokkosDDT::bottom).
    auto send_ddt = [&] {
      return app->send_at.absolute ? KokkosDDT::mpi::isend(one, KokkosDDT::bottom, scount, send, peer, 0, comm)
                                   : KokkosDDT::mpi::isend(one, sat, scount, send, peer, 0, comm);
    };
    auto recv_ddt = [&] {
      return app->recv_at.absolute ? KokkosDDT::mpi::irecv(one, KokkosDDT::bottom, rcount, recv, peer, 0, comm)
                                   : KokkosDDT::mpi::irecv(one, rat, rcount, recv, peer, 0, comm);
    };
    auto ddt_layer = [&](int r) {
      if (r == 0) {
        send_ddt().wait();
        recv_ddt().wait();
      } else {
        recv_ddt().wait();
        send_ddt().wait();
      }
    };
    const double net = round_trips(comm, rank, reps, contiguous);
    const double tm = round_trips(comm, rank, reps, manual);
    const double td = round_trips(comm, rank, reps, mpi_ddt);
    const double tp = round_trips(comm, rank, reps, mpi_pack);
    const double tk = round_trips(comm, rank, reps, ddt_layer);
    if (rank == 0) {
      auto ovh = [net](double t) { return t > net ? (t - net) / t : 0.0; };
      std::printf("%-14s %-9s %9lld | %9.1f | %9.1f %9.1f %9.1f %9.1f | %5.2f %5.2f %5.2f %5.2f\n", app->test.c_str(),
                  app->size.c_str(), static_cast<long long>(n), net, tm, td, tp, tk, ovh(tm), ovh(td), ovh(tp),
                  ovh(tk));
      if (csv)
        std::fprintf(csv, "%s,%s,%lld,%.3f,%.3f,%.3f,%.3f,%.3f\n", app->test.c_str(), app->size.c_str(),
                     static_cast<long long>(n), net, tm, td, tp, tk);
      std::fflush(stdout);
    }
  }
  if (csv) std::fclose(csv);
  MPI_Comm_free(&comm);
  return 0;
}

}  // namespace ddtbench
