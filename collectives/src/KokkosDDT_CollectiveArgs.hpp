// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The arguments of one gather (Gather = true) or scatter, as MPI_Gatherv / MPI_Scatterv take them, what each process
// can check of them alone, and the root's own block (copied within the root's memory by every schedule). "Own" is the
// block every process contributes (gather: send side) or receives (scatter: receive side); "root" is the root's
// counts, displacements and type, significant at the root only.

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
#include <KokkosDDT_MPI.hpp>

#include "KokkosDDT_RankRuns.hpp"

namespace KokkosDDT::Impl {

struct CollectiveArgs {
  const void* own_buf = nullptr;
  std::int64_t own_count = 0;
  Datatype own_type;
  bool in_place = false;  // at the root: its own block is already in place in the root buffer
  const void* root_buf = nullptr;
  std::vector<std::int64_t> counts, displs;
  Datatype root_type;
  int root = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  std::int64_t threshold = 0;  // direct threshold of the tree, bytes
};

// What one process finds wrong with its own arguments (nullopt: nothing), and its own block's bytes. At the root also
// the counts and displacements; `me` and `p` are its rank and the communicator's size.
template <bool Gather>
std::optional<Error> check_collective_arguments(const CollectiveArgs& a, int me, int p, const char* where,
                                                std::int64_t& own_bytes) {
  const char* own_count_name = Gather ? "sendcount" : "recvcount";
  const char* counts_name = Gather ? "recvcounts" : "sendcounts";
  auto bad = [&](const char* argument, const std::string& message) {
    return Error(ErrorCode::InvalidArgument, where, argument, message);
  };
  own_bytes = 0;
  try {
    if (a.in_place && me != a.root)
      return bad(Gather ? "sendbuf" : "recvbuf", "is in_place on a process that is not the root");
    if (a.own_count < 0) return bad(own_count_name, "is " + std::to_string(a.own_count) + " but must be non-negative");
    if (!a.in_place) {
      own_bytes = checked_mul(a.own_count, a.own_type.impl_committed(where).size, where, own_count_name);
      if (own_bytes > 0 && !a.own_buf) return bad(Gather ? "sendbuf" : "recvbuf", "is null");
    }
    if (me != a.root || a.root < 0 || a.root >= p) return std::nullopt;
    const std::int64_t rsize = a.root_type.impl_committed(where).size;
    std::string problem = root_arguments_problem(p, a.counts, a.displs, a.root_type, counts_name);
    if (!problem.empty()) return bad(counts_name, problem);
    if (a.in_place) own_bytes = a.counts[a.root] * rsize;
    if (own_bytes != a.counts[a.root] * rsize)
      return bad(counts_name, std::string(counts_name) + "[root] makes " + std::to_string(a.counts[a.root] * rsize) +
                                  " bytes but the root's own block has " + std::to_string(own_bytes));
    if (Gather) {
      problem = overlap_problem(a.counts, a.displs, a.root_type);
      if (!problem.empty()) return bad("displs", problem);
    }
    if (!a.root_buf && counts_bytes(a.counts, rsize, 0, p - 1) > 0)
      return bad(Gather ? "recvbuf" : "sendbuf", "is null");
  } catch (const Error& e) {  // an uncommitted or null type, an overflow
    return e;
  }
  return std::nullopt;
}

// The root's own block, copied within its memory each round (unless in place): a plain copy where both sides are one
// contiguous run (memcpy in host memory, an asynchronous deep_copy on the instance otherwise), one pass where either
// side is, else through a staging buffer it keeps until the copy is fenced. Where the runs are is found once, when the
// schedule is made (LinearCollective, TreeCollective; the root only), so that a persistent round's start, which does
// little else, does not look for them again.
template <class ExecSpace, bool Gather>
class RootBlock {
 public:
  RootBlock() = default;
  RootBlock(const CollectiveArgs& a, std::int64_t own_bytes, const char* where) : bytes_(a.in_place ? 0 : own_bytes) {
    if (bytes_ == 0) return;
    root_block_ = static_cast<char*>(const_cast<void*>(a.root_buf)) + a.displs[a.root] * a.root_type.extent();
    own_ = static_cast<char*>(const_cast<void*>(a.own_buf));
    own_run_ = contiguous_run(a.own_type.impl_committed(where), a.own_count, own_at_);
    root_run_ = contiguous_run(a.root_type.impl_committed(where), a.counts[a.root], root_at_);
  }

  // Copies it on `space` (the arguments `a` it was made for); returns whether work was enqueued there, to be fenced
  // before the operation completes.
  bool copy(const ExecSpace& space, const CollectiveArgs& a) {
    if (bytes_ == 0) return false;
    const std::int64_t root_count = a.counts[a.root];
    if (own_run_ && root_run_) {
      char* from = Gather ? own_ + own_at_ : root_block_ + root_at_;
      char* to = Gather ? root_block_ + root_at_ : own_ + own_at_;
      using Mem = typename ExecSpace::memory_space;
      if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
        std::memcpy(to, from, static_cast<std::size_t>(bytes_));
        return false;
      } else {
        using Bytes = Kokkos::View<char*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
        Kokkos::deep_copy(space, Bytes(to, bytes_), Bytes(from, bytes_));
        return true;
      }
    }
    if (own_run_) {
      char* run = own_ + own_at_;
      if (Gather)
        unpack(space, run, bytes_, root_block_, root_count, a.root_type);
      else
        pack(space, root_block_, root_count, a.root_type, run, bytes_);
      return true;
    }
    if (root_run_) {
      if (Gather)
        pack(space, own_, a.own_count, a.own_type, root_block_ + root_at_, bytes_);
      else
        unpack(space, root_block_ + root_at_, bytes_, own_, a.own_count, a.own_type);
      return true;
    }
    // (a copy on this process: no transport reads the buffer, so it lives in the space's own memory)
    if (stage_.bytes < bytes_) stage_ = take_staging<ExecSpace>(bytes_, true);
    if (Gather) {
      pack(space, own_, a.own_count, a.own_type, stage_.data, bytes_);
      unpack(space, stage_.data, bytes_, root_block_, root_count, a.root_type);
    } else {
      pack(space, root_block_, root_count, a.root_type, stage_.data, bytes_);
      unpack(space, stage_.data, bytes_, own_, a.own_count, a.own_type);
    }
    return true;
  }

 private:
  std::int64_t bytes_ = 0, own_at_ = 0, root_at_ = 0;
  char* root_block_ = nullptr;
  char* own_ = nullptr;
  bool own_run_ = false, root_run_ = false;
  Staging stage_;
};

// Regular counts as the root's irregular ones: count each, displacements 0, count, 2 count, ... (a negative count is
// then reported by the root's argument check, like gatherv's).
inline void regular_counts(CollectiveArgs& a, std::int64_t count, int me, int p) {
  if (me != a.root) return;  // significant at the root only
  a.counts.assign(static_cast<std::size_t>(p), count);
  a.displs.resize(static_cast<std::size_t>(p));
  for (int j = 0; j < p; ++j) a.displs[j] = count * j;
}

}  // namespace KokkosDDT::Impl
