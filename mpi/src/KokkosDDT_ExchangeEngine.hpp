// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The step of a persistent exchange (halo plans and exchange plans): a fixed set of typed sends and receives, built
// once into two fused batches (every pack in one launch, every unpack in another), staging buffers where the transport
// reaches them, and one persistent MessageSet.
//
//   start     the packs are launched; a host transport (MPI) posts the receives, a stream transport (NCCL) enqueues
//             every message after the packs (work enqueued on the instance before wait() may run beside them). Never
//             waits for the execution space.
//   progress  a host transport posts the sends once the packs' completion flags say so (host loads, no fence).
//   wait      the messages complete (a stream transport: the instance waits for them); the unpacks are enqueued on
//             the step's instance.
//
// One message per peer and step: a step's messages to one peer are packed one after the other into one region of the
// staging buffer and travel as one message of the transport (their receives, in the same order at the peer, are
// unpacked from one region), since over a network a step's latency is per message.
//
// A transport with direct messages (the peer transport) routes some messages past all of this: the send becomes a
// mapped copy, written straight into the receiver's cells, and the receive has no buffer, message or unpack (or,
// landed, the send a pack into the transport's landing buffer in the receiver's memory, and the receive an unpack from
// it in the unpacks' launch); their step is the transport's DirectLinks (counters begun at start, written by the
// writing kernel, waited for at wait; that kernel on the links' own stream when they have one). When a plan has both,
// the direct writes (and the copies to this process) are a launch of their own ("writes"), so that the messages never
// wait for the links' counters or for other copies: the packs of the messages go first, on the step's instance, and
// the messages start as soon as they are packed.
//
// A message whose peer is this process itself is no message: it is a typed-to-typed copy from the send's cells into
// the receive's, one more request of the packs' launch (no buffer between, no unpack; a plan whose every peer is
// itself runs one launch per step). Sending it at start is MPI's rule kept: the receive's cells belong to the plan
// until wait. Tests set KOKKOSDDT_HALO_SELF_MESSAGES=1 to send such messages through the transport like any other, so
// that one process exercises every message path (NCCL cannot put two processes on one GPU).

#include <algorithm>
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
#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_Datatype.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_FusedBatch.hpp"
#include "KokkosDDT_MPIStaging.hpp"
#include "KokkosDDT_Routes.hpp"
#include "KokkosDDT_Transport.hpp"
#include "KokkosDDT_Transports.hpp"
#include "KokkosDDT_Wait.hpp"

namespace KokkosDDT::Impl {

// One typed side of a message: `count` instances of `type` at `buf` (or at absolute addresses), to or from `peer` (a
// rank of the plan's communicator, or MPI_PROC_NULL: nothing moves) with `tag`.
struct PlannedMessage {
  char* buf = nullptr;
  bool absolute = false;  // buf is KokkosDDT::bottom: the type's displacements are addresses
  std::int64_t count = 0;
  Datatype type;
  int peer = 0;
  int tag = 0;
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
inline bool self_messages_through_transport() {
  static const bool through = [] {
    const char* env = std::getenv("KOKKOSDDT_HALO_SELF_MESSAGES");
    return env && std::string(env) == "1";
  }();
  return through;
}

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
  ExchangeEngine(const ExecSpace& space, std::shared_ptr<Transport> transport, const std::vector<PlannedMessage>& sends,
                 const std::vector<PlannedMessage>& recvs, int me, const char* where);
  ExchangeEngine(const ExchangeEngine&) = delete;
  ExchangeEngine& operator=(const ExchangeEngine&) = delete;
  // A started step: its sends are left to the transport (their buffer kept until exit), its receives cancelled.
  ~ExchangeEngine();

  void start(const ExecSpace& space, const char* where);
  void progress();
  void wait();
  void wait_host(const char* where) {
    wait();
    // (a synchronous host backend has finished the unpacks when their launch returns)
    if constexpr (!BackendTraits<ExecSpace>::synchronous) step_space_.fence(where);
  }

