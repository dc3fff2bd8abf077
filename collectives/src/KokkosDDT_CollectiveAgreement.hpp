// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the processes of a gather or scatter settle before anything moves, in one reduction (MPI_SUM of unsigned 64-bit
// integers, blocking or not): whether any process found a bad argument of its own or a root out of range, whether
// every process passes the same root, schedule and model, and the bytes of all blocks with a hash of every rank's
// byte count (so that the root can check its counts).
//
// Equality by sums: each value v also contributes v * h(rank) (h: an odd 64-bit mix of the rank, GatherTree.hpp). If
// every process passes the same c, then sum v = p c and sum v h(i) = c sum h(i) (mod 2^64); each process checks both
// against its own value, and values that differ pass with probability about 2^-64 (as the counts hash does), so every
// process reaches the same verdict. One built-in reduction replaces a MAX and a SUM: on the
// H200 node (Open MPI 4.1.6, 16 ranks) two nonblocking reductions took about 10 us more than MPI_Gatherv of one int.

#include <mpi.h>

#include <cstdint>
#include <cstring>

#include "KokkosDDT_CollectiveSchedule.hpp"
#include "KokkosDDT_GatherTree.hpp"
#include "KokkosDDT_MPIError.hpp"

namespace KokkosDDT::Impl {

class CollectiveAgreement {
 public:
  struct Mine {
    bool error = false;        // a bad argument of its own
    int root = 0;              // as passed
    std::int64_t options = 0;  // a fingerprint of the schedule and model asked for
    std::int64_t bytes = 0;    // its own block
  };

  // Posts (blocking: completes) the reduction over `comm`.
  CollectiveAgreement(MPI_Comm comm, const Mine& mine, bool blocking, const char* where) : where_(where) {
    MPI_Comm_size(comm, &p_);
    MPI_Comm_rank(comm, &me_);
    const std::uint64_t h = rank_hash(static_cast<std::uint64_t>(me_));
    const bool root_ok = mine.root >= 0 && mine.root < p_;
    const std::uint64_t root = root_ok ? static_cast<std::uint64_t>(mine.root) : 0;
    const std::uint64_t opts = static_cast<std::uint64_t>(mine.options);
    const std::uint64_t bytes = static_cast<std::uint64_t>(mine.bytes);
    const std::uint64_t v[kCount] = {mine.error ? 1u : 0u,
                                     mine.error ? static_cast<std::uint64_t>(me_) : 0u,
                                     root_ok ? 0u : 1u,
                                     root,
                                     root * h,
                                     opts,
                                     opts * h,
                                     bytes,
                                     bytes * h};
    std::memcpy(in_, v, sizeof v);
    root_ = root, options_ = opts;
    if (blocking)
      mpi_check(MPI_Allreduce(in_, out_, kCount, MPI_UINT64_T, MPI_SUM, comm), where_, "MPI_Allreduce (agreement)");
    else
      mpi_check(MPI_Iallreduce(in_, out_, kCount, MPI_UINT64_T, MPI_SUM, comm, &request_), where_,
                "MPI_Iallreduce (agreement)");
  }
  CollectiveAgreement(const CollectiveAgreement&) = delete;  // MPI writes into out_ until the reduction completes

  ~CollectiveAgreement() {
    if (request_ != MPI_REQUEST_NULL) MPI_Wait(&request_, MPI_STATUS_IGNORE);  // (collective: the others contribute)
  }

  bool test() {
    if (request_ == MPI_REQUEST_NULL) return true;
    int flag = 0;
    mpi_check(MPI_Test(&request_, &flag, MPI_STATUS_IGNORE), where_, "MPI_Test (agreement)");
    return flag != 0;
  }
  void wait() { mpi_check(MPI_Wait(&request_, MPI_STATUS_IGNORE), where_, "MPI_Wait (agreement)"); }

  // (after completion)
  std::uint64_t errors() const { return out_[0]; }
  int error_rank() const { return static_cast<int>(out_[1]); }  // the one process with an error (errors() == 1)
  bool root_out_of_range() const { return out_[2] != 0; }
  bool same_root() const { return all_equal(3, root_); }
  bool same_options() const { return all_equal(5, options_); }
  std::uint64_t total_bytes() const { return out_[7]; }
  std::uint64_t bytes_hash() const { return out_[8]; }

 private:
  static constexpr int kCount = 9;

  // Sums of the values at [i] and of their hashed copies at [i + 1], against this process's value (after completion).
  bool all_equal(int i, std::uint64_t mine) const {
    std::uint64_t weights = 0;
    for (int j = 0; j < p_; ++j) weights += rank_hash(static_cast<std::uint64_t>(j));
    return out_[i] == static_cast<std::uint64_t>(p_) * mine && out_[i + 1] == mine * weights;
  }

  const char* where_;
  int p_ = 1, me_ = 0;
  std::uint64_t root_ = 0, options_ = 0;  // this process's
  std::uint64_t in_[kCount] = {}, out_[kCount] = {};
  MPI_Request request_ = MPI_REQUEST_NULL;
};

}  // namespace KokkosDDT::Impl
