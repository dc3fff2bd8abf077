// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Persistent halo exchange on an MPI Cartesian communicator. Fields are Kokkos Views of rank 1-4 (LayoutRight or
// LayoutLeft, any memory space the execution space reaches, value types may differ), all with the same extents, which
// include `ghost` layers on each side of every dimension. Dimension k of the Views is dimension k of the process grid.
// A field may have one dimension more than the grid: per-cell components (degrees of freedom), carried whole; by
// default the last dimension of a LayoutRight View, the first of a LayoutLeft one (each cell's components together);
// HaloOptions::components says otherwise (a Cabana grid array's (i, j, k, dof) View is LayoutLeft on GPUs: Last). Their
// number may differ between fields.
//
//   auto plan = KokkosDDT::mpi::make_halo_plan(space, cart, {1, KokkosDDT::mpi::HaloNeighbors::Faces}, u, v);
//   for (step ...) { plan.start(space); /* interior kernels on space */ plan.wait(); /* boundary kernels */ }
//
// The other direction (options.scatter): every ghost region goes back to the neighbour that owns its cells, which
// combines it into them with an operation (Op::Sum: particle-to-grid deposits, assembled residuals; Cabana's
// halo->scatter). Owned cells that several neighbours' ghosts map onto (edges, corners) get every contribution, in a
// fixed order (by the set of dimensions a neighbour lies along; HaloGeometry's scatter_order), bitwise alike from run
// to run; ghosts keep their values.
//
//   plan.start_scatter(space, KokkosDDT::Op::Sum); plan.wait();
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
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_Constructors.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_ExchangeEngine.hpp"
#include "KokkosDDT_ExchangeMatch.hpp"
#include "KokkosDDT_HaloGeometry.hpp"
#include "KokkosDDT_HaloTypesMemo.hpp"
#include "KokkosDDT_MPIAgreement.hpp"
#include "KokkosDDT_SetupClock.hpp"
#include "KokkosDDT_SetupDeadline.hpp"
#include "KokkosDDT_MPIError.hpp"
#include "KokkosDDT_MPIP2P.hpp"
#include "KokkosDDT_MPIStaging.hpp"
#include "KokkosDDT_MpiTransport.hpp"
#include "KokkosDDT_Op.hpp"
#include "KokkosDDT_Primitives.hpp"
#include "KokkosDDT_Transports.hpp"

namespace KokkosDDT::mpi {

enum class HaloNeighbors {
  Faces,  // the 2 * rank neighbours that share a face
  All     // faces, edges and corners: the 3^rank - 1 neighbours
};

// Which dimension of a field with one dimension more than the grid holds its per-cell components.
enum class HaloComponents {
  ByLayout,  // the last of a LayoutRight View, the first of a LayoutLeft one (each cell's components together)
  Last,      // the last, whatever the layout: (i, j, k, dof), as Cabana's grid arrays are on every backend
  First      // the first, whatever the layout: (dof, i, j, k)
};

struct HaloOptions {
  int ghost = 1;  // ghost layers on each side, >= 1
  HaloNeighbors neighbors = HaloNeighbors::Faces;
  // The plan's messages carry tags [tag, tag + 3^rank) on its own duplicate of the communicator (no user message can
  // match them): a tag that puts them below 0 or above MPI_TAG_UB is refused on every rank, naming "options".
  int tag = 0x4b44;
  TransportChoice transport = "auto";  // each message its best route; or "mpi", "nccl" (nccl_from_raw), "peer"
  double timeout = 0;  // seconds a wait may take, then Error(Timeout) (0: KOKKOSDDT_TIMEOUT_S if set, else none)
  // Each step replayed from a CUDA graph of the first (start through wait, recorded at the first start): start() is
  // one launch and runs the step whole; wait() enqueues nothing. Every step then enqueues the same work, so that the
  // caller may also capture steps itself (over the peer transport only then: its counters are reset each step, a
  // little slower). Where steps cannot replay (no graphs on the execution space; MPI messages, which the host posts),
  // they run as without it: graph_steps() says which, describe() why. Alike on every rank. (Gathers only.)
  bool graph = false;
  // The plan scatters too (start_scatter): its reverse messages are made with it (one per field and neighbour, for
  // transports that pack; a peer route lands them in the owner's memory and the owner combines). Alike on every rank.
  bool scatter = false;
  // Fields with one dimension more than the grid: which one holds the components (a wrong choice is no error where
  // the extents allow it, and moves the wrong cells: say Last for Cabana's arrays, LayoutLeft on GPUs). Alike on every
  // rank. (Last, so that the options' earlier members keep their places in aggregate initialization.)
  HaloComponents components = HaloComponents::ByLayout;
};

template <class ExecSpace>
class HaloPlan {
 public:
  HaloPlan() = default;
  HaloPlan(HaloPlan&&) noexcept = default;  // the moved-from plan owns nothing
  HaloPlan& operator=(HaloPlan&&) noexcept = default;
  HaloPlan(const HaloPlan&) = delete;
  HaloPlan& operator=(const HaloPlan&) = delete;
  // A started step: its sends are left to the transport (their buffer kept until exit), its receives cancelled.
  ~HaloPlan() = default;

