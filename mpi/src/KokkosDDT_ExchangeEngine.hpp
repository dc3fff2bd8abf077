// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The step of a persistent exchange (halo plans and exchange plans): a fixed set of typed sends and receives, built
// once into fused batches (the packs of staged sends in one launch, the writes into peers' memory in another, every
// unpack in a third) over the routes the transport chose for them (Transport::route: one call with every typed
// message; the transport asks for staging where it reaches it, maps what it writes, and returns the Step that runs
// them). The engine knows no transport: it launches what each route needs and calls the step's verbs.
//
//   start     the step begins (a host transport posts its receives; a peer's writes wait until the downstream peers
//             have read their cells); the packs of the staged sends are launched first, on the step's instance; a
//             stream-ordered transport (NCCL) enqueues its messages right after them; the writes (Typed, Landed
//             routes) are launched on the step's own stream when it has one, beside the caller's work until wait.
//             Never waits for the execution space.
//   progress  a host transport (MPI) posts the sends once the packs' completion flags say so (host loads, no fence).
//   wait      the step completes (messages, the peers' writes into this process's memory) before the work enqueued on
//             the instance from now on; the unpacks are enqueued there.
//
// Asked to (options.graph), the engine records its first step, start through wait, as a graph of the backend's
// (BackendTraits::Graph: CUDA graphs) and replays it at every start: one launch per step, the step whole at start
// (nothing of it runs beside the work enqueued between start and wait). Where the backend has no graphs, or the host
// posts messages between the kernels (host completion with messages: MPI), steps run as above. The transport is asked
// for replayable steps then (Step::replayable: the same work every step), so that a caller may capture them too.
//
// One message per peer and step (the transports of messages, Transport::route's default): a step's messages to one
// peer are packed one after the other into one region of the staging buffer and travel as one message.
//
// Receives may combine instead of replace (PlannedMessage::order; a halo plan's scatter): they are unpacked with the
// step's operation (set_receive_op), in a launch after the replacing unpacks, an order per phase of it; no transport
// writes their cells (the transport is told: CommittedMessage::combines), and one to this process itself is packed into
// a buffer of the engine's at start and combined from it at wait.
//
// A message whose peer is this process itself is no message: it is a typed-to-typed copy from the send's cells into
// the receive's, one more request of the writes' launch where there is one, else of the packs' (no buffer between,
// no unpack; a plan whose every peer is itself runs one launch per step). Sending it at start is MPI's rule kept: the
// receive's cells belong to the plan until wait. Tests set KOKKOSDDT_HALO_SELF_MESSAGES=1 to send such messages through
// the transport like any other, so that one process exercises every message path (NCCL cannot put two processes on one
// GPU).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Backend.hpp"
#include "KokkosDDT_Communicators.hpp"
#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_Datatype.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_FusedBatch.hpp"
#include "KokkosDDT_MPIStaging.hpp"
#include "KokkosDDT_MpiTransport.hpp"
#include "KokkosDDT_Routes.hpp"
#include "KokkosDDT_SetupClock.hpp"
#include "KokkosDDT_Transport.hpp"
#include "KokkosDDT_Transports.hpp"
#include "KokkosDDT_Wait.hpp"

