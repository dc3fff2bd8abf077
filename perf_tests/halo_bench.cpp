// SPDX-License-Identifier: BSD-3-Clause
// Halo exchange per step, three ways, on a 3-D periodic process grid (run under mpiexec; 1 rank exchanges with
// itself): F double fields of n^3 interior cells with one ghost layer, faces + edges + corners (26 neighbours).
//
//   plan        KokkosDDT::mpi::HaloPlan: start() + wait() (one pack launch, one unpack launch, persistent requests)
//   hand        a hand-fused kernel: one launch packs every region of every field (a table of 26 boxes: a team per box
//               and field), MPI_Isend/Irecv per neighbour (to itself: a copy), one launch unpacks
//   per_region  KokkosDDT::pack / unpack of each neighbour's struct type one by one, MPI_Isend/Irecv per neighbour
//   deep_copy   Kokkos::deep_copy of each field's box into contiguous staging and back (what Kokkos Comm does)
//   mpi_datatype  MPI_Isend/Irecv of MPI_BOTTOM with each neighbour's struct type (to_mpi), where MPI reads the fields
// and, in CUDA builds with NCCL (a second table):
//   hand_nccl   the hand-fused pack kernel, ncclSend/ncclRecv per neighbour in one group, the hand unpack kernel
//   nccl        NCCL's own send/recv of the same bytes, one group (no pack, no unpack): the floor of both
//   plan_mpi    the plan over MPI (the first table's plan column)
// and, on GPUs, a third table: the plan over each transport of the build but MPI (mpi::transports(): "auto", the
// default, with peer routes within a node and NCCL between nodes, where KOKKOSDDT_NODE_SIZE=k makes groups of k
// ranks nodes of their own; "nccl"; "peer", ...; a transport that refuses this run, as NCCL refuses ranks that share
// a GPU, says why and has no rows):
//   plan_<t>    the plan over transport t: start, wait and a fence (a whole step, like the first table's exchange())
//   <t>_start   the host's time in the plan's start() (the step's calls enqueued: what the host adds to the step)
//   floor       one empty launch plus the bytes a rank sends per step at the peer-copy bandwidth (this GPU to the next
//               rank's, or a D2D copy when they share one), both measured in this run
//   hand_nccl   from the second table, where there is one
// Run with KOKKOSDDT_HALO_SELF_MESSAGES=1 at one rank to send the plan's messages to itself through the transport
// (the hand contenders' messages always go through it), so that one GPU measures every path.
//
// Every contender's ghost cells are compared with the plan's before timing. Median over the steps of the slowest
// rank's time. Writes CSV: ranks,space,n,fields,contender,us.
//
//   mpiexec -n 4 halo_bench [--quick] [--csv halo.csv]
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT_MPI.hpp>
#include <mpi.h>
#if KOKKOSDDT_HAVE_NCCL && defined(KOKKOS_ENABLE_CUDA)
#include <nccl.h>
#define HALO_BENCH_NCCL 1
#else
#define HALO_BENCH_NCCL 0
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#define HALO_BENCH_GPU 1
#else
#define HALO_BENCH_GPU 0
#endif

#include "support/Gpus.hpp"
#include "support/Mpi.hpp"
#include "support/Options.hpp"
#include "support/Timing.hpp"

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using M = Space::memory_space;
using Field = Kokkos::View<double***, Kokkos::LayoutRight, M>;

struct Box {
  int lo[3], hi[3];
  long long first;  // cells of the earlier boxes (prefix)
};

struct Neighbour {
  int peer, dir, opp;
  Box send, recv;
  KokkosDDT::Datatype send_type, recv_type;
};

