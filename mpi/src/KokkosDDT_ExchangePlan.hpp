// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Persistent typed point-to-point exchanges: any set of typed sends and receives (unstructured halos, index lists,
// particle moves, a user's own neighbourhood), matched once and then run as often as needed, on either transport.
//
//   KokkosDDT::mpi::ExchangePlan<Kokkos::Cuda> plan(space, comm, {"nccl"});
//   plan.send(u, 1, boundary_to_right, right, 0);   // (View or pointer, count, Datatype, peer, tag)
//   plan.recv(u, 1, ghosts_from_left, left, 0);
//   plan.commit();                                   // collective over comm
//   for (step ...) { plan.start(space); /* interior kernels on space */ plan.wait(); /* boundary kernels */ }
//
// This is typed p2p for stream-ordered transports. NCCL completes messages on a stream and cannot match a lone send
// with a receive posted later on the same stream (its sends and receives progress together only inside one
// ncclGroupStart/ncclGroupEnd): so a step's messages go as one group, which is what a plan is. With NCCL, start()
// enqueues the packs (one launch), every message (one group) and nothing else on the instance, and wait() enqueues the
// unpacks (one launch): the host waits for nothing. With MPI, start() posts the receives and launches the packs,
// progress()/wait() post the sends once the packs' completion flags say so, and wait() enqueues the unpacks after the
// messages complete. Either way the received data are current for work enqueued on the step's instance after wait();
// wait_host() also waits for that.
//
// Matching (commit): per pair of processes, the sends of one and the receives of the other in (tag, posting order) must
// agree in number, tag, size and type signature; a mismatch throws the same Error on every process (none is left
// waiting). Wildcards (MPI_ANY_SOURCE, MPI_ANY_TAG) are refused: a plan's messages are matched before they move.
// MPI_PROC_NULL moves nothing. A message to this process itself is copied on the execution space, without a transport.
// The buffers of a plan are fixed; their contents may change between steps. Sends may not overlap receives.
//
// Errors: send()/recv() check their arguments at once (uncommitted type, negative count, null or unreachable buffer,
// a peer outside the communicator, a wildcard) and leave the plan as it was; commit() throws on every process or on
// none; NCCL's errors are Error(Transport) (KokkosDDT_NcclTransport.hpp).

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Communicators.hpp"
#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_Datatype.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_ExchangeEngine.hpp"
#include "KokkosDDT_ExchangeMatch.hpp"
#include "KokkosDDT_MPIAgreement.hpp"
#include "KokkosDDT_SetupClock.hpp"
#include "KokkosDDT_SetupDeadline.hpp"
#include "KokkosDDT_MPIError.hpp"
#include "KokkosDDT_MpiTransport.hpp"
#include "KokkosDDT_Transfer.hpp"
#include "KokkosDDT_Transports.hpp"

namespace KokkosDDT::mpi {

struct ExchangeOptions {
  TransportChoice transport = "auto";  // each message its best route; or "mpi", "nccl" (nccl_from_raw), "peer"
  double timeout = 0;  // seconds a wait may take, then Error(Timeout) (0: KOKKOSDDT_TIMEOUT_S if set, else none)
  bool graph = false;  // as HaloOptions::graph (alike on every process)
};

template <class ExecSpace>
class ExchangePlan {
  static constexpr const char* kSend = "KokkosDDT::mpi::ExchangePlan::send";
  static constexpr const char* kRecv = "KokkosDDT::mpi::ExchangePlan::recv";