namespace KokkosDDT::Impl {

// One typed side of a message as a plan holds it: `count` instances of `type` at `buf` (or at absolute addresses), to
// or from `peer` (a rank of the plan's communicator, or MPI_PROC_NULL: nothing moves) with `tag`. The transport sees it
// as a CommittedMessage or, packed, a ByteMessage (KokkosDDT_Transport.hpp).
struct PlannedMessage {
  char* buf = nullptr;
  bool absolute = false;  // buf is KokkosDDT::bottom: the type's displacements are addresses
  std::int64_t count = 0;
  Datatype type;
  int peer = 0;
  int tag = 0;
  // A receive that combines its bytes into its cells with the step's operation (ExchangeEngine::set_receive_op; a
  // halo plan's scatter) instead of replacing them: `order` >= 0. Combining receives run in ascending order, each
  // order a phase of one launch (FusedBatch::phase), so that receives whose cells overlap (an owned cell several
  // neighbours' ghosts map onto) combine in a fixed order, whatever the arrival; receives of one order must not
  // overlap. -1: a receive that replaces.
  int order = -1;
  Op op = Op::Replace;  // a combining receive's operation (until set_receive_op sets every one's)
  // A message of one instance (count 1) in pieces, or none: its packed bytes are its pieces', one after another (`type`
  // is their struct, for the transport), each packed or unpacked as a request of its own, so that each is one shape
  // where the whole is not. A combining receive's pieces that are the same type (one Datatype: the same cells) are
  // combined by one chain (FusedBatch::begin_chain), in ascending order of their receives (then in posting order), with
  // no phases: every receive of such a set is in pieces, and pieces of different types share no cell. A receive from
  // this process itself takes each piece from the send's piece of the same index (a combining copy, no buffer).
  struct Piece {
    Datatype type;            // at `at`: its cells
    char* at = nullptr;       // (pieces of one extent are one type at different places: one descriptor between them)
    std::int64_t offset = 0;  // its bytes' place in the packed message
  };
  std::vector<Piece> pieces = {};
  std::int64_t bytes() const { return count * type.size(); }  // (count and type checked when the message was added)
};

// What a plan's transport `choice` is on ExecSpace ("auto" resolved: KokkosDDT_Transports.hpp).
template <class ExecSpace>
mpi::TransportChoice resolved(const mpi::TransportChoice& choice) {
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  return resolve(choice, !host);
}

// Why the transport `choice` cannot carry a plan's messages on ExecSpace, or "" if it can (plans check this on every
// rank and agree before any collective call).
template <class ExecSpace>
std::string transport_refusal(const mpi::TransportChoice& choice) {
  const std::string named = "options.transport is \"" + choice.name() + "\"";
  if (!mpi::has_transport(choice)) return named + ", which this build does not have";
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  if (host && !mpi::capabilities(resolved<ExecSpace>(choice)).host_memory)
    return named + ", which moves device memory only: the execution space's memory is the host's";
  return "";
}

// Whether a backend makes instances on a given native stream (BackendTraits<ExecSpace>::instance_on).
template <class Traits, class = void>
struct runs_on_streams : std::false_type {};
template <class Traits>
struct runs_on_streams<Traits, std::void_t<decltype(Traits::instance_on(nullptr))>> : std::true_type {};

// Whether messages to this process itself go through the transport (KOKKOSDDT_HALO_SELF_MESSAGES=1; tests).
inline bool self_messages_through_transport() { return settings().self_messages; }

// Messages this process sends to itself without a transport: for each receive, the send it takes its bytes from, or -1
// (a message of the transport, or nothing to pair with). The k-th such receive with tag t pairs with the k-th such send
// with tag t: MPI's order for messages of one source and tag.
inline std::vector<int> local_pairs(const std::vector<PlannedMessage>& sends, const std::vector<PlannedMessage>& recvs,
                                    int me) {
  std::vector<int> pair(recvs.size(), -1);
  if (self_messages_through_transport()) return pair;
  std::map<int, std::vector<int>> by_tag;  // this process's sends to itself, per tag, in posting order
  for (std::size_t i = 0; i < sends.size(); ++i)
    if (sends[i].peer == me) by_tag[sends[i].tag].push_back(static_cast<int>(i));
  std::map<int, std::size_t> taken;
  for (std::size_t j = 0; j < recvs.size(); ++j) {
    if (recvs[j].peer != me) continue;
    const std::vector<int>& candidates = by_tag[recvs[j].tag];
    std::size_t& k = taken[recvs[j].tag];
    if (k < candidates.size()) pair[j] = candidates[k++];
  }
  return pair;
}

template <class ExecSpace>
class ExchangeEngine {
 public:
  // Everything a step needs, built once: `me` is this process's rank in the transport's communicator. The messages
  // were matched with their peers' before (ExchangeMatch.hpp); every buffer and type is checked here as a pack is.
  // `timeout`: seconds a wait may take (0: none), then Error(Timeout) and the plan has failed.
  // `control`: the plan's control plane (its MPI duplicate).
  // `graph`: steps replayed from a graph of the first (above), where they can be.
  ExchangeEngine(const ExecSpace& space, std::shared_ptr<Transport> transport, std::shared_ptr<MpiTransport> control,
                 const std::vector<PlannedMessage>& sends, const std::vector<PlannedMessage>& recvs, int me,
                 const char* where, double timeout = 0, bool graph = false);
  ExchangeEngine(const ExchangeEngine&) = delete;
  ExchangeEngine& operator=(const ExchangeEngine&) = delete;
  // A started step: its sends are left to the transport (their buffer kept until exit), its receives cancelled.
  ~ExchangeEngine();

  void start(const ExecSpace& space, const char* where);
  void progress();
  void wait(const char* where);
  void wait_host(const char* where) {
    wait(where);
    // (a synchronous host backend has finished the unpacks when their launch returns)
    if constexpr (!BackendTraits<ExecSpace>::synchronous) {
      if (timeout_ > 0 &&
          !wait_watching([&] { return BackendTraits<ExecSpace>::idle(step_space_); }, Deadline(timeout_), where))
        fail(where, "the step did not complete on the execution space");
      step_space_.fence(where);   // (without a deadline: the backend's own blocking wait)
      check_step(where, steps_);  // (the step's waits may have ended without a peer's writes: told here, not later)
    }
  }

  const ExecSpace& space() const { return space_; }
  bool started() const { return started_; }  // a step started and not waited for
  int messages() const { return step_->messages(); }
  std::int64_t bytes_per_step() const { return send_bytes_; }
  std::int64_t launches() const {
    std::int64_t n = packs_.launches() + writes_.launches() + unpacks_.launches();
    for (const FusedBatch<ExecSpace>& b : combines_) n += b.launches();
    return n;
  }
  std::int64_t chains() const { return chains_; }  // chains of combining pieces (add_chains), one per place and type
  std::int64_t one_pass_chains() const {  // of them, those combined in one pass (devices: FusedTile::chain_in_one_pass)
    std::int64_t n = 0;
    for (const FusedBatch<ExecSpace>& b : combines_) n += b.one_pass_chains();
    return n;
  }
  // The operation combining receives apply from the next step on (Replace at first). Throws InvalidArgument naming
  // `op` where it has no meaning for a combining receive's elements (nothing changed). Between steps only; a change
  // waits for the last step's unpacks.
  void set_receive_op(Op op, const char* where);
  const std::vector<mpi::Route>& routes() const { return routes_; }
  // Whether steps replay from a graph (options.graph, where they can), and why not where they cannot.
  bool graph_wanted() const { return graph_wanted_; }
  bool graphed() const { return graph_wanted_ && why_eager_.empty(); }
  const std::string& why_eager() const { return why_eager_; }

