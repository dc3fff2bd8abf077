// SPDX-License-Identifier: BSD-3-Clause
// Cabana's grid halo (Cabana 0.7.0, benchmark/grid/Cabana_Grid_HaloPerformance.cpp) and KokkosDDT's halo plan on the
// same arrays, side by side in one process: a cell array of 4 doubles per cell (Cabana's createArray, an (i, j, k, dof)
// LayoutRight View), a 26-neighbour pattern (Cabana's NodeHaloPattern<3>; our HaloNeighbors::All), non-periodic, the
// process grid Cabana's DimBlockPartitioner makes (our plan runs on its Cartesian communicator), halo widths 1-4 and
// 16^3-256^3 owned cells per rank, 10 runs each:
//   cabana   createHalo, halo->gather, halo->scatter(ScatterReduce::Sum()) per run, the halo made anew in every run
//   per run  make_halo_plan({w, All, scatter}), plan.exchange(), plan.scatter(Op::Sum): the plan made anew each run
//   once     one plan made before the runs: exchange() and scatter(Op::Sum) per run
//   wire     MPI alone: each neighbour's message of the halo (its bytes, contiguous, in the space's memory) sent and
//            received with MPI_Isend/MPI_Irecv and one MPI_Waitall, no pack: what the MPI beneath both moves the bytes
//            in, the floor of any halo over it (Cabana's, and our plan's over "mpi")
//   hand     a hand-written gather: every neighbour's owned cells packed by one Kokkos kernel (threads along the View's
//            fastest dimension) into the wire's buffers, the wire's MPI exchange, one kernel unpacking into the ghosts:
//            what a Kokkos user writes by hand, checked equal to Cabana's gather
// Every operation is followed by a fence of the execution space. Results are checked first: Cabana's gather and ours
// on two copies of one array must agree bit for bit, and so must the scatters that follow (the values are small
// integers: every sum is exact whatever its order). Printed: mean microseconds per operation (the slowest rank's mean
// over its 10 runs), and Cabana's time over ours. CSV with --csv FILE.
//
//   mpiexec -n 2 halo_vs_cabana [--sizes 16,32,64,128] [--widths 1,2,3,4] [--space host|device] [--cabana off]
//                               [--transport auto|mpi|peer|nccl] [--csv FILE]
//
// Cabana's grid halo hands device pointers to MPI: its device section needs a CUDA-aware MPI. `--cabana off` runs our
// side alone (Cabana's columns read -1, the check is ours against our own gather's expectation: skipped).
//
// Built outside the main build against installed KokkosDDT and Cabana (perf_tests/cabana/CMakeLists.txt;
// run_cabana.sh builds and runs both).
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <mpi.h>

#include <Cabana_Grid.hpp>
#include <Kokkos_Core.hpp>
#include <KokkosDDT_MPI.hpp>

namespace {

using namespace Cabana::Grid;

// Device memory that MPI has seen (Cabana's halos and the arrays, the wire's and the hand-written gather's buffers),
// kept until the end: a CUDA-aware MPI keeps its peers' CUDA IPC mappings of freed buffers open (Open MPI's smcuda
// cache), and a later allocation reusing that memory cannot be mapped by our peer transport (cudaIpcOpenMemHandle:
// "resource already mapped", seen on one H200 with 2 ranks). The plan would then send those messages over MPI instead
// (the peer route's refusal "mapped here already by another library"), not what this benchmark means to time.
std::vector<std::shared_ptr<const void>> g_keep;

// Keeps a device View that MPI has sent or received (host memory needs no keeping: no IPC cache maps it).
template <class View>
void keep_for_mpi(const View& v) {
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename View::memory_space>::accessible)
    g_keep.push_back(std::make_shared<const View>(v));
}

bool g_cabana = true;              // --cabana off: our side alone
std::string g_transport = "auto";  // --transport mpi|peer|nccl|auto: our plan's

