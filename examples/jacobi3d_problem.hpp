// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The problem of the main job (jacobi3d.cpp), shared with its benchmark (perf_tests/jacobi_bench.cpp): a 3-D Jacobi
// solve of -laplace(u) = f (7-point stencil) on an MPI process grid, walls at x = 0 and x = 1 (u = 0), periodic in y
// and z, a unit source in a box around the domain's centre. Each rank holds its block with one ghost layer per side.
#include <array>
#include <cstdio>
#include <utility>

#include <Kokkos_Core.hpp>
#include <mpi.h>

namespace jacobi {

using Space = Kokkos::DefaultExecutionSpace;
using Field = Kokkos::View<double***, Kokkos::LayoutRight, Space::memory_space>;
using Cells = std::array<int, 3>;  // the global grid

struct Block {
  std::array<int, 3> lo{}, n{};  // first global cell and cells of this rank, per dimension
};

inline Block block_of(MPI_Comm cart, const Cells& cells) {
  std::array<int, 3> dims{}, periods{}, coords{};
  MPI_Cart_get(cart, 3, dims.data(), periods.data(), coords.data());
  Block b;
  for (int k = 0; k < 3; ++k) {
    b.lo[k] = static_cast<int>(static_cast<long>(coords[k]) * cells[k] / dims[k]);
    b.n[k] = static_cast<int>(static_cast<long>(coords[k] + 1) * cells[k] / dims[k]) - b.lo[k];
  }
  return b;
}

// "N" (an N^3 grid) or "NXxNYxNZ", every extent at least 4 and nothing else in the string.
inline bool parse_cells(const char* text, Cells& cells) {
  int used = 0;
  if (std::sscanf(text, "%dx%dx%d%n", &cells[0], &cells[1], &cells[2], &used) == 3 && text[used] == '\0')
    return cells[0] >= 4 && cells[1] >= 4 && cells[2] >= 4;
  used = 0;
  if (std::sscanf(text, "%d%n", &cells[0], &used) != 1 || text[used] != '\0') return false;
  cells[1] = cells[2] = cells[0];
  return cells[0] >= 4;
}

// The process grid of `comm`'s processes (walls in x, periodic in y and z), ranks in comm's order.
inline MPI_Comm grid(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::array<int, 3> dims{}, periods{0, 1, 1};
  MPI_Dims_create(size, 3, dims.data());
  MPI_Comm cart;
  MPI_Cart_create(comm, 3, dims.data(), periods.data(), 0, &cart);
  return cart;
}

// One sweep of the cells [first, n + end_offset) per dimension of `block` on `space`, from -> to; `shell`: only the
// cells next to a ghost layer (the rest is the interior sweep's, which reads no ghost).
inline void sweep(const Space& space, const Cells& cells, const Block& block, const Field& from, const Field& to,
                  int first, int end_offset, bool shell) {
  const std::array<int, 3> n = block.n;
  const int n0 = n[0], n1 = n[1], n2 = n[2];
  const int x0 = block.lo[0], y0 = block.lo[1], z0 = block.lo[2];
  const int cx = cells[0], cy = cells[1], cz = cells[2];
  const double h2 = 1.0 / ((cells[0] + 1.0) * (cells[0] + 1.0));
  Kokkos::parallel_for(
      shell ? "jacobi3d::sweep_boundary" : "jacobi3d::sweep_interior",
      Kokkos::MDRangePolicy<Space, Kokkos::Rank<3>>(space, {first, first, first},
                                                    {n[0] + end_offset, n[1] + end_offset, n[2] + end_offset}),
      KOKKOS_LAMBDA(int i, int j, int k) {
        if (shell && i > 1 && i < n0 && j > 1 && j < n1 && k > 1 && k < n2) return;  // (the interior sweep's)
        const int gx = x0 + i - 1, gy = y0 + j - 1, gz = z0 + k - 1;
        const double f =
            (gx >= cx / 4 && gx < 3 * cx / 4 && gy >= cy / 3 && gy < 2 * cy / 3 && gz >= cz / 3 && gz < 2 * cz / 3)
                ? 1.0
                : 0.0;
        to(i, j, k) = (from(i - 1, j, k) + from(i + 1, j, k) + from(i, j - 1, k) + from(i, j + 1, k) +
                       from(i, j, k - 1) + from(i, j, k + 1) + h2 * f) /
                      6.0;
      });
}

inline void sweep_interior(const Space& space, const Cells& cells, const Block& b, const Field& from, const Field& to) {
  sweep(space, cells, b, from, to, 2, 0, false);
}
inline void sweep_boundary(const Space& space, const Cells& cells, const Block& b, const Field& from, const Field& to) {
  sweep(space, cells, b, from, to, 1, 1, true);
}

}  // namespace jacobi
