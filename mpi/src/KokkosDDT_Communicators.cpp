// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_Communicators.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "KokkosDDT_SetupDeadline.hpp"
#include "KokkosDDT_Settings.hpp"

namespace KokkosDDT::Impl {

bool mpi_finalized() {
  int done = 0;
  MPI_Finalized(&done);
  return done != 0;
}

MPI_Comm duplicate_comm(MPI_Comm comm, const char* where) {
  MPI_Comm dup = MPI_COMM_NULL;
  if (SetupDeadline::seconds() > 0) {             // (a plan's setup: within its deadline)
    auto* pending = new MPI_Comm(MPI_COMM_NULL);  // (MPI writes it when the duplicate completes: kept if it does not)
    MPI_Request request = MPI_REQUEST_NULL;
    mpi_check(MPI_Comm_idup(comm, pending, &request), where, "MPI_Comm_idup");
    setup_wait(1, &request, where, "MPI_Comm_idup (the plan's control plane)");
    dup = *pending;
    delete pending;
  } else {
    mpi_check(MPI_Comm_dup(comm, &dup), where, "MPI_Comm_dup");
  }
  const int rc = MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  if (rc != MPI_SUCCESS) MPI_Comm_free(&dup);
  mpi_check(rc, where, "MPI_Comm_set_errhandler");
  return dup;
}

void free_comm(MPI_Comm& comm) {
  if (comm != MPI_COMM_NULL && !mpi_finalized()) MPI_Comm_free(&comm);
  comm = MPI_COMM_NULL;
}

namespace {

// Which processes comm holds, in its rank order: their ranks in MPI_COMM_WORLD (one process each).
std::vector<int> world_ranks(MPI_Comm comm, const char* where) {
  MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  mpi_check(MPI_Comm_group(comm, &group), where, "MPI_Comm_group");
  int size = 0;
  MPI_Group_size(group, &size);
  std::vector<int> ranks(size), out(size);
  for (int i = 0; i < size; ++i) ranks[i] = i;
  int rc = MPI_Comm_group(MPI_COMM_WORLD, &world);
  if (rc == MPI_SUCCESS) rc = MPI_Group_translate_ranks(group, size, ranks.data(), world, out.data());
  MPI_Group_free(&group);
  if (world != MPI_GROUP_NULL) MPI_Group_free(&world);
  mpi_check(rc, where, "MPI_Group_translate_ranks");
  return out;
}

std::int64_t node_leader_of(MPI_Comm comm, const char* where) {
  MPI_Comm node = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), where, "MPI_Comm_split_type");
  int rank = 0, world = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  if (const int k = emulated_node_size(); k > 0) {  // (a node of k consecutive ranks of MPI_COMM_WORLD)
    MPI_Comm part = MPI_COMM_NULL;
    const int rc = MPI_Comm_split(node, world / k, rank, &part);
    MPI_Comm_free(&node);
    mpi_check(rc, where, "MPI_Comm_split (KOKKOSDDT_NODE_SIZE)");
    node = part;
  }
  std::int64_t leader = rank;
  const int rc = MPI_Bcast(&leader, 1, MPI_INT64_T, 0, node);  // (rank 0 of the node is its lowest rank in comm)
  MPI_Comm_free(&node);
  mpi_check(rc, where, "MPI_Bcast (node)");
  return leader;
}

}  // namespace

// The answer depends only on comm's processes and their order, so it is kept per such list: every plan's control plane
// is a new duplicate of the same processes, and a plan asks once per direction. Consistent across the processes: each
// of a list's processes took part in the one collective call that filled its entry, and entries are never dropped.
std::int64_t node_leader(MPI_Comm comm, const char* where) {
  static std::mutex lock;
  static std::map<std::vector<int>, std::int64_t> known;
  std::vector<int> processes = world_ranks(comm, where);
  {
    const std::lock_guard<std::mutex> hold(lock);
    if (auto it = known.find(processes); it != known.end()) return it->second;
  }
  const std::int64_t leader = node_leader_of(comm, where);
  // (processes outside MPI_COMM_WORLD, spawned ones, have no world rank to tell them apart by: not kept)
  if (std::find(processes.begin(), processes.end(), MPI_UNDEFINED) != processes.end()) return leader;
  const std::lock_guard<std::mutex> hold(lock);
  known.emplace(std::move(processes), leader);
  return leader;
}

int tag_upper_bound(MPI_Comm comm, const char* where) {
  // MPI attaches MPI_TAG_UB to MPI_COMM_WORLD, and it holds for every communicator; MPICH copies it to others, Open
  // MPI does not. (32767: the least MPI guarantees.)
  for (MPI_Comm holder : {comm, MPI_COMM_WORLD}) {
    void* value = nullptr;
    int found = 0;
    mpi_check(MPI_Comm_get_attr(holder, MPI_TAG_UB, &value, &found), where, "MPI_Comm_get_attr (MPI_TAG_UB)");
    if (found && value) return *static_cast<int*>(value);
  }
  return 32767;
}

int emulated_node_size() { return settings().node_size; }

void at_mpi_finalize(void (*f)(), const char* where) {
  struct Work {
    void (*f)();
  };
  int keyval = MPI_KEYVAL_INVALID;
  auto run = [](MPI_Comm, int, void* value, void*) -> int {
    auto* work = static_cast<Work*>(value);
    work->f();
    delete work;
    return MPI_SUCCESS;
  };
  mpi_check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, run, &keyval, nullptr), where, "MPI_Comm_create_keyval");
  auto* work = new Work{f};
  const int rc = MPI_Comm_set_attr(MPI_COMM_SELF, keyval, work);
  if (rc != MPI_SUCCESS) delete work;
  mpi_check(rc, where, "MPI_Comm_set_attr (MPI_COMM_SELF)");
}

}  // namespace KokkosDDT::Impl