  // Launches the packs of every send region (one launch) and starts the messages; returns without waiting for the
  // execution space. Work enqueued on `space` after start() may overlap the messages.
  void start() { start(engine().space()); }
  void start(const ExecSpace& space) { begin(engine(), space, "KokkosDDT::mpi::HaloPlan::start"); }
  // The reverse step (options.scatter): packs every ghost region and sends it to its owner; wait() then combines what
  // arrived into the owned cells with `op` (Replace, Sum, Prod, Min, Max; Band, Bor, Bxor for integer fields), in
  // one launch. Where every extent holds 4 ghost widths (on every process), the owned cells are cut into zones that
  // each neighbour covers whole or not at all (HaloGeometry's scatter_pieces), and each zone's contributions run in
  // one chain of the same teams (FusedBatch::begin_chain), in scatter order; otherwise the launch runs a phase per
  // scatter order (HaloGeometry's scatter_order: up to 2^rank - 1). An `op` that has no meaning
  // for a field's value type (Min on a complex, Bxor on a double) throws InvalidArgument naming `op`, nothing started;
  // so does a plan made without options.scatter ("options"). A change of `op` from the last scatter waits for it.
  void start_scatter(Op op) { start_scatter(engine().space(), op); }
  void start_scatter(const ExecSpace& space, Op op) {
    const char* where = "KokkosDDT::mpi::HaloPlan::start_scatter";
    if (!scatter_)
      Impl::throw_error(ErrorCode::InvalidArgument, where, "options",
                        engine_ ? "the plan was made without options.scatter" : "the plan is empty (moved from)");
    if (active()->started()) Impl::throw_error(ErrorCode::InvalidArgument, where, "plan", kStarted);
    scatter_->set_receive_op(op, where);
    begin(*scatter_, space, where);
  }
  // Posts the sends whose packs have finished (MPI; nothing to do for NCCL). Never blocks. start() and wait() call it;
  // call it between them to get the messages going earlier.
  void progress() {
    if (active()) active()->progress();
  }
  // Completes the messages of the step started last (start or start_scatter) and enqueues its unpacks on the step's
  // instance (a gather: every ghost region in one launch; a scatter: the owned cells combined): they are current for
  // work enqueued on it afterwards.
  void wait() {
    if (active()) active()->wait("KokkosDDT::mpi::HaloPlan::wait");
  }
  // wait(), then waits for the unpacks too: the cells are current for the host.
  void wait_host() {
    if (active()) active()->wait_host("KokkosDDT::mpi::HaloPlan::wait_host");
  }
  void exchange() {
    start();
    wait_host();
  }
  void scatter(Op op) {
    start_scatter(op);
    wait_host();
  }

  bool scatters() const { return scatter_ != nullptr; }               // made with options.scatter
  int neighbors() const { return static_cast<int>(peers_.size()); }   // neighbours that exist (not MPI_PROC_NULL)
  int messages() const { return engine_ ? engine_->messages() : 0; }  // messages sent per step
  std::int64_t bytes_per_step() const {
    return engine_ ? engine_->bytes_per_step() : 0;
  }                                                                            // bytes sent per step (to itself too)
  std::int64_t launches() const { return engine_ ? engine_->launches() : 0; }  // by gathers
  std::int64_t scatter_launches() const { return scatter_ ? scatter_->launches() : 0; }
  // Chains of the scatter's pieces (0: the scatter runs by orders, in phases; DESIGN.md, "Chains instead of orders").
  std::int64_t scatter_chains() const { return scatter_ ? scatter_->chains() : 0; }
  // Of them, those combined in one pass (devices; DESIGN.md, "Chains instead of orders").
  std::int64_t scatter_one_pass_chains() const { return scatter_ ? scatter_->one_pass_chains() : 0; }
  MPI_Comm comm() const { return control_ ? control_->comm() : MPI_COMM_NULL; }  // the plan's duplicate
  const TransportChoice& transport() const { return transport_; }                // as the options named it
  // How each message travels (a line per direction, neighbour and route; KokkosDDT_Routes.hpp), and as text.
  std::vector<Route> routes() const { return engine_ ? engine_->routes() : std::vector<Route>{}; }
  std::vector<Route> scatter_routes() const { return scatter_ ? scatter_->routes() : std::vector<Route>{}; }
  std::string describe() const {
    const bool eager = engine_ && engine_->graph_wanted() && !engine_->graphed();
    return mpi::describe(routes()) +
           (eager ? "steps: not replayed from a graph (" + engine_->why_eager() + ")\n" : "") +
           (scatter_ ? "scatter:\n" + mpi::describe(scatter_->routes()) : "");
  }
  // Whether steps replay from a graph (options.graph, where they can).
  bool graph_steps() const { return engine_ && engine_->graphed(); }

