// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Persistent halo exchange on an MPI Cartesian communicator. Fields are Kokkos Views of rank 1-4 (LayoutRight or
// LayoutLeft, any memory space the execution space reaches, value types may differ), all with the same extents, which
// include `ghost` layers on each side of every dimension. Dimension k of the Views is dimension k of the process grid.
//
//   auto plan = KokkosDDT::mpi::make_halo_plan(space, cart, {1, KokkosDDT::mpi::HaloNeighbors::Faces}, u, v);
//   for (step ...) { plan.start(space); /* interior kernels on space */ plan.wait(); /* boundary kernels */ }
//
// One message per neighbour carries every field (a struct of the fields' subarrays at absolute addresses, the WRF
// pattern). The packs of a step run as one fused launch and the unpacks as another. Everything else is built once by
// make_halo_plan: the datatypes, the kernel records (on the device), the staging buffers and the persistent messages of
// the plan's transport (KokkosDDT_Transports.hpp; MPI on its own duplicate of the communicator, or NCCL). A neighbour
// that is this process itself (a periodic dimension of one process) is served from a buffer in the execution space's
// memory, without a message.
//
// A step never blocks the host inside start(): start launches the packs (and, with MPI, posts the receives) and
// returns. With MPI the sends are posted once the packs' completion flags say so, by progress() or wait(); wait()
// returns when the messages are complete and the unpacks are enqueued. With NCCL the messages are enqueued on the
// step's instance between the packs and the unpacks, and neither call waits for anything. Either way the ghosts are
// current for work enqueued on the step's instance after wait(); wait_host() also waits for that (host code reads).
//
// make_halo_plan is collective over the communicator. It checks every rank's arguments and each neighbour pair's
// message sizes and type signatures, and throws the same Error on every rank when any of them is wrong (no rank is
// left waiting).

#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Constructors.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_FusedBatch.hpp"
#include "KokkosDDT_HaloGeometry.hpp"
#include "KokkosDDT_MPIAgreement.hpp"
#include "KokkosDDT_MPIError.hpp"
#include "KokkosDDT_MPIP2P.hpp"
#include "KokkosDDT_MPIStaging.hpp"
#include "KokkosDDT_MpiTransport.hpp"
#include "KokkosDDT_Primitives.hpp"
#include "KokkosDDT_Transports.hpp"

namespace KokkosDDT::mpi {

enum class HaloNeighbors {
  Faces,  // the 2 * rank neighbours that share a face
  All     // faces, edges and corners: the 3^rank - 1 neighbours
};

struct HaloOptions {
  int ghost = 1;  // ghost layers on each side, >= 1
  HaloNeighbors neighbors = HaloNeighbors::Faces;
  int tag = 0x4b44;                              // tags [tag, tag + 3^rank) are the plan's, on its own communicator
  TransportKind transport = TransportKind::MPI;  // NCCL: CUDA execution spaces, fields in device memory
};

template <class ExecSpace>
class HaloPlan {
 public:
  HaloPlan() = default;
  HaloPlan(HaloPlan&& other) noexcept { *this = std::move(other); }
  HaloPlan& operator=(HaloPlan&& other) noexcept {
    if (this == &other) return *this;
    release();
    space_ = std::move(other.space_);
    step_space_ = std::move(other.step_space_);
    control_ = std::move(other.control_);  // the moved-from plan owns nothing
    transport_ = std::move(other.transport_);
    transport_kind_ = other.transport_kind_;
    wire_ = std::move(other.wire_);
    peers_ = std::move(other.peers_);
    send_buffer_ = std::move(other.send_buffer_);
    recv_buffer_ = std::move(other.recv_buffer_);
    self_buffer_ = std::move(other.self_buffer_);
    packs_ = std::move(other.packs_);
    unpacks_ = std::move(other.unpacks_);
    types_ = std::move(other.types_);
    messages_ = other.messages_;
    send_bytes_ = other.send_bytes_;
    started_ = std::exchange(other.started_, false);
    sends_posted_ = other.sends_posted_;
    return *this;
  }
  HaloPlan(const HaloPlan&) = delete;
  HaloPlan& operator=(const HaloPlan&) = delete;
  ~HaloPlan() { release(); }

