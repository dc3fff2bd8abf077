// SPDX-License-Identifier: BSD-3-Clause
// The Cartesian geometry of halo plans (mpi/src/KokkosDDT_HaloGeometry.hpp), pure logic: which directions a plan
// exchanges, who the neighbours are (wrapped, or absent at open edges) and which index ranges travel. No MPI.
#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include <KokkosDDT_HaloGeometry.hpp>

#include "support/Catch.hpp"

using KokkosDDT::Impl::halo_directions;
using KokkosDDT::Impl::HaloDirection;
using KokkosDDT::Impl::HaloGrid;
using KokkosDDT::Impl::scatter_order;

TEST_CASE("halo geometry: faces and all directions, indexed in base 3 with opposites", "[halo][geometry]") {
  for (int rank = 1; rank <= 4; ++rank) {
    HaloGrid grid;
    grid.rank = rank;
    const std::array<std::int64_t, 4> n{6, 6, 6, 6};
    const auto faces = halo_directions(grid, n, 1, false);
    const auto all = halo_directions(grid, n, 1, true);
    int full = 1;
    for (int k = 0; k < rank; ++k) full *= 3;
    CHECK(faces.size() == static_cast<std::size_t>(2 * rank));
    CHECK(all.size() == static_cast<std::size_t>(full - 1));
    for (const HaloDirection& h : all) {
      CHECK(h.index + h.opposite == full - 1);
      int index = 0;
      for (int k = rank - 1; k >= 0; --k) index = index * 3 + h.d[k] + 1;
      CHECK(index == h.index);
      // One process, not periodic: every neighbour is off an edge.
      CHECK_FALSE(h.exists);
    }
  }
}

TEST_CASE("halo geometry: neighbours wrap in periodic dimensions and vanish at open edges", "[halo][geometry]") {
  HaloGrid grid;
  grid.rank = 2;
  grid.dims = {3, 2, 1, 1};
  grid.periods = {1, 0, 0, 0};
  grid.coords = {0, 1, 0, 0};
  for (const HaloDirection& h : halo_directions(grid, {8, 8, 1, 1}, 1, true)) {
    INFO("direction " << h.d[0] << "," << h.d[1]);
    CHECK(h.exists == (h.d[1] <= 0));  // dimension 1 is open and this process is at its upper edge
    if (!h.exists) continue;
    CHECK(h.neighbor[0] == (h.d[0] + 3) % 3);  // wrapped: -1 -> 2
    CHECK(h.neighbor[1] == 1 + h.d[1]);
  }
}

TEST_CASE("halo geometry: send the interior layers next to a side, receive its ghost layers", "[halo][geometry]") {
  HaloGrid grid;
  grid.rank = 3;
  const std::array<std::int64_t, 4> n{10, 9, 8, 1};
  const std::int64_t g = 2;
  for (const HaloDirection& h : halo_directions(grid, n, g, true)) {
    for (int k = 0; k < 3; ++k) {
      INFO("direction " << h.index << ", dimension " << k);
      if (h.d[k] < 0) {
        CHECK((h.send_lo[k] == g && h.send_hi[k] == 2 * g && h.recv_lo[k] == 0 && h.recv_hi[k] == g));
      } else if (h.d[k] > 0) {
        CHECK((h.send_lo[k] == n[k] - 2 * g && h.send_hi[k] == n[k] - g));
        CHECK((h.recv_lo[k] == n[k] - g && h.recv_hi[k] == n[k]));
      } else {
        CHECK((h.send_lo[k] == g && h.send_hi[k] == n[k] - g && h.recv_lo[k] == g && h.recv_hi[k] == n[k] - g));
      }
      // What one side sends, the opposite side's ghost region of the neighbour receives: equal extents.
      CHECK(h.send_hi[k] - h.send_lo[k] == h.recv_hi[k] - h.recv_lo[k]);
    }
  }
}

