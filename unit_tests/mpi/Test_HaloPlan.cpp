// SPDX-License-Identifier: BSD-3-Clause
// Halo plans (HaloPlanCheck.hpp): 2-D fields (the other ranks: Test_HaloPlanRanks.cpp, Test_HaloPlanRank4.cpp), steps
// back to back, bad arguments and arguments that differ between the ranks, a vector of fields, plans made again.
#include "mpi/HaloPlanCheck.hpp"

using namespace KokkosDDT;
using namespace KokkosDDT::Test;

TEST_CASE("mpi halo plan: 2-D fields, also on 1 x N and N x 1 grids", "[mpi][halo]") {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_rank<2>();
  check_rank<2>({1, size, 0, 0});
  check_rank<2>({size, 1, 0, 0});
}

// Steps enqueued back to back on the plan's instance, new contents each step, no host fence between them: a late
// rank (rank 0 sleeps before it starts, and before it reads its ghosts) must still read each step's values, so a
// neighbour that wrote the next step's cells before it had read them would show (a transport that writes ghost cells
// directly must wait until they are free).
TEST_CASE("mpi halo plan: step after step with new contents, one rank late", "[mpi][halo][steps]") {
  Test::Watchdog dog("halo plan steps");
  using M = ExecSpace::memory_space;
  Grid grid = make_grid(1, {0, 1, 1, 1}, true);
  const std::int64_t n = 1000, global = n * grid.dims[0], first = n * grid.coords[0];
  Kokkos::View<double*, M> u("u", n + 2);
  Kokkos::View<int, M> errors("errors");
  ExecSpace space;
  auto plan = mpi::make_halo_plan(space, grid.cart, options(1), u);
  auto late = [&] {
    if (grid.rank == 0) std::this_thread::sleep_for(std::chrono::milliseconds(3));
  };
  const int steps = 24;
  for (int step = 0; step < steps; ++step) {
    Kokkos::parallel_for(
        "fill", Kokkos::RangePolicy<ExecSpace>(space, 1, n + 1),
        KOKKOS_LAMBDA(std::int64_t i) { u(i) = 1000.0 * static_cast<double>(first + i - 1) + step; });
    if (step % 2) late();
    plan.start(space);
    plan.wait();
    late();
    Kokkos::parallel_for(
        "check", Kokkos::RangePolicy<ExecSpace>(space, 0, 2), KOKKOS_LAMBDA(int side) {
          const std::int64_t g = side == 0 ? (first - 1 + global) % global : (first + n) % global;
          if (u(side == 0 ? 0 : n + 1) != 1000.0 * static_cast<double>(g) + step) Kokkos::atomic_add(&errors(), 1);
        });
  }
  int wrong = 0;
  Kokkos::deep_copy(wrong, errors);
  INFO("rank " << grid.rank << " of " << grid.dims[0] << ", transport " << mpi::name(plan.transport()));
  CHECK(wrong == 0);
  // The peer transport writes its neighbours' cells itself wherever it can: here (fields in GPU memory), every
  // neighbour but those on other nodes (KOKKOSDDT_NODE_SIZE).
  if (mpi::capabilities(plan.transport()).direct && !Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible)
    for (const mpi::Route& r : plan.routes()) {
      INFO(plan.describe());
      if (r.via != "self" && r.via.rfind("peer", 0) != 0) CHECK(r.why == "another node");
    }
  plan = {};  // (collective, before the communicator goes)
  MPI_Comm_free(&grid.cart);
}

