// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Irregular and regular gather and scatter of KokkosDDT datatypes on Träff's linear-time ordered tree
// (traff-gatherv19), with MPI_Gatherv / MPI_Scatterv / MPI_Gather / MPI_Scatter semantics:
//
//   KokkosDDT::gatherv(space, send.data(), n, type, recv.data(), counts, displs, type, root, comm);
//   auto r = KokkosDDT::igatherv(space, ...);  r.wait();      // nonblocking: an mpi::Request
//
// Counts, displacements and the root's buffer and type are significant at the root only; every other process knows
// only its own count. Buffers (pointers or Views) may be in any memory the execution space reaches: leaves and the
// root move their blocks straight between the user's buffer and MPI (through the MPI layer's staging where MPI cannot
// reach device memory), intermediate processes forward rank-ordered runs of packed bytes. KokkosDDT::in_place at the
// root: its own block is already in place (gather) or stays in place (scatter).
//
// Cost (the paper's model, alpha + beta * bytes per message): ceil(log2 p) rounds of 64-byte exchanges build the tree
// (at most 2 ceil(log2 p) - 1 dependent steps), then each byte reaches the root in at most ceil(log2 p) hops, the root
// receiving each byte once. A subtree whose data reaches CollectiveOptions::direct_threshold bytes sends it straight to
// the root instead of to a sibling (docs/collectives.md: the threshold and the alpha/beta measurement behind it).
//
// Errors: a root that differs between processes or is out of range on one makes every process throw (the processes
// agree on the root first, with one MPI_Iallreduce, before anything moves). A negative count, a root whose counts
// disagree with what the processes contribute (checked per subtree by a hash of the byte counts), overlapping root
// displacements (gather), a null buffer or uncommitted type: the processes that can see the problem throw
// KokkosDDT::Error once the operation is done; no process hangs. The root and the process with the bad argument always
// see it; in a scatter, so does every process of the subtree the root refused.

#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
#include <KokkosDDT_MPI.hpp>

#include "KokkosDDT_TreeCollective.hpp"

namespace KokkosDDT {

// The root's own block is already where it belongs (MPI_IN_PLACE).
struct InPlace {};
inline constexpr InPlace in_place{};

struct CollectiveOptions {
  // A subtree whose data (bytes) reaches this sends it straight to the root (scatter: receives it from the root).
  // -1: KOKKOSDDT_COLLECTIVE_DIRECT_BYTES from the environment, else kDefaultDirectThreshold. Must agree on all
  // processes only in that each pair of merging subtrees uses the smaller of their two values.
  std::int64_t direct_threshold = -1;
  // 2 alpha / beta of the measured model (docs/collectives.md): the size at which two more message start-ups at the
  // root (header and data) cost what forwarding the data once more does. Measured on the H200 node (Open MPI 4.1.6,
  // shared memory): alpha 1.49 us, beta 0.115 ns/B -> 25.9 kB; on the 2-vCPU VM (MPICH 4.0.2): 10.9 kB.
  static constexpr std::int64_t kDefaultDirectThreshold = std::int64_t(24) << 10;
};

// A buffer argument: a pointer, a View (its data), or in_place.
class CollectiveBuffer {
 public:
  CollectiveBuffer(const void* p) : p_(p) {}      // NOLINT: implicit, as MPI takes a pointer
  CollectiveBuffer(std::nullptr_t) {}             // NOLINT
  CollectiveBuffer(InPlace) : in_place_(true) {}  // NOLINT
  template <class View, Impl::enable_if_view<View> = 0>
  CollectiveBuffer(const View& v) : p_(v.data()) {}  // NOLINT
  const void* data() const { return p_; }
  bool in_place() const { return in_place_; }