// A scatter's orders: regions that share an owned cell never share an order (so that one launch per order combines
// each cell's contributions in a fixed order); regions of one set of nonzero dimensions share one; thin extents (under
// 4 ghosts, where opposite slabs overlap) give every direction its own.
TEST_CASE("halo geometry: a scatter's orders separate regions that share cells", "[halo][geometry]") {
  HaloGrid grid;
  grid.rank = 3;
  grid.dims = {3, 3, 3, 1};
  grid.coords = {1, 1, 1, 0};
  for (const auto& [n, g] : {std::pair{std::array<std::int64_t, 4>{10, 9, 8, 1}, std::int64_t(2)},
                             std::pair{std::array<std::int64_t, 4>{10, 7, 8, 1}, std::int64_t(2)},
                             std::pair{std::array<std::int64_t, 4>{3, 3, 3, 1}, std::int64_t(1)}}) {
    const std::vector<HaloDirection> all = halo_directions(grid, n, g, true);
    bool thin = false;
    for (int k = 0; k < 3; ++k) thin = thin || n[k] < 4 * g;
    for (const HaloDirection& a : all)
      for (const HaloDirection& b : all) {
        if (a.index == b.index) continue;
        bool share = true;  // (the send regions intersect in every dimension)
        for (int k = 0; k < 3; ++k)
          share = share && std::max(a.send_lo[k], b.send_lo[k]) < std::min(a.send_hi[k], b.send_hi[k]);
        INFO("directions " << a.index << " and " << b.index << ", extents " << n[0] << "x" << n[1] << "x" << n[2]);
        if (share) CHECK(scatter_order(a, 3, n, g) != scatter_order(b, 3, n, g));
      }
    int orders = 0;
    for (const HaloDirection& h : all) orders = std::max(orders, scatter_order(h, 3, n, g) + 1);
    CHECK(orders == (thin ? 27 : 7));  // (thin: the directions' indices, 0-26)
  }
}

// A scatter in pieces (scatter_pieces): on a 3-D grid of extents holding 4 ghost layers, faces only and all
// directions, each direction's owned region is cut into pieces that are its cells exactly, pieces of two directions
// are the same box or share no cell, each cell lies in a piece of every direction whose region holds it, and the
// ghost region a neighbour sends towards -d, cut alike, has pieces of the same extents in the same order.
TEST_CASE("halo geometry: a scatter's pieces are zones every covering neighbour sends alike", "[halo][geometry]") {
  using KokkosDDT::Impl::HaloBox;
  using KokkosDDT::Impl::scatter_in_pieces;
  using KokkosDDT::Impl::scatter_pieces;
  HaloGrid grid;
  grid.rank = 3;
  grid.dims = {3, 3, 3, 1};
  grid.coords = {1, 1, 1, 0};
  CHECK_FALSE(scatter_in_pieces(3, {10, 7, 8, 1}, 2));
  for (const auto& [n, g] : {std::pair{std::array<std::int64_t, 4>{10, 9, 8, 1}, std::int64_t(2)},
                             std::pair{std::array<std::int64_t, 4>{4, 5, 6, 1}, std::int64_t(1)}}) {
    REQUIRE(scatter_in_pieces(3, n, g));
    for (bool all : {false, true}) {
      const std::vector<HaloDirection> directions = halo_directions(grid, n, g, all);
      std::vector<std::vector<HaloBox>> pieces;
      for (const HaloDirection& h : directions) pieces.push_back(scatter_pieces(h, 3, h.send_lo, h.send_hi, n, g));
      auto holds = [](const std::array<std::int64_t, 4>& lo, const std::array<std::int64_t, 4>& hi,
                      const std::array<std::int64_t, 3>& x) {
        return x[0] >= lo[0] && x[0] < hi[0] && x[1] >= lo[1] && x[1] < hi[1] && x[2] >= lo[2] && x[2] < hi[2];
      };
      int wrong = 0;
      for (std::int64_t a = 0; a < n[0]; ++a)
        for (std::int64_t b = 0; b < n[1]; ++b)
          for (std::int64_t c = 0; c < n[2]; ++c) {
            const std::array<std::int64_t, 3> x{a, b, c};
            const HaloBox* zone = nullptr;
            for (std::size_t d = 0; d < directions.size(); ++d) {
              int in = 0;
              for (const HaloBox& p : pieces[d])
                if (holds(p.lo, p.hi, x)) {
                  ++in;
                  if (zone && (zone->lo != p.lo || zone->hi != p.hi)) ++wrong;  // (another box over this cell)
                  zone = &p;
                }
              wrong += in != (holds(directions[d].send_lo, directions[d].send_hi, x) ? 1 : 0);
            }
          }
      INFO("extents " << n[0] << "x" << n[1] << "x" << n[2] << ", ghost " << g << (all ? ", all" : ", faces"));
      CHECK(wrong == 0);
      // The neighbour at d sends its ghosts on side -d, cut alike: the same extents in the same order.
      for (std::size_t d = 0; d < directions.size(); ++d) {
        const HaloDirection& h = directions[d];
        const HaloDirection& back = *std::find_if(directions.begin(), directions.end(),
                                                  [&](const HaloDirection& e) { return e.index == h.opposite; });
        const std::vector<HaloBox> ghosts = scatter_pieces(back, 3, back.recv_lo, back.recv_hi, n, g);
        REQUIRE(ghosts.size() == pieces[d].size());
        for (std::size_t p = 0; p < ghosts.size(); ++p)
          for (int k = 0; k < 3; ++k)
            CHECK(ghosts[p].hi[k] - ghosts[p].lo[k] == pieces[d][p].hi[k] - pieces[d][p].lo[k]);
      }
    }
  }
}