  const ExecSpace& space() const { return space_; }
  int messages() const { return messages_; }
  std::int64_t bytes_per_step() const { return send_bytes_; }
  std::int64_t launches() const { return packs_.launches() + writes_.launches() + unpacks_.launches(); }
  const std::vector<mpi::Route>& routes() const { return routes_; }

 private:
  bool stream_ordered() const { return transport_->completion() == Completion::Stream; }

  // Which messages the transport routes direct (capability `direct`: the sender's kernel writes the receiver's cells),
  // per send and per receive; the others are messages (or copies to this process itself).
  struct Direct {
    std::vector<DirectRoute> routes;
    std::vector<DirectReceive> receives;
  };
  Direct connect(const std::vector<PlannedMessage>& sends, const std::vector<PlannedMessage>& recvs,
                 const std::vector<int>& pair, const std::vector<bool>& local, const char* where);

  // Where the transport's messages (`wired`) lie in a staging buffer: one region per peer, in ascending peer order, its
  // messages one after the other in (tag, posting) order, each at a multiple of the kernels' widest word (16 bytes).
  // The peer lays out its side of the same messages alike (the k-th send with tag t is the k-th receive with tag t
  // there), so that one message per peer carries them all. `at[i]`: message i's offset (0 for the others).
  struct Layout {
    std::vector<std::int64_t> at;
    std::vector<WireMessage> wire;  // data: an offset until messages() adds the buffer's address
    std::int64_t total = 0;
    std::vector<WireMessage> messages(char* base) const {
      std::vector<WireMessage> m = wire;
      for (WireMessage& w : m) w.data = base + reinterpret_cast<std::intptr_t>(w.data);
      return m;
    }
  };
  static Layout lay_out(const std::vector<PlannedMessage>& ms, const std::vector<bool>& wired) {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < ms.size(); ++i)
      if (wired[i] && ms[i].peer != MPI_PROC_NULL && ms[i].bytes() > 0) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return ms[a].peer != ms[b].peer ? ms[a].peer < ms[b].peer : ms[a].tag < ms[b].tag;
    });
    Layout l;
    l.at.assign(ms.size(), 0);
    for (std::size_t i : order) {
      if (l.wire.empty() || l.wire.back().peer != ms[i].peer)  // (a peer's first message names the message's tag)
        l.wire.push_back({reinterpret_cast<char*>(static_cast<std::intptr_t>(l.total)), 0, ms[i].peer, ms[i].tag});
      l.at[i] = l.total;
      const std::int64_t padded = (ms[i].bytes() + 15) / 16 * 16;
      l.total += padded;
      l.wire.back().bytes += padded;
    }
    return l;
  }

  // Counts a message of `bytes` on `route` in routes_ (one line per direction, peer, route and reason).
  void count_route(bool send, int peer, const std::string& route, const char* why, std::int64_t bytes) {
    if (bytes == 0) return;  // (moves nothing: no route)
    for (mpi::Route& r : routes_)
      if (r.send == send && r.peer == peer && r.route == route && r.why == why) {
        ++r.messages;
        r.bytes += bytes;
        return;
      }
    routes_.push_back({send, peer, route, why, 1, bytes});
  }

  // The send `from` straight into the receive `to` (a message to this process itself).
  static void add_copy(FusedBatch<ExecSpace>& batch, const PlannedMessage& from, const PlannedMessage& to) {
    batch.add_copy(from.buf, from.absolute, from.count, from.type, to.buf, to.absolute, to.count, to.type);
  }

  template <Direction Dir>
  static void add(FusedBatch<ExecSpace>& batch, const PlannedMessage& m, char* packed) {
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
  std::unique_ptr<MessageSet> wire_;    // the persistent messages
  std::unique_ptr<DirectLinks> links_;  // the step of the direct ones (null: none)
  bool kernel_signals_ = false;         // the writing kernel writes the links' "written" counters
  bool forked_ = false;                 // the writing kernel runs on the links' stream (pack_space_)
  bool split_ = false;                  // direct writes in writes_, apart from the messages' packs (both exist)
  ExecSpace pack_space_;
  Staging send_buffer_, recv_buffer_;
  FusedBatch<ExecSpace> packs_, writes_, unpacks_;  // writes_: the direct writes when split_
  FusedBatch<ExecSpace>& direct_batch() { return split_ ? writes_ : packs_; }
  std::vector<Datatype> types_;
  std::vector<mpi::Route> routes_;
  int messages_ = 0;
  std::int64_t send_bytes_ = 0;
  bool started_ = false, sends_posted_ = false;
};