  // Launches the packs of every send region (one launch) and starts the messages; returns without waiting for the
  // execution space. Work enqueued on `space` after start() may overlap the messages.
  void start() { start(space_); }
  void start(const ExecSpace& space);
  // Posts the sends whose packs have finished (MPI; nothing to do for NCCL). Never blocks. start() and wait() call it;
  // call it between them to get the messages going earlier.
  void progress();
  // Completes the messages and enqueues the unpacks of every ghost region (one launch) on the step's instance: the
  // ghosts are current for work enqueued on it afterwards.
  void wait();
  // wait(), then waits for the unpacks too: the ghosts are current for the host.
  void wait_host() {
    wait();
    // (a synchronous host backend has finished the unpacks when their launch returns)
    if constexpr (!Impl::BackendTraits<ExecSpace>::synchronous)
      step_space_.fence("KokkosDDT::mpi::HaloPlan::wait_host");
  }
  void exchange() {
    start();
    wait_host();
  }

  int neighbors() const { return static_cast<int>(peers_.size()); }  // neighbours that exist (not MPI_PROC_NULL)
  int messages() const { return messages_; }                         // messages sent per step
  std::int64_t bytes_per_step() const { return send_bytes_; }        // bytes packed per step
  std::int64_t launches() const { return packs_.launches() + unpacks_.launches(); }
  MPI_Comm comm() const { return control_ ? control_->comm() : MPI_COMM_NULL; }  // the plan's duplicate
  TransportKind transport() const { return transport_kind_; }

  // (make_halo_plan's builder)
  struct Region {
    int peer;                   // rank of the neighbour, or MPI_PROC_NULL
    int direction;              // index of the direction d in {-1,0,1}^rank
    int opposite;               // index of -d
    Datatype send, recv;        // structs of the fields' subarrays at absolute addresses
    bool self_message = false;  // a neighbour that is this process, served through the transport (tests)
  };
  static HaloPlan build(const ExecSpace& space, MPI_Comm cart, const HaloOptions& options, std::vector<Region> regions,
                        int rank);

 private:
  void release() noexcept;
  bool stream_ordered() const { return transport_ && transport_->completion() == Impl::Completion::Stream; }

  ExecSpace space_, step_space_;                 // the plan's instance; the current (or last) step's
  std::shared_ptr<Impl::MpiTransport> control_;  // the plan's MPI duplicate: handshakes, and the MPI transport's data
  std::shared_ptr<Impl::Transport> transport_;   // what carries the data
  TransportKind transport_kind_ = TransportKind::MPI;
  std::unique_ptr<Impl::MessageSet> wire_;  // one persistent message per neighbour and direction
  std::vector<int> peers_;
  Impl::Staging send_buffer_, recv_buffer_, self_buffer_;
  Impl::FusedBatch<ExecSpace> packs_, unpacks_;
  std::vector<Datatype> types_;
  int messages_ = 0;
  std::int64_t send_bytes_ = 0;
  bool started_ = false, sends_posted_ = false;
};

}  // namespace KokkosDDT::mpi

namespace KokkosDDT::Impl {

// Throws on every rank of `comm` when `message` is non-empty on any, or when a value of `same` (an argument's name and
// a fingerprint of it) differs between the ranks: a collective verdict, so that no rank goes on into a collective call
// or a neighbour handshake that another rank has left.
inline void agree_or_throw(MPI_Comm comm, const std::string& message,
                           const std::vector<std::pair<const char*, std::int64_t>>& same = {}) {
  const char* where = "KokkosDDT::mpi::make_halo_plan";
  std::vector<std::int64_t> values;
  for (const auto& [name, value] : same) values.push_back(value);
  Agreement verdict(comm, !message.empty(), values, where);
  verdict.wait();
  for (std::size_t i = 0; i < same.size(); ++i)
    if (!verdict.agreed(i))
      throw_error(
          ErrorCode::InvalidArgument, where, same[i].first,
          std::string("differs between the ranks (") +
              (i == 0 ? "ghost width, neighbour set, tag or transport" : "number of fields or their value types") +
              "): every rank must pass the same");
  if (!verdict.any_error()) return;
  if (!message.empty()) throw_error(ErrorCode::InvalidArgument, where, "fields", message);
  throw_error(ErrorCode::InvalidArgument, where, "fields",
              "rank " + std::to_string(verdict.lowest_error_rank()) +
                  " found its arguments or a neighbour's inconsistent (its error says how)");
}

// What a plan needs of one field: where it is, its extents, its storage order and its element type.
struct HaloField {
  std::int64_t address = 0;
  std::array<std::int64_t, 4> extents{1, 1, 1, 1};
  Order order = Order::C;
  Datatype element;
  bool allocated = true;

