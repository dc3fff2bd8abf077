// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Three ways to fill the ghost entries of a distributed vector before each matrix-vector product. Each is built once
// for one vector (owned entries, then the ghost blocks of cg_partition.hpp) and run every iteration with run():
//
//   KokkosDDTExchange    the pattern this example documents: per neighbour, a persistent KokkosDDT send of an
//                        indexed type over the owned vector and a persistent receive of a contiguous ghost block.
//                        The packs of one run share a launch (the execution space's fusion queue); the receives land
//                        in place. Device-resident on GPUs.
//   HandExchange         the usual hand-written code: one gather kernel over all neighbours' index lists into a send
//                        buffer, a fence, persistent MPI sends of its slices, receives straight into the ghosts.
//   MpiDatatypeExchange  MPI's own derived datatypes: MPI_Type_create_indexed_block over the vector, handed to MPI.
//
// Where the MPI cannot reach device memory (not GPU-aware), the last two go through pinned host memory as such code
// must: the hand exchange copies its send buffer to the host and the received ghosts back; the MPI-datatype exchange
// copies the owned vector to the host and the ghosts back. KokkosDDT decides this itself (its staging).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT_MPI.hpp>
#include <mpi.h>

#include "cg_partition.hpp"

namespace cg_example {

template <class Space>
using Vector = Kokkos::View<double*, Kokkos::LayoutLeft, typename Space::memory_space>;

inline void check_mpi(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("cg example: ") + what + " failed");
}

// A persistent MPI receive of `recv_count` doubles and a persistent send of `send_count` x `send_type` with one
// neighbour, appended in that order (receives at even positions, sends at odd ones).
inline void add_persistent_pair(std::vector<MPI_Request>& requests, double* recv, int recv_count, double* send,
                                int send_count, MPI_Datatype send_type, int peer, int tag, MPI_Comm comm) {
  requests.emplace_back();
  check_mpi(MPI_Recv_init(recv, recv_count, MPI_DOUBLE, peer, tag, comm, &requests.back()), "MPI_Recv_init");
  requests.emplace_back();
  check_mpi(MPI_Send_init(send, send_count, send_type, peer, tag, comm, &requests.back()), "MPI_Send_init");
}

// What KokkosDDT sends one neighbour and receives from it: the owned rows it needs (an indexed type over the vector)
// and its ghost block (contiguous, in place at the vector's end).
template <class Space>
struct NeighborMessages {
  KokkosDDT::Datatype rows, block;
  Kokkos::View<double*, Kokkos::LayoutLeft, typename Space::memory_space> ghost_block;
  NeighborMessages(const LocalProblem& lp, const Neighbor& nb, const Vector<Space>& x)
      : rows(KokkosDDT::indexed_block(1, nb.send, KokkosDDT::primitive<double>()).commit()),
        block(KokkosDDT::contiguous(nb.ghost_count, KokkosDDT::primitive<double>()).commit()),
        ghost_block(Kokkos::subview(x, Kokkos::pair<std::int64_t, std::int64_t>(
                                           lp.owned + nb.ghost_offset, lp.owned + nb.ghost_offset + nb.ghost_count))) {}
};

template <class Space>
class KokkosDDTExchange {
 public:
  static constexpr const char* name = "kokkosddt";
  KokkosDDTExchange(const Space& space, const LocalProblem& lp, const Vector<Space>& x, MPI_Comm comm, int tag = 7) {
    for (const Neighbor& nb : lp.neighbors) {
      const NeighborMessages<Space> m(lp, nb, x);
      requests_.push_back(KokkosDDT::mpi::recv_init(space, m.ghost_block, 1, m.block, nb.rank, tag, comm));
      requests_.push_back(KokkosDDT::mpi::send_init(space, x, 1, m.rows, nb.rank, tag, comm));
    }
  }
  void run() {
    KokkosDDT::mpi::start_all(requests_);  // receives posted, packs queued (one fused launch)
    KokkosDDT::mpi::wait_all(requests_);
  }

 private:
  std::vector<KokkosDDT::mpi::Request> requests_;
};

// The same messages as one persistent ExchangePlan over a chosen transport (MPI, or NCCL on a CUDA space with one GPU
// per rank): start() enqueues the fused packs (over NCCL also the messages, one group), wait_host() returns once the
// ghosts are written, so that the exchange's time is measured as the other variants' is.
template <class Space, bool Nccl>
class PlanExchange {
 public:
  static constexpr const char* name = Nccl ? "plan-nccl" : "plan-mpi";
  PlanExchange(const Space& space, const LocalProblem& lp, const Vector<Space>& x, MPI_Comm comm, int tag = 7)
      : space_(space), plan_(space, comm, {Nccl ? "nccl" : "mpi"}) {
    for (const Neighbor& nb : lp.neighbors) {
      const NeighborMessages<Space> m(lp, nb, x);
      plan_.recv(m.ghost_block, 1, m.block, nb.rank, tag);
      plan_.send(x, 1, m.rows, nb.rank, tag);
    }
    plan_.commit();
  }
  void run() {
    plan_.start(space_);
    plan_.wait_host();
  }

 private:
  Space space_;
  KokkosDDT::mpi::ExchangePlan<Space> plan_;
};

// Whether MPI can read and write memory of Space (host memory, or device memory with a GPU-aware MPI). When it cannot,
// the hand-written and MPI-datatype exchanges go through pinned host buffers, as such code must.
template <class Space>
bool mpi_reaches() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible ||
         KokkosDDT::mpi::gpu_aware();
}

using HostBuffer = Kokkos::View<double*, Kokkos::SharedHostPinnedSpace>;