std::vector<int> parse_list(const char* text) {
  std::vector<int> out;
  std::string s(text);
  for (std::size_t at = 0; at <= s.size();) {
    const std::size_t comma = std::min(s.find(',', at), s.size());
    if (comma > at) out.push_back(std::atoi(s.substr(at, comma - at).c_str()));
    at = comma + 1;
  }
  return out;
}

struct Row {
  int n, w;
  double cabana[3], per_run[3], once[2];  // create, gather, scatter (once: gather, scatter)
  double wire;                            // MPI alone, the gather's messages contiguous
  double hand;                            // the hand-written gather (HandGather)
  bool gather_equal, scatter_equal, hand_equal;
};

// The slowest rank's value.
double slowest(double us, MPI_Comm comm) {
  double out = 0;
  MPI_Allreduce(&us, &out, 1, MPI_DOUBLE, MPI_MAX, comm);
  return out;
}

// `untimed` runs before each timed `f` (the previous run's halo destroyed, as Cabana's benchmark does at a run's end).
// Each timed run is a Kokkos profiling region named "hvc <n> <w> <what>" (g_case: "<n> <w>"), which a Kokkos Tools
// library records: perf_tests/timeline/kokkosddt_timeline.cpp, then perf_tests/timeline/region_summary.py.
std::string g_case;
template <class F, class U>
double mean_us(const char* what, int runs, const F& f, const U& untimed) {
  const std::string region = "hvc " + g_case + " " + what;
  Kokkos::Timer t;
  double total = 0;
  for (int r = 0; r < runs; ++r) {
    untimed();
    MPI_Barrier(MPI_COMM_WORLD);
    Kokkos::Profiling::pushRegion(region);
    t.reset();
    f();
    total += t.seconds();
    Kokkos::Profiling::popRegion();
  }
  return slowest(total / runs * 1e6, MPI_COMM_WORLD);
}

template <class F>
double mean_us(const char* what, int runs, const F& f) {
  return mean_us(what, runs, f, [] {});
}

// The neighbours of a 26-neighbour halo on the Cartesian communicator (non-periodic: those inside the process grid),
// with the tags of their messages: the direction seen from the sender, so that a receive from offset o expects the
// tag of -o.
struct Neighbour {
  int rank, send_tag, recv_tag;
  int off[3];  // -1, 0 or 1 along each dimension
};
std::vector<Neighbour> neighbours(MPI_Comm cart) {
  int dims[3], periods[3], coords[3];
  MPI_Cart_get(cart, 3, dims, periods, coords);
  std::vector<Neighbour> out;
  for (int o = 0; o < 27; ++o) {
    Neighbour nb{-1, o, 26 - o, {o / 9 - 1, o / 3 % 3 - 1, o % 3 - 1}};
    if (nb.off[0] == 0 && nb.off[1] == 0 && nb.off[2] == 0) continue;
    int at[3];
    bool inside = true;
    for (int d = 0; d < 3; ++d) {
      at[d] = coords[d] + nb.off[d];
      inside = inside && at[d] >= 0 && at[d] < dims[d];
    }
    if (!inside) continue;
    MPI_Cart_rank(cart, at, &nb.rank);
    out.push_back(nb);
  }
  return out;
}