TEST_CASE("mpi halo plan: bad arguments throw on every rank", "[mpi][halo][errors]") {
  using M = ExecSpace::memory_space;
  ExecSpace space;
  Kokkos::View<double**, M> a("a", 8, 8), b("b", 8, 9), tiny("tiny", 2, 8);
  // Not a Cartesian communicator.
  Test::require_error([&] { mpi::make_halo_plan(space, MPI_COMM_WORLD, {}, a); }, ErrorCode::InvalidArgument, "cart");
  Grid grid = make_grid(2, {0, 0, 0, 0}, true);
  // Extents that differ between fields; too small for the ghost width; a bad ghost width.
  Test::require_error([&] { mpi::make_halo_plan(space, grid.cart, {}, a, b); }, ErrorCode::InvalidArgument, "fields");
  Test::require_error([&] { mpi::make_halo_plan(space, grid.cart, {}, tiny); }, ErrorCode::InvalidArgument, "fields");
  Test::require_error([&] { mpi::make_halo_plan(space, grid.cart, {0}, a); }, ErrorCode::InvalidArgument, "options");
  // Tags: the plan's [tag, tag + 3^2) must lie in [0, MPI_TAG_UB] (a 2-D grid: 9 tags).
  int* tag_ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);  // (Open MPI attaches it there only)
  REQUIRE(found);
  for (const int tag : {-1, *tag_ub, *tag_ub - 7}) {
    mpi::HaloOptions o;
    o.tag = tag;
    INFO("tag " << tag);
    Test::require_error([&] { mpi::make_halo_plan(space, grid.cart, o, a); }, ErrorCode::InvalidArgument, "options");
  }
  mpi::HaloOptions last;
  last.tag = *tag_ub - 8;  // (the plan's last tag is MPI_TAG_UB itself)
  mpi::make_halo_plan(space, grid.cart, last, a).exchange();
  // Only rank 0's field is larger: its neighbours' sizes disagree, and every rank throws.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1) {
    Kokkos::View<double**, M> mine("mine", 8, rank == 0 ? 9 : 8);  // (the faces along dimension 0 differ)
    Test::require_error([&] { mpi::make_halo_plan(space, grid.cart, {}, mine); }, ErrorCode::InvalidArgument, "fields");
    mpi::HaloOptions both;
    both.scatter = true;  // (the gather's and the scatter's messages matched at once)
    Test::require_error([&] { mpi::make_halo_plan(space, grid.cart, both, mine); }, ErrorCode::InvalidArgument,
                        "fields");
  }
  MPI_Comm_free(&grid.cart);
}

TEST_CASE("mpi halo plan: rank-global arguments that differ between ranks throw on every rank", "[mpi][halo][errors]") {
  // Each rank's arguments are valid on their own; only together do they disagree. The ranks settle them before any
  // neighbour handshake (whose messages depend on them), so none is left waiting for a message never sent.
  using M = ExecSpace::memory_space;
  ExecSpace space;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) return;
  Test::Watchdog dog("halo plan argument agreement");
  Grid grid = make_grid(2, {size, 1, 0, 0}, true);  // (2 x 1 at two ranks: the grid)
  Kokkos::View<double**, M> a("a", 8, 8), b("b", 8, 8);
  Kokkos::View<float**, M> f("f", 8, 8);
  const bool odd = rank % 2 == 1;
  const mpi::HaloOptions faces{1, mpi::HaloNeighbors::Faces}, all{1, mpi::HaloNeighbors::All};
  Test::require_error([&] { mpi::make_halo_plan(space, grid.cart, odd ? all : faces, a); }, ErrorCode::InvalidArgument,
                      "options");
  Test::require_error([&] { mpi::make_halo_plan(space, grid.cart, {odd ? 2 : 1}, a); }, ErrorCode::InvalidArgument,
                      "options");
  mpi::HaloOptions tagged;
  tagged.tag = odd ? 77 : 78;
  Test::require_error([&] { mpi::make_halo_plan(space, grid.cart, tagged, a); }, ErrorCode::InvalidArgument, "options");
  // Field counts and value types.
  Test::require_error(
      [&] {
        if (odd)
          mpi::make_halo_plan(space, grid.cart, faces, a, b);
        else
          mpi::make_halo_plan(space, grid.cart, faces, a);
      },
      ErrorCode::InvalidArgument, "fields");
  Test::require_error(
      [&] {
        if (odd)
          mpi::make_halo_plan(space, grid.cart, faces, f);
        else
          mpi::make_halo_plan(space, grid.cart, faces, a);
      },
      ErrorCode::InvalidArgument, "fields");
  // Afterwards a plan on agreeing arguments works.
  auto plan = mpi::make_halo_plan(space, grid.cart, all, a);
  plan.exchange();
  MPI_Comm_free(&grid.cart);
}

