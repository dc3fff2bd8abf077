// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The library's communicators, one owner: every MPI communicator the library makes, and all the state it keeps on a
// user's communicator, go through here.
//
//   duplicate_comm / free_comm   a duplicate of a user's communicator for the library's own traffic (a plan's control
//                                messages and its transport's, the collectives of a communicator, the peer transport's
//                                handshakes): no user receive can match it, and its handler returns errors (the
//                                library throws Error). Freed by its one owner (an MpiTransport), never after
//                                MPI_Finalize.
//   attached<T>(comm)            state of type T kept on a user's communicator as an MPI attribute: made on first use
//                                (collective over comm), deleted when the communicator is freed (or at MPI_Finalize
//                                for MPI_COMM_WORLD). The collectives' duplicate and cached schedules.
//   at_mpi_finalize(f)           work that must run when MPI finalizes, before it frees its communicators (the NCCL
//                                communicators the NCCL transport caches per group of processes).
//   node_leader(comm)            which node a process is on, alike on the processes of one node (the peer transport).
//   tag_upper_bound(comm)        the largest tag comm's messages may carry (MPI_TAG_UB).
//   mpi_finalized()              whether MPI is gone (every destructor that frees an MPI object asks it).

#include <mpi.h>

#include <cstdint>

#include "KokkosDDT_MPIError.hpp"

namespace KokkosDDT::Impl {

// Whether MPI_Finalize has run: after it, the library frees no MPI object (MPI has).
bool mpi_finalized();

MPI_Comm duplicate_comm(MPI_Comm comm, const char* where);  // collective over comm
void free_comm(MPI_Comm& comm);                             // (after MPI_Finalize: only forgets it)

// The lowest rank in comm of the processes of comm that share this one's node (MPI_Comm_split_type). Collective the
// first time for a list of processes (comm's, in rank order); then answered from what this process keeps, alike on
// all of them, for every communicator of the same processes (each plan's duplicate).
// KOKKOSDDT_NODE_SIZE=k (a testing knob) splits each node further into groups of k consecutive ranks of
// MPI_COMM_WORLD, which the library then treats as nodes of their own: two nodes on one machine.
std::int64_t node_leader(MPI_Comm comm, const char* where);
int emulated_node_size();  // k, or 0 when unset

// The largest tag a message on comm may carry (MPI_TAG_UB, the same for every communicator; at least 32767).
int tag_upper_bound(MPI_Comm comm, const char* where);

// Runs `f` once when MPI finalizes (an attribute on MPI_COMM_SELF, whose deletion MPI_Finalize runs first).
void at_mpi_finalize(void (*f)(), const char* where);

// A keyval whose deletion callback deletes the attribute as a T.
template <class T>
int attached_keyval(const char* where) {
  static const int keyval = [where] {
    int k = MPI_KEYVAL_INVALID;
    auto del = [](MPI_Comm, int, void* value, void*) -> int {
      delete static_cast<T*>(value);
      return MPI_SUCCESS;
    };
    mpi_check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &k, nullptr), where, "MPI_Comm_create_keyval");
    return k;
  }();
  return keyval;
}

// The T kept on comm: made as T(comm, where) on first use (collective over comm then; local afterwards).
template <class T>
T& attached(MPI_Comm comm, const char* where) {
  const int keyval = attached_keyval<T>(where);
  void* value = nullptr;
  int found = 0;
  mpi_check(MPI_Comm_get_attr(comm, keyval, &value, &found), where, "MPI_Comm_get_attr");
  if (found) return *static_cast<T*>(value);
  auto* made = new T(comm, where);
  const int rc = MPI_Comm_set_attr(comm, keyval, made);
  if (rc != MPI_SUCCESS) delete made;
  mpi_check(rc, where, "MPI_Comm_set_attr");
  return *made;
}

}  // namespace KokkosDDT::Impl