  // The subarray holding, in every dimension k < rank, the range [lo[k], hi[k]).
  Datatype region(int rank, const std::array<std::int64_t, 4>& lo, const std::array<std::int64_t, 4>& hi) const {
    std::vector<std::int64_t> sizes(extents.begin(), extents.begin() + rank), subsizes(rank), starts(rank);
    for (int k = 0; k < rank; ++k) {
      subsizes[k] = hi[k] - lo[k];
      starts[k] = lo[k];
    }
    return subarray(sizes, subsizes, starts, order, element);
  }
};

template <class ExecSpace, class View>
HaloField halo_field(const View& v) {
  static_assert(Kokkos::is_view_v<View>, "KokkosDDT::mpi::make_halo_plan: fields must be Kokkos::Views");
  static_assert(View::rank() >= 1 && View::rank() <= 4, "KokkosDDT::mpi::make_halo_plan: fields have rank 1-4");
  using Layout = typename View::array_layout;
  static_assert(std::is_same_v<Layout, Kokkos::LayoutRight> || std::is_same_v<Layout, Kokkos::LayoutLeft>,
                "KokkosDDT::mpi::make_halo_plan: fields must be LayoutRight or LayoutLeft");
  require_accessible<ExecSpace, typename View::memory_space>("KokkosDDT::mpi::make_halo_plan", "fields");
  HaloField f;
  f.address = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(v.data()));
  for (int k = 0; k < static_cast<int>(View::rank()); ++k) f.extents[k] = static_cast<std::int64_t>(v.extent(k));
  f.order = std::is_same_v<Layout, Kokkos::LayoutLeft> ? Order::Fortran : Order::C;
  f.element = primitive<typename View::non_const_value_type>();
  f.allocated = v.data() != nullptr || v.size() == 0;
  return f;
}

}  // namespace KokkosDDT::Impl

namespace KokkosDDT::Impl {

// make_halo_plan's work, for fields of rank `rank` described by `fields`.
template <class ExecSpace>
mpi::HaloPlan<ExecSpace> make_halo_plan_of(const ExecSpace& space, MPI_Comm cart, const mpi::HaloOptions& options,
                                           int rank, const std::vector<HaloField>& fields) {
  using namespace KokkosDDT::mpi;
  const char* where = "KokkosDDT::mpi::make_halo_plan";
  // Local checks; every rank learns whether any failed before the first collective call that could hang.
  std::string error;
  int topology = MPI_UNDEFINED, ndims = 0;
  if (cart == MPI_COMM_NULL) {
    error = "the communicator is MPI_COMM_NULL";
  } else {
    mpi_check(MPI_Topo_test(cart, &topology), where, "MPI_Topo_test");
    if (topology != MPI_CART) {
      error = "the communicator has no Cartesian topology (MPI_Cart_create makes one)";
    } else {
      mpi_check(MPI_Cartdim_get(cart, &ndims), where, "MPI_Cartdim_get");
      if (ndims != rank)
        error = "the fields have rank " + std::to_string(rank) + " but the process grid has " + std::to_string(ndims) +
                " dimensions";
    }
  }
  if (cart == MPI_COMM_NULL || topology != MPI_CART)
    throw_error(ErrorCode::InvalidArgument, where, "cart", error);  // (no collective is possible)
  const int g = options.ghost;
  if (error.empty() && g < 1) error = "options.ghost is " + std::to_string(g) + "; must be >= 1";
  if (error.empty() && fields.empty()) error = "there are no fields";
  const std::array<std::int64_t, 4> n = fields.empty() ? std::array<std::int64_t, 4>{} : fields.front().extents;
  for (const HaloField& f : fields)
    if (error.empty() && f.extents != n) error = "the fields' extents differ";
  for (int k = 0; k < rank && error.empty(); ++k)
    if (n[k] < 3 * std::int64_t(g))
      error = "extent " + std::to_string(n[k]) + " of dimension " + std::to_string(k) +
              " is less than 3 x ghost: the interior cannot fill a ghost layer";
  for (const HaloField& f : fields)
    if (error.empty() && !f.allocated) error = "a field is unallocated";
  if (error.empty() && !has_transport(options.transport))
    error = std::string("options.transport is ") + name(options.transport) + ", which this build does not have";
  if (error.empty() && options.transport == TransportKind::NCCL &&
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible)
    error = "options.transport is NCCL, which moves device memory only: the execution space's memory is the host's";
  // What every rank must pass alike, settled before any neighbour handshake (whose messages depend on it).
  std::vector<std::int64_t> kinds{static_cast<std::int64_t>(fields.size())};
  for (const HaloField& f : fields) {
    const TypeSignature sig = f.element.signature();
    kinds.push_back(static_cast<std::int64_t>(sig.hash));
    kinds.push_back(sig.length);
  }
  agree_or_throw(cart, error,
                 {{"options", fingerprint({g, static_cast<std::int64_t>(options.neighbors), options.tag,
                                           static_cast<std::int64_t>(options.transport)})},
                  {"fields", fingerprint(kinds)}});

  int me = 0;
  HaloGrid grid;
  grid.rank = rank;
  mpi_check(MPI_Comm_rank(cart, &me), where, "MPI_Comm_rank");
  mpi_check(MPI_Cart_get(cart, rank, grid.dims.data(), grid.periods.data(), grid.coords.data()), where, "MPI_Cart_get");
  std::vector<typename HaloPlan<ExecSpace>::Region> regions;
  for (const HaloDirection& h : halo_directions(grid, n, g, options.neighbors == HaloNeighbors::All)) {
    int peer = MPI_PROC_NULL;
    if (h.exists) mpi_check(MPI_Cart_rank(cart, h.neighbor.data(), &peer), where, "MPI_Cart_rank");
    // All fields in one message: a struct of their regions at absolute addresses.
    const std::vector<std::int64_t> ones(fields.size(), 1);
    std::vector<std::int64_t> at;
    std::vector<Datatype> sends, recvs;
    for (const HaloField& f : fields) {
      at.push_back(f.address);
      sends.push_back(f.region(rank, h.send_lo, h.send_hi));
      recvs.push_back(f.region(rank, h.recv_lo, h.recv_hi));
    }
    Datatype send = struct_type(ones, at, sends);
    Datatype recv = struct_type(ones, at, recvs);
    send.commit();
    recv.commit();
    regions.push_back({peer, h.index, h.opposite, send, recv, false});
  }
  return HaloPlan<ExecSpace>::build(space, cart, options, std::move(regions), me);
}

}  // namespace KokkosDDT::Impl

