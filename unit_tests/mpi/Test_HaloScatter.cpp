// SPDX-License-Identifier: BSD-3-Clause
// Halo plans in the other direction (options.scatter) and fields with per-cell components: on every process grid
// MPI_Dims_create makes, periodic and not, faces and all neighbours. Owned cells hold a function of their global index,
// ghost cells one of their process and local index; a gather must fill each ghost with its owner's value, a scatter
// must leave the ghosts alone and combine into each owned cell, in the plan's fixed order (ascending scatter order),
// what every neighbour's ghost of that cell holds. Values are small integers, so that every sum is exact.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "mpi/HaloPlanCheck.hpp"

using namespace KokkosDDT;
using namespace KokkosDDT::Test;

namespace {

// The value an owned cell of global index x holds (component c), and a ghost cell of process r at local index i.
double owned_value(const std::array<std::int64_t, 4>& x, int c) {
  const std::int64_t linear = ((x[0] * 31 + x[1]) * 31 + x[2]) * 31 + x[3];
  return 1.0 + static_cast<double>((linear * 3 + c) % 97);
}
double ghost_value(int r, const std::array<std::int64_t, 4>& i, int c) {
  const std::int64_t linear = ((i[0] * 17 + i[1]) * 17 + i[2]) * 17 + i[3];
  return 100.0 * (r + 1) + static_cast<double>((linear * 5 + c) % 89);
}

double combine(Op op, double existing, double incoming) {
  switch (op) {
    case Op::Sum:
      return existing + incoming;
    case Op::Max:
      return std::max(existing, incoming);
    case Op::Min:
      return std::min(existing, incoming);
    case Op::Bxor:
      return static_cast<double>(static_cast<int>(existing) ^ static_cast<int>(incoming));
    default:  // Replace
      return incoming;
  }
}

// Whether a field's components are its first dimension, as HaloOptions::components `p` places them.
template <class Layout>
bool components_first(mpi::HaloComponents p) {
  return p == mpi::HaloComponents::First ||
         (p == mpi::HaloComponents::ByLayout && std::is_same_v<Layout, Kokkos::LayoutLeft>);
}

// Field access by Cartesian index and component: components first (`cfirst`) or last, or none.
template <class View>
auto& at(const View& v, int dims, const std::array<std::int64_t, 4>& i, int c, bool cfirst) {
  std::array<std::int64_t, 5> k{0, 0, 0, 0, 0};
  const bool components = static_cast<int>(View::rank()) > dims;
  const int first = components && cfirst ? 1 : 0;
  for (int d = 0; d < dims; ++d) k[first + d] = i[d];
  if (components) k[cfirst ? 0 : dims] = c;
  return v.access(k[0], k[1], k[2], k[3], k[4]);
}

// A plan over two fields of rank R (+1 with components, 3 of them) of doubles and one of ints between them: a gather,
// then scatters with each of `ops` (the int field gets the same operation). P: where the components are
// (HaloOptions::components). A wide interior scatters in pieces, one launch of chains; a thin one (an extent under 4
// ghosts: 3 + 2 ghosts of 2) by orders.
template <int R, class Layout, bool Components, mpi::HaloComponents P = mpi::HaloComponents::ByLayout>
void check_scatter(const Grid& grid, mpi::HaloNeighbors neighbors, int ghost, bool wide, const std::vector<Op>& ops) {
  using M = ExecSpace::memory_space;
  constexpr int C = Components ? 3 : 1;
  using U = Kokkos::View<typename Pointer<double, R + (Components ? 1 : 0)>::type, Layout, M>;
  using V = Kokkos::View<typename Pointer<int, R>::type, Layout, M>;
  std::array<std::int64_t, 4> interior{6, 3, 4, 4}, n{1, 1, 1, 1}, global{1, 1, 1, 1};  // (3: under 4 ghosts of 2)
  if (wide) interior = {9, 8, 8, 8};
  for (int k = 0; k < R; ++k) {
    n[k] = interior[k] + 2 * ghost;
    global[k] = interior[k] * grid.dims[k];
  }
  std::array<std::int64_t, 5> ue{1, 1, 1, 1, 1};
  const bool cfirst = components_first<Layout>(P);
  for (int k = 0; k < R; ++k) ue[(Components && cfirst ? 1 : 0) + k] = n[k];
  if (Components) ue[cfirst ? 0 : R] = C;
  auto extent = [](std::int64_t e, int k, int rank) {
    return k < rank ? static_cast<std::size_t>(e) : KOKKOS_INVALID_INDEX;
  };
  constexpr int UR = R + (Components ? 1 : 0);
  U u("u", Layout(extent(ue[0], 0, UR), extent(ue[1], 1, UR), extent(ue[2], 2, UR), extent(ue[3], 3, UR),
                  extent(ue[4], 4, UR)));
  V v("v", Layout(extent(n[0], 0, R), extent(n[1], 1, R), extent(n[2], 2, R), extent(n[3], 3, R)));
  U u2("u2", u.layout());  // (u's kind after v's: a scatter's group of two fields, scatter_groups)
  ExecSpace space;
  mpi::HaloOptions o = options(ghost, neighbors);
  o.scatter = true;
  o.components = P;
  auto plan = mpi::make_halo_plan(space, grid.cart, o, u, v, u2);
  constexpr double kShift = 7;  // (u2 holds u's values plus this)
  auto hu = Kokkos::create_mirror_view(u);
  auto hu2 = Kokkos::create_mirror_view(u2);
  auto hv = Kokkos::create_mirror_view(v);
  const std::int64_t cells = n[0] * n[1] * n[2] * n[3];
  auto index = [&](std::int64_t cell) {
    std::array<std::int64_t, 4> i{};
    for (int k = 3; k >= 0; --k) {
      i[k] = cell % n[k];
      cell /= n[k];
    }
    return i;
  };
  auto inside = [&](const std::array<std::int64_t, 4>& i) {
    for (int k = 0; k < R; ++k)
      if (i[k] < ghost || i[k] >= n[k] - ghost) return false;
    return true;
  };
  auto global_of = [&](const std::array<std::int64_t, 4>& i) {
    std::array<std::int64_t, 4> x{};
    for (int k = 0; k < R; ++k) x[k] = grid.coords[k] * interior[k] + i[k] - ghost;
    return x;
  };
  const int dims = R;
  // Owned cells their function, ghosts this process's values.
  auto fill = [&] {
    for (std::int64_t cell = 0; cell < cells; ++cell) {
      const auto i = index(cell);
      for (int c = 0; c < C; ++c) {
        at(hu, dims, i, c, cfirst) = inside(i) ? owned_value(global_of(i), c) : ghost_value(grid.rank, i, c);
        at(hu2, dims, i, c, cfirst) = at(hu, dims, i, c, cfirst) + kShift;
      }
      at(hv, dims, i, 0, cfirst) =
          static_cast<int>(inside(i) ? owned_value(global_of(i), 1) : ghost_value(grid.rank, i, 1));
    }
    Kokkos::deep_copy(u, hu);
    Kokkos::deep_copy(v, hv);
    Kokkos::deep_copy(u2, hu2);
  };
  INFO("rank " << grid.rank << ", rank-" << R << (Components ? " fields with components" : " fields") << ", grid "
               << grid.dims[0] << "x" << grid.dims[1] << "x" << grid.dims[2] << ", ghost " << ghost
               << (wide ? " (wide), " : " (thin), ") << (neighbors == mpi::HaloNeighbors::All ? "all" : "faces") << ", "
               << mpi::name(plan.transport()));

  // 1. A gather: each ghost its owner's value (or its own where no neighbour sends).
  fill();
  plan.start(space);
  plan.wait();
  Kokkos::deep_copy(hu, u);
  Kokkos::deep_copy(hv, v);
  Kokkos::deep_copy(hu2, u2);
  int wrong = 0;
  for (std::int64_t cell = 0; cell < cells; ++cell) {
    const auto i = index(cell);
    auto x = global_of(i);
    int nonzero = 0;
    bool sent = !inside(i);
    for (int k = 0; k < R; ++k) {
      nonzero += i[k] < ghost || i[k] >= n[k] - ghost;
      if (x[k] < 0 || x[k] >= global[k]) {
        if (grid.periods[k])
          x[k] = (x[k] + global[k]) % global[k];
        else
          sent = false;
      }
    }
    if (nonzero > 1 && neighbors == mpi::HaloNeighbors::Faces) sent = false;
    for (int c = 0; c < C; ++c) {
      const double want = inside(i) ? owned_value(x, c) : sent ? owned_value(x, c) : ghost_value(grid.rank, i, c);
      wrong += at(hu, dims, i, c, cfirst) != want;
      wrong += at(hu2, dims, i, c, cfirst) != want + kShift;
    }
    const int want_v = static_cast<int>(inside(i) || sent ? owned_value(x, 1) : ghost_value(grid.rank, i, 1));
    wrong += at(hv, dims, i, 0, cfirst) != want_v;
  }
  CHECK(wrong == 0);

  // 2. Scatters: the neighbours' ghosts of each owned cell, combined in ascending scatter order.
  Impl::HaloGrid hg;
  hg.rank = R;
  hg.dims = grid.dims;
  hg.periods = grid.periods;
  hg.coords = grid.coords;
  std::vector<Impl::HaloDirection> directions =
      Impl::halo_directions(hg, n, ghost, neighbors == mpi::HaloNeighbors::All);
  std::stable_sort(directions.begin(), directions.end(), [&](const auto& a, const auto& b) {
    return Impl::scatter_order(a, R, n, ghost) < Impl::scatter_order(b, R, n, ghost);
  });
  for (Op op : ops) {
    fill();
    const std::int64_t launched = plan.scatter_launches();
    plan.start_scatter(space, op);
    plan.wait();
    if (wide) CHECK(plan.scatter_launches() - launched <= 2);  // the packs, then every piece's chain
    Kokkos::deep_copy(hu, u);
    Kokkos::deep_copy(hv, v);
    Kokkos::deep_copy(hu2, u2);
    wrong = 0;
    for (std::int64_t cell = 0; cell < cells; ++cell) {
      const auto i = index(cell);
      std::array<double, C> want{}, want2{};
      for (int c = 0; c < C; ++c) {
        want[c] = inside(i) ? owned_value(global_of(i), c) : ghost_value(grid.rank, i, c);
        want2[c] = want[c] + kShift;
      }
      double want_v = inside(i) ? owned_value(global_of(i), 1) : ghost_value(grid.rank, i, 1);
      for (const Impl::HaloDirection& h : directions) {
        if (!inside(i) || !h.exists) continue;
        bool in = true;
        std::array<std::int64_t, 4> j = i;  // the neighbour's ghost cell of this one
        for (int k = 0; k < R; ++k) {
          in = in && i[k] >= h.send_lo[k] && i[k] < h.send_hi[k];
          j[k] = i[k] - h.d[k] * (n[k] - 2 * ghost);
        }
        if (!in) continue;
        int peer = 0;
        MPI_Cart_rank(grid.cart, h.neighbor.data(), &peer);
        for (int c = 0; c < C; ++c) {
          want[c] = combine(op, want[c], ghost_value(peer, j, c));
          want2[c] = combine(op, want2[c], ghost_value(peer, j, c) + kShift);
        }
        want_v = combine(op, want_v, static_cast<double>(static_cast<int>(ghost_value(peer, j, 1))));
      }
      for (int c = 0; c < C; ++c)
        wrong += (at(hu, dims, i, c, cfirst) != want[c]) + (at(hu2, dims, i, c, cfirst) != want2[c]);
      wrong += at(hv, dims, i, 0, cfirst) != static_cast<int>(want_v);
    }
    INFO("scatter with " << op_name(op));
    CHECK(wrong == 0);
  }
  // Per scatter: the packs (and copies) in one launch, then a launch per scatter order that has receives.
  if (plan.neighbors() == 0) CHECK(plan.scatter_launches() == 0);
  // In pieces (chains) exactly where every extent holds 4 ghost widths and something is combined.
  CHECK((plan.scatter_chains() > 0) == (Impl::scatter_in_pieces(R, n, ghost) && plan.neighbors() > 0));
  // Of them, devices combine some in one pass (FusedTile::chain_in_one_pass); hosts run every record in turn.
  CHECK(plan.scatter_one_pass_chains() <= plan.scatter_chains());
  if (Impl::BackendTraits<ExecSpace>::walks_runs) CHECK(plan.scatter_one_pass_chains() == 0);
  plan = {};  // (collective, before the communicator goes)
}

template <int R, class Layout, bool Components, mpi::HaloComponents P = mpi::HaloComponents::ByLayout>
void check_grids(const std::vector<Op>& ops) {
  for (bool periodic : {true, false}) {
    Grid grid = make_grid(R, {0, 0, 0, 0}, periodic);
    for (auto neighbors : {mpi::HaloNeighbors::Faces, mpi::HaloNeighbors::All})
      for (int ghost : {1, 2})
        for (bool wide : {false, true}) check_scatter<R, Layout, Components, P>(grid, neighbors, ghost, wide, ops);
    MPI_Comm_free(&grid.cart);
  }
}

}  // namespace