  // (make_halo_plan's builder)
  struct Region {
    int peer;             // rank of the neighbour, or MPI_PROC_NULL
    int direction;        // index of the direction d in {-1,0,1}^rank
    int opposite;         // index of -d
    Datatype send, recv;  // structs of the fields' subarrays at absolute addresses
    bool first = true;    // the direction's first message (several: a message per field)
    int order = -1;       // a scatter's region: its owned cells' scatter order (HaloGeometry's scatter_order)
    // A scatter in pieces (HaloGeometry's scatter_pieces): each of its zones' cells, alike for every neighbour.
    std::vector<Impl::PlannedMessage::Piece> send_pieces = {};
    std::vector<Impl::PlannedMessage::Piece> recv_pieces = {};
  };
  // `scatters`: the reverse regions (options.scatter), a message per group of fields alike (scatter_groups), send the
  // ghosts and recv the owned cells.
  static HaloPlan build(const ExecSpace& space, std::shared_ptr<Impl::MpiTransport> control, const HaloOptions& options,
                        std::vector<Region> regions, std::vector<Region> scatters, int rank);

 private:
  Impl::ExchangeEngine<ExecSpace>& engine() {
    if (!engine_)
      Impl::throw_error(ErrorCode::InvalidArgument, "KokkosDDT::mpi::HaloPlan::start", "plan", "is empty (moved from)");
    return *engine_;
  }
  static constexpr const char* kStarted = "has a step started and not waited for (start or start_scatter)";
  void begin(Impl::ExchangeEngine<ExecSpace>& e, const ExecSpace& space, const char* where) {
    if (active() != &e && active()->started()) Impl::throw_error(ErrorCode::InvalidArgument, where, "plan", kStarted);
    e.start(space, where);
    scattering_ = &e == scatter_.get();
  }
  Impl::ExchangeEngine<ExecSpace>* active() const { return scattering_ ? scatter_.get() : engine_.get(); }
  // One direction's sends and receives (a gather's, or with `scatter` a scatter's), and the engine that runs them.
  using Messages = std::pair<std::vector<Impl::PlannedMessage>, std::vector<Impl::PlannedMessage>>;
  static Messages messages_of(const HaloOptions& options, const std::vector<Region>& regions, bool scatter);
  static std::unique_ptr<Impl::ExchangeEngine<ExecSpace>> engine_of(const ExecSpace& space,
                                                                    std::shared_ptr<Impl::MpiTransport> control,
                                                                    const HaloOptions& options,
                                                                    const Messages& messages, bool scatter, int me,
                                                                    const char* where);

  // (declared first, destroyed last: the engine's messages may run on it)
  std::shared_ptr<Impl::MpiTransport> control_;  // the plan's MPI duplicate: handshakes, and the MPI transport's data
  TransportChoice transport_;
  std::vector<int> peers_;
  std::unique_ptr<Impl::ExchangeEngine<ExecSpace>> engine_;
  std::unique_ptr<Impl::ExchangeEngine<ExecSpace>> scatter_;  // options.scatter's
  bool scattering_ = false;                                   // the step started last is a scatter
};

}  // namespace KokkosDDT::mpi

namespace KokkosDDT::Impl {

// Throws on every rank of `comm` when `message` is non-empty on any (naming `argument`), or when a value of `same` (an
// argument's name and a fingerprint of it) differs between the ranks: a collective verdict, so that no rank goes on
// into a collective call or a neighbour handshake that another rank has left. Returns the largest of each of `widest`
// over the ranks (values that may differ, settled in the same reduction).
inline std::vector<std::int64_t> agree_or_throw(MPI_Comm comm, const std::string& message, const char* argument,
                                                const std::vector<std::pair<const char*, std::int64_t>>& same = {},
                                                const std::vector<std::int64_t>& widest = {}) {
  const char* where = "KokkosDDT::mpi::make_halo_plan";
  std::vector<std::int64_t> values;
  for (const auto& [name, value] : same) values.push_back(value);
  values.insert(values.end(), widest.begin(), widest.end());
  Agreement verdict(comm, !message.empty(), values, where);
  verdict.wait();
  for (std::size_t i = 0; i < same.size(); ++i)
    if (!verdict.agreed(i))
      throw_error(ErrorCode::InvalidArgument, where, same[i].first,
                  std::string("differs between the ranks (") +
                      (i == 0 ? "ghost width, neighbour set, tag, transport or components"
                              : "number of fields or their value types") +
                      "): every rank must pass the same");
  throw_if_any(verdict, message, where, argument);
  std::vector<std::int64_t> largest;
  for (std::size_t i = 0; i < widest.size(); ++i) largest.push_back(verdict.max(same.size() + i));
  return largest;
}

// What a plan needs of one field: where it is, its extents, its storage order and its element type.
struct HaloField {
  std::int64_t address = 0;
  int rank = 1;                                        // the View's (the grid's, or one more: components)
  std::array<std::int64_t, 5> extents{1, 1, 1, 1, 1};  // the View's
  Order order = Order::C;
  Datatype element;
  bool allocated = true;
  bool components_first = false;  // (with one dimension more than the grid: HaloOptions::components)