// One launch copies every box of every field between the fields and a packed buffer: the kernel an application would
// fuse for its halo. A team per (box, field), its threads over the box's rows, vector lanes along a row; the buffer
// holds box after box, and within a box field after field.
#if HALO_BENCH_GPU
// One empty launch and its fence, median of 200 (microseconds).
double bench_empty_launch_us(const Space& space) {
  std::vector<double> t;
  for (int i = 0; i < 200; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    Kokkos::parallel_for("empty", Kokkos::RangePolicy<Space>(space, 0, 1), KOKKOS_LAMBDA(int){});
    space.fence();
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  return bench::median(t);
}

// The bandwidth (GB/s) of an 8 MiB copy from this rank's GPU to the next rank's (the same GPU: a D2D copy), the
// slowest rank's.
double bench_peer_copy_gbs(MPI_Comm comm) {
  int rank = 0, size = 1, me = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  cudaGetDevice(&me);
  std::vector<int> devices(size);
  MPI_Allgather(&me, 1, MPI_INT, devices.data(), 1, MPI_INT, comm);
  const int next = devices[(rank + 1) % size];
  const std::size_t bytes = std::size_t(8) << 20;
  void *src = nullptr, *dst = nullptr;
  cudaMalloc(&src, bytes);
  if (next != me) {
    cudaSetDevice(next);
    cudaMalloc(&dst, bytes);
    cudaSetDevice(me);
    cudaDeviceEnablePeerAccess(next, 0);
    cudaGetLastError();  // (already enabled)
  } else {
    cudaMalloc(&dst, bytes);
  }
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  std::vector<double> t;
  for (int i = 0; i < 25; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    cudaMemcpyPeerAsync(dst, next, src, me, bytes, stream);
    cudaStreamSynchronize(stream);
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  cudaStreamDestroy(stream);
  cudaFree(src);
  if (next != me) cudaSetDevice(next);
  cudaFree(dst);
  cudaSetDevice(me);
  double gbs = static_cast<double>(bytes) / bench::median(t) / 1e9;
  MPI_Allreduce(MPI_IN_PLACE, &gbs, 1, MPI_DOUBLE, MPI_MIN, comm);
  return gbs;
}
#endif

void hand_copy(const Space& space, const std::vector<Field>& fields, const Kokkos::View<Box*, M>& boxes, int nboxes,
               double* buf, bool pack) {
  const int nf = static_cast<int>(fields.size());
  Field f[4];  // (at most 4 fields, captured by value)
  for (int i = 0; i < nf; ++i) f[i] = fields[i];
  using Policy = Kokkos::TeamPolicy<Space>;
  Kokkos::parallel_for(
      "halo_bench::hand", Policy(space, nboxes * nf, Kokkos::AUTO), KOKKOS_LAMBDA(const Policy::member_type& team) {
        const int b = team.league_rank() / nf, fi = team.league_rank() % nf;
        const Box x = boxes(b);
        const int ni = x.hi[0] - x.lo[0], nj = x.hi[1] - x.lo[1], nk = x.hi[2] - x.lo[2];
        const long long base = x.first * nf + static_cast<long long>(fi) * ni * nj * nk;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ni * nj), [&](int row) {
          const int i = x.lo[0] + row / nj, j = x.lo[1] + row % nj;
          const long long at = base + static_cast<long long>(row) * nk;
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, nk), [&](int k) {
            if (pack)
              buf[at + k] = f[fi](i, j, x.lo[2] + k);
            else
              f[fi](i, j, x.lo[2] + k) = buf[at + k];
          });
        });
      });
}

}  // namespace

