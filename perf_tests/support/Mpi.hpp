// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// MPI_Init and MPI_Finalize as an object: declared first in main, before Kokkos::ScopeGuard, it finalizes MPI after
// Kokkos on every way out of main, a usage error's early return included.
#include <mpi.h>

namespace bench {

class MpiSession {
 public:
  MpiSession(int& argc, char**& argv) { MPI_Init(&argc, &argv); }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

}  // namespace bench