 public:
  ExchangePlan() = default;  // empty: only assignment
  // A plan without messages over the processes of `comm`, stepped on `space` by default. Not collective.
  ExchangePlan(const ExecSpace& space, MPI_Comm comm, const ExchangeOptions& options = {})
      : space_(space), comm_(comm), options_(options) {
    if (comm == MPI_COMM_NULL)
      Impl::throw_error(ErrorCode::InvalidArgument, "KokkosDDT::mpi::ExchangePlan", "comm", "is MPI_COMM_NULL");
    Impl::mpi_check(MPI_Comm_size(comm, &size_), "KokkosDDT::mpi::ExchangePlan", "MPI_Comm_size");
    tag_ub_ = Impl::tag_upper_bound(comm, "KokkosDDT::mpi::ExchangePlan");
    valid_ = true;
  }
  // On the default instance of ExecSpace.
  explicit ExchangePlan(MPI_Comm comm, const ExchangeOptions& options = {})
      : ExchangePlan(ExecSpace(), comm, options) {}
  ExchangePlan(ExchangePlan&& other) noexcept { *this = std::move(other); }
  ExchangePlan& operator=(ExchangePlan&& other) noexcept {  // the moved-from plan is empty
    engine_ = std::move(other.engine_);  // (first: the engine this plan had may still use its control)
    control_ = std::move(other.control_);
    space_ = std::move(other.space_);
    comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
    options_ = other.options_;
    size_ = other.size_;
    tag_ub_ = other.tag_ub_;
    valid_ = std::exchange(other.valid_, false);
    sends_ = std::move(other.sends_);
    recvs_ = std::move(other.recvs_);
    return *this;
  }
  ExchangePlan(const ExchangePlan&) = delete;
  ExchangePlan& operator=(const ExchangePlan&) = delete;
  ~ExchangePlan() = default;  // a started step: its sends are left to the transport, its receives cancelled

  // A send of `count` instances of `type` at `buf` (a View: from view.data(), inside the View) to `dest` with `tag`.
  void send(const void* buf, std::int64_t count, const Datatype& type, int dest, int tag) {
    add(true, sends_, const_cast<void*>(buf), false, count, type, dest, tag);
  }
  void send(Bottom, std::int64_t count, const Datatype& type, int dest, int tag) {
    add(true, sends_, nullptr, true, count, type, dest, tag);
  }
  template <class View, Impl::enable_if_view<View> = 0>
  void send(const View& buf, std::int64_t count, const Datatype& type, int dest, int tag) {
    add(true, sends_, Impl::check_typed_view<ExecSpace>(kSend, buf, "buf", type, count), false, count, type, dest, tag);
  }
  // A receive into `buf` from `source` with `tag`.
  void recv(void* buf, std::int64_t count, const Datatype& type, int source, int tag) {
    add(false, recvs_, buf, false, count, type, source, tag);
  }
  void recv(Bottom, std::int64_t count, const Datatype& type, int source, int tag) {
    add(false, recvs_, nullptr, true, count, type, source, tag);
  }
  template <class View, Impl::enable_if_view<View> = 0>
  void recv(const View& buf, std::int64_t count, const Datatype& type, int source, int tag) {
    add(false, recvs_, Impl::check_typed_view<ExecSpace>(kRecv, buf, "buf", type, count), false, count, type, source,
        tag);
  }

  // A receive that combines what arrives into the cells with `op` (KokkosDDT::Op; Replace is recv()): every element of
  // `type` one primitive type for which `op` has a meaning (else InvalidArgument naming `op`, or Unsupported naming
  // `type`, the plan as it was). Combining receives run after the replacing ones; those whose cells' bounds overlap an
  // earlier combining receive's run after it (a phase of the launch per such layer), so that cells several receives
  // reach combine in posting order, bitwise alike from step to step.
  template <class Buf>
  void recv(const Buf& buf, std::int64_t count, const Datatype& type, int source, int tag, Op op) {
    Impl::require_op_applies(op, type, kRecv);
    if (!Impl::single_primitive(type).single)
      Impl::throw_error(ErrorCode::Unsupported, kRecv, "type",
                        "has elements of several primitive types: a combining receive combines one");
    recv(buf, count, type, source, tag);
    recvs_.back().op = op;
    recvs_.back().order = 0;  // (layered at commit)
  }

  // Matches every message with its peer's and builds the step (kernel records, staging buffers, persistent messages).
  // Collective over comm.
  void commit();
  bool committed() const { return engine_ != nullptr; }

  // Launches the packs (one launch) and starts the messages; returns without waiting for the execution space.
  void start() { start(space_); }
  void start(const ExecSpace& space) { engine("KokkosDDT::mpi::ExchangePlan::start").start(space, kStart); }
  // Posts the sends whose packs have finished (MPI; nothing for NCCL). Never blocks.
  void progress() {
    if (engine_) engine_->progress();
  }
  // Completes the messages and enqueues the unpacks (one launch) on the step's instance.
  void wait() {
    if (engine_) engine_->wait("KokkosDDT::mpi::ExchangePlan::wait");
  }
  // wait(), then waits for the unpacks too: the received data are current for the host.
  void wait_host() {
    if (engine_) engine_->wait_host("KokkosDDT::mpi::ExchangePlan::wait_host");
  }
  void exchange() {
    start();
    wait_host();
  }