TEST_CASE("mpi halo scatter: 2-D fields with components, sum, max, replace", "[mpi][halo][scatter]") {
  Test::Watchdog dog("halo scatter 2-D");
  check_grids<2, Kokkos::LayoutRight, true>({Op::Sum, Op::Max, Op::Replace});
  check_grids<2, Kokkos::LayoutLeft, true>({Op::Sum, Op::Min});
}

// Cabana's grid arrays are (i, j, k, dof) in the execution space's default layout: LayoutLeft on GPUs, whose
// components the default (ByLayout) would take from the first dimension. HaloComponents::Last and First place them
// whatever the layout; a value that is none of the three is refused on every rank, naming "options".
TEST_CASE("mpi halo scatter: components placed by the options, against the layout", "[mpi][halo][scatter]") {
  Test::Watchdog dog("halo scatter components");
  check_grids<3, Kokkos::LayoutLeft, true, mpi::HaloComponents::Last>({Op::Sum, Op::Replace});
  check_grids<2, Kokkos::LayoutRight, true, mpi::HaloComponents::First>({Op::Sum, Op::Max});
  check_grids<2, Kokkos::LayoutRight, true, mpi::HaloComponents::Last>({Op::Sum});
  ExecSpace space;
  Grid grid = make_grid(2, {0, 0, 0, 0}, true);
  Kokkos::View<double***, ExecSpace::memory_space> a("a", 8, 8, 2);
  mpi::HaloOptions o = options(1);
  o.components = static_cast<mpi::HaloComponents>(7);
  require_error([&] { mpi::make_halo_plan(space, grid.cart, o, a); }, ErrorCode::InvalidArgument, "options");
  MPI_Comm_free(&grid.cart);
}