  // Where the Cartesian dimensions of a field on a grid of `dims` dimensions start among the View's (1: its first
  // dimension is its components), and its extents along them.
  int first_cartesian(int dims) const { return rank > dims && components_first ? 1 : 0; }
  std::array<std::int64_t, 4> cartesian(int dims) const {
    std::array<std::int64_t, 4> n{1, 1, 1, 1};
    for (int k = 0; k < dims; ++k) n[k] = extents[first_cartesian(dims) + k];
    return n;
  }

  // The subarray holding, in every Cartesian dimension k < dims, the range [lo[k], hi[k]), and every component.
  Datatype region(int dims, const std::array<std::int64_t, 4>& lo, const std::array<std::int64_t, 4>& hi) const {
    std::vector<std::int64_t> sizes(extents.begin(), extents.begin() + rank), subsizes = sizes, starts(rank, 0);
    const int first = first_cartesian(dims);
    for (int k = 0; k < dims; ++k) {
      subsizes[first + k] = hi[k] - lo[k];
      starts[first + k] = lo[k];
    }
    return subarray(sizes, subsizes, starts, order, element);
  }
  // The bytes from the field's first cell to cell `lo` (its first component).
  std::int64_t offset_of(int dims, const std::array<std::int64_t, 4>& lo) const {
    std::array<std::int64_t, 5> stride{};
    std::int64_t s = element.extent();
    for (int j = 0; j < rank; ++j) {  // (from the fastest dimension)
      const int k = order == Order::C ? rank - 1 - j : j;
      stride[k] = s;
      s *= extents[k];
    }
    std::int64_t at = 0;
    for (int k = 0; k < dims; ++k) at += lo[k] * stride[first_cartesian(dims) + k];
    return at;
  }
};

template <class ExecSpace, class View>
HaloField halo_field(const View& v, mpi::HaloComponents components) {
  static_assert(Kokkos::is_view_v<View>, "KokkosDDT::mpi::make_halo_plan: fields must be Kokkos::Views");
  static_assert(View::rank() >= 1 && View::rank() <= 5,
                "KokkosDDT::mpi::make_halo_plan: fields have rank 1-4 (and one more for components)");
  using Layout = typename View::array_layout;
  static_assert(std::is_same_v<Layout, Kokkos::LayoutRight> || std::is_same_v<Layout, Kokkos::LayoutLeft>,
                "KokkosDDT::mpi::make_halo_plan: fields must be LayoutRight or LayoutLeft");
  require_accessible<ExecSpace, typename View::memory_space>("KokkosDDT::mpi::make_halo_plan", "fields");
  HaloField f;
  f.address = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(v.data()));
  f.rank = static_cast<int>(View::rank());
  for (int k = 0; k < f.rank; ++k) f.extents[k] = static_cast<std::int64_t>(v.extent(k));
  f.order = std::is_same_v<Layout, Kokkos::LayoutLeft> ? Order::Fortran : Order::C;
  f.components_first = components == mpi::HaloComponents::First ||
                       (components == mpi::HaloComponents::ByLayout && f.order == Order::Fortran);
  f.element = primitive<typename View::non_const_value_type>();
  f.allocated = v.data() != nullptr || v.size() == 0;
  return f;
}

}  // namespace KokkosDDT::Impl