// The wire: every message of a w-wide 26-neighbour halo of n^3 owned cells of 4 doubles (a neighbour at offset o gets
// the owned cells within w of that face, edge or corner: n cells along a dimension where o is 0, w where it is not)
// sent from one buffer per neighbour in `Memory` and received into another, with MPI alone. Mean of `runs` after one
// untimed exchange.
template <class Memory>
double wire_us(MPI_Comm cart, int n, int w, int runs) {
  struct Peer {
    int rank, send_tag, recv_tag;
    Kokkos::View<double*, Memory> out, in;
  };
  std::vector<Peer> peers;
  for (const Neighbour& nb : neighbours(cart)) {
    std::size_t count = 4;
    for (int d = 0; d < 3; ++d) count *= nb.off[d] == 0 ? std::size_t(n) : std::size_t(w);
    peers.push_back({nb.rank, nb.send_tag, nb.recv_tag, Kokkos::View<double*, Memory>("wire out", count),
                     Kokkos::View<double*, Memory>("wire in", count)});
  }
  Kokkos::fence();
  auto exchange = [&] {
    std::vector<MPI_Request> requests;
    for (auto& p : peers) {
      requests.emplace_back();
      MPI_Irecv(p.in.data(), int(p.in.size()), MPI_DOUBLE, p.rank, p.recv_tag, cart, &requests.back());
    }
    for (auto& p : peers) {
      requests.emplace_back();
      MPI_Isend(p.out.data(), int(p.out.size()), MPI_DOUBLE, p.rank, p.send_tag, cart, &requests.back());
    }
    MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  };
  exchange();
  for (const Peer& p : peers) {
    keep_for_mpi(p.out);
    keep_for_mpi(p.in);
  }
  return mean_us("wire", runs, exchange);
}

// A box of cells of the local (n + 2w)^3 array, its elements (cells x 4 components) at `offset` in its packed buffer.
struct Box {
  int lo[3], extent[3];
  long offset;
};

// One kernel over every box's elements: element q of box b is (lo + (i, j, k), c), i fastest for LayoutLeft Views (c
// for LayoutRight ones), so that neighbouring threads touch neighbouring memory where the box allows; packs the View's
// cells into `packed`, or unpacks them from it.
template <class View, class Buffer, class Boxes>
struct HandKernel {
  View v;
  Buffer packed;
  Boxes boxes;
  int count;
  bool pack;
  KOKKOS_INLINE_FUNCTION void operator()(long q) const {
    int b = 0;
    while (b + 1 < count && boxes(b + 1).offset <= q) ++b;
    const Box& x = boxes(b);
    long e = q - x.offset;
    int at[4];
    if (std::is_same_v<typename View::array_layout, Kokkos::LayoutLeft>) {
      for (int d = 0; d < 3; ++d) {
        at[d] = x.lo[d] + int(e % x.extent[d]);
        e /= x.extent[d];
      }
      at[3] = int(e);
    } else {
      at[3] = int(e % 4);
      e /= 4;
      for (int d = 2; d >= 0; --d) {
        at[d] = x.lo[d] + int(e % x.extent[d]);
        e /= x.extent[d];
      }
    }
    double& cell = v(at[0], at[1], at[2], at[3]);
    if (pack)
      packed(q) = cell;
    else
      cell = packed(q);
  }
};

// A hand-written gather of a w-wide 26-neighbour halo on the Cartesian communicator: each neighbour at offset o gets
// the owned cells within w of that side (the wire's counts) and sends back the cells that fill this side's ghosts;
// one pack launch, the MPI exchange of the wire (one buffer per direction, a slice per neighbour), one unpack launch.
template <class Space, class View>
struct HandGather {
  using Memory = typename View::memory_space;
  Space space;
  View v;
  MPI_Comm cart;
  std::vector<Neighbour> peers;
  std::vector<Box> send_boxes, recv_boxes;
  Kokkos::View<Box*, Memory> sends, recvs;
  Kokkos::View<double*, Memory> out, in;
  long total = 0;