TEST_CASE("mpi halo scatter: 1-D and 3-D fields, sum and replace", "[mpi][halo][scatter]") {
  Test::Watchdog dog("halo scatter 1-D and 3-D");
  check_grids<1, Kokkos::LayoutRight, false>({Op::Sum, Op::Replace, Op::Max});
  check_grids<3, Kokkos::LayoutLeft, false>({Op::Sum, Op::Replace});
}

TEST_CASE("mpi halo scatter: bad operations and plans without scatter throw, nothing started", "[mpi][halo][errors]") {
  using M = ExecSpace::memory_space;
  ExecSpace space;
  Test::Watchdog dog("halo scatter errors");
  Grid grid = make_grid(2, {0, 0, 0, 0}, true);
  Kokkos::View<double**, M> a("a", 8, 8);
  Kokkos::View<Kokkos::complex<double>**, M> z("z", 8, 8);
  Kokkos::View<int**, M> k("k", 8, 8);
  auto gather_only = mpi::make_halo_plan(space, grid.cart, options(1), a);
  require_error([&] { gather_only.start_scatter(space, Op::Sum); }, ErrorCode::InvalidArgument, "options");
  mpi::HaloOptions o = options(1, mpi::HaloNeighbors::All);
  o.scatter = true;
  auto plan = mpi::make_halo_plan(space, grid.cart, o, a, z);
  require_error([&] { plan.start_scatter(space, Op::Max); }, ErrorCode::InvalidArgument, "op");  // (complex: no max)
  require_error([&] { plan.start_scatter(space, Op::Bxor); }, ErrorCode::InvalidArgument, "op");
  plan.start_scatter(space, Op::Sum);                                             // (the plan still works)
  require_error([&] { plan.start(space); }, ErrorCode::InvalidArgument, "plan");  // (a scatter is in flight)
  plan.wait_host();
  auto ints = mpi::make_halo_plan(space, grid.cart, o, k);
  Kokkos::deep_copy(k, 6);
  ints.scatter(Op::Bxor);  // (each owned cell xor'd with its neighbours' 6s: an even or odd count of them)
  auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k);
  CHECK(hk(0, 0) == 6);  // (a ghost keeps its value)
  gather_only = {};
  plan = {};
  ints = {};
  MPI_Comm_free(&grid.cart);
}

