// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the processes of a communicator settle before anything that depends on it moves: whether any of them found a
// bad argument (and the lowest such rank, whose error names it), and whether values that must be equal everywhere (a
// root, options, a fingerprint of the fields) are. A process that disagrees cannot know it alone; checking each value
// locally and throwing at once would leave the others waiting. So every process contributes, and every process gets
// the same verdict: one MPI_Iallreduce (MPI_MAX) of [error, -rank, v0, ~v0, v1, ~v1, ...], where max(~v) = ~min(v)
// gives both ends of each value's range in one reduction.

#include <mpi.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_MPIError.hpp"

namespace KokkosDDT::Impl {

class Agreement {
 public:
  Agreement() = default;
  // Collective over comm (nonblocking): posts the reduction.
  Agreement(MPI_Comm comm, bool error, const std::vector<std::int64_t>& values, const char* where) : where_(where) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    in_ = {error ? 1 : 0, error ? -std::int64_t(rank) : std::numeric_limits<std::int64_t>::min()};
    for (std::int64_t v : values) in_.push_back(v), in_.push_back(~v);
    out_.resize(in_.size());
    mpi_check(
        MPI_Iallreduce(in_.data(), out_.data(), static_cast<int>(in_.size()), MPI_INT64_T, MPI_MAX, comm, &request_),
        where, "MPI_Iallreduce");
  }
  Agreement(Agreement&&) = delete;  // MPI writes into out_ until the reduction completes

  ~Agreement() {
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
  bool any_error() const { return out_[0] != 0; }
  int lowest_error_rank() const { return static_cast<int>(-out_[1]); }
  std::int64_t max(std::size_t i) const { return out_[2 + 2 * i]; }
  std::int64_t min(std::size_t i) const { return ~out_[3 + 2 * i]; }
  bool agreed(std::size_t i) const { return max(i) == min(i); }

 private:
  const char* where_ = "";
  std::vector<std::int64_t> in_, out_;
  MPI_Request request_ = MPI_REQUEST_NULL;
};

// A 64-bit fingerprint of a sequence of values (FNV-1a over their bytes, then a splitmix finalizer): processes whose
// arguments differ get different fingerprints, with probability 1 - 2^-64. Fed value by value (no container needed).
class Fingerprint {
 public:
  Fingerprint& add(std::int64_t v) {
    for (int b = 0; b < 8; ++b) h_ = (h_ ^ ((static_cast<std::uint64_t>(v) >> (8 * b)) & 0xff)) * 0x100000001b3ull;
    return *this;
  }
  Fingerprint& add(const std::vector<std::int64_t>& values) {
    for (std::int64_t v : values) add(v);
    return *this;
  }
  std::int64_t value() const {
    std::uint64_t h = (h_ ^ (h_ >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return static_cast<std::int64_t>(h ^ (h >> 31));
  }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ull;
};

inline std::int64_t fingerprint(const std::vector<std::int64_t>& values) { return Fingerprint().add(values).value(); }

// After a verdict on errors: the process that found one (`message`) throws it, naming `argument`; the others throw an
// error naming the lowest such rank. Every process of the verdict throws, or none does.
inline void throw_if_any(const Agreement& verdict, const std::string& message, const char* where,
                         const char* argument) {
  if (!verdict.any_error()) return;
  if (!message.empty()) throw_error(ErrorCode::InvalidArgument, where, argument, message);
  throw_error(ErrorCode::InvalidArgument, where, argument,
              "rank " + std::to_string(verdict.lowest_error_rank()) +
                  " found its arguments or a peer's inconsistent (its error says how)");
}

// Throws on every process of `comm` when `message` is non-empty on any (collective), so that no process goes on into
// a collective call or a message that another has left.
inline void throw_unless_agreed(MPI_Comm comm, const std::string& message, const char* where, const char* argument) {
  Agreement verdict(comm, !message.empty(), {}, where);
  verdict.wait();
  throw_if_any(verdict, message, where, argument);
}

}  // namespace KokkosDDT::Impl