 private:
  using Backend = BackendTraits<ExecSpace>;
  // A step's work, enqueued (start_step, wait_step), or replayed from the graph (recorded at the first start).
  void start_step(const ExecSpace& space);
  void wait_step();
  void start_graph(const ExecSpace& space, const char* where);

  // The transport's routes of the messages that are not copies to this process itself (nor empty, nor to
  // MPI_PROC_NULL): route i of `at` is message at[i]'s.
  Deliveries route(const std::vector<PlannedMessage>& sends, const std::vector<PlannedMessage>& recvs,
                   const std::vector<int>& pair, const std::vector<bool>& local, std::vector<std::size_t>& send_at,
                   std::vector<std::size_t>& recv_at, const char* where);

  // Counts a message of `bytes` via `via` in routes_ (one line per direction, peer, route and reason).
  void count_route(bool send, int peer, const std::string& via, const char* why, std::int64_t bytes) {
    if (bytes == 0) return;  // (moves nothing: no route)
    for (mpi::Route& r : routes_)
      if (r.send == send && r.peer == peer && r.via == via && r.why == why) {
        ++r.messages;
        r.bytes += bytes;
        return;
      }
    routes_.push_back({send, peer, via, why, 1, bytes});
  }

  // The send `from` straight into the receive `to` (a message to this process itself).
  static void add_copy(FusedBatch<ExecSpace>& batch, const PlannedMessage& from, const PlannedMessage& to) {
    batch.add_copy(from.buf, from.absolute, from.count, from.type, to.buf, to.absolute, to.count, to.type);
  }

  // A combining receive, held until every receive is known (add_combining): its bytes at `packed`, or (`from`, in
  // pieces) the cells of a send of this process's own; `index`: its place among the receives.
  struct Combining {
    const PlannedMessage* m;
    char* packed;
    const PlannedMessage* from;
    std::size_t index;
  };
  // The unpack of receive `m` (the j-th) from `packed`: replacing, or combining (added later, in order).
  void add_receive(const PlannedMessage& m, char* packed, std::size_t j) {
    if (m.order < 0) return add<Direction::Unpack>(unpacks_, m, packed);
    combining_.push_back({&m, packed, nullptr, j});
  }
  // The combining receives in ascending order (then in posting order): in pieces, a chain per piece type in one
  // launch (add_chains); else each order a phase of one launch (FusedBatch::phase: a launch per kMaxPhase + 1 orders).
  void add_combining(const char* where) {
    std::sort(combining_.begin(), combining_.end(), [](const Combining& a, const Combining& b) {
      return a.m->order != b.m->order ? a.m->order < b.m->order : a.index < b.index;
    });
    std::size_t pieced = 0;
    for (const Combining& c : combining_) {
      combining_types_.push_back(c.m->type);
      pieced += !c.m->pieces.empty();
    }
    if (pieced > 0 && pieced < combining_.size())
      throw_error(ErrorCode::Internal, where, "recvs", "has combining receives in pieces and others whole");
    if (pieced > 0) {
      add_chains(where);
    } else {
      constexpr int kPhases = FusedBatch<ExecSpace>::kMaxPhase + 1;
      for (const Combining& c : combining_) {
        const PlannedMessage& m = *c.m;
        while (static_cast<int>(combines_.size()) <= m.order / kPhases) combines_.emplace_back(space_);
        FusedBatch<ExecSpace>& batch = combines_[m.order / kPhases];
        batch.phase(m.order % kPhases);
        if (m.absolute)
          batch.add_unpack(c.packed, m.bytes(), bottom, m.count, m.type, m.op);
        else
          batch.add_unpack(c.packed, m.bytes(), m.buf, m.count, m.type, m.op);
      }
    }
    combining_.clear();
  }
  // Combining receives in pieces: the pieces of each place and type (the same cells), in the receives' order, one
  // chain.
  void add_chains(const char* where) {
    using Cells = std::pair<const char*, const CommittedType*>;
    std::vector<std::pair<Cells, std::vector<std::pair<const Combining*, std::size_t>>>> cells;
    for (const Combining& c : combining_)
      for (std::size_t k = 0; k < c.m->pieces.size(); ++k) {
        const Cells key{c.m->pieces[k].at, &c.m->pieces[k].type.impl_committed(where)};
        auto same = std::find_if(cells.begin(), cells.end(), [&](const auto& e) { return e.first == key; });
        if (same == cells.end()) same = cells.insert(cells.end(), {key, {}});
        same->second.push_back({&c, k});
      }
    FusedBatch<ExecSpace>& batch = combines_.emplace_back(space_);
    for (const auto& [type, pieces] : cells) {
      batch.begin_chain();
      for (const auto& [c, k] : pieces) {
        const PlannedMessage& m = *c->m;
        const PlannedMessage::Piece& piece = m.pieces[k];
        if (c->from == nullptr) {
          batch.add_unpack(c->packed + piece.offset, piece.type.size(), piece.at, 1, piece.type, m.op);
          continue;
        }
        const PlannedMessage& s = *c->from;  // (a send of this process's own: the same pieces)
        if (s.pieces.size() != m.pieces.size() || s.pieces[k].type.size() != piece.type.size())
          throw_error(ErrorCode::Internal, where, "sends", "has a message to itself in other pieces than its receive");
        batch.add_copy(s.pieces[k].at, false, 1, s.pieces[k].type, piece.at, false, 1, piece.type, m.op);
      }
      batch.end_chain();
      ++chains_;
    }
  }
  // The unpacks of a step, replacing then combining (flagged: the host learns of their end, wait_unpacks).
  void launch_unpacks(bool flagged) {
    auto run = [&](FusedBatch<ExecSpace>& b) {
      if (flagged)
        b.launch(step_space_);
      else
        b.launch_ordered(step_space_);
    };
    run(unpacks_);
    for (FusedBatch<ExecSpace>& b : combines_) run(b);
  }
  void wait_unpacks() {
    unpacks_.wait();
    for (FusedBatch<ExecSpace>& b : combines_) b.wait();
  }

