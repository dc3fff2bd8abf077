// SPDX-License-Identifier: BSD-3-Clause
// The main job's iteration (examples/jacobi3d.cpp), taken apart: where the time of a halo step goes, for every way of
// exchanging the ghosts, beside the floor of the same messages. Run under mpiexec, one rank per GPU:
//
//   mpiexec -n 2 jacobi_bench --cells 256x128x128 [--iterations 200] [--repeats 3] [--exchanges a,b,...] [--phases]
//   mpiexec -n 4 jacobi_bench --per-rank 128          (weak scaling: 128^3 cells on every rank)
//
// An iteration is jacobi3d's: start the exchange, the interior sweep (reads no ghost), wait, the boundary sweep, with
// no host synchronization (the host may run ahead of the GPU). Exchanges:
//
//   none        the sweeps alone: what every exchange is measured against
//   plan-<t>    a KokkosDDT halo plan over transport t, one row for each of the build's (mpi::transports(): plan-mpi,
//               staged through pinned host memory where the MPI cannot read the GPU's; plan-auto, the default, peer
//               within a node and NCCL (else MPI) between nodes; plan-nccl, plan-peer, ... as the build has them)
//   graph-<t>   the plan over transport t made with options.graph: each step replayed from the plan's graph of it
//               (one launch, the step whole at start), and its steps replayable in the caller's graph (--graph)
//   hand-nccl   what an application writes without the library: one pack kernel over its faces, one NCCL group of
//               send/recv, one unpack kernel; a face a rank sends itself (a periodic dimension of one rank) is copied
//               by the unpack kernel straight from the send buffer                        (CUDA builds with NCCL)
//   nccl        the floor: the NCCL group of the same messages (the same bytes per peer, contiguous), no pack, no
//               unpack, in the same place of the iteration                                 (CUDA builds with NCCL)
//   nccl-remote the floor of the messages between nodes alone (the library's nodes: KOKKOSDDT_NODE_SIZE=k makes
//               groups of k ranks nodes of their own): what "auto" cannot beat between nodes  (CUDA builds with NCCL)
//
// For each: microseconds per iteration (slowest rank), what the exchange adds to the sweeps alone, the exchange alone
// (start + wait back to back, no sweeps: "alone"), and what a user pays once: making it ("make", both plans) and its
// first step ("first", start + wait + fence right after). --sync adds a fence after every iteration (a second row);
// --phases a third row with the host time inside each call and, on CUDA, the GPU time between the calls' places in
// the stream (events recorded after each call); --graph (CUDA) a row of iterations replayed from a CUDA graph of two
// captured ones (one host call per two iterations; an exchange whose host posts messages between the kernels, the
// MPI transport, refuses the capture and gets no row). Writes CSV (one row per exchange and mode).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT_Communicators.hpp>
#include <KokkosDDT_MPI.hpp>
#include <mpi.h>
#if KOKKOSDDT_HAVE_NCCL && defined(KOKKOS_ENABLE_CUDA)
#include <nccl.h>
#define JACOBI_BENCH_NCCL 1
#else
#define JACOBI_BENCH_NCCL 0
#endif

#include "jacobi3d_problem.hpp"
#include "support/Gpus.hpp"
#include "support/Mpi.hpp"
#include "support/Options.hpp"