  HandGather(const Space& s, const View& view, MPI_Comm c, int n, int w)
      : space(s), v(view), cart(c), peers(neighbours(c)) {
    for (const Neighbour& nb : peers) {
      Box send{{}, {}, total}, recv{{}, {}, total};
      long cells = 4;
      for (int d = 0; d < 3; ++d) {
        send.extent[d] = recv.extent[d] = nb.off[d] == 0 ? n : w;
        send.lo[d] = nb.off[d] > 0 ? n : w;                          // owned cells next to that side
        recv.lo[d] = nb.off[d] < 0 ? 0 : nb.off[d] > 0 ? n + w : w;  // the ghosts on that side
        cells *= send.extent[d];
      }
      send_boxes.push_back(send);
      recv_boxes.push_back(recv);
      total += cells;
    }
    sends = to_device(send_boxes);
    recvs = to_device(recv_boxes);
    out = Kokkos::View<double*, Memory>("hand out", total);
    in = Kokkos::View<double*, Memory>("hand in", total);
    keep_for_mpi(out);
    keep_for_mpi(in);
  }
  static Kokkos::View<Box*, Memory> to_device(const std::vector<Box>& boxes) {
    Kokkos::View<Box*, Memory> d("hand boxes", boxes.size());
    Kokkos::View<const Box*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(boxes.data(), boxes.size());
    Kokkos::deep_copy(d, h);
    return d;
  }
  void run() {
    const int count = int(peers.size());
    if (total > 0)
      Kokkos::parallel_for("hvc hand pack", Kokkos::RangePolicy<Space>(space, 0, total),
                           HandKernel<View, decltype(out), decltype(sends)>{v, out, sends, count, true});
    space.fence();  // (MPI reads the packed bytes)
    std::vector<MPI_Request> requests(2 * std::size_t(count));
    for (int p = 0; p < count; ++p) {
      const Box& r = recv_boxes[p];
      const long cells = 4L * r.extent[0] * r.extent[1] * r.extent[2];
      MPI_Irecv(in.data() + r.offset, int(cells), MPI_DOUBLE, peers[p].rank, peers[p].recv_tag, cart, &requests[p]);
    }
    for (int p = 0; p < count; ++p) {
      const Box& s = send_boxes[p];
      const long cells = 4L * s.extent[0] * s.extent[1] * s.extent[2];
      MPI_Isend(out.data() + s.offset, int(cells), MPI_DOUBLE, peers[p].rank, peers[p].send_tag, cart,
                &requests[count + p]);
    }
    MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    if (total > 0)
      Kokkos::parallel_for("hvc hand unpack", Kokkos::RangePolicy<Space>(space, 0, total),
                           HandKernel<View, decltype(in), decltype(recvs)>{v, in, recvs, count, false});
    space.fence();
  }
};

