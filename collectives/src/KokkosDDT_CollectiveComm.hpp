// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where the collectives' messages travel: the MPI transport on a duplicate of the user's communicator
// (KokkosDDT_MpiTransport.hpp: the library's own traffic), made on first use and kept on the user's communicator
// (KokkosDDT_Communicators.hpp: attached, freed with it), so that no collective message can match a user's receive.
// Each operation takes the next sequence number on that duplicate (every process calls collectives in the same order,
// as MPI requires) and tags its messages with it, so that several nonblocking collectives in flight on one communicator
// never exchange messages.

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <set>
#include <vector>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Communicators.hpp"
#include "KokkosDDT_MPIError.hpp"
#include "KokkosDDT_MPIRequest.hpp"
#include "KokkosDDT_MpiTransport.hpp"

namespace KokkosDDT::Impl {

// One address per execution-space type (cheaper to compare than its type_info's name).
template <class ExecSpace>
const void* space_type_id() {
  static const char id = 0;
  return &id;
}

// What makes a nonpersistent call's schedule on one process: its arguments (CollectiveArgs; the root's counts and
// displacements at the root only), the execution-space instance and the options. A call equal to the one a kept
// schedule was made for, exactly, runs that schedule again without checking its arguments once more: they passed when
// it was made. (The types are held, so that a type freed and another made at its address never look equal.)
struct CallSignature {
  const void* space_type = nullptr;  // space_type_id
  std::uint64_t space_instance = 0;
  std::int64_t options = 0;  // options_fingerprint
  bool unchecked = false;
  const void* own_buf = nullptr;
  std::int64_t own_count = 0;
  Datatype own_type;
  bool in_place = false;
  int root = 0;
  const void* root_buf = nullptr;
  Datatype root_type;
  std::vector<std::int64_t> counts, displs;
  std::int64_t own_bytes = 0;  // what the argument check found

  // The signature of call `a` (its counts and displacements moved in).
  template <class ExecSpace, class Args>
  static CallSignature of(const ExecSpace& space, Args&& a, std::int64_t options, bool unchecked,
                          std::int64_t own_bytes) {
    return {space_type_id<ExecSpace>(),
            space.impl_instance_id(),
            options,
            unchecked,
            a.own_buf,
            a.own_count,
            a.own_type,
            a.in_place,
            a.root,
            a.root_buf,
            a.root_type,
            std::move(a.counts),
            std::move(a.displs),
            own_bytes};
  }

  template <class ExecSpace, class Args>
  bool matches(const ExecSpace& space, const Args& a, std::int64_t options_fp, bool local, int me) const {
    if (space_type != space_type_id<ExecSpace>() || space_instance != space.impl_instance_id() ||
        options != options_fp || unchecked != local || a.own_buf != own_buf || a.own_count != own_count ||
        a.own_type != own_type || a.in_place != in_place || a.root != root)
      return false;
    return me != a.root ||
           (a.root_buf == root_buf && a.root_type == root_type && a.counts == counts && a.displs == displs);
  }
};

// The schedule of the last scatter ([0]) and gather ([1]) that completed on a communicator, kept for the next call with
// the same arguments (KokkosDDT_ScheduledCollective.hpp): its messages, tree and staging are made once.
struct CachedSchedule {
  CallSignature call;                   // the call it was made for, on this process
  std::uint64_t sequence = 0;           // the operation that made it (its tags)
  std::shared_ptr<Operation> schedule;  // null while a call runs it
};

// Every context alive (below): their cached schedules hold Kokkos allocations (staging), which must go at
// Kokkos::finalize, before MPI_Finalize frees the communicators; the calls they were made for go with them.
struct CollectiveContext;
inline std::set<CollectiveContext*>& collective_contexts();

struct CollectiveContext {
  std::shared_ptr<MpiTransport> transport;  // on the duplicate
  std::uint64_t sequence = 0;               // operations started on it
  std::uint64_t persistent = 0;             // persistent operations made on it
  CachedSchedule cached[2];

  CollectiveContext(MPI_Comm comm, const char* where) : transport(MpiTransport::duplicate(comm, where)) {
    collective_contexts().insert(this);
  }
  ~CollectiveContext() { collective_contexts().erase(this); }  // (the transport frees its duplicate)
  CollectiveContext(const CollectiveContext&) = delete;
  CollectiveContext& operator=(const CollectiveContext&) = delete;
};

// Message kinds of one operation: tree construction (exchange between fixed roots, verdict to a gather root), data,
// and the header a subtree sends to the root when its data goes straight there.
enum class CollectiveTag : int { Exchange = 0, Verdict = 1, Data = 2, Header = 3 };

struct CollectiveTags {
  int base = 0;
  std::uint64_t sequence = 0;  // the operation's number (nonpersistent operations)
  int operator()(CollectiveTag kind) const { return base + static_cast<int>(kind); }
};

inline std::set<CollectiveContext*>& collective_contexts() {
  static auto* all = [] {
    auto* contexts = new std::set<CollectiveContext*>;
    Kokkos::push_finalize_hook([contexts] {
      for (CollectiveContext* ctx : *contexts)
        for (CachedSchedule& slot : ctx->cached) slot.schedule.reset(), slot.call = {};  // (its types, too)
    });
    return contexts;
  }();
  return *all;
}

// The context kept on `comm` (collective over comm on first use, local afterwards).
inline CollectiveContext& collective_context(MPI_Comm comm, const char* where) {
  return attached<CollectiveContext>(comm, where);
}

// Tags of the next operation on comm: 4 kinds x 4095 operations in flight (MPI guarantees tags up to 32767). A
// persistent operation keeps its tags for its life, in a range of their own (4096 alive at most): its rounds never
// share tags with the operations started between them.
constexpr std::uint64_t kTagRing = 4095;
inline CollectiveTags next_collective_tags(CollectiveContext& ctx, bool persistent) {
  if (persistent) return {16384 + static_cast<int>(ctx.persistent++ % 4096) * 4, 0};
  const std::uint64_t sequence = ctx.sequence++;
  return {static_cast<int>(sequence % kTagRing) * 4, sequence};
}

// The linear schedule's tags of an unchecked call (ArgumentCheck::Local), the 4 left below the persistent range: one
// per kind, the same for every such call, so that each process may run its cached schedule again or make a new one on
// its own (no agreement decides it) and the messages still pair, in the order the processes call (as MPI's
// collectives, which every process calls in the same order).
inline CollectiveTags unchecked_collective_tags(bool gather) {
  return {static_cast<int>(kTagRing) * 4 + (gather ? 1 : 0), 0};  // (its Data tag: 16382, 16383)
}

// Whether a schedule made by operation `made` may run again for operation `now` with its tags: no operation still in
// flight (kTagRing at most, as above) can be using them.
inline bool tags_reusable(std::uint64_t made, std::uint64_t now) { return now - made < kTagRing; }

}  // namespace KokkosDDT::Impl