namespace {

using jacobi::Block;
using jacobi::Cells;
using jacobi::Field;
using jacobi::Space;
using Clock = std::chrono::steady_clock;
constexpr bool kCuda =
#if defined(KOKKOS_ENABLE_CUDA)
    std::is_same_v<Space, Kokkos::Cuda>;
#else
    false;
#endif

// One way of exchanging the ghosts of the field read in this iteration (`even`: u, else v).
struct Exchange {
  virtual ~Exchange() = default;
  virtual void start(const Space& space, bool even) = 0;
  virtual void wait(const Space& space, bool even) = 0;
};

struct NoExchange final : Exchange {
  void start(const Space&, bool) override {}
  void wait(const Space&, bool) override {}
};

struct PlanExchange final : Exchange {
  KokkosDDT::mpi::HaloPlan<Space> u, v;
  PlanExchange(const Space& space, MPI_Comm cart, const KokkosDDT::mpi::TransportChoice& kind, const Field& fu,
               const Field& fv, bool graph = false) {
    KokkosDDT::mpi::HaloOptions options;
    options.transport = kind;
    options.graph = graph;
    u = KokkosDDT::mpi::make_halo_plan(space, cart, options, fu);
    v = KokkosDDT::mpi::make_halo_plan(space, cart, options, fv);
  }
  void start(const Space& space, bool even) override { (even ? u : v).start(space); }
  void wait(const Space&, bool even) override { (even ? u : v).wait(); }
};

#if JACOBI_BENCH_NCCL
void nccl_ok(ncclResult_t rc, const char* what) {
  if (rc != ncclSuccess) {
    std::fprintf(stderr, "jacobi_bench: %s: %s\n", what, ncclGetErrorString(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

// The six faces of a block: face (k, side) is sent towards side (0: down, 1: up) of dimension k from the plane next
// to it, and the ghost plane on that side receives what the neighbour there sent the other way.
struct Faces {
  struct Box {
    int lo[3], hi[3];
    long long at;     // its first cell in the packed buffer
    long long first;  // its first thread in a copy of several boxes
    int in_send;      // (unpack) read from the send buffer: a face this rank sent itself
  };
  std::array<int, 6> peer{};          // per face k * 2 + side (MPI_PROC_NULL: a wall)
  std::array<Box, 6> send{}, recv{};  // send[f]: the plane packed for face f; recv[f]: the ghost plane it fills
  std::array<long long, 6> cells{};   // cells per face
  long long total = 0;
  int me = 0;

  Faces(MPI_Comm cart, const Block& b) {
    MPI_Comm_rank(cart, &me);
    const std::array<int, 3> n = b.n;
    for (int k = 0; k < 3; ++k) {
      int down = 0, up = 0;
      MPI_Cart_shift(cart, k, 1, &down, &up);
      for (int side = 0; side < 2; ++side) {
        const int f = 2 * k + side;
        peer[f] = side == 0 ? down : up;
        Box s{}, r{};
        for (int d = 0; d < 3; ++d) s.lo[d] = r.lo[d] = 1, s.hi[d] = r.hi[d] = n[d] + 1;
        s.lo[k] = side == 0 ? 1 : n[k], s.hi[k] = s.lo[k] + 1;
        r.lo[k] = side == 0 ? 0 : n[k] + 1, r.hi[k] = r.lo[k] + 1;
        cells[f] = 1;
        for (int d = 0; d < 3; ++d) cells[f] *= s.hi[d] - s.lo[d];
        s.at = r.at = total;
        total += cells[f];
        send[f] = s, recv[f] = r;
      }
    }
  }
  // The face whose packed cells fill ghost face f when the neighbour there is this rank itself: what it sent the
  // other way along the same dimension.
  static int opposite(int f) { return f ^ 1; }
};

// One launch copies the given boxes between a field and the packed buffers, one thread per cell (consecutive threads
// along a row: coalesced on both sides). Packing writes `sbuf`; unpacking reads `rbuf`, or `sbuf` for a box marked
// in_send. `first`: each box's first thread (a prefix sum, ending with the total).
void copy_boxes(const Space& space, const Field& f, const Kokkos::View<Faces::Box*, Space::memory_space>& boxes,
                int nboxes, long long cells, double* sbuf, const double* rbuf, bool pack) {
  Kokkos::parallel_for(
      pack ? "jacobi_bench::hand_pack" : "jacobi_bench::hand_unpack",
      Kokkos::RangePolicy<Space, Kokkos::IndexType<long long>>(space, 0, cells), KOKKOS_LAMBDA(long long t) {
        int b = 0;
        while (b + 1 < nboxes && t >= boxes(b + 1).first) ++b;
        const Faces::Box x = boxes(b);
        const long long c = t - x.first;  // the cell within the box, rows along the last dimension
        const int nj = x.hi[1] - x.lo[1], nk = x.hi[2] - x.lo[2];
        const int i = x.lo[0] + static_cast<int>(c / (static_cast<long long>(nj) * nk));
        const int j = x.lo[1] + static_cast<int>(c / nk % nj), k = x.lo[2] + static_cast<int>(c % nk);
        if (pack)
          sbuf[x.at + c] = f(i, j, k);
        else
          f(i, j, k) = (x.in_send ? sbuf : rbuf)[x.at + c];
      });
}

// NCCL over the processes of cart (ranks in cart's order), made once for the hand-written contenders.
ncclComm_t bench_nccl(MPI_Comm cart) {
  static ncclComm_t comm = nullptr;
  if (comm) return comm;
  int rank = 0, size = 1;
  MPI_Comm_rank(cart, &rank);
  MPI_Comm_size(cart, &size);
  ncclUniqueId id{};
  if (rank == 0) nccl_ok(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, cart);
  nccl_ok(ncclCommInitRank(&comm, size, id, rank), "ncclCommInitRank");
  return comm;
}

// The messages of the faces whose neighbour is another rank: sends in face order, receives in the order of the faces
// their senders sent them from (ghost face f is filled by the neighbour's face f ^ 1), so that each pair's messages
// match in posting order as NCCL needs.
void nccl_group(const Faces& faces, ncclComm_t comm, cudaStream_t stream, const double* sbuf, double* rbuf) {
  nccl_ok(ncclGroupStart(), "ncclGroupStart");
  for (int f = 0; f < 6; ++f)
    if (faces.peer[f] != MPI_PROC_NULL && faces.peer[f] != faces.me)
      nccl_ok(ncclSend(sbuf + faces.send[f].at, faces.cells[f], ncclDouble, faces.peer[f], comm, stream), "ncclSend");
  for (int g = 0; g < 6; ++g) {
    const int f = Faces::opposite(g);  // (ghost face f receives what was sent from face g = f ^ 1)
    if (faces.peer[f] != MPI_PROC_NULL && faces.peer[f] != faces.me)
      nccl_ok(ncclRecv(rbuf + faces.recv[f].at, faces.cells[f], ncclDouble, faces.peer[f], comm, stream), "ncclRecv");
  }
  nccl_ok(ncclGroupEnd(), "ncclGroupEnd");
}

struct HandNcclExchange final : Exchange {
  Faces faces;
  Field u, v;
  ncclComm_t comm;
  bool pack_unpack;  // false: the floor (the messages alone)
  Kokkos::View<double*, Space::memory_space> sbuf, rbuf;
  Kokkos::View<Faces::Box*, Space::memory_space> send_boxes, recv_boxes;
  int nsend = 0, nrecv = 0;
  long long send_cells = 0, recv_cells = 0;

  HandNcclExchange(MPI_Comm cart, const Block& b, const Field& fu, const Field& fv, bool with_kernels)
      : faces(cart, b), u(fu), v(fv), comm(bench_nccl(cart)), pack_unpack(with_kernels) {
    sbuf = Kokkos::View<double*, Space::memory_space>("jacobi_bench::sbuf", faces.total);
    rbuf = Kokkos::View<double*, Space::memory_space>("jacobi_bench::rbuf", faces.total);
    // Every face that has a neighbour is packed; every ghost face that has one is unpacked, from the receive buffer
    // or (the neighbour is this rank) from the send buffer's opposite face.
    auto hs = Kokkos::create_mirror_view(Kokkos::View<Faces::Box*, Space::memory_space>("send_boxes", 6));
    auto hr = Kokkos::create_mirror_view(Kokkos::View<Faces::Box*, Space::memory_space>("recv_boxes", 6));
    for (int f = 0; f < 6; ++f) {
      if (faces.peer[f] == MPI_PROC_NULL) continue;
      Faces::Box s = faces.send[f], r = faces.recv[f];
      s.first = send_cells, r.first = recv_cells;
      send_cells += faces.cells[f], recv_cells += faces.cells[f];
      if (faces.peer[f] == faces.me) r.at = faces.send[Faces::opposite(f)].at, r.in_send = 1;
      hs(nsend++) = s;
      hr(nrecv++) = r;
    }
    send_boxes = Kokkos::create_mirror_view_and_copy(Space::memory_space(), hs);
    recv_boxes = Kokkos::create_mirror_view_and_copy(Space::memory_space(), hr);
  }
  void start(const Space& space, bool even) override {
    if (pack_unpack) copy_boxes(space, even ? u : v, send_boxes, nsend, send_cells, sbuf.data(), rbuf.data(), true);
    nccl_group(faces, comm, space.cuda_stream(), sbuf.data(), rbuf.data());
  }
  void wait(const Space& space, bool even) override {
    if (pack_unpack) copy_boxes(space, even ? u : v, recv_boxes, nrecv, recv_cells, sbuf.data(), rbuf.data(), false);
  }
  // Only the messages to and from other nodes (the floor's faces; collective over cart).
  void keep_other_nodes(MPI_Comm cart) {
    int size = 1;
    MPI_Comm_size(cart, &size);
    const std::int64_t mine = KokkosDDT::Impl::node_leader(cart, "jacobi_bench");
    std::vector<std::int64_t> node(size);
    MPI_Allgather(&mine, 1, MPI_INT64_T, node.data(), 1, MPI_INT64_T, cart);
    for (int& p : faces.peer)
      if (p != MPI_PROC_NULL && node[p] == mine) p = MPI_PROC_NULL;
  }
};
#endif

// GPU timestamps at the places of an iteration: the events recorded after each call.
class Marks {
 public:
  static constexpr int kPlaces = 5;  // begin, after start, after interior, after wait, after boundary
  Marks(int iterations, bool on) : on_(on && kCuda) {
#if defined(KOKKOS_ENABLE_CUDA)
    if (on_) {
      events_.resize(static_cast<std::size_t>(iterations) * kPlaces);
      for (auto& e : events_) cudaEventCreate(&e);
    }
#else
    (void)iterations;
#endif
  }
  ~Marks() {
#if defined(KOKKOS_ENABLE_CUDA)
    for (auto& e : events_) cudaEventDestroy(e);
#endif
  }
  void mark([[maybe_unused]] const Space& space, [[maybe_unused]] int it, [[maybe_unused]] int place) {
#if defined(KOKKOS_ENABLE_CUDA)
    if (on_) cudaEventRecord(events_[static_cast<std::size_t>(it) * kPlaces + place], space.cuda_stream());
#endif
  }
  // Mean GPU microseconds from place p to p + 1, over the iterations from `first` on (after a fence).
  std::array<double, kPlaces - 1> phases([[maybe_unused]] int iterations, [[maybe_unused]] int first) const {
    std::array<double, kPlaces - 1> mean{};
#if defined(KOKKOS_ENABLE_CUDA)
    if (!on_) return mean;
    for (int it = first; it < iterations; ++it)
      for (int p = 0; p + 1 < kPlaces; ++p) {
        float ms = 0;
        cudaEventElapsedTime(&ms, events_[static_cast<std::size_t>(it) * kPlaces + p],
                             events_[static_cast<std::size_t>(it) * kPlaces + p + 1]);
        mean[p] += 1e3 * ms / (iterations - first);
      }
#endif
    return mean;
  }

 private:
  bool on_;
#if defined(KOKKOS_ENABLE_CUDA)
  std::vector<cudaEvent_t> events_;
#endif
};

struct Timing {
  double us_per_iteration = 0;
  std::array<double, 4> host{};  // mean host us inside start, interior launch, wait, boundary launch
  std::array<double, 4> gpu{};   // mean GPU us from each call's place to the next one's
};

double slowest(double mine, MPI_Comm comm) {
  double all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, comm);
  return all;
}

// `iterations` of jacobi3d's loop (with_sweeps) or of the exchange alone; `sync`: a fence after every iteration;
// `phases`: host timers around every call and GPU events after them.
Timing run(const Space& space, MPI_Comm cart, const Cells& cells, const Block& b, Field& u, Field& v, Exchange& x,
           int iterations, bool with_sweeps, bool sync, bool phases) {
  Marks marks(iterations, phases);
  Timing t;
  std::array<double, 4> host{};
  auto timed = [&](int slot, auto&& call) {
    if (!phases) return call();
    const auto t0 = Clock::now();
    call();
    host[slot] += std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  };
  for (int warm = 0; warm < 2; ++warm) {  // (first contact of NCCL's peers, caches)
    x.start(space, warm % 2 == 0);
    x.wait(space, warm % 2 == 0);
  }
  space.fence();
  MPI_Barrier(cart);
  const auto t0 = Clock::now();
  for (int it = 0; it < iterations; ++it) {
    const bool even = it % 2 == 0;
    Field& from = even ? u : v;
    Field& to = even ? v : u;
    marks.mark(space, it, 0);
    timed(0, [&] { x.start(space, even); });
    marks.mark(space, it, 1);
    if (with_sweeps) timed(1, [&] { jacobi::sweep_interior(space, cells, b, from, to); });
    marks.mark(space, it, 2);
    timed(2, [&] { x.wait(space, even); });
    marks.mark(space, it, 3);
    if (with_sweeps) timed(3, [&] { jacobi::sweep_boundary(space, cells, b, from, to); });
    marks.mark(space, it, 4);
    if (sync) space.fence();
  }
  space.fence();
  const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / iterations;
  t.us_per_iteration = slowest(us, cart);
  for (int i = 0; i < 4; ++i) t.host[i] = slowest(host[i] / iterations, cart);
  const auto gpu = marks.phases(iterations, std::min(10, iterations / 2));
  for (int i = 0; i < 4; ++i) t.gpu[i] = slowest(gpu[i], cart);
  return t;
}

// `iterations` of jacobi3d's loop replayed from a CUDA graph of two iterations (u -> v -> u) captured from the
// instance's stream, one launch per two iterations. A negative time: the exchange (on some rank) refused the capture,
// `why` says why.
Timing run_graph([[maybe_unused]] const Space& space, [[maybe_unused]] MPI_Comm cart,
                 [[maybe_unused]] const Cells& cells, [[maybe_unused]] const Block& b, [[maybe_unused]] Field& u,
                 [[maybe_unused]] Field& v, [[maybe_unused]] Exchange& x, [[maybe_unused]] int iterations,
                 std::string& why) {
  Timing t;
  t.us_per_iteration = -1;
  [[maybe_unused]] int refused = 1;
  why = "not a CUDA build";
#if defined(KOKKOS_ENABLE_CUDA)
  cudaStream_t s = space.cuda_stream();
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  space.fence();
  if (cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) == cudaSuccess) {
    refused = 0;
    try {
      for (int it = 0; it < 2; ++it) {
        const bool even = it % 2 == 0;
        x.start(space, even);
        jacobi::sweep_interior(space, cells, b, even ? u : v, even ? v : u);
        x.wait(space, even);
        jacobi::sweep_boundary(space, cells, b, even ? u : v, even ? v : u);
      }
    } catch (const std::exception& e) {
      refused = 1;
      why = e.what();
    }
    const cudaError_t ended = cudaStreamEndCapture(s, &graph);
    if (!refused && (ended != cudaSuccess || cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess)) {
      refused = 1;
      why = std::string("capture: ") + cudaGetErrorString(ended);
    }
    (void)cudaGetLastError();
  }
  MPI_Allreduce(MPI_IN_PLACE, &refused, 1, MPI_INT, MPI_MAX, cart);
  if (!refused) {
    for (int warm = 0; warm < 2; ++warm) cudaGraphLaunch(exec, s);
    space.fence();
    MPI_Barrier(cart);
    const auto t0 = Clock::now();
    for (int it = 0; it < iterations; it += 2) cudaGraphLaunch(exec, s);
    space.fence();
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / (iterations / 2 * 2);
    t.us_per_iteration = slowest(us, cart);
  }
  if (exec) cudaGraphExecDestroy(exec);
  if (graph) cudaGraphDestroy(graph);
#endif
  return t;
}

// run() `repeats` times: the run of the median time per iteration (every rank picks the same: the times are the
// slowest rank's).
Timing median_run(int repeats, const std::function<Timing()>& once) {
  std::vector<Timing> runs;
  for (int r = 0; r < repeats; ++r) runs.push_back(once());
  std::sort(runs.begin(), runs.end(),
            [](const Timing& a, const Timing& b) { return a.us_per_iteration < b.us_per_iteration; });
  return runs[runs.size() / 2];
}

}  // namespace

int main(int argc, char* argv[]) {
  bench::MpiSession mpi(argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::string cells_text, csv = "jacobi_bench.csv", label, schedule = "auto";
  std::vector<std::string> exchanges{"none"};  // (and a plan over each transport of the build, the contenders)
  for (const std::string& t : KokkosDDT::mpi::transports())
    if (kCuda || t == "mpi") exchanges.push_back("plan-" + t);  // (on hosts every choice is MPI)
  if (JACOBI_BENCH_NCCL && kCuda) exchanges.insert(exchanges.end(), {"hand-nccl", "nccl"});
  int per_rank = 0, iterations = 200, repeats = 3;
  bool sync = false, phases = false, quick = false, graph = false;
  bench::Options args("jacobi_bench");
  args.option("--cells", "N|NXxNYxNZ", cells_text, "the global grid (default 64)")
      .option("--per-rank", "N", per_rank, "N^3 cells on every rank (weak scaling): the grid is the process grid x N")
      .option("--iterations", "N", iterations, "iterations per timed run")
      .option("--repeats", "N", repeats, "timed runs per row: the median's row is printed")
      .option("--exchanges", "LIST", exchanges,
              "none, plan-<transport> (plan-mpi, plan-auto, ...), graph-<transport>, hand-nccl, nccl, nccl-remote")
      .option("--schedule", "auto|spin|yield|blocking", schedule, "how the host waits for the GPU (cudaSetDeviceFlags)")
      .option("--label", "TEXT", label, "the CSV's first column (the binding, the machine)")
      .flag("--sync", sync, "also a row with a fence after every iteration")
      .flag("--phases", phases, "also a row with host and GPU time per call")
      .flag("--graph", graph, "also a row replayed from a CUDA graph of two captured iterations")
      .flag("--quick", quick, "16^3 cells per rank, 10 iterations")
      .option("--csv", "FILE", csv, "write the rows as CSV");
  if (const auto done = args.parse(argc, argv, rank == 0)) return *done;
  if (quick) per_rank = 16, iterations = 10, repeats = 1;
  iterations = std::max(iterations, 4);
  repeats = std::max(repeats, 1);
#if defined(KOKKOS_ENABLE_CUDA)
  if (schedule != "auto") {
    const unsigned flag = schedule == "spin"    ? cudaDeviceScheduleSpin
                          : schedule == "yield" ? cudaDeviceScheduleYield
                                                : cudaDeviceScheduleBlockingSync;
    const cudaError_t rc = cudaSetDeviceFlags(flag);
    if (rank == 0) std::printf("cudaSetDeviceFlags(%s): %s\n", schedule.c_str(), cudaGetErrorString(rc));
  }
#endif
  MPI_Comm cart = jacobi::grid(MPI_COMM_WORLD);
  std::array<int, 3> dims{}, periods{}, coords{};
  MPI_Cart_get(cart, 3, dims.data(), periods.data(), coords.data());
  Cells cells{64, 64, 64};
  if (per_rank > 0) {
    for (int k = 0; k < 3; ++k) cells[k] = dims[k] * per_rank;
  } else if (!cells_text.empty() && !jacobi::parse_cells(cells_text.c_str(), cells)) {
    if (rank == 0) std::fprintf(stderr, "jacobi_bench: --cells '%s' is neither N nor NXxNYxNZ\n", cells_text.c_str());
    return bench::kUsageError;
  }
  const Block b = jacobi::block_of(cart, cells);
  Space space;
  Field u("u", b.n[0] + 2, b.n[1] + 2, b.n[2] + 2), v("v", b.n[0] + 2, b.n[1] + 2, b.n[2] + 2);
  Kokkos::deep_copy(u, 1.0), Kokkos::deep_copy(v, 1.0);
  FILE* out = rank == 0 ? std::fopen(csv.c_str(), "w") : nullptr;
  if (out)
    std::fprintf(out,
                 "label,ranks,cells,exchange,mode,us_per_iteration,exchange_us,alone_us,make_ms,first_us,host_start,"
                 "host_interior,host_wait,host_boundary,gpu_start,gpu_interior,gpu_wait,gpu_boundary\n");
  if (rank == 0) {
    std::printf("jacobi_bench: %dx%dx%d cells on %d ranks (grid %d x %d x %d), %s, %d iterations%s%s\n", cells[0],
                cells[1], cells[2], size, dims[0], dims[1], dims[2], Space::name(), iterations,
                label.empty() ? "" : ", ", label.c_str());
    std::printf("%-10s %-6s | %9s %9s %9s | %8s %8s | %27s | %31s\n", "exchange", "mode", "us/iter", "exchange",
                "alone", "make ms", "first us", "host us: start int wait bnd", "GPU us after: start int wait bnd");
  }
  // Every exchange that fills ghosts must fill them as a plan over MPI does: u filled with values that name the rank
  // and the cell, one exchange of u, its ghosts compared.
  auto fill = [&] {
    const Field f = u;
    const int r = rank, e1 = b.n[1] + 2, e2 = b.n[2] + 2;
    Kokkos::parallel_for(
        "jacobi_bench::fill",
        Kokkos::MDRangePolicy<Space, Kokkos::Rank<3>>(space, {0, 0, 0}, {b.n[0] + 2, b.n[1] + 2, b.n[2] + 2}),
        KOKKOS_LAMBDA(int i, int j, int k) { f(i, j, k) = r * 1e9 + (i * e1 + j) * e2 + k; });
    space.fence();
  };
  auto exchanged = [&](Exchange& x) {
    fill();
    x.start(space, true);
    x.wait(space, true);
    space.fence();
    return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u);
  };
  const auto want = [&] {
    PlanExchange reference(space, cart, "mpi", u, v);
    return exchanged(reference);
  }();
  char grid_text[64];
  std::snprintf(grid_text, sizeof grid_text, "%dx%dx%d", cells[0], cells[1], cells[2]);
  double sweeps_only = 0, sweeps_only_sync = 0, sweeps_only_graph = 0;
  // The hand-written NCCL contenders need one GPU per rank (NCCL refuses ranks that share one).
  const std::string gpus_shared = kCuda ? bench::gpu_sharing(cart) : "";
  for (const std::string& name : exchanges) {
    MPI_Barrier(cart);
    const auto made = Clock::now();
    std::unique_ptr<Exchange> x;
    std::string skipped = "not in this build";
    try {  // (a plan that cannot run on this machine throws on every rank alike: it is skipped with its reason)
      if (name == "none") x = std::make_unique<NoExchange>();
      if (name.rfind("plan-", 0) == 0 && KokkosDDT::mpi::has_transport(name.substr(5)))
        x = std::make_unique<PlanExchange>(space, cart, name.substr(5), u, v);
      if (name.rfind("graph-", 0) == 0 && KokkosDDT::mpi::has_transport(name.substr(6)))
        x = std::make_unique<PlanExchange>(space, cart, name.substr(6), u, v, true);
    } catch (const KokkosDDT::Error& e) {
      skipped = e.what();
    }
#if JACOBI_BENCH_NCCL
    const bool hand = name == "hand-nccl" || name == "nccl" || name == "nccl-remote";
    if (hand && !gpus_shared.empty()) skipped = gpus_shared + ", which NCCL refuses";
    if (hand && gpus_shared.empty()) {
      auto nccl = std::make_unique<HandNcclExchange>(cart, b, u, v, name == "hand-nccl");
      if (name == "nccl-remote") nccl->keep_other_nodes(cart);
      x = std::move(nccl);
    }
#endif
    if (!x) {
      if (rank == 0) std::printf("%-10s (skipped: %s)\n", name.c_str(), skipped.c_str());
      continue;
    }
    // What a user pays once: making the exchange (both plans: types, matching, the transport's communicator and its
    // connections), then its first step.
    const double make_ms = slowest(std::chrono::duration<double, std::milli>(Clock::now() - made).count(), cart);
    const auto first = Clock::now();
    x->start(space, true);
    x->wait(space, true);
    space.fence();
    const double first_us = slowest(std::chrono::duration<double, std::micro>(Clock::now() - first).count(), cart);
    if (const auto* plan = dynamic_cast<const PlanExchange*>(x.get()); plan && name == "plan-auto" && rank == 0)
      std::printf("%s's routes on rank 0:\n%s", name.c_str(), plan->u.describe().c_str());
    if (name != "none" && name != "nccl" && name != "nccl-remote") {  // (the floor moves the bytes but fills no ghost)
      const auto got = exchanged(*x);
      const bool same = std::equal(got.data(), got.data() + got.size(), want.data());
      if (slowest(same ? 0.0 : 1.0, cart) > 0) {
        if (rank == 0)
          std::fprintf(stderr, "jacobi_bench: %s fills other ghosts than the plan over MPI\n", name.c_str());
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
    Kokkos::Profiling::pushRegion("jacobi_bench " + name + " alone");
    const Timing alone =
        median_run(repeats, [&] { return run(space, cart, cells, b, u, v, *x, iterations, false, false, false); });
    Kokkos::Profiling::popRegion();
    struct Mode {
      const char* name;
      bool sync, phases, graph;
    };
    std::vector<Mode> modes{{"ahead", false, false, false}};
    if (sync) modes.push_back({"sync", true, false, false});
    if (phases) modes.push_back({"phases", false, true, false});
    if (graph) modes.push_back({"graph", false, false, true});
    for (const Mode& m : modes) {
      std::string why;
      // (a region per row: perf_tests/timeline's tool sees where each row's kernels come from)
      Kokkos::Profiling::pushRegion("jacobi_bench " + name + " " + m.name);
      const Timing t = median_run(repeats, [&] {
        return m.graph ? run_graph(space, cart, cells, b, u, v, *x, iterations, why)
                       : run(space, cart, cells, b, u, v, *x, iterations, true, m.sync, m.phases);
      });
      Kokkos::Profiling::popRegion();
      if (t.us_per_iteration < 0) {
        if (rank == 0) std::printf("%-10s %-6s | (not captured: %s)\n", name.c_str(), m.name, why.c_str());
        continue;
      }
      double& base = m.graph ? sweeps_only_graph : m.sync ? sweeps_only_sync : sweeps_only;
      if (name == "none" && !m.phases) base = t.us_per_iteration;
      const double adds = t.us_per_iteration - base;
      if (rank == 0) {
        std::printf(
            "%-10s %-6s | %9.1f %9.1f %9.1f | %8.1f %8.1f | %6.1f %6.1f %6.1f %6.1f | %7.1f %7.1f %7.1f %7.1f\n",
            name.c_str(), m.name, t.us_per_iteration, adds, alone.us_per_iteration, make_ms, first_us, t.host[0],
            t.host[1], t.host[2], t.host[3], t.gpu[0], t.gpu[1], t.gpu[2], t.gpu[3]);
        std::fprintf(out, "%s,%d,%s,%s,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n",
                     label.c_str(), size, grid_text, name.c_str(), m.name, t.us_per_iteration, adds,
                     alone.us_per_iteration, make_ms, first_us, t.host[0], t.host[1], t.host[2], t.host[3], t.gpu[0],
                     t.gpu[1], t.gpu[2], t.gpu[3]);
        std::fflush(stdout);
      }
    }
  }
  if (out) std::fclose(out);
  if (rank == 0) std::printf("CSV: %s\n", csv.c_str());
  MPI_Comm_free(&cart);
  return 0;
}
