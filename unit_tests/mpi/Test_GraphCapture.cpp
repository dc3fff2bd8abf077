// SPDX-License-Identifier: BSD-3-Clause
// A halo plan's step captured in a CUDA graph with the application's kernels (docs/API.md, "Capturing steps in a CUDA
// graph") replays as eager steps run: new contents every replay, replays before and after eager steps, a late rank.
// A plan whose steps cannot be replayed refuses the capture on every rank where they cannot, with an Error naming the
// space, and its later eager steps run as before: over MPI (its host posts messages between the kernels), and over
// the peer transport unless the plan was made with options.graph (its counters count steps). CUDA builds; hosts
// capture nothing. options.graph: the plan records and replays its steps itself, where it can (every build).
#include "mpi/HaloPlanCheck.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

using namespace KokkosDDT;
using namespace KokkosDDT::Test;

namespace {

using M = ExecSpace::memory_space;
using Field = Kokkos::View<double**, Kokkos::LayoutRight, M>;

// One iteration of a 2-D periodic grid's exchange, all of it enqueued on `space`: the step number (on the device, so
// that a replay moves new values) goes up, the interior is filled with the step's values, the plan exchanges the
// faces, and every face ghost is checked against its neighbour's value.
struct Iteration {
  ExecSpace space;
  Field u;
  Kokkos::View<int, M> step{"step"}, errors{"errors"};
  std::int64_t nx = 0, ny = 0, x0 = 0, y0 = 0, gx = 0, gy = 0;

  // This rank's nx x ny block of the grid's periodic global field.
  static Iteration on(const Grid& grid, std::int64_t nx, std::int64_t ny) {
    Iteration it;
    it.nx = nx;
    it.ny = ny;
    it.x0 = nx * grid.coords[0];
    it.y0 = ny * grid.coords[1];
    it.gx = nx * grid.dims[0];
    it.gy = ny * grid.dims[1];
    it.u = Field("u", nx + 2, ny + 2);
    return it;
  }

  KOKKOS_FUNCTION static double value(std::int64_t x, std::int64_t y, std::int64_t gy, int step) {
    return 0.5 * static_cast<double>(x * gy + y) + 1000.0 * step;
  }

  template <class Plan>
  void run(Plan& plan, bool late) const {
    const auto s = step;
    const auto f = u;
    const auto e = errors;
    const std::int64_t mx = nx, my = ny, ox = x0, oy = y0, tx = gx, ty = gy;
    Kokkos::parallel_for(
        "graph capture: step", Kokkos::RangePolicy<ExecSpace>(space, 0, 1), KOKKOS_LAMBDA(int) { s() += 1; });
    Kokkos::parallel_for(
        "graph capture: fill", Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(space, {1, 1}, {mx + 1, my + 1}),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { f(i, j) = value(ox + i - 1, oy + j - 1, ty, s()); });
    if (late) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    plan.start(space);
    plan.wait();
    Kokkos::parallel_for(
        "graph capture: check", Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(space, {0, 0}, {mx + 2, my + 2}),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) {
          const bool ghost_x = i == 0 || i == mx + 1, ghost_y = j == 0 || j == my + 1;
          if (ghost_x == ghost_y) return;  // (interior, or a corner: faces only)
          const std::int64_t x = (ox + i - 1 + tx) % tx, y = (oy + j - 1 + ty) % ty;
          if (f(i, j) != value(x, y, ty, s())) Kokkos::atomic_add(&e(), 1);
        });
  }
};

template <class T>
T read(const Kokkos::View<T, M>& v) {
  T host{};
  Kokkos::deep_copy(host, v);
  return host;
}

}  // namespace

// Whether this rank's plan has routes of `name` ("peer" matches "peer (landed)" too).
template <class Plan>
bool has_route(const Plan& plan, const std::string& name) {
  for (const mpi::Route& r : plan.routes())
    if (r.via.rfind(name, 0) == 0) return true;
  return false;
}

