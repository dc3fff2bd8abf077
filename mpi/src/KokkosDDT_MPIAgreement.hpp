// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the processes of a communicator settle before anything that depends on it moves: whether any of them found a
// bad argument (how many, and the lowest such rank, whose error names it), whether values that must be equal everywhere
// (a root, options, a fingerprint of the fields) are, and sums that a process checks against a value it knows (the
// collectives' hash of every rank's byte count against the root's). A process that disagrees cannot know it alone;
// checking each value locally and throwing at once would leave the others waiting. So every process contributes, and
// every process gets the same verdict. The library's one agreement (plans, transports and collectives use it), in one
// reduction, blocking or not, of
//
//   [k, error, -rank, v0, ~v0, v1, ~v1, ... | errors, s0, s1, ...]
//
// with the library's operation: the maximum of the first k words (max(~v) = ~min(v) gives both ends of each value's
// range, so equality is exact) and the sum, mod 2^64, of the others. Few words matter: a small MPI_Allreduce costs more
// with every few words it carries.

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_MPIError.hpp"
#include "KokkosDDT_SetupDeadline.hpp"

namespace KokkosDDT::Impl {

// The reduction's operation: signed maximum below word k (word 0 holds k, equal everywhere), wrapping sum above.
inline void agreement_reduce(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const std::int64_t*>(in);
  auto* b = static_cast<std::int64_t*>(inout);
  const std::int64_t k = a[0];
  for (int i = 0; i < *len; ++i)
    b[i] = i < k ? std::max(a[i], b[i])
                 : static_cast<std::int64_t>(static_cast<std::uint64_t>(a[i]) + static_cast<std::uint64_t>(b[i]));
}

inline MPI_Op agreement_op(const char* where) {
  static MPI_Op op = [where] {
    MPI_Op made = MPI_OP_NULL;
    mpi_check(MPI_Op_create(&agreement_reduce, 1, &made), where, "MPI_Op_create (agreement)");
    return made;  // (never freed: one per process, used until MPI_Finalize)
  }();
  return op;
}

class Agreement {
 public:
  Agreement() = default;
  // Collective over comm: posts the reduction (blocking: completes it; a blocking reduction is faster).
  Agreement(MPI_Comm comm, bool error, const std::vector<std::int64_t>& values, const char* where)
      : Agreement(comm, error, values, {}, false, where) {}
  Agreement(MPI_Comm comm, bool error, const std::vector<std::int64_t>& values, const std::vector<std::uint64_t>& sums,
            bool blocking, const char* where)
      : where_(where), k_(3 + 2 * static_cast<std::int64_t>(values.size())) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    in_ = {k_, error ? 1 : 0, error ? -std::int64_t(rank) : std::numeric_limits<std::int64_t>::min()};
    for (std::int64_t v : values) in_.push_back(v), in_.push_back(~v);
    in_.push_back(error ? 1 : 0);
    for (std::uint64_t s : sums) in_.push_back(static_cast<std::int64_t>(s));
    out_.resize(in_.size());
    const int n = static_cast<int>(in_.size());
    if (blocking && !(SetupDeadline::seconds() > 0)) {
      mpi_check(MPI_Allreduce(in_.data(), out_.data(), n, MPI_INT64_T, agreement_op(where), comm), where,
                "MPI_Allreduce (agreement)");
      return;
    }
    mpi_check(MPI_Iallreduce(in_.data(), out_.data(), n, MPI_INT64_T, agreement_op(where), comm, &request_), where,
              "MPI_Iallreduce (agreement)");
    if (!blocking) return;
    try {
      wait();  // (within a plan's setup deadline)
    } catch (...) {
      keep_buffers();  // (no destructor runs for an object whose constructor throws)
      throw;
    }
  }
  Agreement(Agreement&&) = delete;  // MPI writes into out_ until the reduction completes

  ~Agreement() {
    if (request_ == MPI_REQUEST_NULL) return;
    if (!timed_out_) {
      MPI_Wait(&request_, MPI_STATUS_IGNORE);  // (collective: the others contribute)
      return;
    }
    keep_buffers();
  }

  bool test() {
    if (request_ == MPI_REQUEST_NULL) return true;
    int flag = 0;
    mpi_check(MPI_Test(&request_, &flag, MPI_STATUS_IGNORE), where_, "MPI_Test (agreement)");
    return flag != 0;
  }
  void wait() {  // (within a plan's setup deadline: SetupDeadline)
    if (request_ == MPI_REQUEST_NULL) return;
    try {
      setup_wait(1, &request_, where_, "an agreement of the plan's processes");
    } catch (const Error& e) {
      timed_out_ = e.code() == ErrorCode::Timeout;
      throw;
    }
  }

  // (after completion)
  bool any_error() const { return out_[1] != 0; }
  std::uint64_t errors() const { return sum_word(0); }  // processes that found a bad argument
  int lowest_error_rank() const { return static_cast<int>(-out_[2]); }
  std::int64_t max(std::size_t i) const { return out_[3 + 2 * i]; }
  std::int64_t min(std::size_t i) const { return ~out_[4 + 2 * i]; }
  bool agreed(std::size_t i) const { return max(i) == min(i); }
  std::uint64_t sum(std::size_t j) const { return sum_word(1 + j); }

 private:
  std::uint64_t sum_word(std::size_t j) const { return static_cast<std::uint64_t>(out_[k_ + j]); }
  // A setup past its deadline: MPI may still write the buffers, which stay (their request too). Moving a vector
  // keeps its storage.
  void keep_buffers() {
    if (!timed_out_) return;
    (void)new std::vector<std::int64_t>(std::move(in_));
    (void)new std::vector<std::int64_t>(std::move(out_));
  }

  const char* where_ = "";
  std::int64_t k_ = 3;
  std::vector<std::int64_t> in_, out_;
  MPI_Request request_ = MPI_REQUEST_NULL;
  bool timed_out_ = false;
};

// A 64-bit fingerprint of a sequence of values (each value mixed into the state by splitmix64's finalizer, a
// bijection of 64 bits: a word at a time, not a byte, since collectives hash every rank's counts on every call):
// processes whose arguments differ get different fingerprints, with probability about 1 - 2^-64. Fed value by value
// (no container needed).
class Fingerprint {
 public:
  Fingerprint& add(std::int64_t v) {
    h_ = mix(h_ ^ static_cast<std::uint64_t>(v));
    return *this;
  }
  Fingerprint& add(const std::vector<std::int64_t>& values) {
    for (std::int64_t v : values) add(v);
    return *this;
  }
  std::int64_t value() const { return static_cast<std::int64_t>(mix(h_ + 0x9e3779b97f4a7c15ull)); }

 private:
  static std::uint64_t mix(std::uint64_t h) {
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
  }
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
