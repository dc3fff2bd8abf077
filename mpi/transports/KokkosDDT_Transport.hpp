// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The transport seam: what typed p2p, halo plans and the collectives need from whatever moves their bytes. A client
// describes byte messages (where, how many bytes, with whom, which tag), gets a MessageSet from a Transport, and
// starts and completes it with the verbs of the transport's Completion:
//
//   Host    (mpi/)   the host posts receives early and sends once their bytes are ready (a pack's completion flag),
//                    then tests; nothing waits on an execution space.
//   Stream   (nccl/) the whole set is enqueued after the work enqueued on an execution-space instance's stream so
//                    far (enqueue); work enqueued on it after join() runs after the messages complete. Between the two
//                    the messages may run beside the stream's later work (NCCL runs them on a stream of its own). The
//                    host never waits.
//
// One folder per transport under mpi/transports/, like backends/; docs/DESIGN.md ("Add a transport") lists what a new
// one implements. The rules every transport keeps:
//   - A message is one message at any size (a transport splits nothing the receiver could match in part).
//   - Errors: each message is completed on its own; a failure throws KokkosDDT::Error naming the client's `where` and
//     the call, with ErrorCode::MPI from an MPI call and ErrorCode::Transport from another transport's (an NCCL call,
//     a CUDA IPC or driver call, an error a transport reports asynchronously). The failed message is gone; the others
//     of the set stay posted until the set is destroyed.
//   - Destroying a set with messages in flight cancels its receives and lets its sends finish: the client keeps their
//     buffers alive (p2p and plans hand them to keep_until_exit).
//   - Transports without tags (NCCL) match each peer's messages in order: a set posts each peer's sends, and its
//     receives, in ascending tag order, so two sets built alike on both sides match as tags would.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "KokkosDDT_Committed.hpp"
#include "KokkosDDT_Wait.hpp"