namespace KokkosDDT::mpi {

// Fields given one by one (value types may differ).
template <class ExecSpace, class First, class... Rest, Impl::enable_if_exec<ExecSpace> = 0>
HaloPlan<ExecSpace> make_halo_plan(const ExecSpace& space, MPI_Comm cart, const HaloOptions& options,
                                   const First& first, const Rest&... rest) {
  static_assert(((Rest::rank() == First::rank()) && ...), "KokkosDDT::mpi::make_halo_plan: fields of one rank");
  return Impl::make_halo_plan_of(space, cart, options, static_cast<int>(First::rank()),
                                 {Impl::halo_field<ExecSpace>(first), Impl::halo_field<ExecSpace>(rest)...});
}

// Fields of one View type, as many as the vector holds.
template <class ExecSpace, class View, Impl::enable_if_exec<ExecSpace> = 0>
HaloPlan<ExecSpace> make_halo_plan(const ExecSpace& space, MPI_Comm cart, const HaloOptions& options,
                                   const std::vector<View>& fields) {
  std::vector<Impl::HaloField> described;
  for (const View& f : fields) described.push_back(Impl::halo_field<ExecSpace>(f));
  return Impl::make_halo_plan_of(space, cart, options, static_cast<int>(View::rank()), described);
}

// On the fields' default execution space.
template <class First, class... Rest, Impl::enable_if_view<First> = 0>
HaloPlan<typename First::execution_space> make_halo_plan(MPI_Comm cart, const HaloOptions& options, const First& first,
                                                         const Rest&... rest) {
  return make_halo_plan(typename First::execution_space(), cart, options, first, rest...);
}

// ------------------------------------------------------------------------------------------- HaloPlan

template <class ExecSpace>
HaloPlan<ExecSpace> HaloPlan<ExecSpace>::build(const ExecSpace& space, MPI_Comm cart, const HaloOptions& options,
                                               std::vector<Region> regions, int me) {
  const char* where = "KokkosDDT::mpi::make_halo_plan";
  HaloPlan plan;
  plan.space_ = plan.step_space_ = space;
  plan.control_ = Impl::MpiTransport::duplicate(cart, where);

  // Offsets of each region's message. Messages to other ranks go through the send and receive staging buffers, where
  // the transport reaches them; messages to this rank itself never meet a transport and stay in the execution space's
  // own memory (the self buffer: for a device, no round trip through pinned host memory). Tests set
  // KOKKOSDDT_HALO_SELF_MESSAGES=1 to send them through the transport like any other, so that one process exercises
  // every message path (NCCL cannot put two processes on one GPU).
  static const bool self_messages = [] {
    const char* env = std::getenv("KOKKOSDDT_HALO_SELF_MESSAGES");
    return env && std::string(env) == "1";
  }();
  for (Region& r : regions)
    if (self_messages && r.peer == me) r.self_message = true;
  auto local = [&](const Region& r) { return r.peer == me && !r.self_message; };
  const int directions = regions.empty() ? 0 : regions.front().direction + regions.front().opposite + 1;
  std::vector<std::int64_t> send_at(directions, -1), recv_at(directions, -1);
  std::int64_t send_total = 0, recv_total = 0, self_total = 0;
  auto aligned = [](std::int64_t bytes) { return (bytes + 15) / 16 * 16; };  // the kernels' widest word
  for (const Region& r : regions) {
    if (r.peer == MPI_PROC_NULL) continue;
    if (local(r)) {
      send_at[r.direction] = self_total;
      self_total += aligned(r.send.size());
    } else {
      send_at[r.direction] = send_total;
      send_total += aligned(r.send.size());
      recv_at[r.direction] = recv_total;
      recv_total += aligned(r.recv.size());
    }
  }

  // Each neighbour pair agrees on sizes and type signatures: what I send towards d is what my neighbour at d receives
  // from its side -d.
  std::vector<std::array<std::int64_t, 3>> mine, theirs(regions.size());
  std::vector<Impl::WireMessage> out, in;
  for (const Region& r : regions) {
    const TypeSignature sig = r.send.signature();
    mine.push_back({r.send.size(), static_cast<std::int64_t>(sig.hash), sig.length});
  }
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const Region& r = regions[i];
    if (r.peer == MPI_PROC_NULL || local(r)) continue;
    in.push_back({reinterpret_cast<char*>(theirs[i].data()), 24, r.peer, options.tag + r.opposite});
    out.push_back({reinterpret_cast<char*>(mine[i].data()), 24, r.peer, options.tag + r.direction});
  }
  {
    auto handshake = plan.control_->make_set(out, in, false, where);
    handshake->post_receives();
    handshake->post_sends();
    while (!handshake->test()) {
    }
  }
  std::string error;
  for (std::size_t i = 0; i < regions.size() && error.empty(); ++i) {
    const Region& r = regions[i];
    if (r.peer == MPI_PROC_NULL || local(r)) continue;  // this process's own regions match by construction
    const TypeSignature sig = r.recv.signature();
    const std::array<std::int64_t, 3> expected{r.recv.size(), static_cast<std::int64_t>(sig.hash), sig.length};
    const std::array<std::int64_t, 3>& got = theirs[i];
    if (got[0] != expected[0])
      error = "neighbour rank " + std::to_string(r.peer) + " sends " + std::to_string(got[0]) +
              " bytes where this rank's ghost region holds " + std::to_string(expected[0]) +
              " (field extents or ghost widths differ between the ranks)";
    else if (got[1] != expected[1] || got[2] != expected[2])
      error = "neighbour rank " + std::to_string(r.peer) +
              " sends another type signature (the fields' value types or their order differ between the ranks)";
  }
  Impl::agree_or_throw(plan.control_->comm(), error);