int main(int argc, char* argv[]) {
  bench::MpiSession mpi(argc, argv);
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bool quick = false;
    std::string csv = "halo_bench.csv";
    bench::Options args("halo_bench");
    args.flag("--quick", quick, "n = 8, one field, 5 steps").option("--csv", "FILE", csv, "write the rows as CSV");
    if (const auto done = args.parse(argc, argv, rank == 0)) return *done;
    std::array<int, 3> dims{}, periods{1, 1, 1}, coords{};
    MPI_Dims_create(size, 3, dims.data());
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims.data(), periods.data(), 0, &cart);
    MPI_Cart_coords(cart, rank, 3, coords.data());
    FILE* out = rank == 0 ? std::fopen(csv.c_str(), "w") : nullptr;
    if (out) std::fprintf(out, "ranks,space,n,fields,contender,us\n");
    if (rank == 0)
      std::printf("halo_bench: %d ranks (grid %d x %d x %d, periodic), %s, 26 neighbours, one ghost layer\n", size,
                  dims[0], dims[1], dims[2], Space::name());
    if (rank == 0)
      std::printf("%6s %6s | %10s %10s %10s %10s %10s | %8s %8s %8s  (times in us; ratios: contender / plan)\n", "n",
                  "fields", "plan", "hand", "per_region", "deep_copy", "mpi_type", "hand", "dcopy", "mpi");
    const std::vector<int> sizes = quick ? std::vector<int>{8} : std::vector<int>{8, 16, 32, 64, 128};
    const std::vector<int> field_counts = quick ? std::vector<int>{1} : std::vector<int>{1, 4};
    Space space;
#if HALO_BENCH_NCCL
    // NCCL refuses two ranks on one GPU: the NCCL table needs one GPU per rank.
    const std::string sharing = std::is_same_v<Space, Kokkos::Cuda> ? bench::gpu_sharing(cart) : "not a CUDA space";
    const bool with_nccl = sharing.empty();
    if (!with_nccl && rank == 0) std::printf("(no NCCL table: %s, which NCCL refuses)\n", sharing.c_str());
    ncclComm_t nccl = nullptr;
    if (with_nccl) {
      ncclUniqueId id{};
      if (rank == 0) ncclGetUniqueId(&id);
      MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, cart);
      if (ncclCommInitRank(&nccl, size, id, rank) != ncclSuccess) std::fprintf(stderr, "ncclCommInitRank failed\n");
    }
    std::vector<std::array<double, 3>> nccl_rows;  // n, fields -> hand_nccl, nccl, plan_mpi
    std::vector<std::array<int, 2>> nccl_keys;
#endif
#if HALO_BENCH_GPU
    const double empty_us = bench_empty_launch_us(space), peer_gbs = bench_peer_copy_gbs(cart);
    struct TransportRow {
      int n, nf;
      std::string transport;
      double plan, start, floor, plan_mpi, hand_nccl;  // (hand_nccl -1: none)
    };
    std::vector<TransportRow> transport_rows;
    std::vector<std::string> refused;  // transports that refused this run (said once)