namespace KokkosDDT::Impl {

// make_halo_plan's work, for fields of rank `rank` described by `fields`.
// A scatter's fields in groups that one combining record can take whole: the same element type and the same extents,
// order and components (then a region of each is the same type at its own field's address). A group's message is a
// struct of its fields' regions, so that a scatter has as many records as a gather for fields of one kind, not a
// record per field.
inline std::vector<std::vector<const HaloField*>> scatter_groups(const std::vector<HaloField>& fields) {
  std::vector<std::vector<const HaloField*>> groups;
  for (const HaloField& f : fields) {
    auto alike = [&](const std::vector<const HaloField*>& group) {
      const HaloField& o = *group.front();
      return o.rank == f.rank && o.extents == f.extents && o.order == f.order &&
             o.components_first == f.components_first && o.element.signature() == f.element.signature() &&
             o.element.extent() == f.element.extent();
    };
    auto same = std::find_if(groups.begin(), groups.end(), alike);
    if (same == groups.end())
      groups.push_back({&f});
    else
      same->push_back(&f);
  }
  return groups;
}

// The region [lo, hi) of every field of `group`: a struct of their subarrays at absolute addresses.
inline Datatype group_region(const std::vector<const HaloField*>& group, int dims,
                             const std::array<std::int64_t, 4>& lo, const std::array<std::int64_t, 4>& hi) {
  std::vector<std::int64_t> ones(group.size(), 1), at;
  std::vector<Datatype> types;
  for (const HaloField* f : group) {
    at.push_back(f->address);
    types.push_back(f->region(dims, lo, hi));
  }
  Datatype whole = struct_type(ones, at, types);
  whole.commit();
  return whole;
}

// One side of a scatter's message in pieces (scatter_pieces): the region [lo, hi) of a group's fields as its pieces,
// each the subarrays of its extents in every field of the group at its first cell in the first field (one type per
// extent, kept in `shapes`: the same cells are the same type at the same place, which the engine chains by), and the
// struct of them the transport sees.
inline std::pair<Datatype, std::vector<PlannedMessage::Piece>> scatter_side(
    const std::vector<const HaloField*>& group, std::map<std::array<std::int64_t, 4>, Datatype>& shapes,
    const HaloDirection& h, int dims, const std::array<std::int64_t, 4>& lo, const std::array<std::int64_t, 4>& hi,
    const std::array<std::int64_t, 4>& n, std::int64_t g) {
  const HaloField& f = *group.front();
  std::vector<PlannedMessage::Piece> pieces;
  std::vector<std::int64_t> ones, at;
  std::vector<Datatype> types;
  std::int64_t offset = 0;
  for (const HaloBox& box : scatter_pieces(h, dims, lo, hi, n, g)) {
    std::array<std::int64_t, 4> extent{1, 1, 1, 1};
    for (int k = 0; k < dims; ++k) extent[k] = box.hi[k] - box.lo[k];
    Datatype& type = shapes[extent];
    if (type.is_null()) {
      type = f.region(dims, {0, 0, 0, 0}, extent);
      if (group.size() > 1) {  // (the other fields' at their distance from the first's)
        std::vector<std::int64_t> fields_at;
        for (const HaloField* o : group) fields_at.push_back(o->address - f.address);
        type = struct_type(std::vector<std::int64_t>(group.size(), 1), fields_at,
                           std::vector<Datatype>(group.size(), type));
      }
      type.commit();
    }
    const std::int64_t address = f.address + f.offset_of(dims, box.lo);
    pieces.push_back({type, reinterpret_cast<char*>(static_cast<std::uintptr_t>(address)), offset});
    offset += type.size();
    ones.push_back(1);
    at.push_back(address);
    types.push_back(type);
  }
  Datatype whole = struct_type(ones, at, types);
  whole.commit();
  return {whole, std::move(pieces)};
}

// The messages of a halo plan over `fields` (make_halo_plan_of's): to each neighbour (`peers`, per direction) the
// regions of the gather (all fields in one message, or one per field where `per_field`), and where `scatter` those
// of the scatter (a message per group of fields alike; in pieces where `pieced`).
template <class Region>
std::pair<std::vector<Region>, std::vector<Region>> halo_types(const std::vector<HaloField>& fields,
                                                               const std::vector<HaloDirection>& directions,
                                                               const std::vector<int>& peers, int dims,
                                                               const std::array<std::int64_t, 4>& n, std::int64_t g,
                                                               bool scatter, bool pieced, bool per_field) {
  std::vector<Region> regions, scatters;
  const std::vector<std::vector<const HaloField*>> groups = scatter_groups(fields);
  std::vector<std::map<std::array<std::int64_t, 4>, Datatype>> shapes(groups.size());  // (scatter_side's, per group)
  for (std::size_t d = 0; d < directions.size(); ++d) {
    const HaloDirection& h = directions[d];
    const int peer = peers[d];
    // All fields in one message: a struct of their regions at absolute addresses; or a message per field (same tag,
    // in field order on both sides, so they pair as MPI orders them; the engine still sends those that do not go
    // direct as one message per neighbour).
    for (std::size_t first = 0; first < fields.size(); first += per_field ? 1 : fields.size()) {
      const std::size_t last = per_field ? first + 1 : fields.size();
      const std::vector<std::int64_t> ones(last - first, 1);
      std::vector<std::int64_t> at;
      std::vector<Datatype> sends, recvs;
      for (std::size_t i = first; i < last; ++i) {
        at.push_back(fields[i].address);
        sends.push_back(fields[i].region(dims, h.send_lo, h.send_hi));
        recvs.push_back(fields[i].region(dims, h.recv_lo, h.recv_hi));
      }
      Datatype send = struct_type(ones, at, sends);
      Datatype recv = struct_type(ones, at, recvs);
      send.commit();
      recv.commit();
      regions.push_back({peer, h.index, h.opposite, send, recv, first == 0});
    }
    // A scatter's messages: a group of fields each (scatter_groups: a combining launch combines elements of one type),
    // the ghosts sent and the owned cells combined; the transport still sends a neighbour's as one message where it
    // packs them.
    if (!scatter) continue;
    const int order = scatter_order(h, dims, n, g);
    for (std::size_t i = 0; i < groups.size(); ++i) {
      if (pieced) {
        auto [ghosts, ghost_pieces] = scatter_side(groups[i], shapes[i], h, dims, h.recv_lo, h.recv_hi, n, g);
        auto [owned, owned_pieces] = scatter_side(groups[i], shapes[i], h, dims, h.send_lo, h.send_hi, n, g);
        scatters.push_back({peer, h.index, h.opposite, ghosts, owned, i == 0, order, std::move(ghost_pieces),
                            std::move(owned_pieces)});
      } else if (groups[i].size() == fields.size() && !per_field) {  // (the gather's types, the other way round)
        const auto& r = regions.back();
        scatters.push_back({peer, h.index, h.opposite, r.recv, r.send, true, order});
      } else {
        scatters.push_back({peer, h.index, h.opposite, group_region(groups[i], dims, h.recv_lo, h.recv_hi),
                            group_region(groups[i], dims, h.send_lo, h.send_hi), i == 0, order});
      }
    }
  }
  return {std::move(regions), std::move(scatters)};
}

// What halo_types' result follows from, as HaloTypesMemo's key: the grid and this process's place and neighbours in
// it, the options that shape messages, the agreed choices, and each field by address, extents, order and element.
inline std::vector<std::int64_t> halo_types_key(const std::vector<HaloField>& fields, const HaloGrid& grid,
                                                const std::vector<int>& peers, const mpi::HaloOptions& options,
                                                bool pieced, bool per_field) {
  std::vector<std::int64_t> key{grid.rank,       options.ghost, static_cast<std::int64_t>(options.neighbors),
                                options.scatter, pieced,        per_field};
  for (int k = 0; k < grid.rank; ++k) key.insert(key.end(), {grid.dims[k], grid.periods[k], grid.coords[k]});
  key.insert(key.end(), peers.begin(), peers.end());
  for (const HaloField& f : fields) {
    const TypeSignature sig = f.element.signature();
    key.insert(key.end(), {f.address, f.rank, static_cast<std::int64_t>(f.order), f.components_first,
                           static_cast<std::int64_t>(sig.hash), sig.length, f.element.extent(), f.element.size()});
    key.insert(key.end(), f.extents.begin(), f.extents.begin() + f.rank);
  }
  return key;
}

template <class ExecSpace>
mpi::HaloPlan<ExecSpace> make_halo_plan_of(const ExecSpace& space, MPI_Comm cart, const mpi::HaloOptions& options,
                                           const std::vector<HaloField>& fields) {
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
      for (const HaloField& f : fields)
        if (error.empty() && ndims != f.rank && ndims + 1 != f.rank)
          error = "a field has rank " + std::to_string(f.rank) + " but the process grid has " + std::to_string(ndims) +
                  " dimensions (a field may have one more: per-cell components)";
    }
  }
  if (cart == MPI_COMM_NULL || topology != MPI_CART)
    throw_error(ErrorCode::InvalidArgument, where, "cart", error);  // (no collective is possible)
  const char* culprit = "fields";  // (the argument an error names: "options" for the options' own errors)
  auto option_error = [&](std::string text) {
    if (!error.empty()) return;
    error = std::move(text);
    culprit = "options";
  };
  const int g = options.ghost;
  if (g < 1) option_error("options.ghost is " + std::to_string(g) + "; must be >= 1");
  // The plan's messages carry tags [tag, tag + 3^rank) on its own duplicate of cart, whose MPI_TAG_UB is cart's.
  std::int64_t tags = 1;
  for (int k = 0; k < ndims; ++k) tags *= 3;
  const std::int64_t tag_ub = tag_upper_bound(cart, where);
  if (options.tag < 0 || options.tag + tags - 1 > tag_ub)
    option_error("options.tag is " + std::to_string(options.tag) + "; the plan's tags [tag, tag + " +
                 std::to_string(tags) + ") must lie in [0, " + std::to_string(tag_ub) +
                 "] (MPI_TAG_UB): tag must be in [0, " + std::to_string(tag_ub - tags + 1) + "]");
  if (options.components != HaloComponents::ByLayout && options.components != HaloComponents::Last &&
      options.components != HaloComponents::First)
    option_error("options.components is " + std::to_string(static_cast<int>(options.components)) +
                 "; must be HaloComponents::ByLayout, Last or First");
  if (!(options.timeout >= 0))
    option_error("options.timeout is " + std::to_string(options.timeout) + "; must be >= 0 seconds (0: none)");
  if (error.empty() && fields.empty()) error = "there are no fields";
  const int dims = ndims;  // (the grid's: the fields' Cartesian dimensions)
  const std::array<std::int64_t, 4> n = fields.empty() ? std::array<std::int64_t, 4>{} : fields.front().cartesian(dims);
  for (const HaloField& f : fields)
    if (error.empty() && f.cartesian(dims) != n) error = "the fields' extents differ (along the process grid)";
  for (int k = 0; k < dims && error.empty(); ++k)
    if (n[k] < 3 * std::int64_t(g))
      error = "extent " + std::to_string(n[k]) + " of dimension " + std::to_string(k) +
              " is less than 3 x ghost: the interior cannot fill a ghost layer";
  for (const HaloField& f : fields)
    if (error.empty() && !f.allocated) error = "a field is unallocated";
  if (error.empty())
    if (std::string refusal = transport_refusal<ExecSpace>(options.transport); !refusal.empty())
      option_error(std::move(refusal));
  // What every rank must pass alike, settled before any neighbour handshake (whose messages depend on it).
  std::vector<std::int64_t> kinds{static_cast<std::int64_t>(fields.size())};
  for (const HaloField& f : fields) {
    const TypeSignature sig = f.element.signature();
    kinds.push_back(static_cast<std::int64_t>(sig.hash));
    kinds.push_back(sig.length);
  }
  SetupClock clock("halo plan");
  // Every wait for the other processes, until the plan is made, within the plan's timeout (none: as long as it takes).
  const SetupDeadline deadline(timeout_seconds(options.timeout));
  auto control = MpiTransport::duplicate(cart, where);  // (the plan's control plane: all its setup runs there)
  clock.mark("control plane");
  // (a scatter in pieces where every process's extents allow it: a sender's pieces are its receiver's)
  const std::int64_t whole = scatter_in_pieces(dims, n, g) ? 0 : 1;
  const bool pieced =
      agree_or_throw(
          control->comm(), error, culprit,
          {{"options", fingerprint({g, static_cast<std::int64_t>(options.neighbors), options.tag,
                                    fingerprint(options.transport), options.graph ? 1 : 0, options.scatter ? 1 : 0,
                                    static_cast<std::int64_t>(options.components)})},
           {"fields", fingerprint(kinds)}},
          {whole})[0] == 0;
  clock.mark("agreement");

  int me = 0;
  HaloGrid grid;
  grid.rank = dims;
  mpi_check(MPI_Comm_rank(cart, &me), where, "MPI_Comm_rank");
  mpi_check(MPI_Cart_get(cart, dims, grid.dims.data(), grid.periods.data(), grid.coords.data()), where, "MPI_Cart_get");
  const std::vector<HaloDirection> directions = halo_directions(grid, n, g, options.neighbors == HaloNeighbors::All);
  std::vector<int> peers(directions.size(), MPI_PROC_NULL);
  for (std::size_t d = 0; d < directions.size(); ++d)
    if (directions[d].exists)
      mpi_check(MPI_Cart_rank(cart, directions[d].neighbor.data(), &peers[d]), where, "MPI_Cart_rank");
  // A transport whose sender writes the receiver's cells itself through a mapping of one allocation per message
  // (capability one_allocation): a message per field.
  const TransportCapabilities can = capabilities(resolved<ExecSpace>(options.transport));
  const bool per_field = can.direct && can.one_allocation && fields.size() > 1;
  // The messages' types, made or, for the same fields, grid and options as a plan made before, kept (HaloTypesMemo).
  using Types =
      std::pair<std::vector<typename HaloPlan<ExecSpace>::Region>, std::vector<typename HaloPlan<ExecSpace>::Region>>;
  std::vector<std::int64_t> key = halo_types_key(fields, grid, peers, options, pieced, per_field);
  HaloTypesMemo<Types>& memo = HaloTypesMemo<Types>::instance();
  Types types;
  if (!memo.find(key, types)) {
    types = halo_types<typename HaloPlan<ExecSpace>::Region>(fields, directions, peers, dims, n, g, options.scatter,
                                                             pieced, per_field);
    memo.keep(std::move(key), types);
  }
  clock.mark("types");
  return HaloPlan<ExecSpace>::build(space, std::move(control), options, std::move(types.first), std::move(types.second),
                                    me);
}

}  // namespace KokkosDDT::Impl

