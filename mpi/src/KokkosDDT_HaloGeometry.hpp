// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The geometry of a Cartesian halo exchange, pure logic (no MPI, no Kokkos): for a process at `coords` in a grid of
// `dims` processes (periodic where `periods` says so), every neighbour direction d in {-1, 0, 1}^rank, the neighbour's
// coordinates (wrapped in periodic dimensions; absent off a non-periodic edge) and the index ranges of the region sent
// towards d (the interior layers next to side d) and of the region received from d (the ghost layers on side d).
// Directions are indexed in base 3 (digit d_k + 1, dimension 0 least significant), so -d has index 3^rank - 1 - index.
// The halo plan (KokkosDDT_HaloPlan.hpp) turns each region into a subarray per field.

#include <array>
#include <cstdint>
#include <vector>

namespace KokkosDDT::Impl {

struct HaloGrid {
  int rank = 1;  // dimensions, 1-4
  std::array<int, 4> dims{1, 1, 1, 1};
  std::array<int, 4> periods{};  // nonzero: periodic
  std::array<int, 4> coords{};   // this process's
};

struct HaloDirection {
  int index = 0, opposite = 0;  // of d and of -d
  std::array<int, 4> d{};
  bool exists = false;            // false: off a non-periodic edge
  std::array<int, 4> neighbor{};  // the neighbour's coordinates (when it exists)
  std::array<std::int64_t, 4> send_lo{}, send_hi{}, recv_lo{}, recv_hi{};  // [lo, hi) per dimension
};

// The directions of a plan, in index order: the 2 * rank faces, or (all) every one of the 3^rank - 1. `extents` are
// the fields' (ghost layers included), `ghost` the layers on each side.
inline std::vector<HaloDirection> halo_directions(const HaloGrid& grid, const std::array<std::int64_t, 4>& extents,
                                                  std::int64_t ghost, bool all) {
  int count = 1;
  for (int k = 0; k < grid.rank; ++k) count *= 3;
  std::vector<HaloDirection> out;
  out.reserve(static_cast<std::size_t>(count));
  for (int index = 0; index < count; ++index) {
    HaloDirection h;
    h.index = index;
    h.opposite = count - 1 - index;
    int nonzero = 0;
    for (int k = 0, rem = index; k < grid.rank; ++k, rem /= 3) {
      h.d[k] = rem % 3 - 1;
      nonzero += h.d[k] != 0;
    }
    if (nonzero == 0 || (!all && nonzero != 1)) continue;
    h.exists = true;
    for (int k = 0; k < grid.rank; ++k) {
      int c = grid.coords[k] + h.d[k];
      if (c < 0 || c >= grid.dims[k]) {
        if (grid.periods[k])
          c = (c + grid.dims[k]) % grid.dims[k];
        else
          h.exists = false;
      }
      h.neighbor[k] = c;
      const std::int64_t n = extents[k], g = ghost;
      if (h.d[k] < 0) {
        h.send_lo[k] = g, h.send_hi[k] = 2 * g, h.recv_lo[k] = 0, h.recv_hi[k] = g;
      } else if (h.d[k] > 0) {
        h.send_lo[k] = n - 2 * g, h.send_hi[k] = n - g, h.recv_lo[k] = n - g, h.recv_hi[k] = n;
      } else {  // along d_k = 0: the interior
        h.send_lo[k] = h.recv_lo[k] = g, h.send_hi[k] = h.recv_hi[k] = n - g;
      }
    }
    out.push_back(h);
  }
  return out;
}

// A scatter's order for the owned cells of direction h (the region h sends in a gather, which a scatter combines into):
// regions that share cells must combine in different orders (ExchangeEngine: an order per phase of one launch,
// ascending). Two regions d and d' share cells unless some dimension has d_k = -d'_k != 0 (opposite slabs, disjoint
// where extents hold at least 4 ghost layers): so regions of one set of nonzero dimensions never share a cell, and that
// set numbers the order (2^rank - 1 orders: 3 for a 3-D face exchange, 7 with edges and corners). Where some extent is
// under 4 x ghost, opposite slabs overlap too: every direction is an order of its own. Fixed for a plan, alike on every
// process.
inline int scatter_order(const HaloDirection& h, int rank, const std::array<std::int64_t, 4>& extents,
                         std::int64_t ghost) {
  int mask = 0;
  bool thin = false;
  for (int k = 0; k < rank; ++k) {
    mask |= (h.d[k] != 0 ? 1 : 0) << k;
    thin = thin || extents[k] < 4 * ghost;
  }
  return thin ? h.index : mask - 1;
}

// Whether a scatter travels in pieces (scatter_pieces): every extent holds 4 ghost layers, so that opposite slabs
// share no cell. Every process must answer alike (the plan agrees on it: its sender's pieces are its receiver's).
inline bool scatter_in_pieces(int rank, const std::array<std::int64_t, 4>& extents, std::int64_t ghost) {
  for (int k = 0; k < rank; ++k)
    if (extents[k] < 4 * ghost) return false;
  return true;
}

// A box of cells, [lo, hi) per dimension.
struct HaloBox {
  std::array<std::int64_t, 4> lo{}, hi{};
};

// The pieces of the region [lo, hi) of direction h in a scatter (its owned cells, send_lo/hi, or its ghosts,
// recv_lo/hi), in the order its message carries them: along each dimension where h.d is 0 the region's [g, n - g)
// cut at 2g and n - 2g (empty pieces left out), elsewhere whole; dimension 0 slowest. Each piece of an owned region is
// a zone: the cells that one set of neighbours' ghosts maps onto (a face's interior: 1, an edge: 3, a corner: 7 with
// all neighbours), every zone a piece of each of those neighbours' messages, of the same extents. A sender's ghost
// region cut so is its receiver's owned region cut so, piece by piece: the cuts lie along dimensions where both have
// one extent (their neighbour's along d, as a Cartesian block decomposition has it). Where scatter_in_pieces holds.
inline std::vector<HaloBox> scatter_pieces(const HaloDirection& h, int rank, const std::array<std::int64_t, 4>& lo,
                                           const std::array<std::int64_t, 4>& hi,
                                           const std::array<std::int64_t, 4>& extents, std::int64_t ghost) {
  std::array<std::vector<std::array<std::int64_t, 2>>, 4> cuts;
  for (int k = 0; k < 4; ++k) {
    if (k >= rank || h.d[k] != 0) {
      cuts[k] = {{lo[k], hi[k]}};
      continue;
    }
    const std::int64_t at[4] = {lo[k], 2 * ghost, extents[k] - 2 * ghost, hi[k]};
    for (int i = 0; i < 3; ++i)
      if (at[i] < at[i + 1]) cuts[k].push_back({at[i], at[i + 1]});
  }
  std::vector<HaloBox> out;
  for (const auto& c0 : cuts[0])
    for (const auto& c1 : cuts[1])
      for (const auto& c2 : cuts[2])
        for (const auto& c3 : cuts[3]) out.push_back({{c0[0], c1[0], c2[0], c3[0]}, {c0[1], c1[1], c2[1], c3[1]}});
  return out;
}

}  // namespace KokkosDDT::Impl
