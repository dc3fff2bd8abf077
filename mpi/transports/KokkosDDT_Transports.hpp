// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The transports of this build (one folder each under mpi/transports/), and how the library's clients get one.
// Clients name a kind, or hand over a communicator of their own; only this registry and the transports' own folders
// know what a kind is made of.

#include <mpi.h>

#include <memory>

#include "KokkosDDT_Transport.hpp"

struct ncclComm;  // (nccl.h's communicator: ncclComm_t is ncclComm*; declared here so that no client needs nccl.h)

namespace KokkosDDT::mpi {

enum class TransportKind {
  MPI,  // host-completed messages on a duplicate of the communicator (any execution space)
  NCCL  // stream-ordered messages on a CUDA execution space's stream (CUDA builds that found NCCL)
};

const char* name(TransportKind kind);

// Whether this build has the transport.
bool has_transport(TransportKind kind);

// Which transport a plan's messages take: a kind, whose communicator the library makes and keeps (NCCL: one per
// group of processes, kept until MPI_Finalize, see free_cached_communicators), or a communicator the user made and
// owns (nccl_from_raw). Converts from TransportKind: `options.transport = TransportKind::NCCL`.
class TransportChoice {
 public:
  TransportChoice(TransportKind kind = TransportKind::MPI) : kind_(kind) {}  // NOLINT (implicit on purpose)
  TransportKind kind() const { return kind_; }
  bool users_own() const { return users_own_; }  // a communicator the user made (nccl_from_raw)
  ncclComm* nccl() const { return nccl_; }       // the user's NCCL communicator
  friend bool operator==(const TransportChoice& a, TransportKind b) { return a.kind_ == b; }
  friend bool operator!=(const TransportChoice& a, TransportKind b) { return a.kind_ != b; }
  friend TransportChoice nccl_from_raw(ncclComm* comm);

 private:
  TransportKind kind_ = TransportKind::MPI;
  bool users_own_ = false;
  ncclComm* nccl_ = nullptr;
};

inline const char* name(const TransportChoice& choice) { return name(choice.kind()); }

// NCCL over `comm`, a communicator the user made (ncclCommInitRank, ncclCommSplit, ...) and frees once every plan
// using it is destroyed and its last step has completed; the library never frees or aborts it. Its processes must be
// those of the plan's MPI communicator, in any order (each process's NCCL rank is learnt when the plan is made), one
// GPU each, the GPU current when the plan is made. NCCL's rule applies: no other operation on `comm` may run while a
// plan's messages run (between its start and its wait on the stream), since the library enqueues them on a stream of
// its own. A null comm is an error when a plan is made.
inline TransportChoice nccl_from_raw(ncclComm* comm) {
  TransportChoice choice(TransportKind::NCCL);
  choice.users_own_ = true;
  choice.nccl_ = comm;
  return choice;
}

// Frees the communicators the library made and keeps for later plans (NCCL's, one per group of processes and GPU),
// except those that live plans still use, which go with the last of them. Not collective: a process whose cache is
// empty makes the next plan's communicator anew, together with its peers. MPI_Finalize calls it.
void free_cached_communicators();

}  // namespace KokkosDDT::mpi

namespace KokkosDDT::Impl {

// A transport `choice` over the processes of `comm` for the library's own traffic: MPI, a duplicate owned by the
// transport; NCCL, the library's communicator for these processes (made once, see TransportChoice) or the user's.
// Collective over comm. Throws Error(InvalidArgument) naming `where` and "transport" when the build has no such
// transport; a bad user communicator throws on every process of comm.
std::shared_ptr<Transport> library_transport(const mpi::TransportChoice& choice, MPI_Comm comm, const char* where);

}  // namespace KokkosDDT::Impl