TEST_CASE("mpi halo plan: fields of another rank than the grid and one more", "[mpi][halo][errors]") {
  using M = ExecSpace::memory_space;
  ExecSpace space;
  Grid grid = make_grid(2, {0, 0, 0, 0}, true);
  Kokkos::View<double****, M> four("four", 8, 8, 2, 2);
  Kokkos::View<double*, M> one("one", 8);
  require_error([&] { mpi::make_halo_plan(space, grid.cart, options(1), four); }, ErrorCode::InvalidArgument, "fields");
  require_error([&] { mpi::make_halo_plan(space, grid.cart, options(1), one); }, ErrorCode::InvalidArgument, "fields");
  // Components may differ in number between fields, not the grid's extents.
  using R3 = Kokkos::View<double***, Kokkos::LayoutRight, M>;  // (components last; a GPU's default layout is Left)
  R3 three("three", 8, 8, 3), other("other", 8, 9, 3), vec("vec", 8, 8, 2);
  auto plan = mpi::make_halo_plan(space, grid.cart, options(1), three, vec);
  plan.exchange();
  plan = {};
  require_error([&] { mpi::make_halo_plan(space, grid.cart, options(1), three, other); }, ErrorCode::InvalidArgument,
                "fields");
  MPI_Comm_free(&grid.cart);
}