  // The pack or unpack of message m at `packed`: a request per piece where it is in pieces.
  template <Direction Dir>
  static void add(FusedBatch<ExecSpace>& batch, const PlannedMessage& m, char* packed) {
    if (!m.pieces.empty()) {
      for (const PlannedMessage::Piece& piece : m.pieces) {
        PlannedMessage part;  // (one piece's type at its place)
        part.buf = piece.at;
        part.count = 1;
        part.type = piece.type;
        add<Dir>(batch, part, packed + piece.offset);
      }
      return;
    }
    if constexpr (Dir == Direction::Pack) {
      if (m.absolute)
        batch.add_pack(bottom, m.count, m.type, packed, m.bytes());
      else
        batch.add_pack(m.buf, m.count, m.type, packed, m.bytes());
    } else {
      if (m.absolute)
        batch.add_unpack(packed, m.bytes(), bottom, m.count, m.type);
      else
        batch.add_unpack(packed, m.bytes(), m.buf, m.count, m.type);
    }
  }

  ExecSpace space_, step_space_;  // the plan's instance; the current (or last) step's
  std::shared_ptr<Transport> transport_;
  std::shared_ptr<MpiTransport> control_;  // the plan's control plane (settle() at destroy)
  std::unique_ptr<Step> step_;             // the transport's step of every route
  bool host_sends_ = false;      // the host posts the messages once it sees the packs done (step_->host_sends())
  bool kernel_signals_ = false;  // the writing kernel writes the step's "written" counters itself
  bool forked_ = false;          // the writes run on the step's own stream (writes_space_)
  ExecSpace writes_space_;
  // The launches of a step: the packs of the staged sends (first, on the step's instance, so that the messages wait
  // for nothing else), the writes into peers' memory (Typed and Landed routes) with this process's copies to itself
  // where there are such writes (else those copies are more packs), and the unpacks.
  FusedBatch<ExecSpace> packs_, writes_, unpacks_;
  std::vector<FusedBatch<ExecSpace>> combines_;      // the combining receives' unpacks: a phase per order, in order
  std::vector<Combining> combining_;                 // (while the engine is built)
  std::int64_t chains_ = 0;                          // chains among them (add_chains)
  std::vector<Datatype> combining_types_;            // their types (set_receive_op checks the operation against each)
  std::vector<std::shared_ptr<void>> self_staging_;  // combining receives from this process itself: packed here
  Op op_ = Op::Replace;                              // set_receive_op's last (its messages' own ops before)
  std::vector<Datatype> types_;
  std::vector<mpi::Route> routes_;
  std::int64_t send_bytes_ = 0;
  bool started_ = false, sends_posted_ = false;
  double timeout_ = 0;
  std::int64_t steps_ = 0;         // steps started
  std::string failure_;            // why the plan failed (a timeout), "" while it has not
  bool graph_wanted_ = false;      // options.graph
  bool replayable_ = false;        // step_->replayable()
  std::string why_eager_;          // why steps cannot replay from a graph ("" if they can)
  bool replayed_ = false;          // the step started was a replay (wait() has nothing to enqueue)
  typename Backend::Graph graph_;  // the first step, recorded (options.graph)