  int sends() const { return static_cast<int>(sends_.size()); }
  int receives() const { return static_cast<int>(recvs_.size()); }
  int messages() const { return engine_ ? engine_->messages() : 0; }  // messages of the transport per step
  std::int64_t bytes_per_step() const {
    return engine_ ? engine_->bytes_per_step() : 0;
  }  // bytes sent per step (to itself too)
  std::int64_t launches() const { return engine_ ? engine_->launches() : 0; }
  MPI_Comm comm() const { return comm_; }  // the user's (the plan's traffic runs on a duplicate)
  const TransportChoice& transport() const { return options_.transport; }  // as the options named it
  // How each message travels (a line per direction, peer and route; KokkosDDT_Routes.hpp), and as text. Committed
  // plans only (empty before).
  std::vector<Route> routes() const { return engine_ ? engine_->routes() : std::vector<Route>{}; }
  std::string describe() const {
    const bool eager = engine_ && engine_->graph_wanted() && !engine_->graphed();
    return mpi::describe(routes()) + (eager ? "steps: not replayed from a graph (" + engine_->why_eager() + ")\n" : "");
  }
  // Whether steps replay from a graph (options.graph, where they can).
  bool graph_steps() const { return engine_ && engine_->graphed(); }

 private:
  static constexpr const char* kStart = "KokkosDDT::mpi::ExchangePlan::start";

  void add(bool sending, std::vector<Impl::PlannedMessage>& to, void* buf, bool absolute, std::int64_t count,
           const Datatype& type, int peer, int tag);
  void layer_combining_receives();
  Impl::ExchangeEngine<ExecSpace>& engine(const char* where) {
    if (!engine_)
      Impl::throw_error(ErrorCode::InvalidArgument, where, "plan",
                        valid_ ? "is not committed (commit() builds it)" : "is empty (default-made or moved from)");
    return *engine_;
  }