template <class ExecSpace>
ExchangeEngine<ExecSpace>::ExchangeEngine(const ExecSpace& space, std::shared_ptr<Transport> transport,
                                          const std::vector<PlannedMessage>& sends,
                                          const std::vector<PlannedMessage>& recvs, int me, const char* where)
    : space_(space),
      step_space_(space),
      transport_(std::move(transport)),
      packs_(space),
      writes_(space),
      unpacks_(space) {
  // Offsets in the staging buffers (where the transport reaches them) of the transport's messages; a message to this
  // process itself is a copy and needs none.
  const std::vector<int> pair = local_pairs(sends, recvs, me);
  std::vector<bool> local(sends.size(), false);
  for (int i : pair)
    if (i >= 0) local[i] = true;
  const Direct direct = connect(sends, recvs, pair, local, where);
  std::vector<bool> sent(sends.size()), received(recvs.size());  // the transport's messages
  for (std::size_t i = 0; i < sends.size(); ++i) sent[i] = !local[i] && !direct.routes[i].direct;
  for (std::size_t j = 0; j < recvs.size(); ++j) received[j] = pair[j] < 0 && !direct.receives[j].direct;
  const Layout out = lay_out(sends, sent), in = lay_out(recvs, received);
  // Where the transport reaches them (device memory, else pinned host memory: the transport says).
  const bool device = transport_->reaches_device_memory();
  send_buffer_ = take_staging<ExecSpace>(out.total, device);
  recv_buffer_ = take_staging<ExecSpace>(in.total, device);
  split_ = links_ && !links_->written_counters().empty() && (!out.wire.empty() || !in.wire.empty());

  // The kernel records. Empty messages move nothing: both sides know it (their sizes were matched).
  for (std::size_t i = 0; i < sends.size(); ++i) {
    const PlannedMessage& m = sends[i];
    if (m.peer == MPI_PROC_NULL) continue;
    types_.push_back(m.type);
    send_bytes_ += m.bytes();
    const DirectRoute& r = direct.routes[i];
    count_route(true, m.peer,
                local[i]    ? "self"
                : !r.direct ? transport_->messages_name()
                : r.landed  ? "peer (landed)"
                            : "peer",
                local[i] ? "" : r.why, m.bytes());
    if (local[i]) continue;  // (copied with its receive below)
    if (r.direct) {          // written into the receiver's memory: no message
      if (r.landed)
        add<Direction::Pack>(direct_batch(), m, r.origin);
      else
        direct_batch().add_mapped_copy(m.buf, m.absolute, m.count, m.type, r.origin, r.count, r.type);
      continue;
    }
    add<Direction::Pack>(packs_, m, send_buffer_.data + out.at[i]);
  }
  for (std::size_t j = 0; j < recvs.size(); ++j) {
    const PlannedMessage& m = recvs[j];
    if (m.peer == MPI_PROC_NULL) continue;
    types_.push_back(m.type);
    const DirectReceive& d = direct.receives[j];
    count_route(false, m.peer,
                pair[j] >= 0 ? "self"
                : !d.direct  ? transport_->messages_name()
                : d.landing  ? "peer (landed)"
                             : "peer",
                pair[j] >= 0 ? "" : d.why, m.bytes());
    if (pair[j] >= 0) {
      add_copy(direct_batch(), sends[pair[j]], m);  // (split_: beside the direct writes, off the messages' way)
      continue;
    }
    if (d.direct) {  // (the sender's kernel writes it)
      if (d.landing) add<Direction::Unpack>(unpacks_, m, d.landing);
      continue;
    }
    add<Direction::Unpack>(unpacks_, m, recv_buffer_.data + in.at[j]);
  }
  messages_ = static_cast<int>(out.wire.size());
  wire_ = transport_->make_set(out.messages(send_buffer_.data), in.messages(recv_buffer_.data), true, where);
  // Device completion: the packs' kernel itself tells the downstream peers their cells are written (one stream
  // operation and one driver call fewer per step). KOKKOSDDT_DEVICE_COMPLETION=0 leaves it to the stream (to measure).
  if constexpr (!BackendTraits<ExecSpace>::synchronous) {
    const char* env = std::getenv("KOKKOSDDT_DEVICE_COMPLETION");
    if (links_ && !links_->written_counters().empty() && direct_batch().size() > 0 &&
        !(env && std::string(env) == "0")) {
      direct_batch().signal_after(links_->written_counters());
      kernel_signals_ = true;
    }
    // The links' own stream, if any: the writing kernel runs there, beside the caller's work between start and wait
    // (backends whose instances can run on a given stream).
    if constexpr (runs_on_streams<BackendTraits<ExecSpace>>::value) {
      if (links_ && links_->own_stream().native) {
        pack_space_ = BackendTraits<ExecSpace>::instance_on(links_->own_stream().native);
        forked_ = true;
      }
    }
  }
}