  // A wait passed the deadline (`timed_out`), a peer gave the plan up, or a peer's process ended: the step is given up
  // (the transport's step abandoned: nothing waits on it any longer), the plan has failed, and Error(Timeout) says
  // which step, its routes, the peers it did not hear from and those whose process ended.
  [[noreturn]] void fail(const char* where, const std::string& what, bool timed_out = true) {
    check_step(where, steps_);  // (the step's own account first, where it has one: it read the late ranks in time)
    fail(where, StepFailure{what, step_->late_peers(), timed_out}, steps_);
  }
  [[noreturn]] void fail(const char* where, const StepFailure& failure, std::int64_t step);
  // Throws Error(Timeout) if the plan failed earlier, or if the step says that step `step` (begun, or about to begin)
  // cannot complete (Step::failure: a watched deadline passed, a peer gave the plan up, a peer's process ended).
  void check_step(const char* where, std::int64_t step) {
    if (!failure_.empty()) throw_error(ErrorCode::Timeout, where, "plan", "failed earlier: " + failure_);
    if (StepFailure f = step_->failure(step); !f.what.empty())
      fail(where, f, f.step > 0 ? f.step : f.timed_out ? steps_ : step);  // (a deadline: the step last waited for)
  }
  std::string not_replayable() const {  // why a step is not Step::replayable
    if (host_sends_ && step_->messages() > 0) return "the host posts the messages of " + routes_text();
    return "its peer routes count steps (make the plan with options.graph)";
  }
  std::string routes_text() const {  // the routes' names, each once ("peer, MPI")
    std::string names;
    for (const mpi::Route& r : routes_)
      if (names.find(r.via) == std::string::npos) names += (names.empty() ? "" : ", ") + r.via;
    return names;
  }
  // wait_until(done, deadline), asking the step every 50 ms whether the step failed otherwise (check_step: a peer
  // gave the plan up, a peer's process ended), deadline or not, and failing it at once if so.
  template <class Done>
  bool wait_watching(const Done& done, const Deadline& deadline, const char* where);
  bool watch_due();  // (true at most every 50 ms)
  std::chrono::steady_clock::time_point next_watch_{};
  std::uint64_t watch_calls_ = 0;