 private:
  const void* p_ = nullptr;
  bool in_place_ = false;
};

namespace Impl {

inline std::int64_t direct_threshold(const CollectiveOptions& o) {
  if (o.direct_threshold >= 0) return o.direct_threshold;
  static const std::int64_t from_env = [] {  // read once: the environment does not change under a run
    const char* env = std::getenv("KOKKOSDDT_COLLECTIVE_DIRECT_BYTES");
    return env ? std::atoll(env) : CollectiveOptions::kDefaultDirectThreshold;
  }();
  return from_env;
}

inline int comm_size(MPI_Comm comm) {
  int p = 1;
  MPI_Comm_size(comm, &p);
  return p;
}

// Regular counts as the root's irregular ones: count each, displacements 0, count, 2 count, ... (a negative count
// is then reported by the root's argument check, after the operation, like gatherv's).
inline void regular_counts(TreeCollectiveArgs& a, std::int64_t count) {
  int me = 0;
  MPI_Comm_rank(a.comm, &me);
  if (me != a.root) return;  // significant at the root only
  const int p = comm_size(a.comm);
  a.counts.assign(static_cast<std::size_t>(p), count);
  a.displs.resize(static_cast<std::size_t>(p));
  for (int j = 0; j < p; ++j) a.displs[j] = count * j;
}

// An operation dropped before it completes (its request destroyed, an exception unwinding past it) is not freed: its
// MPI requests stay posted and the buffers they read and write stay valid, so no message lands in freed memory. The
// other processes may then wait for it, as with an abandoned MPI request.
template <class ExecSpace, bool Gather>
mpi::Request start_tree_collective(const char* where, const ExecSpace& space, TreeCollectiveArgs args) {
  using Op = TreeCollective<ExecSpace, Gather>;
  std::shared_ptr<Op> op(new Op(where, space, std::move(args)), [](Op* p) {
    if (p->finished()) delete p;
  });
  return mpi::make_active(std::move(op));
}

}  // namespace Impl

// ---- gatherv / igatherv --------------------------------------------------------------------------------------------
// Block j (recvcounts[j] x recvtype at recvbuf + displs[j] * extent(recvtype)) receives process j's sendcount x
// sendtype. recvbuf, recvcounts, displs and recvtype are significant at the root only.
template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
mpi::Request igatherv(const ExecSpace& space, CollectiveBuffer sendbuf, std::int64_t sendcount,
                      const Datatype& sendtype, CollectiveBuffer recvbuf, std::vector<std::int64_t> recvcounts,
                      std::vector<std::int64_t> displs, const Datatype& recvtype, int root, MPI_Comm comm,
                      const CollectiveOptions& options = {}) {
  Impl::TreeCollectiveArgs a{sendbuf.data(),
                             sendcount,
                             sendtype,
                             sendbuf.in_place(),
                             recvbuf.data(),
                             std::move(recvcounts),
                             std::move(displs),
                             recvtype,
                             root,
                             comm,
                             Impl::direct_threshold(options)};
  return Impl::start_tree_collective<ExecSpace, true>("KokkosDDT::gatherv", space, std::move(a));
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
void gatherv(const ExecSpace& space, CollectiveBuffer sendbuf, std::int64_t sendcount, const Datatype& sendtype,
             CollectiveBuffer recvbuf, std::vector<std::int64_t> recvcounts, std::vector<std::int64_t> displs,
             const Datatype& recvtype, int root, MPI_Comm comm, const CollectiveOptions& options = {}) {
  igatherv(space, sendbuf, sendcount, sendtype, recvbuf, std::move(recvcounts), std::move(displs), recvtype, root, comm,
           options)
      .wait();
}

// ---- scatterv / iscatterv ------------------------------------------------------------------------------------------
// Process j's recvcount x recvtype receives block j (sendcounts[j] x sendtype at sendbuf + displs[j] *
// extent(sendtype)). sendbuf, sendcounts, displs and sendtype are significant at the root only.
template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
mpi::Request iscatterv(const ExecSpace& space, CollectiveBuffer sendbuf, std::vector<std::int64_t> sendcounts,
                       std::vector<std::int64_t> displs, const Datatype& sendtype, CollectiveBuffer recvbuf,
                       std::int64_t recvcount, const Datatype& recvtype, int root, MPI_Comm comm,
                       const CollectiveOptions& options = {}) {
  Impl::TreeCollectiveArgs a{recvbuf.data(),
                             recvcount,
                             recvtype,
                             recvbuf.in_place(),
                             sendbuf.data(),
                             std::move(sendcounts),
                             std::move(displs),
                             sendtype,
                             root,
                             comm,
                             Impl::direct_threshold(options)};
  return Impl::start_tree_collective<ExecSpace, false>("KokkosDDT::scatterv", space, std::move(a));
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
void scatterv(const ExecSpace& space, CollectiveBuffer sendbuf, std::vector<std::int64_t> sendcounts,
              std::vector<std::int64_t> displs, const Datatype& sendtype, CollectiveBuffer recvbuf,
              std::int64_t recvcount, const Datatype& recvtype, int root, MPI_Comm comm,
              const CollectiveOptions& options = {}) {
  iscatterv(space, sendbuf, std::move(sendcounts), std::move(displs), sendtype, recvbuf, recvcount, recvtype, root,
            comm, options)
      .wait();
}

// ---- gather / scatter (regular: recvcount / sendcount per process, blocks one after another at the root) ---------
template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
mpi::Request igather(const ExecSpace& space, CollectiveBuffer sendbuf, std::int64_t sendcount, const Datatype& sendtype,
                     CollectiveBuffer recvbuf, std::int64_t recvcount, const Datatype& recvtype, int root,
                     MPI_Comm comm, const CollectiveOptions& options = {}) {
  Impl::TreeCollectiveArgs a{sendbuf.data(),
                             sendcount,
                             sendtype,
                             sendbuf.in_place(),
                             recvbuf.data(),
                             {},
                             {},
                             recvtype,
                             root,
                             comm,
                             Impl::direct_threshold(options)};
  Impl::regular_counts(a, recvcount);
  return Impl::start_tree_collective<ExecSpace, true>("KokkosDDT::gather", space, std::move(a));
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
void gather(const ExecSpace& space, CollectiveBuffer sendbuf, std::int64_t sendcount, const Datatype& sendtype,
            CollectiveBuffer recvbuf, std::int64_t recvcount, const Datatype& recvtype, int root, MPI_Comm comm,
            const CollectiveOptions& options = {}) {
  igather(space, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, options).wait();
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
mpi::Request iscatter(const ExecSpace& space, CollectiveBuffer sendbuf, std::int64_t sendcount,
                      const Datatype& sendtype, CollectiveBuffer recvbuf, std::int64_t recvcount,
                      const Datatype& recvtype, int root, MPI_Comm comm, const CollectiveOptions& options = {}) {
  Impl::TreeCollectiveArgs a{recvbuf.data(),
                             recvcount,
                             recvtype,
                             recvbuf.in_place(),
                             sendbuf.data(),
                             {},
                             {},
                             sendtype,
                             root,
                             comm,
                             Impl::direct_threshold(options)};
  Impl::regular_counts(a, sendcount);
  return Impl::start_tree_collective<ExecSpace, false>("KokkosDDT::scatter", space, std::move(a));
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
void scatter(const ExecSpace& space, CollectiveBuffer sendbuf, std::int64_t sendcount, const Datatype& sendtype,
             CollectiveBuffer recvbuf, std::int64_t recvcount, const Datatype& recvtype, int root, MPI_Comm comm,
             const CollectiveOptions& options = {}) {
  iscatter(space, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, options).wait();
}

}  // namespace KokkosDDT
