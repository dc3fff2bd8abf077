// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The host benchmarks time KokkosDDT on one thread (against one-thread contenders: hand loops, MPI_Pack) and on all.
#include <Kokkos_Core.hpp>

namespace bench {

// A one-thread partition of `all` (all itself when it has one thread).
inline Kokkos::DefaultHostExecutionSpace one_thread(const Kokkos::DefaultHostExecutionSpace& all) {
  const int threads = all.concurrency();
  return threads > 1 ? Kokkos::Experimental::partition_space(all, 1, threads - 1)[0] : all;
}

}  // namespace bench
