// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the collectives' tests share: the ranks, and buffers in the test executable's execution space (device memory in
// GPU builds) filled from and read back into host vectors.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>

#include "support/TestSpace.hpp"

namespace KokkosDDT::Test {

using Space = ExecSpace;
template <class T>
using SpaceView = Kokkos::View<T*, Space::memory_space>;
template <class T>
using HostView = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

inline int world_size() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}
inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// A copy of `h` in the execution space's memory, and back.
template <class T>
SpaceView<T> on_space(const std::vector<T>& h) {
  SpaceView<T> v("collective buffer", h.size());
  Kokkos::deep_copy(v, HostView<const T>(h.data(), h.size()));
  return v;
}
template <class T>
std::vector<T> host(const SpaceView<T>& v) {
  std::vector<T> h(v.extent(0));
  Kokkos::deep_copy(HostView<T>(h.data(), h.size()), v);
  return h;
}

inline std::vector<int> to_int(const std::vector<std::int64_t>& v) { return std::vector<int>(v.begin(), v.end()); }

}  // namespace KokkosDDT::Test
