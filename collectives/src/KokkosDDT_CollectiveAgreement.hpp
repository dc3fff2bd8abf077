// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the processes of a gather or scatter settle before anything moves, in one reduction of six unsigned 64-bit
// integers (MPI_SUM, blocking or not): how many processes found a bad argument of their own or a root out of range,
// whether every process passes the same root and options (schedule, model, direct threshold), whether every process
// offers the same cached schedule, whether the root's counts agree with what the processes contribute (a hash of every
// rank's byte count against the root's, so every process knows when the root must refuse), and whether every block has
// the same size (then every process knows every block's size: the tree needs no construction messages).
//
// Equality by a hashed sum: each process contributes v * h(rank) (h: an odd 64-bit mix of the rank, RankHash.hpp).
// If every process passes the same c, the sum is c * sum h(i) (mod 2^64: `weights`, computed once per communicator),
// which each process checks against its own value; values that differ pass with probability about 2^-64 (as the counts
// hash does), so every process reaches the same verdict. Few integers matter: MPICH 4.0.2's MPI_Allreduce of 1, 4, 8
// and 11 of them took 0.64, 1.07, 1.49 and 1.49 us at 2 ranks (the VM); on the H200 node two nonblocking reductions
// took about 10 us more than MPI_Gatherv of one int at 16 ranks.

#include <mpi.h>

#include <cstdint>

#include "KokkosDDT_CollectiveSchedule.hpp"
#include "KokkosDDT_RankHash.hpp"
#include "KokkosDDT_MPIError.hpp"

namespace KokkosDDT::Impl {

class CollectiveAgreement {
 public:
  struct Mine {
    bool error = false;          // a bad argument of its own
    int root = 0;                // as passed
    std::int64_t options = 0;    // a fingerprint of the schedule and model asked for
    std::int64_t bytes = 0;      // its own block
    std::uint64_t cached = 0;    // a cached schedule it offers to run again (0: none)
    std::int64_t root_hash = 0;  // (the root) its counts' hash: sum of counts[j] * size * h(j)
  };

  // Posts (blocking: completes) the reduction over `comm`; `weights` is the sum of h(i) over its ranks.
  CollectiveAgreement(MPI_Comm comm, const Mine& mine, std::uint64_t weights, bool blocking, const char* where)
      : where_(where), weights_(weights) {
    MPI_Comm_size(comm, &p_);
    MPI_Comm_rank(comm, &me_);
    const std::uint64_t h = rank_hash(static_cast<std::uint64_t>(me_));
    const bool root_ok = mine.root >= 0 && mine.root < p_;
    root_ = root_ok ? static_cast<std::uint64_t>(mine.root) : 0;
    options_ = static_cast<std::uint64_t>(mine.options);
    cached_ = mine.cached;
    bytes_ = static_cast<std::uint64_t>(mine.bytes);
    in_[0] = (mine.error ? 1u : 0u) + (root_ok ? 0u : std::uint64_t(1) << 32);
    in_[1] = root_ * h;
    in_[2] = options_ * h;
    in_[3] = cached_ * h;
    in_[4] = static_cast<std::uint64_t>(Impl::bytes_hash(mine.bytes, me_));
    in_[5] = static_cast<std::uint64_t>(mine.root_hash);
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

  void wait() {
    if (request_ != MPI_REQUEST_NULL) mpi_check(MPI_Wait(&request_, MPI_STATUS_IGNORE), where_, "MPI_Wait (agreement)");
  }

  // (after completion)
  std::uint64_t errors() const { return out_[0] & 0xffffffffu; }  // processes with a bad argument of their own
  bool root_out_of_range() const { return (out_[0] >> 32) != 0; }
  bool same_root() const { return all_equal(1, root_); }
  bool same_options() const { return all_equal(2, options_); }
  bool reuse_cached() const { return cached_ != 0 && all_equal(3, cached_); }  // every process offers the same one
  bool counts_agree() const { return out_[4] == out_[5]; }    // the root's counts hash as the processes' bytes do
  bool equal_blocks() const { return all_equal(4, bytes_); }  // every process's block has this one's size

 private:
  static constexpr int kCount = 6;

  bool all_equal(int i, std::uint64_t mine) const { return out_[i] == mine * weights_; }

  const char* where_;
  std::uint64_t weights_;
  int p_ = 1, me_ = 0;
  std::uint64_t root_ = 0, options_ = 0, cached_ = 0, bytes_ = 0;  // this process's
  std::uint64_t in_[kCount] = {}, out_[kCount] = {};
  MPI_Request request_ = MPI_REQUEST_NULL;
};

}  // namespace KokkosDDT::Impl