template <class Device>
Row compare(int n, int w, int runs) {
  using Space = typename Device::execution_space;
  Space space;
  g_case = std::to_string(n) + " " + std::to_string(w);
  DimBlockPartitioner<3> partitioner;
  auto ranks = partitioner.ranksPerDimension(MPI_COMM_WORLD, {0, 0, 0});
  std::array<int, 3> cells;
  for (int d = 0; d < 3; ++d) cells[d] = n * ranks[d];
  auto mesh =
      createUniformGlobalMesh(std::array<double, 3>{1.2, 3.3, -2.8}, std::array<double, 3>{2.4, -0.4, -1.5}, cells);
  auto grid = createGlobalGrid(MPI_COMM_WORLD, mesh, std::array<bool, 3>{false, false, false}, partitioner);
  auto layout = createArrayLayout(grid, w, 4, Cell());
  auto a = createArray<double, Device>("cabana", layout);
  auto b = createArray<double, Device>("kokkosddt", layout);
  auto h = createArray<double, Device>("hand", layout);
  auto va = a->view();
  auto vb = b->view();
  auto vh = h->view();
  // Owned cells: a small integer of the global cell and component; ghosts 0.
  std::array<int, 3> offset;
  for (int d = 0; d < 3; ++d) offset[d] = grid->globalOffset(d);
  auto host = Kokkos::create_mirror_view(va);
  for (std::size_t i = 0; i < host.extent(0); ++i)
    for (std::size_t j = 0; j < host.extent(1); ++j)
      for (std::size_t k = 0; k < host.extent(2); ++k)
        for (int c = 0; c < 4; ++c) {
          const bool owned = i >= std::size_t(w) && i < host.extent(0) - w && j >= std::size_t(w) &&
                             j < host.extent(1) - w && k >= std::size_t(w) && k < host.extent(2) - w;
          const long gi = long(i) - w + offset[0], gj = long(j) - w + offset[1], gk = long(k) - w + offset[2];
          host(i, j, k, c) = owned ? double((gi * 7 + gj * 5 + gk * 3 + c) % 13 + 1) : 0.0;
        }
  Kokkos::deep_copy(va, host);
  Kokkos::deep_copy(vb, host);
  Kokkos::deep_copy(vh, host);
  // The model, to tell which side is wrong where they differ: after a gather every cell inside the global domain holds
  // its global cell's value (ghosts outside it keep 0); after the scatter that follows, an owned cell holds its value
  // times one plus the ranks whose ghost cells (26 neighbours, width w) hold a copy of it.
  int nranks = 1, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  std::vector<int> offsets(3 * std::size_t(nranks), 0);
  MPI_Allgather(offset.data(), 3, MPI_INT, offsets.data(), 3, MPI_INT, MPI_COMM_WORLD);
  auto model_wrong = [&](const char* what, bool scattered, const auto& view, const char* side) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
    long wrong = 0, all = 0;
    for (std::size_t i = 0; i < h.extent(0); ++i)
      for (std::size_t j = 0; j < h.extent(1); ++j)
        for (std::size_t k = 0; k < h.extent(2); ++k) {
          const long g[3] = {long(i) - w + offset[0], long(j) - w + offset[1], long(k) - w + offset[2]};
          const std::size_t at[3] = {i, j, k};
          bool inside = true, owned = true;
          for (int d = 0; d < 3; ++d) {
            inside = inside && g[d] >= 0 && g[d] < cells[d];
            owned = owned && at[d] >= std::size_t(w) && at[d] < h.extent(d) - w;
          }
          if (scattered && !owned) continue;
          int copies = 0;
          for (int r = 0; scattered && r < nranks; ++r) {
            bool in = r != me;
            for (int d = 0; d < 3; ++d) in = in && g[d] >= offsets[3 * r + d] - w && g[d] < offsets[3 * r + d] + n + w;
            copies += in;
          }
          for (int c = 0; c < 4; ++c) {
            const double value = inside ? double((g[0] * 7 + g[1] * 5 + g[2] * 3 + c) % 13 + 1) : 0.0;
            const double want = scattered ? value * (1 + copies) : value;
            if (h(i, j, k, c) != want && wrong++ == 0)
              std::printf("  %s (%s) against the model: rank %d at (%zu, %zu, %zu, %d): %g, model %g\n", what, side, me,
                          i, j, k, c, h(i, j, k, c), want);
          }
        }
    MPI_Allreduce(&wrong, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (all > 0 && me == 0) std::printf("  %s (%s): %ld values differ from the model\n", what, side, all);
  };
  namespace ddt = KokkosDDT::mpi;
  ddt::HaloOptions options{w, ddt::HaloNeighbors::All};
  options.transport = g_transport;
  options.components = ddt::HaloComponents::Last;  // (Cabana's (i, j, k, dof), in the space's default layout)
  options.scatter = true;
  MPI_Comm cart = grid->comm();
  // Whether Cabana's array and `ours` (vb, or the hand-written gather's vh) agree bit for bit on every rank; where not,
  // the first difference is printed.
  auto equal = [&](const char* what, const auto& ours) {
    auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), va);
    auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ours);
    long differ = 0, all = 0;
    for (std::size_t i = 0; i < ha.extent(0); ++i)
      for (std::size_t j = 0; j < ha.extent(1); ++j)
        for (std::size_t k = 0; k < ha.extent(2); ++k)
          for (std::size_t c = 0; c < ha.extent(3); ++c)
            if (ha(i, j, k, c) != hb(i, j, k, c) && differ++ == 0)
              std::printf(
                  "  %s differs: n %d w %d rank %d at (%zu, %zu, %zu, %zu) of (%zu, %zu, %zu, %zu): Cabana %g, "
                  "ours %g\n",
                  what, n, w, grid->blockId(), i, j, k, c, ha.extent(0), ha.extent(1), ha.extent(2), ha.extent(3),
                  ha(i, j, k, c), hb(i, j, k, c));
    MPI_Allreduce(&differ, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (all > 0 && grid->blockId() == 0) std::printf("  %s: %ld values differ\n", what, all);
    return all == 0;
  };
  Row row{n, w, {-1, -1, -1}, {}, {}, -1, -1, false, false, false};
  HandGather<Space, decltype(vh)> hand(space, vh, cart, n, w);
  if (!g_cabana) {  // (the same first plan, gather and scatter as the check below makes untimed: not in the means)
    auto plan = ddt::make_halo_plan(space, cart, options, vb);
    plan.exchange();
    plan.scatter(KokkosDDT::Op::Sum);
    space.fence();
  }
  if (g_cabana) {
    auto halo = createHalo(NodeHaloPattern<3>(), w, *a);
    if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Device::memory_space>::accessible)
      g_keep.push_back(halo);
    auto plan = ddt::make_halo_plan(space, cart, options, vb);
    halo->gather(space, *a);
    plan.exchange();
    space.fence();
    row.gather_equal = equal("gather", vb);
    if (!row.gather_equal) {
      model_wrong("gather", false, va, "Cabana");
      model_wrong("gather", false, vb, "ours");
    }
    hand.run();
    row.hand_equal = equal("hand-written gather", vh);
    if (!row.hand_equal) model_wrong("gather", false, vh, "hand-written");
    halo->scatter(space, ScatterReduce::Sum(), *a);
    plan.scatter(KokkosDDT::Op::Sum);
    space.fence();
    row.scatter_equal = equal("scatter", vb);
    if (!row.scatter_equal) {
      model_wrong("scatter", true, va, "Cabana");
      model_wrong("scatter", true, vb, "ours");
    }
  }
  // Cabana's benchmark, as it runs it: the halo made in every run, each operation timed on its own.
  std::shared_ptr<Halo<typename Device::memory_space>> halo;
  constexpr bool kDevice = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Device::memory_space>::accessible;
  if (kDevice) g_keep.insert(g_keep.end(), {a, b, h});
  if (g_cabana)
    row.cabana[0] = mean_us(
        "cabana make", runs, [&] { halo = createHalo(NodeHaloPattern<3>(), w, *a); },
        [&] {
          if (kDevice && halo) g_keep.push_back(halo);  // (its buffers are never freed: see g_keep)
          halo.reset();
        });
  if (g_cabana)
    row.cabana[1] = mean_us("cabana gather", runs, [&] {
      halo->gather(space, *a);
      space.fence();
    });
  if (g_cabana)
    row.cabana[2] = mean_us("cabana scatter", runs, [&] {
      halo->scatter(space, ScatterReduce::Sum(), *a);
      space.fence();
    });
  if (kDevice && halo) g_keep.push_back(halo);
  halo.reset();
  ddt::HaloPlan<Space> plan;
  // Each run's plan destroyed before the next is made, untimed, as Cabana's halos above (its benchmark's halo ends with
  // its run): what a plan gives back when it ends (the peer route's counters, landing buffers and streams) serves the
  // next one.
  row.per_run[0] = mean_us(
      "ours make", runs, [&] { plan = ddt::make_halo_plan(space, cart, options, vb); }, [&] { plan = {}; });
  row.per_run[1] = mean_us("ours gather", runs, [&] { plan.exchange(); });
  row.per_run[2] = mean_us("ours scatter", runs, [&] { plan.scatter(KokkosDDT::Op::Sum); });
  // The plan made once: the persistent use (warmed by the runs above).
  row.once[0] = mean_us("once gather", runs, [&] { plan.exchange(); });
  row.once[1] = mean_us("once scatter", runs, [&] { plan.scatter(KokkosDDT::Op::Sum); });
  plan = {};
  // (device buffers need a CUDA-aware MPI: Cabana's check, off with --cabana off, says one is there)
  if (g_cabana || !kDevice) {
    row.wire = wire_us<typename Device::memory_space>(cart, n, w, runs);
    hand.run();  // (untimed: the first)
    row.hand = mean_us("hand gather", runs, [&] { hand.run(); });
  }
  return row;
}

