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
// A transport with direct messages (the peer transport) routes some messages past all of this: the send becomes a
// mapped copy in the packs' launch, written straight into the receiver's cells, and the receive has no buffer, message
// or unpack (or, landed, the send a pack into the transport's landing buffer in the receiver's memory, and the receive
// an unpack from it in the unpacks' launch); their step is the transport's DirectLinks (counters begun at start,
// written by the packs' kernel, waited for at wait; the packs on the links' own stream when they have one).
//
// A message whose peer is this process itself is no message: it is a typed-to-typed copy from the send's cells into
// the receive's, one more request of the packs' launch (no buffer between, no unpack; a plan whose every peer is
// itself runs one launch per step). Sending it at start is MPI's rule kept: the receive's cells belong to the plan
// until wait. Tests set KOKKOSDDT_HALO_SELF_MESSAGES=1 to send such messages through the transport like any other, so
// that one process exercises every message path (NCCL cannot put two processes on one GPU).

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

// Why the transport `choice` cannot carry a plan's messages on ExecSpace, or "" if it can (plans check this on every
// rank and agree before any collective call).
template <class ExecSpace>
std::string transport_refusal(const mpi::TransportChoice& choice) {
  const std::string named = "options.transport is \"" + choice.name() + "\"";
  if (!mpi::has_transport(choice)) return named + ", which this build does not have";
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  if (host && !mpi::capabilities(choice).host_memory)
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
  std::int64_t launches() const { return packs_.launches() + unpacks_.launches(); }

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
  bool kernel_signals_ = false;         // the packs' kernel writes the links' "written" counters
  bool forked_ = false;                 // the packs run on the links' stream (pack_space_)
  ExecSpace pack_space_;
  Staging send_buffer_, recv_buffer_;
  FusedBatch<ExecSpace> packs_, unpacks_;
  std::vector<Datatype> types_;
  int messages_ = 0;
  std::int64_t send_bytes_ = 0;
  bool started_ = false, sends_posted_ = false;
};

template <class ExecSpace>
ExchangeEngine<ExecSpace>::ExchangeEngine(const ExecSpace& space, std::shared_ptr<Transport> transport,
                                          const std::vector<PlannedMessage>& sends,
                                          const std::vector<PlannedMessage>& recvs, int me, const char* where)
    : space_(space), step_space_(space), transport_(std::move(transport)), packs_(space), unpacks_(space) {
  // Offsets in the staging buffers (where the transport reaches them) of the transport's messages; a message to this
  // process itself is a copy and needs none.
  const std::vector<int> pair = local_pairs(sends, recvs, me);
  std::vector<bool> local(sends.size(), false);
  for (int i : pair)
    if (i >= 0) local[i] = true;
  const Direct direct = connect(sends, recvs, pair, local, where);
  auto aligned = [](std::int64_t bytes) { return (bytes + 15) / 16 * 16; };  // the kernels' widest word
  std::vector<std::int64_t> send_at(sends.size()), recv_at(recvs.size());
  std::int64_t send_total = 0, recv_total = 0;
  for (std::size_t i = 0; i < sends.size(); ++i) {
    send_at[i] = send_total;
    if (!local[i] && !direct.routes[i].direct) send_total += aligned(sends[i].bytes());
  }
  for (std::size_t j = 0; j < recvs.size(); ++j) {
    recv_at[j] = recv_total;
    if (pair[j] < 0 && !direct.receives[j].direct) recv_total += aligned(recvs[j].bytes());
  }
  using MemSpace = typename ExecSpace::memory_space;
  if (transport_->reaches_host_memory()) {
    send_buffer_ = take_staging<ExecSpace>(send_total);
    recv_buffer_ = take_staging<ExecSpace>(recv_total);
  } else {  // (a device-only transport: its clients refuse host execution spaces)
    send_buffer_ = StagingPool<MemSpace>::take(send_total);
    recv_buffer_ = StagingPool<MemSpace>::take(recv_total);
  }

  // The kernel records and the messages. Empty messages move nothing: both sides know it (their sizes were matched).
  std::vector<WireMessage> out, in;
  for (std::size_t i = 0; i < sends.size(); ++i) {
    const PlannedMessage& m = sends[i];
    if (m.peer == MPI_PROC_NULL) continue;
    types_.push_back(m.type);
    send_bytes_ += m.bytes();
    if (local[i]) continue;                                   // (copied with its receive below)
    if (const DirectRoute& r = direct.routes[i]; r.direct) {  // written into the receiver's memory: no message
      if (r.landed)
        add<Direction::Pack>(packs_, m, r.origin);
      else
        packs_.add_mapped_copy(m.buf, m.absolute, m.count, m.type, r.origin, r.count, r.type);
      continue;
    }
    char* packed = send_buffer_.data + send_at[i];
    add<Direction::Pack>(packs_, m, packed);
    if (m.bytes() > 0) out.push_back({packed, m.bytes(), m.peer, m.tag});
  }
  for (std::size_t j = 0; j < recvs.size(); ++j) {
    const PlannedMessage& m = recvs[j];
    if (m.peer == MPI_PROC_NULL) continue;
    types_.push_back(m.type);
    if (pair[j] >= 0) {
      add_copy(packs_, sends[pair[j]], m);
      continue;
    }
    if (const DirectReceive& d = direct.receives[j]; d.direct) {  // (the sender's kernel writes it)
      if (d.landing) add<Direction::Unpack>(unpacks_, m, d.landing);
      continue;
    }
    char* arrived = recv_buffer_.data + recv_at[j];
    add<Direction::Unpack>(unpacks_, m, arrived);
    if (m.bytes() > 0) in.push_back({arrived, m.bytes(), m.peer, m.tag});
  }
  messages_ = static_cast<int>(out.size());
  wire_ = transport_->make_set(std::move(out), std::move(in), true, where);
  // Device completion: the packs' kernel itself tells the downstream peers their cells are written (one stream
  // operation and one driver call fewer per step). KOKKOSDDT_DEVICE_COMPLETION=0 leaves it to the stream (to measure).
  if constexpr (!BackendTraits<ExecSpace>::synchronous) {
    const char* env = std::getenv("KOKKOSDDT_DEVICE_COMPLETION");
    if (links_ && packs_.size() > 0 && !(env && std::string(env) == "0")) {
      packs_.signal_after(links_->written_counters());
      kernel_signals_ = true;
    }
    // The links' own stream, if any: the packs run there, beside the caller's work between start and wait (backends
    // whose instances can run on a given stream).
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
  const ExecSpace& packs_on = forked_ ? pack_space_ : space;
  const StreamRef packing{BackendTraits<ExecSpace>::native_stream(packs_on)};
  if (links_) {  // (the packs' launch writes downstream peers' cells: once they are free)
    if (forked_) links_->fork(stream);
    links_->begin(packing);
    packs_.set_signal(links_->step());
  }
  if (stream_ordered()) {
    packs_.launch_ordered(packs_on);
    if (links_ && !kernel_signals_) links_->written(packing);
    if (forked_) links_->join(stream);  // (the messages after the packs)
    wire_->enqueue(stream);
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
  if (links_ && !kernel_signals_) links_->written(packing);
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
