// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The transports of this build (one folder each under mpi/transports/, each listed once in mpi/CMakeLists.txt), and how
// the library's clients get one. Clients name a transport, or hand over a communicator of their own, and ask what it
// can do (KokkosDDT_TransportCapabilities.hpp); only this registry and the transports' own folders know what a
// transport is made of.

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "KokkosDDT_Transport.hpp"
#include "KokkosDDT_TransportCapabilities.hpp"

struct ncclComm;  // (nccl.h's communicator: ncclComm_t is ncclComm*; declared here so that no client needs nccl.h)

namespace KokkosDDT::mpi {

// Which transport a plan's messages take, by name:
//   "auto"  each message its best route, decided per pair of processes when the plan is made (the default): on a
//           CUDA execution space, "peer" between processes of one node whose GPUs reach each other, NCCL for the
//           others (CUDA builds that found NCCL, one GPU per process), MPI otherwise; on a host space, MPI. A plan
//           tells its routes (describe()).
//   "mpi"   host-completed messages on the plan's MPI duplicate (any execution space);
//   "nccl"  stream-ordered messages on a CUDA execution space's stream (CUDA builds that found NCCL);
//   "peer"  the sender's kernel writes the receiver's cells where it can, MPI for the rest (CUDA builds);
// or another this build registered (transports() lists them). The library makes and keeps the transport's
// communicator (NCCL: one per group of processes, kept until MPI_Finalize, see free_cached_communicators), unless the
// user hands over their own (nccl_from_raw: a handle the named transport interprets). Converts from a name:
// `options.transport = "nccl"`.
class TransportChoice {
 public:
  TransportChoice(const char* name = "auto") : TransportChoice(std::string(name ? name : "")) {}  // NOLINT (implicit)
  TransportChoice(std::string name);  // NOLINT (implicit on purpose; names are case-insensitive: "NCCL" is "nccl")
  const std::string& name() const { return name_; }
  bool users_own() const { return users_own_; }  // a communicator the user made (nccl_from_raw)
  void* handle() const { return handle_; }       // the user's communicator, for the named transport to interpret
  friend bool operator==(const TransportChoice& a, const TransportChoice& b) {
    return a.name_ == b.name_ && a.users_own_ == b.users_own_ && a.handle_ == b.handle_;
  }
  friend bool operator!=(const TransportChoice& a, const TransportChoice& b) { return !(a == b); }
  friend TransportChoice nccl_from_raw(ncclComm* comm);

 private:
  std::string name_;
  bool users_own_ = false;
  void* handle_ = nullptr;
};

// The names of this build's transports ("mpi" first).
std::vector<std::string> transports();

// Whether this build has the transport.
bool has_transport(const TransportChoice& choice);

// What a transport can do, known before one is made (plans check their execution space against it on every rank
// before any collective call). Throws Error(InvalidArgument) naming "transport" when the build has no such transport.
TransportCapabilities capabilities(const TransportChoice& choice);

inline const char* name(const TransportChoice& choice) { return choice.name().c_str(); }

// NCCL over `comm`, a communicator the user made (ncclCommInitRank, ncclCommSplit, ...) and frees once every plan
// using it is destroyed and its last step has completed; the library never frees or aborts it. Its processes must be
// those of the plan's MPI communicator, in any order (each process's NCCL rank is learnt when the plan is made), one
// GPU each, the GPU current when the plan is made. NCCL's rule applies: no other operation on `comm` may run while a
// plan's messages run (between its start and its wait on the stream), since the library enqueues them on a stream of
// its own. A null comm is an error when a plan is made.
inline TransportChoice nccl_from_raw(ncclComm* comm) {
  TransportChoice choice("nccl");
  choice.users_own_ = true;
  choice.handle_ = comm;
  return choice;
}

// Frees the communicators the library made and keeps for later plans (NCCL's, one per group of processes and GPU),
// except those that live plans still use, which go with the last of them. Not collective: a process whose cache is
// empty makes the next plan's communicator anew, together with its peers. MPI_Finalize calls it.
void free_cached_communicators();

}  // namespace KokkosDDT::mpi

namespace KokkosDDT::Impl {

class MpiTransport;

// What "auto" is on an execution space (`device`: its memory is not the host's), a rule of the registry that names no
// transport: "mpi" on host spaces; on device spaces, direct routes first ("auto" itself: the first transport that
// routes, TransportEntry::make_routing, its other messages on best_message_transport), else the first transport that
// carries device messages, else "mpi". Any other choice is itself. Plans resolve their choice, and agree on the
// unresolved one.
mpi::TransportChoice resolve(const mpi::TransportChoice& choice, bool device);

// A transport `choice` for a plan's traffic over the processes of `control`, the plan's control plane (its one MPI
// duplicate): every transport does its setup there (allgathers, broadcasts, agreements, handshakes), and MPI's
// messages travel there; NCCL's communicator is the library's one for these processes (made once, see
// TransportChoice) or the user's. Collective over control. Throws Error(InvalidArgument) naming `where` and
// "transport" when the build has no such transport; a bad user communicator throws on every process.
std::shared_ptr<Transport> library_transport(const mpi::TransportChoice& choice,
                                             const std::shared_ptr<MpiTransport>& control, const char* where);

// The same on a control plane of its own (a duplicate of comm; tests).
std::shared_ptr<Transport> library_transport(const mpi::TransportChoice& choice, MPI_Comm comm, const char* where);

// The transport of typed p2p: messages on the user's communicator `comm` itself (not owned, not duplicated), so that
// the user's own MPI calls match them.
std::unique_ptr<Transport> user_transport(MPI_Comm comm);

// A 64-bit fingerprint of a choice, alike on every process that made the same one (plans agree on it).
std::int64_t fingerprint(const mpi::TransportChoice& choice);

// The transport of the messages a routing transport does not write direct: `needed` says whether any process of the
// plan has such messages (the same on every process). Collective over control.
using MessageTransport = std::shared_ptr<Transport> (*)(bool needed, const std::shared_ptr<MpiTransport>& control,
                                                        const char* where);

// One transport of the build: its name, what it can do, and how it is made (its folder's header declares it;
// mpi/CMakeLists.txt lists the folders, and the build generates the registry's list from theirs).
struct TransportEntry {
  const char* name = nullptr;
  TransportCapabilities capabilities;
  std::shared_ptr<Transport> (*make)(const mpi::TransportChoice& choice, const std::shared_ptr<MpiTransport>& control,
                                     const char* where) = nullptr;
  void (*free_cached)() = nullptr;  // drops the communicators it keeps for later plans (free_cached_communicators)
  // Whether it can carry messages between device buffers of every process of `control` (collective over control); an
  // entry that has this is preferred to MPI for the messages "auto" does not route direct (best_message_transport).
  bool (*carries_device_messages)(const std::shared_ptr<MpiTransport>& control, const char* where) = nullptr;
  // A direct transport that routes (capabilities.direct): made to hand the messages it does not write direct to
  // `messages`. The registry's "auto" on device spaces is the first such entry over best_message_transport.
  std::shared_ptr<Transport> (*make_routing)(const std::shared_ptr<MpiTransport>& control, MessageTransport messages,
                                             const char* where) = nullptr;
};

// What carries the messages a routing transport ("auto") does not write direct: the first transport of the registry
// that carries device messages between every process of `control`, else MPI on the control plane itself. `needed`:
// whether any process has such messages (the same on every process; false: the control plane, nothing made).
// Collective over control.
std::shared_ptr<Transport> best_message_transport(bool needed, const std::shared_ptr<MpiTransport>& control,
                                                  const char* where);

}  // namespace KokkosDDT::Impl