template <class Device>
void table(const char* name, const std::vector<int>& sizes, const std::vector<int>& widths, std::FILE* csv, int rank) {
  if (rank == 0) {
    std::printf("\n%s: mean us per operation (slowest rank), Cabana 0.7.0 against KokkosDDT; x = Cabana / ours\n",
                name);
    std::printf("%4s %2s | %9s %9s %9s | %9s %9s %9s | %9s %9s | %6s %6s %6s | %8s %8s | %s\n", "n", "w", "cab_make",
                "cab_gath", "cab_scat", "ddt_make", "ddt_gath", "ddt_scat", "once_gat", "once_sca", "x_make", "x_gath",
                "x_scat", "mpi_wire", "hand_gat", "checked");
  }
  for (int w : widths)
    for (int n : sizes) {
      const Row r = compare<Device>(n, w, 10);
      if (rank != 0) continue;
      std::printf(
          "%4d %2d | %9.1f %9.1f %9.1f | %9.1f %9.1f %9.1f | %9.1f %9.1f | %6.2f %6.2f %6.2f | %8.1f %8.1f | %s\n", n,
          w, r.cabana[0], r.cabana[1], r.cabana[2], r.per_run[0], r.per_run[1], r.per_run[2], r.once[0], r.once[1],
          r.cabana[0] / r.per_run[0], r.cabana[1] / r.per_run[1], r.cabana[2] / r.per_run[2], r.wire, r.hand,
          !g_cabana                                           ? "-"
          : r.gather_equal && r.scatter_equal && r.hand_equal ? "equal"
                                                              : "MISMATCH");
      std::fflush(stdout);
      if (csv)
        std::fprintf(csv, "%s,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%.3f,%.3f\n", name, n, w, r.cabana[0],
                     r.cabana[1], r.cabana[2], r.per_run[0], r.per_run[1], r.per_run[2], r.once[0], r.once[1],
                     r.gather_equal && r.scatter_equal && r.hand_equal ? 1 : 0, r.wire, r.hand);
    }
}

}  // namespace

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  Kokkos::initialize(argc, argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> sizes{16, 32, 64, 128, 256}, widths{1, 2, 3, 4};
  std::string where = "both", csv_name;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--sizes") sizes = parse_list(argv[i + 1]);
    if (flag == "--widths") widths = parse_list(argv[i + 1]);
    if (flag == "--space") where = argv[i + 1];
    if (flag == "--csv") csv_name = argv[i + 1];
    if (flag == "--cabana") g_cabana = std::string(argv[i + 1]) != "off";
    if (flag == "--transport") g_transport = argv[i + 1];
  }
  std::FILE* csv = rank == 0 && !csv_name.empty() ? std::fopen(csv_name.c_str(), "w") : nullptr;
  if (csv)
    std::fprintf(csv,
                 "space,n,w,cabana_create_us,cabana_gather_us,cabana_scatter_us,ddt_create_us,ddt_gather_us,"
                 "ddt_scatter_us,ddt_once_gather_us,ddt_once_scatter_us,checked,mpi_wire_us,hand_gather_us\n");
  if (rank == 0)
    std::printf("halo_vs_cabana: %d ranks, %s, Kokkos %d, our transport %s\n", size,
                Kokkos::DefaultExecutionSpace::name(), KOKKOS_VERSION, g_transport.c_str());
  using Host = Kokkos::DefaultHostExecutionSpace::device_type;
  using Device = Kokkos::DefaultExecutionSpace::device_type;
  if (!std::is_same_v<Host, Device> && where != "host") table<Device>("device", sizes, widths, csv, rank);
  if (where != "device") table<Host>("host", sizes, widths, csv, rank);
  if (csv) std::fclose(csv);
  g_keep.clear();  // (Views must go before Kokkos does)
  Kokkos::finalize();
  MPI_Finalize();
  return 0;
}