namespace KokkosDDT::Impl {

// One byte message: `bytes` at `data`, to or from `peer` (a rank of the transport's communicator), with `tag`.
struct WireMessage {
  char* data = nullptr;
  std::int64_t bytes = 0;
  int peer = 0;
  int tag = 0;
};

// What a completed receive got.
struct Arrival {
  int source = 0;
  int tag = 0;
  std::int64_t bytes = 0;
};

enum class Completion { Host, Stream };

// What a transport can do, known before one is made: clients ask this, never which transport it is.
struct TransportCapabilities {
  Completion completion = Completion::Host;
  bool host_memory = true;     // message buffers may be in host memory
  bool device_memory = false;  // ... in device memory (MPI: when the MPI is GPU-aware, known once made)
  bool tags = true;            // receives pick a tag (false: the ordering rule above)
  bool direct = false;         // may connect() messages: the sender's kernel writes the receiver's cells (below)
};

// An execution-space instance's native queue (a cudaStream_t on CUDA; null on hosts), type-erased so that the seam and
// its clients name no backend (BackendTraits<ExecSpace>::native_stream gives it).
struct StreamRef {
  void* native = nullptr;
};

// A fixed set of messages, posted once (p2p, collectives) or many times (persistent: halo plans).
class MessageSet {
 public:
  virtual ~MessageSet() = default;
  // Completion::Host: post the receives / the sends now (a persistent set: again, once the last round completed).
  virtual void post_receives() = 0;
  virtual void post_sends() = 0;
  // Completion::Host: whether every posted message is complete. Completion::Stream: whether the transport has reported
  // no asynchronous error (completion is the stream's). Throws Error on a failed message.
  virtual bool test() = 0;
  // test() until true (Completion::Host: the transport may block in its own wait).
  virtual void wait() {
    wait_until([&] { return test(); });
  }
  // Completion::Stream: every message of the set, started after the work enqueued on `stream` so far. Until join(),
  // work enqueued on `stream` later may run beside the messages: it must not touch their buffers.
  virtual void enqueue(StreamRef stream) = 0;
  // Completion::Stream: work enqueued on `stream` from now on runs after the messages of the last enqueue() complete.
  virtual void join(StreamRef stream) = 0;
  // Receive i (in the order given to make_set), once complete.
  virtual Arrival arrival(std::size_t receive) const = 0;
};

// Direct messages (capability `direct`: the peer transport). At connect(), before any set is made, a client offers
// the typed ends of its messages; the transport and each message's peer decide, together, which of them go direct,
// and how:
//   typed    the sender's kernel writes the receiver's cells itself, typed to typed, through `origin` (the receiver's
//            buffer as mapped in the sender's memory) and the receiver's committed type;
//   landed   the sender's kernel packs into a landing buffer that the transport allocated in the receiver's memory
//            (`origin`, mapped), and the receiver unpacks from it (`landing`, its own address) after arrived(): for
//            cells in short runs, which a remote store per run would write slowly (see the transport's rule).
// The others stay messages of a set.
struct TypedEnd {
  char* buf = nullptr;  // the typed buffer (null with `absolute`: the type's displacements are addresses)
  bool absolute = false;
  std::int64_t count = 0;
  const CommittedType* type = nullptr;
  int peer = 0;
  int tag = 0;
};

// A send that goes direct: write `count` of `type` at `origin` (the receiver's, mapped here); landed: pack the send's
// bytes at `origin` (type null).
struct DirectRoute {
  bool direct = false;
  bool landed = false;
  const char* why = "";  // why a send to another process did not go direct (KokkosDDT_Routes.hpp), "" if it did
  char* origin = nullptr;
  std::int64_t count = 0;
  std::shared_ptr<const CommittedType> type;
};

// A receive that goes direct; landed: its bytes arrive packed at `landing` (this process's memory, the transport's
// own), for the client to unpack once arrived() returns.
struct DirectReceive {
  bool direct = false;
  const char* why = "";
  char* landing = nullptr;
};

// The step of a plan's direct messages, stream-ordered: per pair of processes, a rising step count in each direction
// (the sender's "written" in the receiver's memory, the receiver's "free" in the sender's). A step is
//   begin(stream)     this process's receive cells may be written again (every upstream peer's "free" = step), and
//                     the stream waits until every downstream peer said the same of its cells;
//   ...               the client's kernel writes the downstream peers' cells (and whatever else it does);
//   written(stream)   after that kernel: every downstream peer's "written" = step;
//   arrived(stream)   the stream waits until every upstream peer wrote this step.
// No host call waits; a fast process runs at most one step ahead of a slow peer. Device completion: a client whose
// kernel can signal itself stores step() into each of written_counters() (mapped here) at system scope after its last
// write, instead of calling written().
class DirectLinks {
 public:
  virtual ~DirectLinks() = default;
  virtual void begin(StreamRef stream) = 0;
  virtual void written(StreamRef stream) = 0;
  virtual void arrived(StreamRef stream) = 0;
  virtual std::vector<std::uint64_t*> written_counters() const = 0;
  virtual std::uint64_t step() const = 0;  // the step begin() began (1, 2, ...)
  // The links' own stream, if they have one (null: none): fork(stream) makes it wait for the work enqueued on `stream`
  // so far and returns it; the client then enqueues begin() and its writing kernel there, beside the work the caller
  // enqueues on `stream` before join(stream), which makes `stream` wait for everything enqueued on the links' stream.
  virtual StreamRef own_stream() const { return {}; }
  virtual void fork(StreamRef stream) { (void)stream; }
  virtual void join(StreamRef stream) { (void)stream; }
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual const char* name() const = 0;
  // What carries the messages that do not go direct (a transport with the capability `direct` may hand them to
  // another: "auto"'s to NCCL or MPI, decided at connect()).
  virtual const char* messages_name() const { return name(); }
  // (A transport with the capability `direct` may change these four at connect(), with the transport it hands its
  // messages to: clients ask them after connect().)
  virtual Completion completion() const = 0;
  virtual bool reaches_host_memory() const = 0;    // message buffers may be in host memory
  virtual bool reaches_device_memory() const = 0;  // ... in device memory
  virtual bool matches_tags() const = 0;           // false: receives cannot pick a tag (see the ordering rule above)
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Checks and prepares the messages (persistent: started many times). A persistent set may run its messages once
  // while it is made (a transport that connects peers lazily connects them here), so its peers make theirs at the
  // same point and its buffers' contents are undefined afterwards. Throws Error naming `where`.
  virtual std::unique_ptr<MessageSet> make_set(std::vector<WireMessage> sends, std::vector<WireMessage> receives,
                                               bool persistent, const char* where) = 0;
  // Capability `direct`: which of these persistent messages go direct (routes[i] for sends[i]; direct_receives[j] for
  // receives[j]), and their step's links; null when none does. Collective over the transport's processes, each
  // offering the ends matched with its peers' (the k-th send to a peer with a tag is the k-th receive there from this
  // process with that tag). The receive cells must stay allocated while the links live. Throws Error on every process
  // when any fails (an IPC mapping, peer access). Transports without the capability route nothing.
  virtual std::unique_ptr<DirectLinks> connect(const std::vector<TypedEnd>& sends,
                                               const std::vector<TypedEnd>& receives, std::vector<DirectRoute>& routes,
                                               std::vector<DirectReceive>& direct_receives, const char* where) {
    (void)receives;
    (void)where;
    routes.assign(sends.size(), DirectRoute{});
    direct_receives.assign(receives.size(), DirectReceive{});
    return nullptr;
  }
};

}  // namespace KokkosDDT::Impl
