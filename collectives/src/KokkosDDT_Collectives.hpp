// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Irregular and regular gather and scatter of KokkosDDT datatypes, on Träff's linear-time ordered tree
// (traff-gatherv19) or the linear schedule as a cost model picks, with MPI_Gatherv / MPI_Scatterv / MPI_Gather /
// MPI_Scatter semantics, nonblocking and persistent forms:
//
//   KokkosDDT::gatherv(space, send.data(), n, type, recv.data(), counts, displs, type, root, comm);
//   auto r = KokkosDDT::igatherv(space, ...);  r.wait();      // nonblocking: an mpi::Request
//   auto g = KokkosDDT::gatherv_init(space, ...);             // persistent: g.start(); g.wait(); as often as wanted
//
// Counts, displacements and the root's buffer and type are significant at the root only; every other process knows
// only its own count. Buffers (pointers or Views) may be in any memory the execution space reaches: leaves and the
// root move their blocks straight between the user's buffer and MPI (through the MPI layer's staging where MPI cannot
// reach device memory), intermediate processes forward rank-ordered runs of packed bytes. KokkosDDT::in_place at the
// root: its own block is already in place (gather) or stays in place (scatter).
//
// Schedule: the processes first agree on the root, the options and the sizes (one dependent step: a reduction of six
// integers), then run the schedule the alpha/beta/gap model picks for them (KokkosDDT_CollectiveSchedule.hpp): the
// linear one (each block straight between its process and the root) or Träff's tree, where ceil(log2 p) rounds of
// 64-byte exchanges build the tree (none where all blocks have one size: each process computes it) and each byte
// reaches the root in at most ceil(log2 p) hops; a subtree whose data reaches CollectiveOptions::direct_threshold bytes
// sends it straight to the root (docs/collectives.md).
//
// Persistent (MPI-4's MPI_Gatherv_init): gatherv_init & co. return a persistent mpi::Request; the agreement, the
// schedule, the tree and the typed messages are made once, and each start() / wait() only moves data. The arguments
// (buffers, counts, displacements, types, root) are fixed at init, as MPI-4 defines.
//
// Errors: a bad argument on any process (a negative count, a null buffer or uncommitted type, the root's counts or
// displacements), a root that differs between processes or is out of range, options that differ, or root counts that
// disagree with what the processes contribute (their total, or a hash of every rank's byte count) make every process
// throw KokkosDDT::Error, with nothing sent or written (persistent: at init). No process hangs.

#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
#include <KokkosDDT_MPI.hpp>

#include "KokkosDDT_CollectiveSchedule.hpp"
#include "KokkosDDT_ScheduledCollective.hpp"