#endif
    for (int n : sizes)
      for (int nf : field_counts) {
        const int e = n + 2;
        std::vector<Field> fields;
        for (int f = 0; f < nf; ++f) fields.emplace_back("field", e, e, e);
        // Neighbours, boxes and types (the same regions the plan builds).
        std::vector<Neighbour> nb;
        for (int index = 0; index < 27; ++index) {
          const int d[3] = {index % 3 - 1, index / 3 % 3 - 1, index / 9 - 1};
          if (!d[0] && !d[1] && !d[2]) continue;
          Neighbour x;
          x.dir = index;
          x.opp = 26 - index;
          int c[3];
          for (int k = 0; k < 3; ++k) c[k] = (coords[k] + d[k] + dims[k]) % dims[k];
          MPI_Cart_rank(cart, c, &x.peer);
          for (int k = 0; k < 3; ++k) {
            x.send.lo[k] = d[k] < 0 ? 1 : d[k] > 0 ? n : 1;
            x.send.hi[k] = d[k] < 0 ? 2 : d[k] > 0 ? n + 1 : n + 1;
            x.recv.lo[k] = d[k] < 0 ? 0 : d[k] > 0 ? n + 1 : 1;
            x.recv.hi[k] = d[k] < 0 ? 1 : d[k] > 0 ? n + 2 : n + 1;
          }
          std::vector<KokkosDDT::Datatype> st, rt;
          std::vector<std::int64_t> ones(nf, 1), at;
          for (const Field& f : fields) {
            at.push_back(static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(f.data())));
            std::vector<std::int64_t> sz{e, e, e}, ss, sst, rs, rst;
            for (int k = 0; k < 3; ++k) {
              ss.push_back(x.send.hi[k] - x.send.lo[k]);
              sst.push_back(x.send.lo[k]);
              rs.push_back(x.recv.hi[k] - x.recv.lo[k]);
              rst.push_back(x.recv.lo[k]);
            }
            st.push_back(KokkosDDT::subarray(sz, ss, sst, KokkosDDT::Order::C, KokkosDDT::primitive<double>()));
            rt.push_back(KokkosDDT::subarray(sz, rs, rst, KokkosDDT::Order::C, KokkosDDT::primitive<double>()));
          }
          x.send_type = KokkosDDT::struct_type(ones, at, st).commit();
          x.recv_type = KokkosDDT::struct_type(ones, at, rt).commit();
          nb.push_back(x);
        }
        // Box tables for the hand kernel, packed buffers laid out neighbour after neighbour.
        auto table = [&](bool send) {
          Kokkos::View<Box*, M> v("boxes", nb.size());
          auto h = Kokkos::create_mirror_view(v);
          long long first = 0;
          for (std::size_t i = 0; i < nb.size(); ++i) {
            h(i) = send ? nb[i].send : nb[i].recv;
            h(i).first = first;
            first +=
                static_cast<long long>(h(i).hi[0] - h(i).lo[0]) * (h(i).hi[1] - h(i).lo[1]) * (h(i).hi[2] - h(i).lo[2]);
          }
          Kokkos::deep_copy(v, h);
          return std::make_pair(v, first);
        };
        const auto send_table = table(true);
        const Kokkos::View<Box*, M> send_boxes = send_table.first, recv_boxes = table(false).first;
        const long long cells = send_table.second;
        std::vector<long long> offset(nb.size());  // in doubles
        for (std::size_t i = 0; i < nb.size(); ++i)
          offset[i] = (i ? offset[i - 1] + nb[i - 1].send_type.size() / 8 : 0);
        // The contenders' message buffers: where MPI can reach them, as the plan's staging (device memory only with a
        // GPU-aware MPI, else pinned host memory that the kernels write directly); on one rank MPI never sees them.
        const bool device_buffers =
            Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible || KokkosDDT::mpi::gpu_aware() || size == 1;
        Kokkos::View<double*, M> sdev("sbuf", device_buffers ? cells * nf : 0),
            rdev("rbuf", device_buffers ? cells * nf : 0);
        Kokkos::View<double*, Kokkos::SharedHostPinnedSpace> spin("sbuf", device_buffers ? 0 : cells * nf),
            rpin("rbuf", device_buffers ? 0 : cells * nf);
        double* sbuf = device_buffers ? sdev.data() : spin.data();
        double* rbuf = device_buffers ? rdev.data() : rpin.data();
        auto exchange_messages = [&](double* s, double* r) {
          // Receive from the neighbour at d what it sent towards -d; a message to this rank itself is a copy.
          std::vector<MPI_Request> req;
          for (std::size_t i = 0; i < nb.size(); ++i) {
            const long long bytes = nb[i].send_type.size();
            if (nb[i].peer == rank) {
              const std::size_t from = static_cast<std::size_t>(nb[i].opp < 13 ? nb[i].opp : nb[i].opp - 1);
              Kokkos::View<double*, Space, Kokkos::MemoryUnmanaged> to_view(r + offset[i], bytes / 8);
              Kokkos::View<double*, Space, Kokkos::MemoryUnmanaged> from_view(s + offset[from], bytes / 8);
              Kokkos::deep_copy(space, to_view, from_view);
              continue;
            }
            req.emplace_back();
            MPI_Irecv(r + offset[i], static_cast<int>(bytes), MPI_BYTE, nb[i].peer, nb[i].opp, cart, &req.back());
            req.emplace_back();
            MPI_Isend(s + offset[i], static_cast<int>(bytes), MPI_BYTE, nb[i].peer, nb[i].dir, cart, &req.back());
          }
          MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
          space.fence();
        };
        auto fill = [&] {
          for (int f = 0; f < nf; ++f) {
            Field x = fields[f];
            const int r = rank;
            Kokkos::parallel_for(
                "fill", Kokkos::MDRangePolicy<Space, Kokkos::Rank<3>>(space, {0, 0, 0}, {e, e, e}),
                KOKKOS_LAMBDA(int i, int j, int k) {
                  const bool inside = i > 0 && j > 0 && k > 0 && i <= n && j <= n && k <= n;
                  x(i, j, k) = inside ? r * 1e6 + f * 1e5 + (i * e + j) * e + k : -1.0;
                });
          }
          space.fence();
        };
        auto ghosts = [&] {
          std::vector<double> all;
          for (const Field& f : fields) {
            auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f);
            all.insert(all.end(), h.data(), h.data() + h.size());
          }
          return all;
        };
        KokkosDDT::mpi::HaloPlan<Space> exact;
        const KokkosDDT::mpi::HaloOptions all{1, KokkosDDT::mpi::HaloNeighbors::All, 0x4b44, "mpi"};
        if (nf == 1) exact = KokkosDDT::mpi::make_halo_plan(space, cart, all, fields[0]);
        if (nf == 4)
          exact = KokkosDDT::mpi::make_halo_plan(space, cart, all, fields[0], fields[1], fields[2], fields[3]);
        auto run_plan = [&] { exact.exchange(); };
        auto run_hand = [&] {
          hand_copy(space, fields, send_boxes, static_cast<int>(nb.size()), sbuf, true);
          space.fence();
          exchange_messages(sbuf, rbuf);
          hand_copy(space, fields, recv_boxes, static_cast<int>(nb.size()), rbuf, false);
          space.fence();
        };
        auto run_region = [&] {
          for (std::size_t i = 0; i < nb.size(); ++i)
            KokkosDDT::pack(space, KokkosDDT::bottom, 1, nb[i].send_type, sbuf + offset[i], nb[i].send_type.size());
          space.fence();
          exchange_messages(sbuf, rbuf);
          for (std::size_t i = 0; i < nb.size(); ++i)
            KokkosDDT::unpack(space, rbuf + offset[i], nb[i].recv_type.size(), KokkosDDT::bottom, 1, nb[i].recv_type);
          space.fence();
        };
        // Kokkos::deep_copy of each field's box into a contiguous staging View (what Kokkos Comm does), the messages,
        // and deep_copy back; the staging goes through the message buffers when MPI cannot reach device memory.
        Kokkos::View<double*, M> cstage("cstage", cells * nf), crecv("crecv", cells * nf);
        using Box3 = Kokkos::View<double***, Kokkos::LayoutRight, M, Kokkos::MemoryUnmanaged>;
        auto box_view = [&](const Kokkos::View<double*, M>& buf, std::size_t i, int f, const Box& b) {
          const int ni = b.hi[0] - b.lo[0], nj = b.hi[1] - b.lo[1], nk = b.hi[2] - b.lo[2];
          return Box3(buf.data() + offset[i] + static_cast<long long>(f) * ni * nj * nk, ni, nj, nk);
        };
        auto sub = [](const Field& x, const Box& b) {
          return Kokkos::subview(x, std::make_pair(b.lo[0], b.hi[0]), std::make_pair(b.lo[1], b.hi[1]),
                                 std::make_pair(b.lo[2], b.hi[2]));
        };
        const bool staged = !device_buffers;  // device data, MPI cannot read device memory
        auto run_deep_copy = [&] {
          for (std::size_t i = 0; i < nb.size(); ++i)
            for (int f = 0; f < nf; ++f)
              Kokkos::deep_copy(space, box_view(cstage, i, f, nb[i].send), sub(fields[f], nb[i].send));
          if (staged)
            Kokkos::deep_copy(space, Kokkos::View<double*, Space, Kokkos::MemoryUnmanaged>(sbuf, cells * nf), cstage);
          space.fence();
          exchange_messages(staged ? sbuf : cstage.data(), staged ? rbuf : crecv.data());
          if (staged)
            Kokkos::deep_copy(space, crecv, Kokkos::View<double*, Space, Kokkos::MemoryUnmanaged>(rbuf, cells * nf));
          for (std::size_t i = 0; i < nb.size(); ++i)
            for (int f = 0; f < nf; ++f)
              Kokkos::deep_copy(space, sub(fields[f], nb[i].recv), box_view(crecv, i, f, nb[i].recv));
          space.fence();
        };
        // MPI derived datatypes on the fields themselves (MPI_BOTTOM + the struct types), where MPI reads the memory.
        const bool mpi_reads_fields =
            Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible || KokkosDDT::mpi::gpu_aware();
        std::vector<MPI_Datatype> send_mpi, recv_mpi;
        if (mpi_reads_fields)
          for (const Neighbour& x : nb) {
            send_mpi.push_back(KokkosDDT::mpi::to_mpi(x.send_type));
            recv_mpi.push_back(KokkosDDT::mpi::to_mpi(x.recv_type));
          }
        auto run_mpi_datatype = [&] {
          std::vector<MPI_Request> req(2 * nb.size());
          for (std::size_t i = 0; i < nb.size(); ++i) {
            MPI_Irecv(MPI_BOTTOM, 1, recv_mpi[i], nb[i].peer, nb[i].opp, cart, &req[2 * i]);
            MPI_Isend(MPI_BOTTOM, 1, send_mpi[i], nb[i].peer, nb[i].dir, cart, &req[2 * i + 1]);
          }
          MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
        };
        // The same ghosts from every contender.
        fill();
        run_plan();
        const auto want = ghosts();
        fill();
        run_hand();
        const bool hand_ok = ghosts() == want;
        fill();
        run_region();
        const bool region_ok = ghosts() == want;
        fill();
        run_deep_copy();
        const bool copy_ok = ghosts() == want;
        bool datatype_ok = true;
        if (mpi_reads_fields) {
          fill();
          run_mpi_datatype();
          datatype_ok = ghosts() == want;
        }
        if (!hand_ok || !region_ok || !copy_ok || !datatype_ok)
          std::fprintf(stderr, "rank %d n %d: contenders disagree (hand %d, per_region %d, deep_copy %d, mpi %d)\n",
                       rank, n, hand_ok, region_ok, copy_ok, datatype_ok);
        const int steps = quick ? 5 : std::max(20, std::min(400, 2000000 / (n * n * n)));
        auto time = [&](auto&& step) {
          for (int s = 0; s < 3; ++s) step();
          std::vector<double> t;
          for (int s = 0; s < steps; ++s) {
            MPI_Barrier(cart);
            const auto t0 = std::chrono::steady_clock::now();
            step();
            double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
            MPI_Allreduce(MPI_IN_PLACE, &us, 1, MPI_DOUBLE, MPI_MAX, cart);
            t.push_back(us);
          }
          return bench::median(t);
        };
        const double tp = time(run_plan), th = time(run_hand), tr = time(run_region), tc = time(run_deep_copy);
        // The same plan over another transport (the GPU tables).
        [[maybe_unused]] auto plan_over = [&](const char* transport) {
          KokkosDDT::mpi::HaloOptions options = all;
          options.transport = transport;
          return nf == 1
                     ? KokkosDDT::mpi::make_halo_plan(space, cart, options, fields[0])
                     : KokkosDDT::mpi::make_halo_plan(space, cart, options, fields[0], fields[1], fields[2], fields[3]);
        };