// On CUDA; hosts capture nothing.
template <class Space>
void check_capture(bool graph) {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
    Test::Watchdog dog("graph capture");
    Grid grid = make_grid(2, {0, 0, 1, 1}, true);
    Iteration it = Iteration::on(grid, 40, 24);
    mpi::HaloOptions o = options(1);
    o.graph = graph;
    auto plan = mpi::make_halo_plan(it.space, grid.cart, o, it.u);
    const bool late = grid.rank == 0;
    INFO("rank " << grid.rank << ", transport " << mpi::name(plan.transport()) << ", options.graph " << graph << "\n"
                 << plan.describe());
    for (int k = 0; k < 2; ++k) it.run(plan, false);  // (eager first: Kokkos' first launches query the device)
    it.space.fence();

    // Capture one iteration. A host-completed plan throws at start, before it enqueued anything of its own. (`Space`,
    // not the test's ExecSpace: a discarded branch of a template compiles only what depends on its parameter.)
    const Space& space = it.space;
    cudaStream_t stream = space.cuda_stream();
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
    CHECK(Impl::BackendTraits<ExecSpace>::capturing(it.space));
    bool refused = false;
    try {
      it.run(plan, false);
    } catch (const Error& e) {
      refused = true;
      CHECK(e.code() == ErrorCode::Unsupported);
      CHECK(std::string(e.what()).find("capturing a CUDA graph") != std::string::npos);
    }
    cudaGraph_t recorded = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream, &recorded);
    cudaGraphExec_t exec = nullptr;
    if (!refused) {
      REQUIRE(ended == cudaSuccess);
      REQUIRE(cudaGraphInstantiate(&exec, recorded, 0) == cudaSuccess);
    }
    (void)cudaGetLastError();
    // (MPI's host posts its messages; peer routes count steps unless made replayable)
    CHECK(refused == (has_route(plan, "MPI") || (!graph && has_route(plan, "peer"))));
    int any_refused = refused ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &any_refused, 1, MPI_INT, MPI_MAX, grid.cart);

    // Replays, an eager step between them, replays again; a late rank 0 (its host sleeps between launches).
    int steps = 2;
    auto replay = [&](int times) {
      for (int k = 0; k < times; ++k, ++steps) {
        if (any_refused) {
          it.run(plan, late && k % 2 == 0);
          continue;
        }
        if (late && k % 2 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
      }
    };
    replay(5);
    it.run(plan, late);
    ++steps;
    replay(5);
    it.space.fence();
    CHECK(read(it.step) == steps);  // (the replays ran: each raised the step)
    CHECK(read(it.errors) == 0);
    if (exec) cudaGraphExecDestroy(exec);  // (before the plan: the graph holds its launches)
    if (recorded) cudaGraphDestroy(recorded);
    plan = {};  // (collective, before the communicator goes)
    MPI_Comm_free(&grid.cart);
    return;
  }
#endif
  (void)graph;
  Space space;
  CHECK_FALSE(Impl::BackendTraits<Space>::capturing(space));
}

TEST_CASE("mpi halo plan: a step captured in a CUDA graph replays as eager steps run", "[mpi][halo][graph]") {
  check_capture<ExecSpace>(false);
  check_capture<ExecSpace>(true);
}

// options.graph: the plan records its first step and replays it at every start (where it can: a CUDA build, no MPI
// messages); elsewhere the steps run as without it, and describe() says why. Either way every step's ghosts are right.
TEST_CASE("mpi halo plan: options.graph replays each step from a graph where it can", "[mpi][halo][graph]") {
  Test::Watchdog dog("options.graph");
  Grid grid = make_grid(2, {0, 0, 1, 1}, true);
  Iteration it = Iteration::on(grid, 24, 16);
  mpi::HaloOptions o = options(1);
  o.graph = true;
  auto plan = mpi::make_halo_plan(it.space, grid.cart, o, it.u);
  INFO("rank " << grid.rank << ", transport " << mpi::name(plan.transport()) << "\n" << plan.describe());
  CHECK(plan.graph_steps() == (Impl::BackendTraits<ExecSpace>::has_graphs && !has_route(plan, "MPI")));
  CHECK((plan.describe().find("steps: not replayed from a graph") == std::string::npos) == plan.graph_steps());
  const int steps = 12;
  for (int k = 0; k < steps; ++k) it.run(plan, grid.rank == 0 && k % 3 == 0);
  it.space.fence();
  CHECK(read(it.step) == steps);
  CHECK(read(it.errors) == 0);
  plan = {};
  MPI_Comm_free(&grid.cart);
}