  ExecSpace space_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  ExchangeOptions options_;
  int size_ = 0;
  int tag_ub_ = 0;  // MPI_TAG_UB of comm_
  bool valid_ = false;
  std::vector<Impl::PlannedMessage> sends_, recvs_;
  // (declared before the engine, destroyed after it: the engine's messages may run on it)
  std::shared_ptr<Impl::MpiTransport> control_;  // the plan's duplicate: matching, and the MPI transport's data
  std::unique_ptr<Impl::ExchangeEngine<ExecSpace>> engine_;
};

template <class ExecSpace>
void ExchangePlan<ExecSpace>::add(bool sending, std::vector<Impl::PlannedMessage>& to, void* buf, bool absolute,
                                  std::int64_t count, const Datatype& type, int peer, int tag) {
  const char* where = sending ? kSend : kRecv;
  const char* peer_name = sending ? "dest" : "source";
  if (!valid_) Impl::throw_error(ErrorCode::InvalidArgument, where, "plan", "is empty (default-made or moved from)");
  if (engine_) Impl::throw_error(ErrorCode::InvalidArgument, where, "plan", "is committed: its messages are fixed");
  const Impl::CommittedType& c = type.impl_committed(where);
  Impl::require_nonnegative(count, where, "count");
  const std::int64_t bytes = Impl::checked_mul(count, c.size, where, "count");
  if (peer == MPI_ANY_SOURCE || tag == MPI_ANY_TAG)
    Impl::throw_error(ErrorCode::InvalidArgument, where, peer == MPI_ANY_SOURCE ? peer_name : "tag",
                      "is a wildcard: a plan's messages are matched when it is committed, before anything moves");
  if (peer != MPI_PROC_NULL && (peer < 0 || peer >= size_))
    Impl::throw_error(ErrorCode::InvalidArgument, where, peer_name,
                      "is " + std::to_string(peer) + "; the communicator has " + std::to_string(size_) + " ranks");
  if (tag < 0 || tag > tag_ub_)
    Impl::throw_error(ErrorCode::InvalidArgument, where, "tag",
                      "is " + std::to_string(tag) + "; must be in [0, " + std::to_string(tag_ub_) + "] (MPI_TAG_UB)");
  if (bytes > 0 && !absolute && buf == nullptr)
    Impl::throw_error(
        ErrorCode::NullPointer, where, "buf",
        "is null but " + std::to_string(bytes) + " bytes move (use KokkosDDT::bottom for absolute addresses)");
  if (bytes > 0 && !absolute) Impl::check_pointer<ExecSpace>(static_cast<char*>(buf) + c.data_lb, where, "buf");
  to.push_back({static_cast<char*>(buf), absolute, count, type, peer, tag});
}

template <class ExecSpace>
void ExchangePlan<ExecSpace>::commit() {
  const char* where = "KokkosDDT::mpi::ExchangePlan::commit";
  if (!valid_) Impl::throw_error(ErrorCode::InvalidArgument, where, "plan", "is empty (default-made or moved from)");
  if (engine_) Impl::throw_error(ErrorCode::InvalidArgument, where, "plan", "is committed already");
  // What every process must have alike, settled before the matching (whose messages depend on it).
  std::string error = Impl::transport_refusal<ExecSpace>(options_.transport);
  if (error.empty() && !(options_.timeout >= 0))
    error = "options.timeout is " + std::to_string(options_.timeout) + "; must be >= 0 seconds (0: none)";
  // Every wait for the other processes, until the plan is made, within the plan's timeout (none: as long as it takes).
  const Impl::SetupDeadline deadline(Impl::timeout_seconds(options_.timeout));
  Impl::SetupClock clock("exchange plan");
  auto control = Impl::MpiTransport::duplicate(comm_, where);  // (the plan's control plane: all its setup runs there)
  clock.mark("control plane");
  {
    Impl::Agreement verdict(control->comm(), !error.empty(),
                            {Impl::fingerprint({Impl::fingerprint(options_.transport), options_.graph ? 1 : 0})},
                            where);
    verdict.wait();
    if (!verdict.agreed(0))
      Impl::throw_error(ErrorCode::InvalidArgument, where, "options",
                        "differs between the ranks (the transport): every rank must pass the same");
    Impl::throw_if_any(verdict, error, where, "options");
  }
  clock.mark("agreement");
  const int me = control->rank();
  layer_combining_receives();
  Impl::throw_unless_agreed(control->comm(), Impl::match_messages(*control, sends_, recvs_, me, "", where), where,
                            "messages");
  clock.mark("match");
  std::shared_ptr<Impl::Transport> transport =
      Impl::library_transport(Impl::resolved<ExecSpace>(options_.transport), control, where);
  clock.mark("transport");
  auto engine =
      std::make_unique<Impl::ExchangeEngine<ExecSpace>>(space_, std::move(transport), control, sends_, recvs_, me,
                                                        where, Impl::timeout_seconds(options_.timeout), options_.graph);
  control_ = std::move(control);
  engine_ = std::move(engine);
}

// Each combining receive one layer after the latest earlier one whose cells' bounds overlap its own (its order): the
// engine runs an order per phase of its combining launch, ascending, so that overlapping receives combine in posting
// order.
template <class ExecSpace>
void ExchangePlan<ExecSpace>::layer_combining_receives() {
  struct Bounds {
    std::uintptr_t lo, hi;
    int order;
  };
  std::vector<Bounds> earlier;
  for (Impl::PlannedMessage& m : recvs_) {
    if (m.order < 0 || m.bytes() == 0 || m.peer == MPI_PROC_NULL) continue;
    const auto [lo, hi] = Impl::typed_footprint(m.type.impl_committed(kRecv), m.count, kRecv);
    const std::uintptr_t base = m.absolute ? 0 : reinterpret_cast<std::uintptr_t>(m.buf);
    const Bounds b{base + static_cast<std::uintptr_t>(lo), base + static_cast<std::uintptr_t>(hi), 0};
    int order = 0;
    for (const Bounds& e : earlier)
      if (e.lo < b.hi && b.lo < e.hi) order = std::max(order, e.order + 1);
    m.order = order;
    earlier.push_back({b.lo, b.hi, order});
  }
}

// Compiled once per backend in the library (mpi/src/eti/KokkosDDT_ETI_Plans.cpp).
#define KOKKOSDDT_EXTERN_EXCHANGE_PLAN(Space) extern template class ExchangePlan<Space>;
KOKKOSDDT_ETI_SPACES(KOKKOSDDT_EXTERN_EXCHANGE_PLAN)
#undef KOKKOSDDT_EXTERN_EXCHANGE_PLAN

}  // namespace KokkosDDT::mpi
