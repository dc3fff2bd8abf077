// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// gatherv / scatterv with MPI_Gatherv / MPI_Scatterv semantics on Träff's ordered gather tree (traff-gatherv19): the
// counts and displacements are significant at the root only. Blocks travel as packed bytes in rank order; the root
// unpacks each child's run of blocks straight into its final places with one hindexed KokkosDDT type over the
// receive type (zero intermediate copies at the root). Work in progress (issue 11): host memory, blocking forms.

#include <mpi.h>

#include <cstdint>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>

#include "KokkosDDT_GatherTree.hpp"

namespace KokkosDDT {

namespace Impl {

inline constexpr int kGatherTag = 7340;  // tree construction uses kGatherTag, kGatherTag + 1; data kGatherTag + 2

// The blocks of ranks [lo, hi] in the root's buffer: counts[j] instances of `type` at displs[j] extents.
inline Datatype rank_run_type(const std::vector<std::int64_t>& counts, const std::vector<std::int64_t>& displs, int lo,
                              int hi, const Datatype& type) {
  std::vector<std::int64_t> bl, disp;
  for (int j = lo; j <= hi; ++j) {
    if (counts[j] == 0) continue;
    bl.push_back(counts[j]);
    disp.push_back(displs[j] * type.extent());
  }
  Datatype t = hindexed(bl, disp, type);
  t.commit();
  return t;
}

}  // namespace Impl

// Gathers `sendcount` x `sendtype` from every process to `root`, block j at recvbuf + displs[j] * extent(recvtype).
template <class ExecSpace>
void gatherv(const ExecSpace& space, const void* sendbuf, std::int64_t sendcount, const Datatype& sendtype,
             void* recvbuf, const std::vector<std::int64_t>& recvcounts, const std::vector<std::int64_t>& displs,
             const Datatype& recvtype, int root, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::int64_t my_bytes = sendcount * sendtype.size();
  const Impl::GatherTree tree = Impl::build_gather_tree(comm, root, my_bytes, Impl::kGatherTag);
  const int data_tag = Impl::kGatherTag + 2;
  std::vector<char> own(static_cast<std::size_t>(my_bytes));
  if (my_bytes > 0) pack(space, sendbuf, sendcount, sendtype, own.data(), my_bytes);
  space.fence("KokkosDDT::gatherv");
  if (rank == root) {
    // Own block, then each child's run of blocks straight into place.
    if (recvcounts[root] > 0)
      unpack(space, own.data(), my_bytes, static_cast<char*>(recvbuf) + displs[root] * recvtype.extent(),
             recvcounts[root], recvtype);
    for (const auto& c : tree.children) {
      if (c.bytes == 0) continue;
      std::vector<char> staged(static_cast<std::size_t>(c.bytes));
      MPI_Recv(staged.data(), static_cast<int>(c.bytes), MPI_BYTE, c.rank, data_tag, comm, MPI_STATUS_IGNORE);
      const Datatype run = Impl::rank_run_type(recvcounts, displs, c.lo, c.hi, recvtype);
      unpack(space, staged.data(), c.bytes, recvbuf, 1, run);
    }
    space.fence("KokkosDDT::gatherv");
    return;
  }
  if (tree.children.empty()) {
    if (my_bytes > 0) MPI_Send(own.data(), static_cast<int>(my_bytes), MPI_BYTE, tree.parent, data_tag, comm);
    return;
  }
  // An intermediate process: its cube's blocks in rank order (children before or after its own block).
  std::vector<char> buf(static_cast<std::size_t>(tree.total));
  std::vector<MPI_Request> requests;
  std::int64_t at = 0;
  bool own_placed = false;
  for (const auto& c : tree.children) {
    if (!own_placed && c.lo > rank) {
      std::copy(own.begin(), own.end(), buf.begin() + at);
      at += my_bytes;
      own_placed = true;
    }
    if (c.bytes > 0) {
      requests.emplace_back();
      MPI_Irecv(buf.data() + at, static_cast<int>(c.bytes), MPI_BYTE, c.rank, data_tag, comm, &requests.back());
    }
    at += c.bytes;
  }
  if (!own_placed) std::copy(own.begin(), own.end(), buf.begin() + at);
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  if (tree.total > 0) MPI_Send(buf.data(), static_cast<int>(tree.total), MPI_BYTE, tree.parent, data_tag, comm);
}

// Scatters block j (sendcounts[j] x sendtype at sendbuf + displs[j] * extent(sendtype), significant at the root) to
// process j's `recvcount` x `recvtype` at recvbuf: the gather tree run backwards. Each process receives its cube's
// blocks in rank order from its parent, keeps its own and forwards its children's runs.
template <class ExecSpace>
void scatterv(const ExecSpace& space, const void* sendbuf, const std::vector<std::int64_t>& sendcounts,
              const std::vector<std::int64_t>& displs, const Datatype& sendtype, void* recvbuf, std::int64_t recvcount,
              const Datatype& recvtype, int root, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::int64_t my_bytes = recvcount * recvtype.size();
  const Impl::GatherTree tree = Impl::build_gather_tree(comm, root, my_bytes, Impl::kGatherTag);
  const int data_tag = Impl::kGatherTag + 2;
  if (rank == root) {
    // Each child's run of blocks packed straight from the send buffer, then the own block.
    std::vector<std::vector<char>> staged(tree.children.size());
    std::vector<MPI_Request> requests;
    for (std::size_t c = 0; c < tree.children.size(); ++c) {
      const auto& child = tree.children[c];
      if (child.bytes == 0) continue;
      staged[c].resize(static_cast<std::size_t>(child.bytes));
      const Datatype run = Impl::rank_run_type(sendcounts, displs, child.lo, child.hi, sendtype);
      pack(space, sendbuf, 1, run, staged[c].data(), child.bytes);
    }
    space.fence("KokkosDDT::scatterv");
    for (std::size_t c = 0; c < tree.children.size(); ++c)
      if (tree.children[c].bytes > 0) {
        requests.emplace_back();
        MPI_Isend(staged[c].data(), static_cast<int>(tree.children[c].bytes), MPI_BYTE, tree.children[c].rank, data_tag,
                  comm, &requests.back());
      }
    if (my_bytes > 0) {
      std::vector<char> own(static_cast<std::size_t>(my_bytes));
      pack(space, static_cast<const char*>(sendbuf) + displs[root] * sendtype.extent(), sendcounts[root], sendtype,
           own.data(), my_bytes);
      unpack(space, own.data(), my_bytes, recvbuf, recvcount, recvtype);
      space.fence("KokkosDDT::scatterv");
    }
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    return;
  }
  // Receive this cube's blocks in rank order, keep the own block, forward each child's run.
  std::vector<char> buf(static_cast<std::size_t>(tree.total));
  if (tree.total > 0)
    MPI_Recv(buf.data(), static_cast<int>(tree.total), MPI_BYTE, tree.parent, data_tag, comm, MPI_STATUS_IGNORE);
  std::vector<MPI_Request> requests;
  std::int64_t at = 0, own_at = -1;
  for (const auto& c : tree.children) {
    if (own_at < 0 && c.lo > rank) own_at = at, at += my_bytes;
    if (c.bytes > 0) {
      requests.emplace_back();
      MPI_Isend(buf.data() + at, static_cast<int>(c.bytes), MPI_BYTE, c.rank, data_tag, comm, &requests.back());
    }
    at += c.bytes;
  }
  if (own_at < 0) own_at = at;
  if (my_bytes > 0) {
    unpack(space, buf.data() + own_at, my_bytes, recvbuf, recvcount, recvtype);
    space.fence("KokkosDDT::scatterv");
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

}  // namespace KokkosDDT
