// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The halo plan check of Test_HaloPlan.cpp and Test_HaloPlanRanks.cpp (two files: the ranks' instantiations compile in
// parallel, each under a minute): a plan on every process grid MPI_Dims_create makes for the ranks of MPI_COMM_WORLD,
// periodic and not, faces only and faces + edges + corners, two fields of different value types and layouts. Each
// interior cell holds a function of its global index; after an exchange every ghost cell must hold its neighbour's
// value (periodic image), or its poison where no neighbour sends (an open edge, or an edge/corner cell when only faces
// are exchanged).
#include <array>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <KokkosDDT_MPI.hpp>

#include "support/Catch.hpp"
#include "support/Errors.hpp"
#include "support/MpiWorld.hpp"
#include "support/TestSpace.hpp"
#include "support/Watchdog.hpp"

namespace KokkosDDT::Test {

template <class T, int R>
struct Pointer {
  using type = typename Pointer<T, R - 1>::type*;
};
template <class T>
struct Pointer<T, 0> {
  using type = T;
};

constexpr double kPoison = -1.0;

// Options on the transport under test (KOKKOSDDT_TEST_TRANSPORT).
inline mpi::HaloOptions options(int ghost, mpi::HaloNeighbors neighbors = mpi::HaloNeighbors::Faces) {
  mpi::HaloOptions o;
  o.ghost = ghost;
  o.neighbors = neighbors;
  o.transport = Test::halo_transport();
  return o;
}

struct Grid {
  int rank = 0;
  std::array<int, 4> dims{1, 1, 1, 1}, periods{}, coords{};
  MPI_Comm cart = MPI_COMM_NULL;
};

inline Grid make_grid(int ndims, std::array<int, 4> dims, bool periodic) {
  Grid g;
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  g.dims = dims;
  MPI_Dims_create(size, ndims, g.dims.data());
  for (int k = 0; k < ndims; ++k) g.periods[k] = periodic ? 1 : 0;
  MPI_Cart_create(MPI_COMM_WORLD, ndims, g.dims.data(), g.periods.data(), 0, &g.cart);
  MPI_Comm_rank(g.cart, &g.rank);
  MPI_Cart_coords(g.cart, g.rank, ndims, g.coords.data());
  return g;
}

// The value field `f` holds at global cell x (interior cells only), in `step`.
inline double value(int f, const std::array<std::int64_t, 4>& x, const std::array<std::int64_t, 4>& global, int step) {
  std::int64_t linear = 0;
  for (int k = 0; k < 4; ++k) linear = linear * global[k] + x[k];
  return f == 0 ? 0.5 * static_cast<double>(linear) + step : static_cast<double>((linear * 7 + 3 + step) % 100003);
}

template <int R, class Layout>
void check_plan(const Grid& grid, mpi::HaloNeighbors neighbors, int ghost) {
  using M = ExecSpace::memory_space;
  using F0 = Kokkos::View<typename Pointer<double, R>::type, Layout, M>;
  using F1 = Kokkos::View<typename Pointer<int, R>::type, Layout, M>;
  std::array<std::int64_t, 4> interior{5, 4, 3, 3}, n{1, 1, 1, 1}, global{1, 1, 1, 1};
  for (int k = 0; k < R; ++k) {
    n[k] = interior[k] + 2 * ghost;
    global[k] = interior[k] * grid.dims[k];
  }
  const auto layout = Layout(R > 0 ? n[0] : 1, R > 1 ? n[1] : KOKKOS_INVALID_INDEX, R > 2 ? n[2] : KOKKOS_INVALID_INDEX,
                             R > 3 ? n[3] : KOKKOS_INVALID_INDEX);
  F0 u("u", layout);
  F1 v("v", layout);
  ExecSpace space;
  auto plan = mpi::make_halo_plan(space, grid.cart, options(ghost, neighbors), u, v);
  auto hu = Kokkos::create_mirror_view(u);
  auto hv = Kokkos::create_mirror_view(v);
  const std::int64_t cells = n[0] * n[1] * n[2] * n[3];
  for (int step = 0; step < 3; ++step) {
    // Interior: the global function; ghosts: poison.
    for (std::int64_t c = 0; c < cells; ++c) {
      std::array<std::int64_t, 4> i{}, x{};
      bool inside = true;
      for (int k = 3, rem = static_cast<int>(c); k >= 0; --k) {
        i[k] = rem % n[k];
        rem /= static_cast<int>(n[k]);
        if (k < R) {
          inside = inside && i[k] >= ghost && i[k] < n[k] - ghost;
          x[k] = grid.coords[k] * interior[k] + i[k] - ghost;
        }
      }
      hu.access(i[0], i[1], i[2], i[3]) = inside ? value(0, x, global, step) : kPoison;
      hv.access(i[0], i[1], i[2], i[3]) = inside ? static_cast<int>(value(1, x, global, step)) : -1;
    }
    Kokkos::deep_copy(u, hu);
    Kokkos::deep_copy(v, hv);
    plan.start();
    plan.wait();  // (the unpacks are enqueued on the plan's instance: deep_copy waits for them)
    Kokkos::deep_copy(hu, u);
    Kokkos::deep_copy(hv, v);
    int wrong = 0;
    for (std::int64_t c = 0; c < cells; ++c) {
      std::array<std::int64_t, 4> i{}, x{};
      int nonzero = 0;
      bool sent = true;
      for (int k = 3, rem = static_cast<int>(c); k >= 0; --k) {
        i[k] = rem % n[k];
        rem /= static_cast<int>(n[k]);
        if (k >= R) continue;
        const int d = i[k] < ghost ? -1 : (i[k] >= n[k] - ghost ? 1 : 0);
        nonzero += d != 0;
        x[k] = grid.coords[k] * interior[k] + i[k] - ghost;
        if (x[k] < 0 || x[k] >= global[k]) {
          if (grid.periods[k])
            x[k] = (x[k] + global[k]) % global[k];
          else
            sent = false;  // an open edge: nobody sends
        }
      }
      if (nonzero > 1 && neighbors == mpi::HaloNeighbors::Faces) sent = false;
      const double want_u = sent ? value(0, x, global, step) : kPoison;
      const int want_v = sent ? static_cast<int>(value(1, x, global, step)) : -1;
      wrong += hu.access(i[0], i[1], i[2], i[3]) != want_u || hv.access(i[0], i[1], i[2], i[3]) != want_v;
    }
    INFO("rank " << grid.rank << " rank-" << R << " fields, grid " << grid.dims[0] << "x" << grid.dims[1] << "x"
                 << grid.dims[2] << "x" << grid.dims[3] << ", step " << step);
    CHECK(wrong == 0);
  }
  // Per step one launch of packs and copies (a neighbour that is this process itself gets a copy), and one of unpacks
  // when any message went through the transport, or landed: the peer transport lands only receives of at least 32 768
  // runs, which these fields do not have, unless KOKKOSDDT_PEER_LANDING=always lands every one it writes direct. A
  // plan with both messages and direct writes (nodes: KOKKOSDDT_NODE_SIZE) launches the writes apart.
  const char* landing = std::getenv("KOKKOSDDT_PEER_LANDING");
  const bool may_land = landing && std::string(landing) == "always";
  bool writes = false;
  for (const mpi::Route& r : plan.routes()) writes = writes || r.via.rfind("peer", 0) == 0;
  const std::int64_t launches = plan.launches();
  if (plan.neighbors() == 0)
    CHECK(launches == 0);
  else if (plan.messages() > 0)
    CHECK(launches == 3 * (writes ? 3 : 2));
  else if (may_land)
    CHECK((launches == 3 || launches == 3 * 2));
  else
    CHECK(launches == 3);
}

template <int R>
void check_rank(std::array<int, 4> dims = {0, 0, 0, 0}) {
  for (bool periodic : {true, false}) {
    Grid grid = make_grid(R, dims, periodic);
    for (auto neighbors : {mpi::HaloNeighbors::Faces, mpi::HaloNeighbors::All}) {
      check_plan<R, Kokkos::LayoutRight>(grid, neighbors, 1);
      check_plan<R, Kokkos::LayoutLeft>(grid, neighbors, R <= 2 ? 2 : 1);
    }
    MPI_Comm_free(&grid.cart);
  }
}

}  // namespace KokkosDDT::Test