namespace KokkosDDT::mpi {

// Fields given one by one (value types may differ).
template <class ExecSpace, class First, class... Rest, Impl::enable_if_exec<ExecSpace> = 0>
HaloPlan<ExecSpace> make_halo_plan(const ExecSpace& space, MPI_Comm cart, const HaloOptions& options,
                                   const First& first, const Rest&... rest) {
  return Impl::make_halo_plan_of(space, cart, options,
                                 {Impl::halo_field<ExecSpace>(first, options.components),
                                  Impl::halo_field<ExecSpace>(rest, options.components)...});
}

// Fields of one View type, as many as the vector holds.
template <class ExecSpace, class View, Impl::enable_if_exec<ExecSpace> = 0>
HaloPlan<ExecSpace> make_halo_plan(const ExecSpace& space, MPI_Comm cart, const HaloOptions& options,
                                   const std::vector<View>& fields) {
  std::vector<Impl::HaloField> described;
  for (const View& f : fields) described.push_back(Impl::halo_field<ExecSpace>(f, options.components));
  return Impl::make_halo_plan_of(space, cart, options, described);
}

// On the fields' default execution space.
template <class First, class... Rest, Impl::enable_if_view<First> = 0>
HaloPlan<typename First::execution_space> make_halo_plan(MPI_Comm cart, const HaloOptions& options, const First& first,
                                                         const Rest&... rest) {
  return make_halo_plan(typename First::execution_space(), cart, options, first, rest...);
}

// ------------------------------------------------------------------------------------------- HaloPlan

template <class ExecSpace>
HaloPlan<ExecSpace> HaloPlan<ExecSpace>::build(const ExecSpace& space, std::shared_ptr<Impl::MpiTransport> control,
                                               const HaloOptions& options, std::vector<Region> regions,
                                               std::vector<Region> scatters, int me) {
  const char* where = "KokkosDDT::mpi::make_halo_plan";
  HaloPlan plan;
  plan.control_ = std::move(control);
  plan.transport_ = options.transport;
  for (const Region& r : regions)
    if (r.peer != MPI_PROC_NULL && r.first) plan.peers_.push_back(r.peer);
  const Messages gather = messages_of(options, regions, false);
  const Messages scatter = options.scatter ? messages_of(options, scatters, true) : Messages{};
  Impl::SetupClock clock("halo plan build");
  // Both directions' messages matched at once (one exchange of descriptions, one verdict), each among its own.
  std::vector<const std::vector<Impl::PlannedMessage>*> sends{&gather.first}, recvs{&gather.second};
  if (options.scatter) {
    sends.push_back(&scatter.first);
    recvs.push_back(&scatter.second);
  }
  Impl::agree_or_throw(
      plan.control_->comm(),
      Impl::match_messages(*plan.control_, sends, recvs, me,
                           " (the fields' extents, ghost widths or value types differ between the ranks)", where),
      "fields");
  clock.mark("match");
  plan.engine_ = engine_of(space, plan.control_, options, gather, false, me, where);
  clock.mark("gather");
  // (a transport of its own: its step's counters, mappings and staging are the scatter's; with MPI, the same tags as
  // the gather's, whose messages are all matched before a process starts a scatter: MPI keeps their order)
  if (options.scatter) plan.scatter_ = engine_of(space, plan.control_, options, scatter, true, me, where);
  clock.mark("scatter");
  return plan;
}

template <class ExecSpace>
typename HaloPlan<ExecSpace>::Messages HaloPlan<ExecSpace>::messages_of(const HaloOptions& options,
                                                                        const std::vector<Region>& regions,
                                                                        bool scatter) {
  // Region d is sent towards d with tag + d; its ghost region is filled by what the neighbour at d sent towards -d.
  // (A scatter's regions are the other way round already: ghosts sent, owned cells combined, in their order.)
  Messages m;
  for (const Region& r : regions) {
    m.first.push_back({nullptr, true, 1, r.send, r.peer, options.tag + r.direction});
    m.first.back().pieces = r.send_pieces;
    m.second.push_back({nullptr, true, 1, r.recv, r.peer, options.tag + r.opposite, scatter ? r.order : -1});
    m.second.back().pieces = r.recv_pieces;
  }
  return m;
}

template <class ExecSpace>
std::unique_ptr<Impl::ExchangeEngine<ExecSpace>> HaloPlan<ExecSpace>::engine_of(
    const ExecSpace& space, std::shared_ptr<Impl::MpiTransport> control, const HaloOptions& options,
    const Messages& messages, bool scatter, int me, const char* where) {
  std::shared_ptr<Impl::Transport> transport =
      Impl::library_transport(Impl::resolved<ExecSpace>(options.transport), control, where);
  return std::make_unique<Impl::ExchangeEngine<ExecSpace>>(
      space, std::move(transport), control, messages.first, messages.second, me, where,
      Impl::timeout_seconds(options.timeout), options.graph && !scatter);
}

// Compiled once per backend in the library (mpi/src/eti/KokkosDDT_ETI_Plans.cpp).
#define KOKKOSDDT_EXTERN_HALO_PLAN(Space) extern template class HaloPlan<Space>;
KOKKOSDDT_ETI_SPACES(KOKKOSDDT_EXTERN_HALO_PLAN)
#undef KOKKOSDDT_EXTERN_HALO_PLAN

}  // namespace KokkosDDT::mpi