namespace KokkosDDT {

// The root's own block is already where it belongs (MPI_IN_PLACE).
struct InPlace {};
inline constexpr InPlace in_place{};

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

inline int comm_rank(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}
inline int comm_size(MPI_Comm comm) {
  int p = 1;
  MPI_Comm_size(comm, &p);
  return p;
}

// An operation dropped before it completes (its request destroyed, an exception unwinding past it) is not freed: its
// MPI requests stay posted and the buffers they read and write stay valid, so no message lands in freed memory. The
// other processes may then wait for it, as with an abandoned MPI request. A class, so that the library compiles the
// collectives once per backend and kind (explicit instantiation, below).
template <class ExecSpace, bool Gather>
struct CollectiveFactory {
  static mpi::Request request(CollectiveMode mode, const char* where, const ExecSpace& space, CollectiveArgs args,
                              const CollectiveOptions& options);
};

template <class ExecSpace, bool Gather>
mpi::Request CollectiveFactory<ExecSpace, Gather>::request(CollectiveMode mode, const char* where,
                                                           const ExecSpace& space, CollectiveArgs args,
                                                           const CollectiveOptions& options) {
  using Op = ScheduledCollective<ExecSpace, Gather>;
  args.threshold = direct_threshold(options);
  if (mode == CollectiveMode::Blocking) {  // run in place: nothing of it outlives the call (a null request returns)
    Op op(where, space, std::move(args), options, mode);
    wait_operation(op);
    return {};
  }
  std::shared_ptr<Op> op(new Op(where, space, std::move(args), options, mode), [](Op* p) {
    if (p->finished()) delete p;
  });
  if (mode == CollectiveMode::Persistent) return mpi::Request(std::move(op), true);
  return mpi::make_active(std::move(op));
}

// Compiled once per backend in the library (collectives/src/eti/KokkosDDT_ETI_Collectives.cpp).
#define KOKKOSDDT_EXTERN_COLLECTIVES(Space)              \
  extern template struct CollectiveFactory<Space, true>; \
  extern template struct CollectiveFactory<Space, false>;
KOKKOSDDT_ETI_SPACES(KOKKOSDDT_EXTERN_COLLECTIVES)
#undef KOKKOSDDT_EXTERN_COLLECTIVES

// Arguments in the operation's terms: "own" is what every process sends (gather) or receives (scatter).
inline CollectiveArgs own_and_root(const CollectiveBuffer& own, std::int64_t own_count, const Datatype& own_type,
                                   const CollectiveBuffer& root_buf, std::vector<std::int64_t> counts,
                                   std::vector<std::int64_t> displs, const Datatype& root_type, int root,
                                   MPI_Comm comm) {
  return {
      own.data(), own_count, own_type, own.in_place(), root_buf.data(), std::move(counts), std::move(displs), root_type,
      root,       comm,      0};
}

// Regular forms: `count` each at the root, one block after another.
inline CollectiveArgs regular(CollectiveArgs a, std::int64_t count) {
  regular_counts(a, count, comm_rank(a.comm), comm_size(a.comm));
  return a;
}

// One entry point per form and mode (nonblocking, blocking, persistent), MPI's argument order.
template <class ExecSpace>
mpi::Request gatherv_request(CollectiveMode mode, const char* where, const ExecSpace& space, CollectiveBuffer sendbuf,
                             std::int64_t sendcount, const Datatype& sendtype, CollectiveBuffer recvbuf,
                             std::vector<std::int64_t> recvcounts, std::vector<std::int64_t> displs,
                             const Datatype& recvtype, int root, MPI_Comm comm, const CollectiveOptions& options) {
  return CollectiveFactory<ExecSpace, true>::request(
      mode, where, space,
      own_and_root(sendbuf, sendcount, sendtype, recvbuf, std::move(recvcounts), std::move(displs), recvtype, root,
                   comm),
      options);
}

template <class ExecSpace>
mpi::Request scatterv_request(CollectiveMode mode, const char* where, const ExecSpace& space, CollectiveBuffer sendbuf,
                              std::vector<std::int64_t> sendcounts, std::vector<std::int64_t> displs,
                              const Datatype& sendtype, CollectiveBuffer recvbuf, std::int64_t recvcount,
                              const Datatype& recvtype, int root, MPI_Comm comm, const CollectiveOptions& options) {
  return CollectiveFactory<ExecSpace, false>::request(
      mode, where, space,
      own_and_root(recvbuf, recvcount, recvtype, sendbuf, std::move(sendcounts), std::move(displs), sendtype, root,
                   comm),
      options);
}

template <class ExecSpace>
mpi::Request gather_request(CollectiveMode mode, const char* where, const ExecSpace& space, CollectiveBuffer sendbuf,
                            std::int64_t sendcount, const Datatype& sendtype, CollectiveBuffer recvbuf,
                            std::int64_t recvcount, const Datatype& recvtype, int root, MPI_Comm comm,
                            const CollectiveOptions& options) {
  return CollectiveFactory<ExecSpace, true>::request(
      mode, where, space,
      regular(own_and_root(sendbuf, sendcount, sendtype, recvbuf, {}, {}, recvtype, root, comm), recvcount), options);
}

template <class ExecSpace>
mpi::Request scatter_request(CollectiveMode mode, const char* where, const ExecSpace& space, CollectiveBuffer sendbuf,
                             std::int64_t sendcount, const Datatype& sendtype, CollectiveBuffer recvbuf,
                             std::int64_t recvcount, const Datatype& recvtype, int root, MPI_Comm comm,
                             const CollectiveOptions& options) {
  return CollectiveFactory<ExecSpace, false>::request(
      mode, where, space,
      regular(own_and_root(recvbuf, recvcount, recvtype, sendbuf, {}, {}, sendtype, root, comm), sendcount), options);
}

}  // namespace Impl