template <class ExecSpace>
typename ExchangeEngine<ExecSpace>::Direct ExchangeEngine<ExecSpace>::connect(const std::vector<PlannedMessage>& sends,
                                                                              const std::vector<PlannedMessage>& recvs,
                                                                              const std::vector<int>& pair,
                                                                              const std::vector<bool>& local,
                                                                              const char* where) {
  // The transport's messages (not copies to this process itself, not empty, not to MPI_PROC_NULL) are offered.
  auto end_of = [&](const PlannedMessage& m) {
    return TypedEnd{m.buf, m.absolute, m.count, &m.type.impl_committed(where), m.peer, m.tag};
  };
  auto offered = [](const PlannedMessage& m) { return m.peer != MPI_PROC_NULL && m.bytes() > 0; };
  std::vector<TypedEnd> out, in;
  std::vector<std::size_t> out_at, in_at;
  for (std::size_t i = 0; i < sends.size(); ++i)
    if (!local[i] && offered(sends[i])) {
      out.push_back(end_of(sends[i]));
      out_at.push_back(i);
    }
  for (std::size_t j = 0; j < recvs.size(); ++j)
    if (pair[j] < 0 && offered(recvs[j])) {
      in.push_back(end_of(recvs[j]));
      in_at.push_back(j);
    }
  std::vector<DirectRoute> routes;
  std::vector<DirectReceive> receives;
  links_ = transport_->connect(out, in, routes, receives, where);
  Direct d{std::vector<DirectRoute>(sends.size()), std::vector<DirectReceive>(recvs.size())};
  for (std::size_t k = 0; k < out_at.size(); ++k) d.routes[out_at[k]] = std::move(routes[k]);
  for (std::size_t k = 0; k < in_at.size(); ++k) d.receives[in_at[k]] = receives[k];
  return d;
}