  // The data's transport, its buffers, the kernel records and the persistent messages.
  plan.transport_kind_ = options.transport;
  plan.transport_ =
      options.transport == TransportKind::MPI ? plan.control_ : Impl::library_transport(options.transport, cart, where);
  if (plan.transport_->reaches_host_memory()) {
    plan.send_buffer_ = Impl::take_staging<ExecSpace>(send_total);
    plan.recv_buffer_ = Impl::take_staging<ExecSpace>(recv_total);
  } else {  // (a device-only transport: make_halo_plan_of refused host execution spaces)
    plan.send_buffer_ = Impl::StagingPool<typename ExecSpace::memory_space>::take(send_total);
    plan.recv_buffer_ = Impl::StagingPool<typename ExecSpace::memory_space>::take(recv_total);
  }
  plan.self_buffer_ = Impl::StagingPool<typename ExecSpace::memory_space>::take(self_total);
  plan.packs_ = Impl::FusedBatch<ExecSpace>(space);
  plan.unpacks_ = Impl::FusedBatch<ExecSpace>(space);
  out.clear(), in.clear();
  for (const Region& r : regions) {
    if (r.peer == MPI_PROC_NULL) continue;
    plan.peers_.push_back(r.peer);
    plan.types_.push_back(r.send);
    plan.types_.push_back(r.recv);
    const std::int64_t bytes = r.send.size();
    char* packed = (local(r) ? plan.self_buffer_.data : plan.send_buffer_.data) + send_at[r.direction];
    plan.packs_.add_pack(bottom, 1, r.send, packed, bytes);
    plan.send_bytes_ += bytes;
    // A neighbour that is this process sends what it packed towards the opposite side.
    char* arrived =
        local(r) ? plan.self_buffer_.data + send_at[r.opposite] : plan.recv_buffer_.data + recv_at[r.direction];
    plan.unpacks_.add_unpack(arrived, r.recv.size(), bottom, 1, r.recv);
    if (local(r)) continue;
    out.push_back({packed, bytes, r.peer, options.tag + r.direction});
    in.push_back({arrived, r.recv.size(), r.peer, options.tag + r.opposite});
  }
  plan.messages_ = static_cast<int>(out.size());
  plan.wire_ = plan.transport_->make_set(std::move(out), std::move(in), true, where);
  return plan;
}