  // At destroy, before the fence: whether every process completed the same steps and none failed (one allreduce on
  // the control plane, within the deadline). If not, a message of a step begun on one process and not on another may
  // still arrive on the control plane's duplicate, and MPI reuses a freed communicator's context for later ones: the
  // duplicate is then kept until MPI_Finalize, so that no later plan receives it; and the step is given up on every
  // process at once (NCCL: the communicator is aborted everywhere, never destroyed; its abort completes only once all
  // did).
  void settle();
};

template <class ExecSpace>
ExchangeEngine<ExecSpace>::ExchangeEngine(const ExecSpace& space, std::shared_ptr<Transport> transport,
                                          std::shared_ptr<MpiTransport> control,
                                          const std::vector<PlannedMessage>& sends,
                                          const std::vector<PlannedMessage>& recvs, int me, const char* where,
                                          double timeout, bool graph)
    : space_(space),
      step_space_(space),
      transport_(std::move(transport)),
      control_(std::move(control)),
      packs_(space),
      writes_(space),
      unpacks_(space),
      timeout_(timeout),
      graph_wanted_(graph) {
  SetupClock clock("engine");
  // A message to this process itself is a copy and needs no route; the transport routes the others.
  const std::vector<int> pair = local_pairs(sends, recvs, me);
  std::vector<bool> local(sends.size(), false);
  for (int i : pair)
    if (i >= 0) local[i] = true;
  std::vector<std::size_t> send_at, recv_at;
  Deliveries deliveries = route(sends, recvs, pair, local, send_at, recv_at, where);
  clock.mark("route");
  step_ = std::move(deliveries.step);
  host_sends_ = step_->host_sends();
  bool writes = false;  // (any route that writes a peer's memory)
  for (const Delivery& r : deliveries.sends) writes = writes || r.kind != DeliveryKind::Staged;
  FusedBatch<ExecSpace>& copies = writes ? writes_ : packs_;

  // The kernel records. Empty messages move nothing: both sides know it (their sizes were matched).
  for (std::size_t i = 0; i < sends.size(); ++i) {
    const PlannedMessage& m = sends[i];
    if (m.peer == MPI_PROC_NULL) continue;
    types_.push_back(m.type);
    send_bytes_ += m.bytes();
    if (local[i]) count_route(true, m.peer, "self", "", m.bytes());  // (copied with its receive below)
  }
  for (std::size_t k = 0; k < send_at.size(); ++k) {
    const PlannedMessage& m = sends[send_at[k]];
    const Delivery& r = deliveries.sends[k];
    count_route(true, m.peer, r.name, r.why, m.bytes());
    writes_.gate(r.gate);  // (device begin: its writes wait for their receiver's cells to be free)
    if (r.kind == DeliveryKind::Typed)
      writes_.add_mapped_copy(m.buf, m.absolute, m.count, m.type, r.at, r.count, r.type);
    else
      add<Direction::Pack>(r.kind == DeliveryKind::Landed ? writes_ : packs_, m, r.at);
  }
  writes_.gate(-1);
  clock.mark("sends");
  for (std::size_t j = 0; j < recvs.size(); ++j) {
    const PlannedMessage& m = recvs[j];
    if (m.peer == MPI_PROC_NULL) continue;
    types_.push_back(m.type);
    if (pair[j] < 0) continue;
    count_route(false, m.peer, "self", "", m.bytes());
    if (m.order < 0) {
      add_copy(copies, sends[pair[j]], m);
    } else if (m.bytes() > 0 && !m.pieces.empty()) {  // (combining in pieces: copied into the cells, combining)
      combining_.push_back({&m, nullptr, &sends[pair[j]], j});
    } else if (m.bytes() > 0) {  // (combining: packed with the copies, combined with the other receives)
      Staging buffer = take_staging<ExecSpace>(m.bytes(), true);
      add<Direction::Pack>(copies, sends[pair[j]], buffer.data);
      add_receive(m, buffer.data, j);
      self_staging_.push_back(std::move(buffer.owner));
    }
  }
  for (std::size_t k = 0; k < recv_at.size(); ++k) {
    const PlannedMessage& m = recvs[recv_at[k]];
    const Delivery& r = deliveries.receives[k];
    count_route(false, m.peer, r.name, r.why, m.bytes());
    if (r.kind != DeliveryKind::Typed)
      add_receive(m, r.at, recv_at[k]);
    else if (m.order >= 0)  // (Typed: the sender writes the cells, which a combining receive must read first)
      throw_error(ErrorCode::Internal, where, "transport", "wrote a combining receive's cells itself");
  }
  clock.mark("receives");
  if constexpr (!BackendTraits<ExecSpace>::synchronous) {
    // Device completion: the writing kernel itself tells the downstream peers their cells are written (one stream
    // operation and one driver call fewer per step).
    DeviceSignals* signals = step_->device_signals();
    if (signals && !signals->written_counters().empty() && writes_.size() > 0) {
      writes_.signal_after(signals->written_counters(), signals->low_half());
      kernel_signals_ = true;
      // Device begin, where the step offers it: the same kernel raises "free" and waits for its receivers' as it
      // starts, so that no stream wait holds its launch and no reset follows.
      std::vector<std::uint64_t*> gates = signals->gates();
      if (!gates.empty()) {
        writes_.gate_on(signals->begin_raises(), std::move(gates));
        signals->begin_on_device();
      }
    }
    // The step's own stream, if any: the writes run there, beside the caller's work between start and wait (backends
    // whose instances can run on a given stream).
    if constexpr (runs_on_streams<BackendTraits<ExecSpace>>::value) {
      if (step_->own_stream().native) {
        writes_space_ = BackendTraits<ExecSpace>::instance_on(step_->own_stream().native);
        forked_ = true;
      }
    }
  }
  replayable_ = step_->replayable();
  if (!Backend::has_graphs) why_eager_ = std::string(ExecSpace::name()) + " has no graphs";
  if (!replayable_) why_eager_ = not_replayable();
  clock.mark("signals");
  // Built now, not at the first step: a step captured in a CUDA graph must meet no allocation and no fence.
  packs_.prepare();
  writes_.prepare();
  unpacks_.prepare();
  clock.mark("batches");
  add_combining(where);
  for (FusedBatch<ExecSpace>& b : combines_) b.prepare();
  clock.mark("combining");
}

template <class ExecSpace>
Deliveries ExchangeEngine<ExecSpace>::route(const std::vector<PlannedMessage>& sends,
                                            const std::vector<PlannedMessage>& recvs, const std::vector<int>& pair,
                                            const std::vector<bool>& local, std::vector<std::size_t>& send_at,
                                            std::vector<std::size_t>& recv_at, const char* where) {
  auto end_of = [&](const PlannedMessage& m) {
    return CommittedMessage{m.buf, m.absolute, m.count, &m.type.impl_committed(where), m.peer, m.tag, m.order >= 0};
  };
  auto offered = [](const PlannedMessage& m) { return m.peer != MPI_PROC_NULL && m.bytes() > 0; };
  std::vector<CommittedMessage> out, in;
  for (std::size_t i = 0; i < sends.size(); ++i)
    if (!local[i] && offered(sends[i])) {
      out.push_back(end_of(sends[i]));
      send_at.push_back(i);
    }
  for (std::size_t j = 0; j < recvs.size(); ++j)
    if (pair[j] < 0 && offered(recvs[j])) {
      in.push_back(end_of(recvs[j]));
      recv_at.push_back(j);
    }
  // Staging where the transport reaches it: this space's memory, or pinned host memory (the transport says which).
  auto staging = [](std::int64_t bytes, bool device) { return take_staging<ExecSpace>(bytes, device); };
  return transport_->route(out, in, staging, graph_wanted_, where);
}

template <class ExecSpace>
void ExchangeEngine<ExecSpace>::start(const ExecSpace& space, const char* where) {
  check_step(where, steps_ + 1);
  if (started_) throw_error(ErrorCode::InvalidArgument, where, "plan", "was started and not waited for");
  // A step can be captured in a CUDA graph where it enqueues the same work every step (Step::replayable). (The
  // backend is asked only where the answer matters: a replayable step without options.graph runs alike either way.)
  const bool capturing = (graph_wanted_ || !replayable_) && Backend::capturing(space);
  if (capturing && !replayable_)
    throw_error(ErrorCode::Unsupported, where, "space",
                "is capturing a CUDA graph, and this plan's steps cannot be replayed: " + not_replayable() +
                    " (nothing was enqueued)");
  // The last step's unpacks read the buffers this step fills: ordered on one instance; on another, waited for.
  if (space.impl_instance_id() != step_space_.impl_instance_id())
    step_space_.fence("KokkosDDT: a plan's last step ran on another instance");
  step_space_ = space;
  ++steps_;
  if (graphed() && !capturing)  // (a step the caller captures is enqueued into the caller's graph)
    start_graph(space, where);
  else
    start_step(space);
}

// Records the first step whole (its start and its wait: every launch, memory operation and message of it) and replays
// it; later steps replay it. The recording runs nothing, so its state (started_, sends_posted_) is set back after it.
template <class ExecSpace>
void ExchangeEngine<ExecSpace>::start_graph(const ExecSpace& space, const char* where) {
  if (!graph_.captured()) {
    const std::string error = graph_.capture(space, [&] {
      start_step(space);
      wait_step();
    });
    started_ = sends_posted_ = false;
    if (!error.empty()) throw_error(ErrorCode::Backend, where, "options.graph", "recording the step: " + error);
  }
  if (const std::string error = graph_.launch(space); !error.empty())
    throw_error(ErrorCode::Backend, where, "options.graph", error);
  started_ = sends_posted_ = replayed_ = true;
}

template <class ExecSpace>
void ExchangeEngine<ExecSpace>::start_step(const ExecSpace& space) {
  const StreamRef stream{Backend::native_stream(space)};
  if (host_sends_) wait_unpacks();  // (completion flags: the last step's unpacks have read the receive buffers)
  const StreamRef writing = step_->begin(stream);
  // Host sends: from here on, wait() completes the receives, also after an error below. Stream-ordered: once the
  // messages are enqueued (not when they failed to: wait() then unpacks nothing).
  started_ = host_sends_;
  sends_posted_ = false;
  // The packs first, on the step's instance: the messages wait for nothing else. Flags only where the host must learn
  // of their end (before it posts the sends).
  if (host_sends_ && step_->messages() > 0)
    packs_.launch(space);
  else
    packs_.launch_ordered(space);
  if (!host_sends_) {
    step_->send(stream);
    started_ = sends_posted_ = true;
  }
  if (writes_.size() > 0) {  // (on the step's own stream when it has one: beside the caller's work until wait)
    if (const DeviceSignals* signals = step_->device_signals()) writes_.set_signal(signals->signal());
    writes_.launch_ordered(forked_ ? writes_space_ : space);
    if (!kernel_signals_) step_->written(writing);
  }
  progress();  // posted now when the packs ran at once (hosts); a device's flags are read later
}

template <class ExecSpace>
void ExchangeEngine<ExecSpace>::progress() {
  if (!started_ || sends_posted_) return;
  if (step_->messages() > 0 && !packs_.test()) return;  // (host loads of kernel-written flags; no synchronization)
  sends_posted_ = true;
  step_->send(StreamRef{BackendTraits<ExecSpace>::native_stream(step_space_)});
}

template <class ExecSpace>
void ExchangeEngine<ExecSpace>::wait(const char* where) {
  check_step(where, steps_);
  if (!started_) return;
  const Deadline deadline(timeout_);
  const bool sent = wait_watching(
      [&] {  // the packs' flags (a device's), polling the messages meanwhile
        progress();
        if (!sends_posted_) (void)step_->test();
        return sends_posted_;
      },
      deadline, where);
  if (!sent) fail(where, "this process's packs did not complete");
  // (with a deadline, host-completed messages are polled here: the step's own wait then blocks no longer)
  if (!deadline.none() && !wait_watching([&] { return step_->test(); }, deadline, where))
    fail(where, "its messages did not all arrive");
  started_ = false;
  if (replayed_) {  // (the graph holds the step's wait too; a stream-ordered transport's error, if any, throws here)
    replayed_ = false;
    (void)step_->test();
  } else {
    wait_step();
  }
  // With a deadline, the step's device-side waits (now enqueued) end by it, from the watchdog's thread if need be. (A
  // step the caller captures into a graph has none: it runs when the caller launches it.)
  if (timeout_ > 0 && !Backend::capturing(step_space_))
    step_->watch(StreamRef{BackendTraits<ExecSpace>::native_stream(step_space_)}, timeout_);
}

template <class ExecSpace>
void ExchangeEngine<ExecSpace>::wait_step() {
  step_->wait(StreamRef{BackendTraits<ExecSpace>::native_stream(step_space_)});
  // On the step's instance: ordered after the messages and the peers' writes. Flagged when the host posts the next
  // step's receives into the buffers they read.
  launch_unpacks(host_sends_ && step_->messages() > 0);
}

template <class ExecSpace>
void ExchangeEngine<ExecSpace>::set_receive_op(Op op, const char* where) {
  for (const Datatype& t : combining_types_) require_op_applies(op, t, where);
  if (op == op_) return;
  if (started_) throw_error(ErrorCode::InvalidArgument, where, "plan", "was started and not waited for");
  step_space_.fence("KokkosDDT: a plan's receive operation changes");  // (the last step's unpacks read the records)
  for (FusedBatch<ExecSpace>& b : combines_) b.set_op(op);
  op_ = op;
}

template <class ExecSpace>
template <class Done>
bool ExchangeEngine<ExecSpace>::wait_watching(const Done& done, const Deadline& deadline, const char* where) {
  return wait_until(
      [&] {
        if (done()) return true;
        if (watch_due()) check_step(where, steps_);
        return false;
      },
      deadline);
}

template <class ExecSpace>
bool ExchangeEngine<ExecSpace>::watch_due() {
  if (++watch_calls_ % 64 != 0) return false;  // (a wait loop calls it back to back: the clock every 64th time)
  const auto now = std::chrono::steady_clock::now();
  if (now < next_watch_) return false;
  next_watch_ = now + std::chrono::milliseconds(50);
  return true;
}

template <class ExecSpace>
void ExchangeEngine<ExecSpace>::fail(const char* where, const StepFailure& failure, std::int64_t step) {
  std::string text = "step " + std::to_string(step) + " (" + routes_text() + "): " + failure.what;
  if (failure.timed_out) text += " within " + std::to_string(timeout_) + " s (options.timeout or KOKKOSDDT_TIMEOUT_S)";
  for (std::size_t i = 0; i < failure.late.size(); ++i)
    text += (i == 0 ? "; nothing arrived from rank " : ", ") + std::to_string(failure.late[i]);
  const std::vector<int> ended = step_->ended_peers();
  for (std::size_t i = 0; i < ended.size(); ++i)
    text += (i == 0 ? "; the process of rank " : ", ") + std::to_string(ended[i]);
  if (!ended.empty()) text += ended.size() == 1 ? " has ended" : " have ended";
  failure_ = text;
  started_ = false;
  // (this process's streams and messages stop waiting for the late peers; its peers learn that it gave up)
  step_->abandon(true, timeout_, steps_);
  throw_error(ErrorCode::Timeout, where, "timeout", text);
}

template <class ExecSpace>
ExchangeEngine<ExecSpace>::~ExchangeEngine() {
  try {
    SetupClock clock("plan destroy");
    if (started_ && !sends_posted_) {  // (the step's sends go, as MPI's would: the peers wait for them)
      packs_.wait();
      step_->send(StreamRef{BackendTraits<ExecSpace>::native_stream(step_space_)});
    }
    clock.mark("sends");
    // The peers' waits on this process end (a step begun anywhere ends; its cells are undefined). Then the processes
    // settle together whether a step was left unmatched or failed anywhere, and if so give it up everywhere at once
    // (NCCL's abort is only complete once every process of the communicator aborts); with a deadline, this process's
    // own waits end too once it passed, so that neither the fence below nor a peer's destroy hangs.
    step_->abandon(false, timeout_, steps_);
    clock.mark("abandon");
    settle();
    clock.mark("settle");
    if constexpr (!BackendTraits<ExecSpace>::synchronous)
      if (timeout_ > 0 && !wait_until([&] { return BackendTraits<ExecSpace>::idle(step_space_); }, Deadline(timeout_)))
        step_->abandon(true, timeout_, steps_);
    clock.mark("idle");
    step_space_.fence("KokkosDDT: a plan released");  // (the unpacks read the transport's buffers)
    clock.mark("fence");
    // (each batch fences the instances it launched on before its memory goes back to the pools: while they live)
    packs_ = FusedBatch<ExecSpace>();
    writes_ = FusedBatch<ExecSpace>();
    unpacks_ = FusedBatch<ExecSpace>();
    combines_.clear();
    clock.mark("batches");
    writes_space_ = ExecSpace();  // (its instance goes while the step's stream, which it runs on, still lives)
    step_.reset();  // (after the fence: this process's writes into peers' cells are done before it unmaps them)
    clock.mark("step");
  } catch (...) {
  }
}

template <class ExecSpace>
void ExchangeEngine<ExecSpace>::settle() {
  if (!control_ || mpi_finalized()) return;
  const std::int64_t completed = started_ || !failure_.empty() ? -1 : steps_;
  // (the least completed, minus the most, and minus whether any process failed)
  std::int64_t bounds[3] = {completed, -completed, failure_.empty() ? 0 : -1};
  MPI_Request request = MPI_REQUEST_NULL;
  if (MPI_Iallreduce(MPI_IN_PLACE, bounds, 3, MPI_INT64_T, MPI_MIN, control_->comm(), &request) != MPI_SUCCESS) {
    control_->keep_until_finalize();
    return;
  }
  bool gone = false;  // (a peer's process ended: it will never come, deadline or not)
  auto settled = [&] {
    int done = 0;
    if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done != 0) return true;
    gone = watch_due() && !step_->ended_peers().empty();
    return gone;
  };
  const bool met = wait_until(settled, Deadline(timeout_)) && !gone;
  // (past the deadline the allreduce's request stays pending: MPI frees no request of a nonblocking collective)
  if (met && bounds[0] == -bounds[1] && bounds[2] == 0) return;
  control_->keep_until_finalize();
  // Given up on every process (NCCL's communicator aborted everywhere, not only where late). A process that did not
  // come to settle will not come to the step's own meeting at its destroy either (the peer links' barrier): waiting
  // for it there again would double the destroy.
  constexpr double kAlreadyLate = 1e-3;
  step_->abandon(true, met ? timeout_ : kAlreadyLate, steps_);
}

// Compiled once per backend in the library (mpi/src/eti/KokkosDDT_ETI_ExchangeEngine.cpp).
#define KOKKOSDDT_EXTERN_EXCHANGE_ENGINE(Space) extern template class ExchangeEngine<Space>;
KOKKOSDDT_ETI_SPACES(KOKKOSDDT_EXTERN_EXCHANGE_ENGINE)
#undef KOKKOSDDT_EXTERN_EXCHANGE_ENGINE

}  // namespace KokkosDDT::Impl