template <class ExecSpace>
void ExchangeEngine<ExecSpace>::start(const ExecSpace& space, const char* where) {
  if (started_) throw_error(ErrorCode::InvalidArgument, where, "plan", "was started and not waited for");
  // The last step's unpacks read the buffers this step fills: ordered on one instance; on another, waited for.
  if (space.impl_instance_id() != step_space_.impl_instance_id())
    step_space_.fence("KokkosDDT: a plan's last step ran on another instance");
  step_space_ = space;
  const StreamRef stream{BackendTraits<ExecSpace>::native_stream(space)};
  // The direct writes run on the links' stream when they have one; the messages' packs with them, or (split_) first,
  // on the step's instance, so that the messages wait for nothing but their packs.
  const ExecSpace& writes_on = forked_ ? pack_space_ : space;
  const ExecSpace& packs_on = split_ ? space : writes_on;
  const StreamRef writing{BackendTraits<ExecSpace>::native_stream(writes_on)};
  if (links_) {  // (the writing launch writes downstream peers' cells: once they are free)
    if (forked_) links_->fork(stream);
    links_->begin(writing);
    direct_batch().set_signal(links_->step());
  }
  auto launch_writes = [&] {  // (split_: their own launch)
    writes_.launch_ordered(writes_on);
    if (!kernel_signals_) links_->written(writing);
  };
  if (stream_ordered()) {
    packs_.launch_ordered(packs_on);
    if (split_) {
      wire_->enqueue(stream);
      launch_writes();  // (joined in wait)
    } else {
      if (links_ && !kernel_signals_) links_->written(writing);
      if (forked_) links_->join(stream);  // (the messages after the packs)
      wire_->enqueue(stream);
    }
    started_ = true;  // (not when the messages failed to enqueue: wait() then unpacks nothing)
    return;
  }
  unpacks_.wait();  // (completion flags: the last step's unpacks have read the receive buffer)
  wire_->post_receives();
  started_ = true;  // (from here on, wait() completes the receives, also after an error below)
  sends_posted_ = false;
  // Flags only where the host must learn of the packs' end: before it posts sends. Without messages (every peer is
  // this process, or none) the step is stream-ordered like NCCL's: no host wait at all.
  if (messages_ > 0)
    packs_.launch(packs_on);
  else
    packs_.launch_ordered(packs_on);
  if (split_)
    launch_writes();
  else if (links_ && !kernel_signals_)
    links_->written(writing);
  progress();  // posted now when the packs ran at once (hosts); a device's flags are read later
}

template <class ExecSpace>
void ExchangeEngine<ExecSpace>::progress() {
  if (!started_ || sends_posted_ || stream_ordered()) return;
  if (messages_ > 0 && !packs_.test()) return;  // (host loads of the kernel-written flags; no stream synchronization)
  sends_posted_ = true;
  wire_->post_sends();
}

template <class ExecSpace>
void ExchangeEngine<ExecSpace>::wait() {
  if (!started_) return;
  if (stream_ordered()) {
    started_ = false;
    (void)wire_->test();  // an error the transport has seen so far throws here, before anything is unpacked
    const StreamRef stream{BackendTraits<ExecSpace>::native_stream(step_space_)};
    wire_->join(stream);
    if (split_ && forked_) links_->join(stream);  // (this process's direct writes)
    if (links_) links_->arrived(stream);
    unpacks_.launch_ordered(step_space_);
    return;
  }
  wait_until([&] {  // the packs' flags (a device's), polling the messages meanwhile
    progress();
    if (!sends_posted_) (void)wire_->test();
    return sends_posted_;
  });
  wire_->wait();
  started_ = false;
  if (links_) {
    const StreamRef stream{BackendTraits<ExecSpace>::native_stream(step_space_)};
    if (forked_) links_->join(stream);  // (this process's own copies and packs)
    links_->arrived(stream);
  }
  // On the packs' instance: ordered after them. Flagged when a receive buffer is read: the next step's receives may
  // land only once it is done.
  if (messages_ > 0)
    unpacks_.launch(step_space_);
  else
    unpacks_.launch_ordered(step_space_);
}

template <class ExecSpace>
ExchangeEngine<ExecSpace>::~ExchangeEngine() {
  try {
    if (started_ && !stream_ordered()) {
      packs_.wait();
      if (!sends_posted_) wire_->post_sends();
      keep_until_exit(send_buffer_.owner);
    }
    wire_.reset();
    step_space_.fence("KokkosDDT: a plan released");
    pack_space_ = ExecSpace();  // (its instance goes while the links' stream, which it runs on, still lives)
    links_.reset();  // (after the fence: this process's writes into peers' cells are done before it unmaps them)
  } catch (...) {
  }
}

// Compiled once per backend in the library (mpi/src/eti/KokkosDDT_ETI_ExchangeEngine.cpp).
#define KOKKOSDDT_EXTERN_EXCHANGE_ENGINE(Space) extern template class ExchangeEngine<Space>;
KOKKOSDDT_ETI_SPACES(KOKKOSDDT_EXTERN_EXCHANGE_ENGINE)
#undef KOKKOSDDT_EXTERN_EXCHANGE_ENGINE

}  // namespace KokkosDDT::Impl