// ---- gatherv / igatherv / gatherv_init ----------------------------------------------------------------------------
// Block j (recvcounts[j] x recvtype at recvbuf + displs[j] * extent(recvtype)) receives process j's sendcount x
// sendtype. recvbuf, recvcounts, displs and recvtype are significant at the root only.
template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
mpi::Request igatherv(const ExecSpace& space, CollectiveBuffer sendbuf, std::int64_t sendcount,
                      const Datatype& sendtype, CollectiveBuffer recvbuf, std::vector<std::int64_t> recvcounts,
                      std::vector<std::int64_t> displs, const Datatype& recvtype, int root, MPI_Comm comm,
                      const CollectiveOptions& options = {}) {
  return Impl::gatherv_request(Impl::CollectiveMode::Nonblocking, "KokkosDDT::gatherv", space, sendbuf, sendcount,
                               sendtype, recvbuf, std::move(recvcounts), std::move(displs), recvtype, root, comm,
                               options);
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
void gatherv(const ExecSpace& space, CollectiveBuffer sendbuf, std::int64_t sendcount, const Datatype& sendtype,
             CollectiveBuffer recvbuf, std::vector<std::int64_t> recvcounts, std::vector<std::int64_t> displs,
             const Datatype& recvtype, int root, MPI_Comm comm, const CollectiveOptions& options = {}) {
  Impl::gatherv_request(Impl::CollectiveMode::Blocking, "KokkosDDT::gatherv", space, sendbuf, sendcount, sendtype,
                        recvbuf, std::move(recvcounts), std::move(displs), recvtype, root, comm, options)
      .wait();
}

// Persistent (MPI_Gatherv_init): collective; start() / wait() run it, as often as wanted.
template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
mpi::Request gatherv_init(const ExecSpace& space, CollectiveBuffer sendbuf, std::int64_t sendcount,
                          const Datatype& sendtype, CollectiveBuffer recvbuf, std::vector<std::int64_t> recvcounts,
                          std::vector<std::int64_t> displs, const Datatype& recvtype, int root, MPI_Comm comm,
                          const CollectiveOptions& options = {}) {
  return Impl::gatherv_request(Impl::CollectiveMode::Persistent, "KokkosDDT::gatherv_init", space, sendbuf, sendcount,
                               sendtype, recvbuf, std::move(recvcounts), std::move(displs), recvtype, root, comm,
                               options);
}

// ---- scatterv / iscatterv / scatterv_init -------------------------------------------------------------------------
// Process j's recvcount x recvtype receives block j (sendcounts[j] x sendtype at sendbuf + displs[j] *
// extent(sendtype)). sendbuf, sendcounts, displs and sendtype are significant at the root only.
template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
mpi::Request iscatterv(const ExecSpace& space, CollectiveBuffer sendbuf, std::vector<std::int64_t> sendcounts,
                       std::vector<std::int64_t> displs, const Datatype& sendtype, CollectiveBuffer recvbuf,
                       std::int64_t recvcount, const Datatype& recvtype, int root, MPI_Comm comm,
                       const CollectiveOptions& options = {}) {
  return Impl::scatterv_request(Impl::CollectiveMode::Nonblocking, "KokkosDDT::scatterv", space, sendbuf,
                                std::move(sendcounts), std::move(displs), sendtype, recvbuf, recvcount, recvtype, root,
                                comm, options);
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
void scatterv(const ExecSpace& space, CollectiveBuffer sendbuf, std::vector<std::int64_t> sendcounts,
              std::vector<std::int64_t> displs, const Datatype& sendtype, CollectiveBuffer recvbuf,
              std::int64_t recvcount, const Datatype& recvtype, int root, MPI_Comm comm,
              const CollectiveOptions& options = {}) {
  Impl::scatterv_request(Impl::CollectiveMode::Blocking, "KokkosDDT::scatterv", space, sendbuf, std::move(sendcounts),
                         std::move(displs), sendtype, recvbuf, recvcount, recvtype, root, comm, options)
      .wait();
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
mpi::Request scatterv_init(const ExecSpace& space, CollectiveBuffer sendbuf, std::vector<std::int64_t> sendcounts,
                           std::vector<std::int64_t> displs, const Datatype& sendtype, CollectiveBuffer recvbuf,
                           std::int64_t recvcount, const Datatype& recvtype, int root, MPI_Comm comm,
                           const CollectiveOptions& options = {}) {
  return Impl::scatterv_request(Impl::CollectiveMode::Persistent, "KokkosDDT::scatterv_init", space, sendbuf,
                                std::move(sendcounts), std::move(displs), sendtype, recvbuf, recvcount, recvtype, root,
                                comm, options);
}

// ---- gather / scatter (regular: recvcount / sendcount per process, blocks one after another at the root) ---------
template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
mpi::Request igather(const ExecSpace& space, CollectiveBuffer sendbuf, std::int64_t sendcount, const Datatype& sendtype,
                     CollectiveBuffer recvbuf, std::int64_t recvcount, const Datatype& recvtype, int root,
                     MPI_Comm comm, const CollectiveOptions& options = {}) {
  return Impl::gather_request(Impl::CollectiveMode::Nonblocking, "KokkosDDT::gather", space, sendbuf, sendcount,
                              sendtype, recvbuf, recvcount, recvtype, root, comm, options);
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
void gather(const ExecSpace& space, CollectiveBuffer sendbuf, std::int64_t sendcount, const Datatype& sendtype,
            CollectiveBuffer recvbuf, std::int64_t recvcount, const Datatype& recvtype, int root, MPI_Comm comm,
            const CollectiveOptions& options = {}) {
  Impl::gather_request(Impl::CollectiveMode::Blocking, "KokkosDDT::gather", space, sendbuf, sendcount, sendtype,
                       recvbuf, recvcount, recvtype, root, comm, options)
      .wait();
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
mpi::Request gather_init(const ExecSpace& space, CollectiveBuffer sendbuf, std::int64_t sendcount,
                         const Datatype& sendtype, CollectiveBuffer recvbuf, std::int64_t recvcount,
                         const Datatype& recvtype, int root, MPI_Comm comm, const CollectiveOptions& options = {}) {
  return Impl::gather_request(Impl::CollectiveMode::Persistent, "KokkosDDT::gather_init", space, sendbuf, sendcount,
                              sendtype, recvbuf, recvcount, recvtype, root, comm, options);
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
mpi::Request iscatter(const ExecSpace& space, CollectiveBuffer sendbuf, std::int64_t sendcount,
                      const Datatype& sendtype, CollectiveBuffer recvbuf, std::int64_t recvcount,
                      const Datatype& recvtype, int root, MPI_Comm comm, const CollectiveOptions& options = {}) {
  return Impl::scatter_request(Impl::CollectiveMode::Nonblocking, "KokkosDDT::scatter", space, sendbuf, sendcount,
                               sendtype, recvbuf, recvcount, recvtype, root, comm, options);
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
void scatter(const ExecSpace& space, CollectiveBuffer sendbuf, std::int64_t sendcount, const Datatype& sendtype,
             CollectiveBuffer recvbuf, std::int64_t recvcount, const Datatype& recvtype, int root, MPI_Comm comm,
             const CollectiveOptions& options = {}) {
  Impl::scatter_request(Impl::CollectiveMode::Blocking, "KokkosDDT::scatter", space, sendbuf, sendcount, sendtype,
                        recvbuf, recvcount, recvtype, root, comm, options)
      .wait();
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
mpi::Request scatter_init(const ExecSpace& space, CollectiveBuffer sendbuf, std::int64_t sendcount,
                          const Datatype& sendtype, CollectiveBuffer recvbuf, std::int64_t recvcount,
                          const Datatype& recvtype, int root, MPI_Comm comm, const CollectiveOptions& options = {}) {
  return Impl::scatter_request(Impl::CollectiveMode::Persistent, "KokkosDDT::scatter_init", space, sendbuf, sendcount,
                               sendtype, recvbuf, recvcount, recvtype, root, comm, options);
}

}  // namespace KokkosDDT