template <class ExecSpace>
void HaloPlan<ExecSpace>::start(const ExecSpace& space) {
  const char* where = "KokkosDDT::mpi::HaloPlan::start";
  if (!wire_) Impl::throw_error(ErrorCode::InvalidArgument, where, "plan", "is empty (moved from)");
  if (started_) Impl::throw_error(ErrorCode::InvalidArgument, where, "plan", "was started and not waited for");
  // The last step's unpacks read the buffers this step fills: ordered on one instance; on another, waited for.
  if (space.impl_instance_id() != step_space_.impl_instance_id())
    step_space_.fence("KokkosDDT::mpi::HaloPlan::start (the last step ran on another instance)");
  step_space_ = space;
  if (stream_ordered()) {
    packs_.launch_ordered(space);
    wire_->enqueue(Impl::StreamRef{Impl::BackendTraits<ExecSpace>::native_stream(space)});
    started_ = true;  // (not when the messages failed to enqueue: wait() then unpacks nothing)
    return;
  }
  unpacks_.wait();  // (completion flags: the last step's unpacks have read the receive buffer)
  wire_->post_receives();
  started_ = true;  // (from here on, wait() completes the receives, also after an error below)
  sends_posted_ = false;
  // Flags only where the host must learn of the packs' end: before it posts sends. Without messages (every neighbour
  // is this process, or none) the step is stream-ordered like NCCL's: no host wait at all.
  if (messages_ > 0)
    packs_.launch(space);
  else
    packs_.launch_ordered(space);
  progress();  // posted now when the packs ran at once (hosts); a device's flags are read later
}

template <class ExecSpace>
void HaloPlan<ExecSpace>::progress() {
  if (!started_ || sends_posted_ || stream_ordered()) return;
  if (messages_ > 0 && !packs_.test()) return;  // (host loads of the kernel-written flags; no stream synchronization)
  sends_posted_ = true;
  wire_->post_sends();
}

template <class ExecSpace>
void HaloPlan<ExecSpace>::wait() {
  if (!started_) return;
  if (stream_ordered()) {
    started_ = false;
    (void)wire_->test();  // an error the transport has seen so far throws here, before anything is unpacked
    unpacks_.launch_ordered(step_space_);
    return;
  }
  for (unsigned polls = 1; !sends_posted_; ++polls) {  // the packs' flags (a device's), polling the messages meanwhile
    progress();
    if (!sends_posted_) (void)wire_->test();
    if (polls % 1024 == 0) std::this_thread::yield();  // oversubscribed ranks let the ones they wait for run
  }
  wire_->wait();
  started_ = false;
  // On the packs' instance: ordered after them. Flagged when a receive buffer is read: the next step's receives may
  // land only once it is done.
  if (messages_ > 0)
    unpacks_.launch(step_space_);
  else
    unpacks_.launch_ordered(step_space_);
}

template <class ExecSpace>
void HaloPlan<ExecSpace>::release() noexcept {
  if (!wire_) return;
  try {
    // A started step: its sends are left to the transport (their buffer kept until exit), its receives cancelled.
    if (started_ && !stream_ordered()) {
      packs_.wait();
      if (!sends_posted_) wire_->post_sends();
      Impl::keep_until_exit(send_buffer_.owner);
    }
    wire_.reset();
    step_space_.fence("KokkosDDT::mpi::HaloPlan (released)");
  } catch (...) {
  }
  wire_.reset();
  started_ = false;
}

}  // namespace KokkosDDT::mpi