#if HALO_BENCH_NCCL
        if (with_nccl) {
          // The hand kernels with one NCCL group (device buffers: NCCL moves device memory).
          Kokkos::View<double*, M> ns("nccl_send", cells * nf), nr("nccl_recv", cells * nf);
          // NCCL matches each peer's messages in posting order: sends by direction, receives by the sender's.
          std::vector<std::size_t> recv_order(nb.size());
          for (std::size_t i = 0; i < nb.size(); ++i) recv_order[i] = i;
          std::sort(recv_order.begin(), recv_order.end(), [&](std::size_t a, std::size_t b) {
            return nb[a].peer != nb[b].peer ? nb[a].peer < nb[b].peer : nb[a].opp < nb[b].opp;
          });
          std::vector<std::size_t> send_order(nb.size());
          for (std::size_t i = 0; i < nb.size(); ++i) send_order[i] = i;
          std::sort(send_order.begin(), send_order.end(), [&](std::size_t a, std::size_t b) {
            return nb[a].peer != nb[b].peer ? nb[a].peer < nb[b].peer : nb[a].dir < nb[b].dir;
          });
          const cudaStream_t stream = space.cuda_stream();
          auto messages = [&] {  // the same bytes to and from each neighbour, one group
            ncclGroupStart();
            for (std::size_t i : send_order)
              ncclSend(ns.data() + offset[i], nb[i].send_type.size(), ncclChar, nb[i].peer, nccl, stream);
            for (std::size_t i : recv_order)
              ncclRecv(nr.data() + offset[i], nb[i].recv_type.size(), ncclChar, nb[i].peer, nccl, stream);
            ncclGroupEnd();
          };
          auto run_hand_nccl = [&] {
            hand_copy(space, fields, send_boxes, static_cast<int>(nb.size()), ns.data(), true);
            messages();
            hand_copy(space, fields, recv_boxes, static_cast<int>(nb.size()), nr.data(), false);
            space.fence();
          };
          auto run_nccl = [&] {  // NCCL's own send/recv of the step's bytes: the floor of both
            messages();
            space.fence();
          };
          fill();
          run_hand_nccl();
          if (ghosts() != want)
            std::fprintf(stderr, "rank %d n %d: the hand-written NCCL exchange disagrees\n", rank, n);
          nccl_rows.push_back({time(run_hand_nccl), time(run_nccl), tp});
          nccl_keys.push_back({n, nf});
        }