TEST_CASE("mpi halo plan: a vector of fields exchanges as the same fields given one by one", "[mpi][halo]") {
  using M = ExecSpace::memory_space;
  using F = Kokkos::View<float***, Kokkos::LayoutLeft, M>;
  Grid grid = make_grid(3, {0, 0, 0, 0}, true);
  ExecSpace space;
  std::vector<F> listed, given;
  for (int i = 0; i < 3; ++i) {
    listed.emplace_back("listed", 6, 5, 4);
    given.emplace_back("given", 6, 5, 4);
    const F field = listed[i];  // (a View, not the host vector, goes into the kernel)
    const int rank = grid.rank;
    Kokkos::parallel_for(
        "fill", Kokkos::RangePolicy<ExecSpace>(space, 0, 6 * 5 * 4), KOKKOS_LAMBDA(int c) {
          const int x = c % 6, y = c / 6 % 5, z = c / 30;
          const bool inside = x > 0 && x < 5 && y > 0 && y < 4 && z > 0 && z < 3;
          field(x, y, z) = inside ? float(rank * 1000 + i * 100 + c) : -1.f;
        });
  }
  space.fence();
  for (int i = 0; i < 3; ++i) Kokkos::deep_copy(given[i], listed[i]);
  const mpi::HaloOptions all = options(1, mpi::HaloNeighbors::All);
  auto by_vector = mpi::make_halo_plan(space, grid.cart, all, listed);
  auto one_by_one = mpi::make_halo_plan(space, grid.cart, all, given[0], given[1], given[2]);
  by_vector.exchange();
  one_by_one.exchange();
  CHECK(by_vector.bytes_per_step() == one_by_one.bytes_per_step());
  for (int i = 0; i < 3; ++i) {
    auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), listed[i]);
    auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), given[i]);
    CHECK(std::equal(a.data(), a.data() + a.size(), b.data()));
  }
  MPI_Comm_free(&grid.cart);
}

// Plans made one after another over the same field (HaloTypesMemo keeps a plan's types for the next one over the same
// fields) on grids alike but for their periods: each plan's messages are its own grid's, the ends of a non-periodic
// grid receiving nothing.
TEST_CASE("mpi halo plan: made again over the same field, on another grid", "[mpi][halo]") {
  using M = ExecSpace::memory_space;
  const std::int64_t n = 64;
  Kokkos::View<double*, M> u("u", n + 2);
  ExecSpace space;
  for (const bool periodic : {true, false, true}) {
    Grid grid = make_grid(1, {0, 1, 1, 1}, periodic);
    const std::int64_t global = n * grid.dims[0], first = n * grid.coords[0];
    Kokkos::parallel_for(
        "fill", Kokkos::RangePolicy<ExecSpace>(space, 0, n + 2),
        KOKKOS_LAMBDA(std::int64_t i) { u(i) = i == 0 || i == n + 1 ? -1.0 : static_cast<double>(first + i - 1); });
    auto plan = mpi::make_halo_plan(space, grid.cart, options(1), u);
    plan.start(space);
    plan.wait();
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u);
    const bool low = periodic || grid.coords[0] > 0, high = periodic || grid.coords[0] < grid.dims[0] - 1;
    INFO("rank " << grid.rank << " of " << grid.dims[0] << (periodic ? ", periodic" : ""));
    CHECK(h(0) == (low ? static_cast<double>((first - 1 + global) % global) : -1.0));
    CHECK(h(n + 1) == (high ? static_cast<double>((first + n) % global) : -1.0));
    plan = {};  // (collective, before the communicator goes)
    MPI_Comm_free(&grid.cart);
  }
}

// Several exchanges matched at once (a halo plan's gather and scatter: Impl::match_messages over both) pair each
// exchange's messages only among themselves: messages to this rank itself, with one tag, where exchange 0 sends one
// and receives two and exchange 1 sends two and receives one; together three and three, but neither pairs up.
TEST_CASE("mpi halo plan: exchanges matched at once pair only among their own messages", "[mpi][halo][errors]") {
  auto control = Impl::MpiTransport::duplicate(MPI_COMM_WORLD, "test");
  const int me = control->rank();
  const Datatype d = primitive<double>();
  auto messages = [&](int n) { return std::vector<Impl::PlannedMessage>(n, {nullptr, true, 1, d, me, 7}); };
  const std::vector<Impl::PlannedMessage> one = messages(1), two = messages(2);
  using Exchanges = std::vector<const std::vector<Impl::PlannedMessage>*>;
  CHECK(Impl::match_messages(*control, Exchanges{&one, &two}, Exchanges{&one, &two}, me, "", "test").empty());
  const std::string error =
      Impl::match_messages(*control, Exchanges{&one, &two}, Exchanges{&two, &one}, me, "", "test");
  INFO(error);
  CHECK(error.find("tag 7") != std::string::npos);
}
