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
// A persistent exchange (halo and exchange plans) asks for more at once: route() takes the plan's typed messages and
// returns a Delivery per message (staged through a buffer the transport asked for, written typed into the receiver's
// cells, or packed into a landing buffer in the receiver's memory) and the Step that runs them, start to wait.
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
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "KokkosDDT_Committed.hpp"
#include "KokkosDDT_DeviceSignals.hpp"
#include "KokkosDDT_TransportCapabilities.hpp"
#include "KokkosDDT_Wait.hpp"

namespace KokkosDDT::Impl {

// A message, by layer: a plan holds each of its typed sides as a PlannedMessage (its Datatype,
// KokkosDDT_ExchangeEngine.hpp); a transport's route() is offered it as a CommittedMessage (the committed type it
// moves, below); a message transport moves a ByteMessage (packed bytes). (p2p's TypedMessage is a request that owns
// one: KokkosDDT_MPIP2P.hpp.)

// One byte message: `bytes` at `data`, to or from `peer` (a rank of the transport's communicator), with `tag`.
struct ByteMessage {
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

using mpi::Completion;
using mpi::TransportCapabilities;  // (route() writes a receiver's cells where `direct`: Typed and Landed routes)

// An execution-space instance's native queue (a cudaStream_t on CUDA; null on hosts), type-erased so that the seam and
// its clients name no backend (BackendTraits<ExecSpace>::native_stream gives it).
struct StreamRef {
  void* native = nullptr;
};

// What ended a step outside its own calls, as the transport found it (Step::failure): a deadline that passed while the
// step's device-side waits were pending (Step::watch), a peer that gave the plan up before completing the step (its
// destroy, its timeout), or a peer's process that ended. `what` is empty while nothing is known.
struct StepFailure {
  std::string what;        // e.g. "rank 1 gave the plan up after step 3 (its destroy or its timeout)"
  std::vector<int> late;   // the peers it names (those the step waited for)
  bool timed_out = false;  // a deadline passed
  std::int64_t step = 0;   // the first step it left incomplete, where known (0: the step asked about)
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
  // Completion::Host: the peers of the receives not complete yet (a timeout names them). Others: none known.
  virtual std::vector<int> late_peers() { return {}; }
  // Before the set is destroyed (Step::abandon): `failed` (a timeout), its messages are given up, so that nothing of
  // the transport waits for them any longer (NCCL: the library's communicator is aborted); else a step begun and not
  // completed gets `timeout` seconds (0: none) to complete before it is given up so.
  virtual void abandon(bool failed, double timeout) {
    (void)failed;
    (void)timeout;
  }
  // Completion::Stream, as Step::watch and Step::failure: the messages enqueued so far (joined to `stream`) are due
  // within `seconds`; past that they are given up (as abandon(true)) and failure() says so.
  virtual void watch(StreamRef stream, double seconds) {
    (void)stream;
    (void)seconds;
  }
  virtual StepFailure failure() { return {}; }
};

// One typed side of a persistent message, offered to route(): `count` of `type` at `buf` (or, `absolute`, at the type's
// displacements as addresses), to or from `peer` with `tag`; never empty, never MPI_PROC_NULL.
struct CommittedMessage {
  char* buf = nullptr;
  bool absolute = false;
  std::int64_t count = 0;
  const CommittedType* type = nullptr;
  int peer = 0;
  int tag = 0;
  // A receive whose bytes the client combines into its cells (an operation, not a copy): it must arrive Staged or
  // Landed, never Typed (a sender writing the cells itself would replace what the receiver must read first).
  bool combines = false;
  std::int64_t bytes() const { return count * type->size; }
};

// Memory a transport asks its client for (route()): `bytes` in the client's execution space's memory (`device`: a
// transport that reaches device memory) or in pinned host memory the execution space reaches; kept while `owner` is.
struct Staging {
  char* data = nullptr;
  std::int64_t bytes = 0;
  std::shared_ptr<void> owner;
};
using StagingSource = std::function<Staging(std::int64_t bytes, bool device)>;

// Keeps the buffers of abandoned sends alive until exit (their messages may still be in flight).
void keep_until_exit(std::shared_ptr<void> buffer);

// A delivery: how one typed side travels (what route() decided for it):
//   Staged  a send is packed at `at` (a staging buffer of the transport's, 16-byte aligned: the kernels' widest word);
//           a receive is unpacked from `at` once the step's wait() returns;
//   Typed   a send's kernel writes `count` of `type` at `at`, the receiver's cells as mapped here (the receiver's type,
//           as it arrived); a receive has nothing to do: its cells are written by the sender;
//   Landed  a send is packed at `at`, a buffer of the transport's in the receiver's memory, as mapped here; a receive
//           is unpacked from `at` (its own address of that buffer) once wait() returns: for cells in short runs, which
//           a remote store per run would write slowly.
enum class DeliveryKind { Staged, Typed, Landed };
struct Delivery {
  DeliveryKind kind = DeliveryKind::Staged;
  char* at = nullptr;
  std::int64_t count = 0;
  std::shared_ptr<const CommittedType> type;
  std::string name;      // how plans report it (routes()): the transport that carries it, "peer", "peer (landed)"
  const char* why = "";  // why it did not take a direct route (the direct transport says), "" if it did
  int gate = -1;         // a Typed or Landed send: the counter its writes wait for (DeviceSignals::gates; -1: none)
};

// The step of a plan's routes, stream-ordered where the transport can. A step is
//   begin(stream)    before the client enqueues anything of the step on `stream`: receives posted; the direct writes
//                    may start once every downstream peer has read its cells of the last step. Returns the stream the
//                    client enqueues its Typed and Landed writes on (own_stream(), which has waited for the work on
//                    `stream` so far, or `stream` itself);
//   ...              the client enqueues the packs of its Staged sends on `stream`, its writes on begin()'s stream;
//   send(stream)     host_sends(): the host saw the packs done; else right after they were enqueued on `stream`: the
//                    messages go;
//   written(w)       after the writes enqueued on w = begin()'s stream: the downstream peers are told (a client whose
//                    writing kernel raises the step's device signals itself skips it: KokkosDDT_DeviceSignals.hpp);
//   wait(stream)     the work enqueued on `stream` from now on runs after every message and every upstream peer's
//                    writes of this step (host completion: the host waits for the messages here).
// No call waits for an execution space; a process runs at most one step ahead of a slow peer. test() throws Error on a
// failed message and says, for host completion, whether every message completed.
class Step {
 public:
  virtual ~Step() = default;
  virtual bool host_sends() const = 0;
  virtual int messages() const = 0;  // messages per step (Staged routes travel as one message per peer)
  virtual StreamRef own_stream() const { return {}; }
  // The step's device signals, where its transport offers them (a direct transport's counters), else null.
  virtual DeviceSignals* device_signals() { return nullptr; }
  // Whether every step enqueues the same work (no per-step values in it: a step can be captured in a CUDA graph and
  // replayed), with the host posting no message between the kernels.
  virtual bool replayable() const = 0;
  virtual StreamRef begin(StreamRef stream) = 0;
  virtual void send(StreamRef stream) = 0;
  virtual void written(StreamRef writing) { (void)writing; }
  virtual bool test() = 0;
  virtual void wait(StreamRef stream) = 0;
  // The peers whose part of the step has not arrived (host messages not received; counters below the step), for a
  // timeout's message. May be incomplete (a transport that cannot tell names none).
  virtual std::vector<int> late_peers() { return {}; }
  // The peers whose process is known to have ended (a peer route checks its neighbours' pids on the node); a waiting
  // step fails at once, naming them, instead of at its deadline. Others: none known.
  virtual std::vector<int> ended_peers() { return {}; }
  // With a deadline, after wait(stream) (or after a replayed step's launch): the device-side waits enqueued on
  // `stream` so far (the peers' counters, NCCL's kernels) end within `seconds` from now. If they are still pending
  // then, the transport ends them itself from the watchdog's thread (KokkosDDT_Watchdog.hpp), as abandon(true) does,
  // so that the work enqueued after them runs, and failure() says the step failed. Host-completed transports, whose
  // waits are the host's own, do nothing.
  virtual void watch(StreamRef stream, double seconds) {
    (void)stream;
    (void)seconds;
  }
  // Why step `step` (begun, or about to begin) cannot complete, as far as the transport knows now: a watched deadline
  // that passed, a peer that gave the plan up after fewer steps (its destroy or its timeout: its terminal counter
  // values ended this process's waits without its writes), a peer's process that ended (checked in the background,
  // with or without a deadline). Cheap (the engine asks at every call); empty while none.
  virtual StepFailure failure(std::int64_t step) {
    (void)step;
    return {};
  }
  // Before the step is destroyed, and after a timeout (`failed`): this process gives the plan up after `steps` steps
  // begun. Every counter a peer's stream may wait on gets a terminal value, ordered after this process's own writes
  // into peers' memory, so that a peer's begun step ends (its cells then hold this step's or the last one's values),
  // and the peer learns that its steps after `steps` failed (failure()); `failed`: also this process's own streams
  // stop waiting for peers, and its messages are given up. The destroy that follows waits at most `timeout` seconds
  // for the other processes (0: as long as it takes, or until a peer's process is seen to have ended).
  virtual void abandon(bool failed, double timeout, std::int64_t steps) {
    (void)failed;
    (void)timeout;
    (void)steps;
  }
};

// What route() returns: a delivery per offered send and receive (in their order), and their step.
struct Deliveries {
  std::vector<Delivery> sends, receives;
  std::unique_ptr<Step> step;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual const char* name() const = 0;
  // What it can do: what its registry entry states, known before one is made, and what only a made one knows (MPI:
  // whether it reaches device memory). A transport with the capability `direct` may change it at route(), with the
  // transport it hands its messages to.
  virtual TransportCapabilities capabilities() const = 0;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Checks and prepares the messages (persistent: started many times). A persistent set may run its messages once
  // while it is made (a transport that connects peers lazily connects them here), so its peers make theirs at the
  // same point and its buffers' contents are undefined afterwards. Throws Error naming `where`.
  virtual std::unique_ptr<MessageSet> make_set(std::vector<ByteMessage> sends, std::vector<ByteMessage> receives,
                                               bool persistent, const char* where) = 0;
  // A plan's persistent messages, at once: a Delivery per send and receive, in their order, and their Step. Collective
  // over the transport's processes, each offering the sides matched with its peers' (the k-th send to a peer with a
  // tag is the k-th receive there from this process with that tag). Staging comes from `staging`; what else a route
  // needs (mappings, landing buffers, counters) is the transport's, released with the step, and the receive cells
  // must stay allocated while it lives. A message may run once while the step is made (as make_set's persistent
  // sets). `replayable`: every step must enqueue the same work (Step::replayable), where the transport can (the
  // plan's processes ask alike). Throws Error on every process when any fails. This one: every message Staged, a
  // step's messages to one peer packed one after the other (16-byte aligned, ascending (tag, posting order)) into one
  // message of a set.
  virtual Deliveries route(const std::vector<CommittedMessage>& sends, const std::vector<CommittedMessage>& receives,
                           const StagingSource& staging, bool replayable, const char* where);
};

}  // namespace KokkosDDT::Impl