#endif
#if HALO_BENCH_GPU
        for (const std::string& t : KokkosDDT::mpi::transports()) {  // (every transport of the build but MPI's)
          if (t == "mpi" || std::find(refused.begin(), refused.end(), t) != refused.end()) continue;
          std::optional<KokkosDDT::mpi::HaloPlan<Space>> plan;
          try {
            plan.emplace(plan_over(t.c_str()));
          } catch (const KokkosDDT::Error& error) {  // (thrown on every rank alike)
            if (rank == 0) std::printf("(no plan over \"%s\" in this run: %s)\n", t.c_str(), error.what());
            refused.push_back(t);
            continue;
          }
          if (rank == 0 && n == sizes.front() && nf == field_counts.front())
            std::printf("(the plan over \"%s\", rank 0's routes:\n%s)\n", t.c_str(), plan->describe().c_str());
          std::vector<double> starts;  // the host's time in start(): the step's calls enqueued
          auto run = [&] {             // (a whole step, as exchange(): start, wait, the fence that waits for the GPU)
            const auto t0 = std::chrono::steady_clock::now();
            plan->start();
            starts.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
            plan->wait();
            space.fence();
          };
          fill();
          run();
          if (ghosts() != want)
            std::fprintf(stderr, "rank %d n %d: the plan over \"%s\" disagrees\n", rank, n, t.c_str());
          const double floor = empty_us + static_cast<double>(plan->bytes_per_step()) / (peer_gbs * 1e3);
          double hand_nccl = -1;
#if HALO_BENCH_NCCL
          if (with_nccl && !nccl_rows.empty()) hand_nccl = nccl_rows.back()[0];
#endif
          starts.clear();
          const double us = time(run);
          double start_us = bench::median(starts);
          MPI_Allreduce(MPI_IN_PLACE, &start_us, 1, MPI_DOUBLE, MPI_MAX, cart);
          transport_rows.push_back({n, nf, t, us, start_us, floor, tp, hand_nccl});
        }