// Exchange plans: receives that combine, two of them into overlapping cells (each from one neighbour of a ring; at one
// rank both are this process itself), after a replacing receive: every contribution arrives, none lost to a race.
TEST_CASE("mpi exchange plan: receives with an operation, overlapping, in posting order", "[mpi][exchange][scatter]") {
  using M = ExecSpace::memory_space;
  Test::Watchdog dog("exchange plan receives with an operation");
  ExecSpace space;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  constexpr int kN = 16, kShift = 4;
  Kokkos::View<double*, M> src("src", kN), acc("acc", kN + kShift), plain("plain", kN);
  Datatype block = contiguous(kN, primitive<double>());
  block.commit();
  mpi::ExchangeOptions o;
  o.transport = Test::halo_transport();
  mpi::ExchangePlan<ExecSpace> plan(space, MPI_COMM_WORLD, o);
  plan.send(src, 1, block, left, 0);
  plan.send(src, 1, block, right, 1);
  plan.send(src, 1, block, right, 2);
  plan.recv(plain, 1, block, left, 2);
  plan.recv(acc, 1, block, right, 0, Op::Sum);                                                  // cells [0, 16)
  plan.recv(Kokkos::subview(acc, std::pair(kShift, kN + kShift)), 1, block, left, 1, Op::Sum);  // cells [4, 20)
  require_error([&] { plan.recv(acc, 1, block, left, 3, Op::Bxor); }, ErrorCode::InvalidArgument, "op");
  plan.commit();
  auto hs = Kokkos::create_mirror_view(src);
  auto ha = Kokkos::create_mirror_view(acc);
  auto hp = Kokkos::create_mirror_view(plain);
  auto sent = [](int r, int i, int step) { return 10.0 * (r + 1) + i + 1000.0 * step; };
  for (int step = 0; step < 3; ++step) {
    for (int i = 0; i < kN; ++i) hs(i) = sent(rank, i, step);
    for (int i = 0; i < kN + kShift; ++i) ha(i) = rank + 1;
    Kokkos::deep_copy(src, hs);
    Kokkos::deep_copy(acc, ha);
    plan.start(space);
    plan.wait_host();
    Kokkos::deep_copy(ha, acc);
    Kokkos::deep_copy(hp, plain);
    int wrong = 0;
    for (int i = 0; i < kN + kShift; ++i) {
      double want = rank + 1;
      if (i < kN) want += sent(right, i, step);
      if (i >= kShift) want += sent(left, i - kShift, step);
      wrong += ha(i) != want;
    }
    for (int i = 0; i < kN; ++i) wrong += hp(i) != sent(left, i, step);
    INFO("rank " << rank << " of " << size << ", step " << step << "\n" << plan.describe());
    CHECK(wrong == 0);
  }
  plan = {};
}
