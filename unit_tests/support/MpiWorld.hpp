// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The multi-rank tests' view of MPI_COMM_WORLD, and a communicator whose errors come back as return codes (so that
// KokkosDDT turns them into exceptions the tests can check).
#include <mpi.h>

#include <cstdlib>
#include <string>

#include <KokkosDDT_Transports.hpp>

namespace KokkosDDT::Test {

// The transport the plan tests run on: the one KOKKOSDDT_TEST_TRANSPORT names (NCCL, a ctest pass of CUDA builds
// with NCCL; any registered name, case-insensitive), "auto" (the plans' default) otherwise.
inline mpi::TransportChoice halo_transport() {
  const char* env = std::getenv("KOKKOSDDT_TEST_TRANSPORT");
  return env ? env : "auto";
}

struct World {
  int rank = 0, size = 1;
  World() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  int next() const { return (rank + 1) % size; }
  int prev() const { return (rank + size - 1) % size; }
};

// A duplicate of MPI_COMM_WORLD with MPI_ERRORS_RETURN, for as long as it lives. MPICH 4.0 raises errors of request
// completion (MPI_Test) on MPI_COMM_WORLD's handler, not the request's communicator's: that one returns them too
// meanwhile.
class ReturningComm {
 public:
  ReturningComm() {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world_);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  ~ReturningComm() {
    MPI_Barrier(comm_);
    MPI_Comm_free(&comm_);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, world_);
    MPI_Errhandler_free(&world_);
  }
  ReturningComm(const ReturningComm&) = delete;
  ReturningComm& operator=(const ReturningComm&) = delete;
  operator MPI_Comm() const { return comm_; }  // NOLINT: used where MPI takes a communicator

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Errhandler world_ = MPI_ERRHANDLER_NULL;
};

}  // namespace KokkosDDT::Test