template <class Space>
class HandExchange {
 public:
  static constexpr const char* name = "hand";
  HandExchange(const Space& space, const LocalProblem& lp, const Vector<Space>& x, MPI_Comm comm, int tag = 7)
      : space_(space), x_(x), staged_(!mpi_reaches<Space>()) {
    std::vector<int> rows;
    for (const Neighbor& nb : lp.neighbors) rows.insert(rows.end(), nb.send.begin(), nb.send.end());
    rows_ = Kokkos::View<int*, typename Space::memory_space>("cg::hand_rows", rows.size());
    Kokkos::deep_copy(rows_, Kokkos::View<const int*, Kokkos::HostSpace>(rows.data(), rows.size()));
    buffer_ = Vector<Space>("cg::hand_buffer", rows.size());
    const auto ghost_range = std::pair<std::int64_t, std::int64_t>(lp.owned, x.extent(0));
    ghosts_ = Kokkos::subview(x, ghost_range);
    if (staged_) {
      host_send_ = HostBuffer("cg::hand_host_send", rows.size());
      host_recv_ = HostBuffer("cg::hand_host_recv", ghosts_.extent(0));
    }
    double* send = staged_ ? host_send_.data() : buffer_.data();
    double* recv = staged_ ? host_recv_.data() : ghosts_.data();
    std::int64_t offset = 0;
    for (const Neighbor& nb : lp.neighbors) {
      add_persistent_pair(requests_, recv + nb.ghost_offset, nb.ghost_count, send + offset, int(nb.send.size()),
                          MPI_DOUBLE, nb.rank, tag, comm);
      offset += std::int64_t(nb.send.size());
    }
  }
  ~HandExchange() {
    for (MPI_Request& r : requests_) MPI_Request_free(&r);
  }
  HandExchange(const HandExchange&) = delete;
  HandExchange& operator=(const HandExchange&) = delete;

  void run() {
    for (std::size_t i = 0; i < requests_.size(); i += 2) check_mpi(MPI_Start(&requests_[i]), "MPI_Start");
    auto rows = rows_;
    auto buffer = buffer_;
    auto x = x_;
    Kokkos::parallel_for(
        "cg::hand_gather", Kokkos::RangePolicy<Space>(space_, 0, rows.extent(0)),
        KOKKOS_LAMBDA(std::int64_t i) { buffer(i) = x(rows(i)); });
    if (staged_) Kokkos::deep_copy(space_, host_send_, buffer_);
    space_.fence("cg::hand_gather done");
    for (std::size_t i = 1; i < requests_.size(); i += 2) check_mpi(MPI_Start(&requests_[i]), "MPI_Start");
    check_mpi(MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    if (staged_) {
      Kokkos::deep_copy(space_, ghosts_, host_recv_);
      space_.fence("cg::hand ghosts copied");
    }
  }

 private:
  Space space_;
  Vector<Space> x_, buffer_;
  Kokkos::View<double*, Kokkos::LayoutLeft, typename Space::memory_space> ghosts_;
  bool staged_;
  HostBuffer host_send_, host_recv_;
  Kokkos::View<int*, typename Space::memory_space> rows_;
  std::vector<MPI_Request> requests_;
};

template <class Space>
class MpiDatatypeExchange {
 public:
  static constexpr const char* name = "mpi-ddt";
  MpiDatatypeExchange(const Space& space, const LocalProblem& lp, const Vector<Space>& x, MPI_Comm comm, int tag = 7)
      : space_(space), x_(x), staged_(!mpi_reaches<Space>()) {
    if (staged_) host_x_ = HostBuffer("cg::mpi_ddt_host_x", x.extent(0));  // MPI works on a host copy
    double* base = staged_ ? host_x_.data() : x.data();
    for (const Neighbor& nb : lp.neighbors) {
      const std::vector<int> displacements(nb.send.begin(), nb.send.end());
      types_.emplace_back();
      check_mpi(
          MPI_Type_create_indexed_block(int(displacements.size()), 1, displacements.data(), MPI_DOUBLE, &types_.back()),
          "MPI_Type_create_indexed_block");
      check_mpi(MPI_Type_commit(&types_.back()), "MPI_Type_commit");
      add_persistent_pair(requests_, base + lp.owned + nb.ghost_offset, nb.ghost_count, base, 1, types_.back(), nb.rank,
                          tag, comm);
    }
    owned_ = {0, lp.owned};
    ghosts_ = {lp.owned, std::int64_t(x.extent(0))};
  }
  ~MpiDatatypeExchange() {
    for (MPI_Request& r : requests_) MPI_Request_free(&r);
    for (MPI_Datatype& t : types_) MPI_Type_free(&t);
  }
  MpiDatatypeExchange(const MpiDatatypeExchange&) = delete;
  MpiDatatypeExchange& operator=(const MpiDatatypeExchange&) = delete;

  void run() {
    if (staged_) Kokkos::deep_copy(space_, Kokkos::subview(host_x_, owned_), Kokkos::subview(x_, owned_));
    space_.fence("cg::mpi_ddt vector ready");  // MPI reads the vector itself
    check_mpi(MPI_Startall(int(requests_.size()), requests_.data()), "MPI_Startall");
    check_mpi(MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    if (staged_) {
      Kokkos::deep_copy(space_, Kokkos::subview(x_, ghosts_), Kokkos::subview(host_x_, ghosts_));
      space_.fence("cg::mpi_ddt ghosts copied");
    }
  }

 private:
  Space space_;
  Vector<Space> x_;
  bool staged_;
  HostBuffer host_x_;
  std::pair<std::int64_t, std::int64_t> owned_, ghosts_;
  std::vector<MPI_Datatype> types_;
  std::vector<MPI_Request> requests_;
};

}  // namespace cg_example
