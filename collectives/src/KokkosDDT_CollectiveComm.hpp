// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where the collectives' messages travel: the MPI transport on a duplicate of the user's communicator
// (KokkosDDT_MpiTransport.hpp: the library's own traffic), made on first use and cached on the user's communicator as
// an MPI attribute (freed with it), so that no collective message can match a user's receive. Each operation takes the
// next sequence number on that duplicate (every process calls collectives in the same order, as MPI requires) and tags
// its messages with it, so that several nonblocking collectives in flight on one communicator never exchange messages.

#include <mpi.h>

#include <cstdint>
#include <memory>

#include "KokkosDDT_MPIError.hpp"
#include "KokkosDDT_MpiTransport.hpp"

namespace KokkosDDT::Impl {

struct CollectiveContext {
  std::shared_ptr<MpiTransport> transport;  // on the duplicate
  std::uint64_t sequence = 0;               // operations started on it
  std::uint64_t persistent = 0;             // persistent operations made on it
};

// Message kinds of one operation: tree construction (exchange between fixed roots, verdict to a gather root), data,
// and the header a subtree sends to the root when its data goes straight there.
enum class CollectiveTag : int { Exchange = 0, Verdict = 1, Data = 2, Header = 3 };

struct CollectiveTags {
  int base = 0;
  int operator()(CollectiveTag kind) const { return base + static_cast<int>(kind); }
};

inline int collective_keyval() {
  static int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    auto del = [](MPI_Comm, int, void* value, void*) -> int {
      delete static_cast<CollectiveContext*>(value);  // (the transport frees its duplicate)
      return MPI_SUCCESS;
    };
    mpi_check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &k, nullptr), "KokkosDDT collectives",
              "MPI_Comm_create_keyval");
    return k;
  }();
  return keyval;
}

// The cached duplicate of `comm` (collective over comm on first use, local afterwards).
inline CollectiveContext& collective_context(MPI_Comm comm, const char* where) {
  void* value = nullptr;
  int found = 0;
  mpi_check(MPI_Comm_get_attr(comm, collective_keyval(), &value, &found), where, "MPI_Comm_get_attr");
  if (found) return *static_cast<CollectiveContext*>(value);
  auto* ctx = new CollectiveContext;
  ctx->transport = MpiTransport::duplicate(comm, where);
  mpi_check(MPI_Comm_set_attr(comm, collective_keyval(), ctx), where, "MPI_Comm_set_attr");
  return *ctx;
}

// Tags of the next operation on comm: 4 kinds x 4096 operations in flight (MPI guarantees tags up to 32767). A
// persistent operation keeps its tags for its life, in a range of their own (4096 alive at most): its rounds never
// share tags with the operations started between them.
inline CollectiveTags next_collective_tags(CollectiveContext& ctx, bool persistent) {
  if (persistent) return {16384 + static_cast<int>(ctx.persistent++ % 4096) * 4};
  return {static_cast<int>(ctx.sequence++ % 4096) * 4};
}

}  // namespace KokkosDDT::Impl