#endif
        const double tm = mpi_reads_fields ? time(run_mpi_datatype) : -1;
        for (MPI_Datatype& t : send_mpi) MPI_Type_free(&t);
        for (MPI_Datatype& t : recv_mpi) MPI_Type_free(&t);
        if (rank == 0) {
          // (MPI datatypes only where the MPI reads the fields' memory: otherwise '-')
          char mpi_us[16] = "-", mpi_ratio[16] = "-";
          if (tm >= 0) {
            std::snprintf(mpi_us, sizeof mpi_us, "%.1f", tm);
            std::snprintf(mpi_ratio, sizeof mpi_ratio, "%.2fx", tm / tp);
          }
          std::printf("%6d %6d | %10.1f %10.1f %10.1f %10.1f %10s | %7.2fx %7.2fx %8s\n", n, nf, tp, th, tr, tc, mpi_us,
                      th / tp, tc / tp, mpi_ratio);
          for (const auto& [name, us] : {std::pair<const char*, double>{"plan", tp},
                                         {"hand", th},
                                         {"per_region", tr},
                                         {"deep_copy", tc},
                                         {"mpi_datatype", tm}})
            if (us >= 0) std::fprintf(out, "%d,%s,%d,%d,%s,%.3f\n", size, Space::name(), n, nf, name, us);
        }
      }
