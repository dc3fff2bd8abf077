// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the processes of a communicator settle before anything that depends on it moves: whether any of them found a
// bad argument (and the lowest such rank, whose error names it), and whether values that must be equal everywhere (a
// root, options, a fingerprint of the fields) are. A process that disagrees cannot know it alone; checking each value
// locally and throwing at once would leave the others waiting. So every process contributes, and every process gets
// the same verdict: one maximum over all processes (MPI_Iallreduce, or a dissemination on a private communicator) of
// [error, -rank, v0, ~v0, v1, ~v1, ...], where max(~v) = ~min(v) gives both ends of each value's range at once.

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "KokkosDDT_MPIError.hpp"

namespace KokkosDDT::Impl {

class Agreement {
 public:
  Agreement() = default;
  // Collective over comm (nonblocking): posts MPI_Iallreduce.
  Agreement(MPI_Comm comm, bool error, const std::vector<std::int64_t>& values, const char* where)
      : where_(where), comm_(comm) {
    init(error, values);
    mpi_check(MPI_Iallreduce(in_.data(), out_.data(), static_cast<int>(in_.size()), MPI_INT64_T, MPI_MAX, comm,
                             &requests_[0]),
              where, "MPI_Iallreduce");
  }
  // The same by dissemination over point-to-point messages tagged `tag` on `comm`, which must be private to the
  // caller (a collective's own duplicate): in round r every process sends what it has to rank + 2^r and takes the
  // maximum with what rank - 2^r sends (the maximum is idempotent, so overlapping contributions do no harm), so
  // ceil(log2 p) message steps reach every process. MPI_Iallreduce may take twice as many (Open MPI's libnbc: a
  // binomial reduce, then a broadcast), and this one runs beside the caller's other messages.
  Agreement(MPI_Comm comm, int tag, bool error, const std::vector<std::int64_t>& values, const char* where)
      : where_(where), comm_(comm), tag_(tag) {
    init(error, values);
    out_ = in_;
    MPI_Comm_size(comm, &p_);
    post_round();
  }
  Agreement(Agreement&&) = delete;  // MPI writes into the buffers until the agreement completes

  ~Agreement() {
    for (MPI_Request& r : requests_)  // (collective: the others contribute, so this completes)
      if (r != MPI_REQUEST_NULL) MPI_Wait(&r, MPI_STATUS_IGNORE);
  }

  bool test() {
    for (;;) {
      for (MPI_Request& r : requests_) {
        if (r == MPI_REQUEST_NULL) continue;
        int flag = 0;
        mpi_check(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), where_, "MPI_Test (agreement)");
        if (!flag) return false;
      }
      if (tag_ < 0 || distance_ >= p_) return true;
      for (std::size_t i = 0; i < out_.size(); ++i) out_[i] = std::max(out_[i], incoming_[i]);
      distance_ *= 2;
      post_round();
    }
  }
  void wait() {
    while (!test()) {
    }
  }

  // (after completion)
  bool any_error() const { return out_[0] != 0; }
  int lowest_error_rank() const { return static_cast<int>(-out_[1]); }
  std::int64_t max(std::size_t i) const { return out_[2 + 2 * i]; }
  std::int64_t min(std::size_t i) const { return ~out_[3 + 2 * i]; }
  bool agreed(std::size_t i) const { return max(i) == min(i); }

 private:
  void init(bool error, const std::vector<std::int64_t>& values) {
    MPI_Comm_rank(comm_, &rank_);
    in_ = {error ? 1 : 0, error ? -std::int64_t(rank_) : std::numeric_limits<std::int64_t>::min()};
    for (std::int64_t v : values) in_.push_back(v), in_.push_back(~v);
    out_.resize(in_.size());
  }
  // One round of the dissemination (nothing once 2^r reaches p).
  void post_round() {
    if (distance_ >= p_) return;
    const int n = static_cast<int>(out_.size());
    sent_ = out_;  // (out_ changes when the round completes; the send reads its own copy)
    incoming_.resize(out_.size());
    mpi_check(MPI_Irecv(incoming_.data(), n, MPI_INT64_T, (rank_ - distance_ + p_) % p_, tag_, comm_, &requests_[0]),
              where_, "MPI_Irecv (agreement)");
    mpi_check(MPI_Isend(sent_.data(), n, MPI_INT64_T, (rank_ + distance_) % p_, tag_, comm_, &requests_[1]), where_,
              "MPI_Isend (agreement)");
  }

  const char* where_ = "";
  MPI_Comm comm_ = MPI_COMM_NULL;
  int tag_ = -1, rank_ = 0, p_ = 1, distance_ = 1;
  std::vector<std::int64_t> in_, out_, sent_, incoming_;
  MPI_Request requests_[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
};

// A 64-bit fingerprint of a sequence of values (FNV-1a over their bytes, then a splitmix finalizer): processes whose
// arguments differ get different fingerprints, with probability 1 - 2^-64.
inline std::int64_t fingerprint(const std::vector<std::int64_t>& values) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::int64_t v : values)
    for (int b = 0; b < 8; ++b) h = (h ^ ((static_cast<std::uint64_t>(v) >> (8 * b)) & 0xff)) * 0x100000001b3ull;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return static_cast<std::int64_t>(h ^ (h >> 31));
}

}  // namespace KokkosDDT::Impl
