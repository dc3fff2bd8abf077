// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The distributed problem of the CG example: the 7-point Laplacian on an n^3 grid (Dirichlet walls), its points
// numbered along a Morton (Z-order) curve and cut into uneven consecutive pieces, one per rank. A piece of a Z-curve
// is a ragged cluster of octants, so every rank has a different, irregular set of neighbours and ghost points: the
// unstructured exchange of a sparse or finite-element code, not a box halo.
//
// Each rank's matrix has its owned points as rows and as its first columns; the ghost columns follow, in global order.
// Global ids of a rank are consecutive, so the ghosts of one neighbour are one contiguous block of the vector, and what
// a rank sends to a neighbour is a sorted list of owned rows (an indexed type over the owned vector).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace cg_example {

struct Neighbor {
  int rank = 0;
  std::vector<std::int64_t> send;  // owned local rows the neighbour needs, ascending
  int ghost_offset = 0;            // its ghosts: columns [n_owned + ghost_offset, + ghost_count)
  int ghost_count = 0;
};

struct LocalProblem {
  int n = 0;                          // grid points per dimension
  std::int64_t first = 0, owned = 0;  // global ids [first, first + owned) are this rank's
  std::vector<std::int64_t> ghosts;   // global ids of the ghost columns, ascending
  std::vector<int> row_map, columns;  // CSR of the local rows
  std::vector<double> values;
  std::vector<Neighbor> neighbors;  // by rank
};

// Spreads the bits of a 10-bit coordinate three apart (the Morton key of points up to 1024^3).
inline std::uint32_t spread_bits(std::uint32_t v) {
  v = (v | (v << 16)) & 0x030000FFu;
  v = (v | (v << 8)) & 0x0300F00Fu;
  v = (v | (v << 4)) & 0x030C30C3u;
  v = (v | (v << 2)) & 0x09249249u;
  return v;
}

// id_of[point] = global id of grid point (i, j, k) (point = (i * n + j) * n + k): its rank along the Z-curve.
inline std::vector<std::int32_t> morton_numbering(int n) {
  const std::int64_t points = std::int64_t(n) * n * n;
  std::vector<std::uint64_t> keyed(points);
  for (std::int64_t p = 0; p < points; ++p) {
    const auto i = std::uint32_t(p / (std::int64_t(n) * n)), j = std::uint32_t(p / n % n), k = std::uint32_t(p % n);
    const std::uint64_t key = (spread_bits(i) << 2) | (spread_bits(j) << 1) | spread_bits(k);
    keyed[p] = (key << 32) | std::uint64_t(p);  // sorting by key, then point
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::int32_t> id_of(points);
  for (std::int64_t g = 0; g < points; ++g) id_of[keyed[g] & 0xffffffffu] = std::int32_t(g);
  return id_of;
}

// Uneven pieces: rank r gets a share proportional to 2 + (r % 3) (pieces differ by up to 2x).
inline std::vector<std::int64_t> piece_starts(std::int64_t points, int ranks) {
  std::vector<std::int64_t> weight_sum(ranks + 1, 0);
  for (int r = 0; r < ranks; ++r) weight_sum[r + 1] = weight_sum[r] + 2 + r % 3;
  std::vector<std::int64_t> starts(ranks + 1);
  for (int r = 0; r <= ranks; ++r) starts[r] = points * weight_sum[r] / weight_sum[ranks];
  return starts;
}

// This rank's rows, ghost columns and neighbours for `ranks` pieces of the n^3 grid.
inline LocalProblem build_local_problem(int n, int rank, int ranks) {
  if (n < 2 || n > 1024) throw std::invalid_argument("cg example: n must be in [2, 1024]");
  const std::int64_t points = std::int64_t(n) * n * n;
  const std::vector<std::int32_t> id_of = morton_numbering(n);
  std::vector<std::int32_t> point_of(points);
  for (std::int64_t p = 0; p < points; ++p) point_of[id_of[p]] = std::int32_t(p);
  const std::vector<std::int64_t> starts = piece_starts(points, ranks);
  auto owner = [&](std::int64_t g) {
    return int(std::upper_bound(starts.begin(), starts.end(), g) - starts.begin()) - 1;
  };

  LocalProblem lp;
  lp.n = n;
  lp.first = starts[rank];
  lp.owned = starts[rank + 1] - starts[rank];
  // The in-grid neighbours of each owned row, as global ids.
  auto stencil = [&](std::int64_t g, auto&& visit) {
    const std::int64_t p = point_of[g], i = p / (std::int64_t(n) * n), j = p / n % n, k = p % n;
    const std::int64_t d[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
    for (const auto& s : d) {
      const std::int64_t a = i + s[0], b = j + s[1], c = k + s[2];
      if (a < 0 || b < 0 || c < 0 || a >= n || b >= n || c >= n) continue;
      visit(std::int64_t(id_of[(a * n + b) * n + c]));
    }
  };
  std::vector<std::int64_t> sends_by_rank;  // (rank << 32 | local row) pairs, deduplicated below
  for (std::int64_t g = lp.first; g < lp.first + lp.owned; ++g)
    stencil(g, [&](std::int64_t h) {
      if (h >= lp.first && h < lp.first + lp.owned) return;
      lp.ghosts.push_back(h);
      sends_by_rank.push_back((std::int64_t(owner(h)) << 32) | (g - lp.first));
    });
  std::sort(lp.ghosts.begin(), lp.ghosts.end());
  lp.ghosts.erase(std::unique(lp.ghosts.begin(), lp.ghosts.end()), lp.ghosts.end());
  std::sort(sends_by_rank.begin(), sends_by_rank.end());
  sends_by_rank.erase(std::unique(sends_by_rank.begin(), sends_by_rank.end()), sends_by_rank.end());

  // Neighbours: the owners of the ghosts (the stencil is symmetric, so they are also the ranks this one sends to).
  for (std::size_t c = 0; c < lp.ghosts.size(); ++c) {
    const int q = owner(lp.ghosts[c]);
    if (lp.neighbors.empty() || lp.neighbors.back().rank != q) {
      lp.neighbors.push_back(Neighbor{q, {}, int(c), 0});
    }
    ++lp.neighbors.back().ghost_count;
  }
  for (const std::int64_t s : sends_by_rank) {
    const int q = int(s >> 32);
    auto nb = std::find_if(lp.neighbors.begin(), lp.neighbors.end(), [&](const Neighbor& x) { return x.rank == q; });
    if (nb == lp.neighbors.end()) throw std::logic_error("cg example: asymmetric neighbour relation");
    nb->send.push_back(s & 0xffffffff);
  }

  // The rows: 6 on the diagonal, -1 for each in-grid neighbour (owned column, else its ghost column).
  lp.row_map.assign(1, 0);
  for (std::int64_t g = lp.first; g < lp.first + lp.owned; ++g) {
    lp.columns.push_back(int(g - lp.first));
    lp.values.push_back(6.0);
    stencil(g, [&](std::int64_t h) {
      const bool mine = h >= lp.first && h < lp.first + lp.owned;
      const auto ghost = std::lower_bound(lp.ghosts.begin(), lp.ghosts.end(), h) - lp.ghosts.begin();
      lp.columns.push_back(int(mine ? h - lp.first : lp.owned + ghost));
      lp.values.push_back(-1.0);
    });
    lp.row_map.push_back(int(lp.columns.size()));
  }
  return lp;
}

}  // namespace cg_example