#if HALO_BENCH_NCCL
    if (with_nccl && rank == 0) {
      std::printf("\nNCCL transport (self messages through the transport: %s)\n",
                  std::getenv("KOKKOSDDT_HALO_SELF_MESSAGES") ? "yes" : "no, a rank's own regions are copied");
      std::printf("%6s %6s | %10s %10s %10s | %12s\n", "n", "fields", "hand_nccl", "nccl", "plan_mpi", "mpi/hand");
      for (std::size_t i = 0; i < nccl_rows.size(); ++i) {
        const auto& r = nccl_rows[i];
        std::printf("%6d %6d | %10.1f %10.1f %10.1f | %11.2fx\n", nccl_keys[i][0], nccl_keys[i][1], r[0], r[1], r[2],
                    r[2] / r[0]);
        for (const auto& [name, us] :
             {std::pair<const char*, double>{"hand_nccl", r[0]}, {"nccl", r[1]}, {"plan_mpi", r[2]}})
          std::fprintf(out, "%d,%s,%d,%d,%s,%.3f\n", size, Space::name(), nccl_keys[i][0], nccl_keys[i][1], name, us);
      }
    }
    if (with_nccl && nccl) ncclCommDestroy(nccl);
#endif
#if HALO_BENCH_GPU
    if (rank == 0) {
      std::printf("\nThe plan over each transport (floor: empty launch %.1f us + bytes at %.0f GB/s)\n", empty_us,
                  peer_gbs);
      std::printf("%6s %6s %10s | %10s %10s %10s %10s %10s | %12s %12s\n", "n", "fields", "transport", "plan", "start",
                  "floor", "plan_mpi", "hand_nccl", "plan/floor", "plan/hnccl");
      for (const TransportRow& r : transport_rows) {
        char hand[16] = "-", ratio[16] = "-";
        if (r.hand_nccl >= 0) {
          std::snprintf(hand, sizeof hand, "%.1f", r.hand_nccl);
          std::snprintf(ratio, sizeof ratio, "%.2fx", r.plan / r.hand_nccl);
        }
        std::printf("%6d %6d %10s | %10.1f %10.1f %10.1f %10.1f %10s | %11.2fx %12s\n", r.n, r.nf, r.transport.c_str(),
                    r.plan, r.start, r.floor, r.plan_mpi, hand, r.plan / r.floor, ratio);
        for (const auto& [name, us] : {std::pair<std::string, double>{"plan_" + r.transport, r.plan},
                                       {r.transport + "_start", r.start},
                                       {"floor", r.floor}})
          std::fprintf(out, "%d,%s,%d,%d,%s,%.3f\n", size, Space::name(), r.n, r.nf, name.c_str(), us);
      }
    }
#endif
    if (out) std::fclose(out);
    if (rank == 0) std::printf("CSV: %s\n", csv.c_str());
    MPI_Comm_free(&cart);
  }
  return 0;
}
