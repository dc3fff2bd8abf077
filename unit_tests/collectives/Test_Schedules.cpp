// SPDX-License-Identifier: BSD-3-Clause
// The collectives' schedules and persistent forms, under mpiexec -n p on the test executable's execution space (every
// buffer in its memory): the model's choice, persistent gatherv/scatterv/gather/scatter on each schedule over several
// rounds with new data each round (against MPI's), a strided column into a subarray, and the errors of persistent
// init and of options that differ between processes (every process throws, nothing is written, nobody hangs).
#include <KokkosDDT_Collectives.hpp>
#include <KokkosDDT_MPI.hpp>
#include <string>
#include <vector>

#include "support/Catch.hpp"
#include "CollectiveTestSupport.hpp"
#include "support/MpiWorld.hpp"
#include "support/Watchdog.hpp"

using namespace KokkosDDT;

namespace {

using Test::host;
using Test::on_space;
using Test::Space;
using Test::to_int;
using Test::world_rank;
using Test::world_size;

CollectiveOptions with(CollectiveSchedule s) {
  CollectiveOptions o;
  o.schedule = s;
  o.direct_threshold = 16;  // (the tree: some subtrees straight to the root)
  return o;
}

const CollectiveSchedule kSchedules[] = {CollectiveSchedule::Tree, CollectiveSchedule::Linear,
                                         CollectiveSchedule::Auto};

}  // namespace

TEST_CASE("collectives: the model picks the linear schedule for few processes and the tree for many", "[collectives]") {
  const CollectiveModel node = CollectiveModel::shared_memory_node();
  CHECK(Impl::choose_schedule(CollectiveSchedule::Auto, node, 16) == CollectiveSchedule::Linear);
  // A network: start-ups of several microseconds and a root that pays nearly one per message.
  const CollectiveModel network{5.0, 2.0, 0.1};
  CHECK(Impl::choose_schedule(CollectiveSchedule::Auto, network, 1024) == CollectiveSchedule::Tree);
  CHECK(Impl::choose_schedule(CollectiveSchedule::Auto, network, 4) == CollectiveSchedule::Linear);
  CHECK(Impl::choose_schedule(CollectiveSchedule::Tree, node, 2) == CollectiveSchedule::Tree);
  CHECK(Impl::linear_time(network, 1024, 0) > Impl::tree_time(network, 1024, 0));
}

TEST_CASE("collectives: persistent gatherv and scatterv move new data in every round", "[collectives]") {
  const int p = world_size(), me = world_rank();
  Test::Watchdog dog("persistent gatherv/scatterv");
  Space space;
  Datatype one = primitive<int>();
  one.commit();
  const int root = (p - 1) / 2;
  std::vector<std::int64_t> m(p), displs(p);
  std::int64_t total = 0;
  for (int j = 0; j < p; ++j) m[j] = (j * 5) % 4, displs[j] = total + 1, total += m[j] + 1;  // (zero blocks too)
  for (CollectiveSchedule s : kSchedules) {
    INFO("schedule " << static_cast<int>(s));
    auto src = on_space(std::vector<int>(m[me] + 1, -7)), dst = on_space(std::vector<int>(total + 1, -1));
    auto table = on_space(std::vector<int>(total + 1, -1)), got = on_space(std::vector<int>(m[me] + 1, -1));
    mpi::Request g = gatherv_init(space, src, m[me], one, dst, m, displs, one, root, MPI_COMM_WORLD, with(s));
    mpi::Request sc = scatterv_init(space, table, m, displs, one, got, m[me], one, root, MPI_COMM_WORLD, with(s));
    CHECK(g.is_persistent());
    for (int round = 0; round < 3; ++round) {
      std::vector<int> h_src(m[me] + 1, -7), h_table(total + 1, -1);
      for (std::int64_t i = 0; i < m[me]; ++i) h_src[i] = 1000 * round + 10 * me + static_cast<int>(i);
      for (std::int64_t i = 0; i <= total; ++i) h_table[i] = 100000 * round + static_cast<int>(i);
      Kokkos::deep_copy(src, on_space(h_src));
      Kokkos::deep_copy(table, on_space(h_table));
      g.start();
      sc.start();
      std::vector<mpi::Request> both;
      both.push_back(std::move(g));
      both.push_back(std::move(sc));
      mpi::wait_all(both);
      g = std::move(both[0]);
      sc = std::move(both[1]);
      std::vector<int> want(total + 1, -1), back(m[me] + 1, -1);
      MPI_Gatherv(h_src.data(), static_cast<int>(m[me]), MPI_INT, want.data(), to_int(m).data(), to_int(displs).data(),
                  MPI_INT, root, MPI_COMM_WORLD);
      MPI_Scatterv(h_table.data(), to_int(m).data(), to_int(displs).data(), MPI_INT, back.data(),
                   static_cast<int>(m[me]), MPI_INT, root, MPI_COMM_WORLD);
      if (me == root) CHECK(host(dst) == want);
      CHECK(host(got) == back);
    }
  }
}

TEST_CASE("collectives: persistent gather and scatter, in place at the root", "[collectives]") {
  const int p = world_size(), me = world_rank();
  Space space;
  Datatype pair = contiguous(2, primitive<double>());
  pair.commit();
  const int root = p - 1;
  for (CollectiveSchedule s : kSchedules) {
    INFO("schedule " << static_cast<int>(s));
    auto src = on_space(std::vector<double>(2, 0)), all = on_space(std::vector<double>(2 * p, -1));
    auto mine = on_space(std::vector<double>(2, -1));
    mpi::Request g = me == root ? gather_init(space, in_place, 0, pair, all, 1, pair, root, MPI_COMM_WORLD, with(s))
                                : gather_init(space, src, 1, pair, nullptr, 0, pair, root, MPI_COMM_WORLD, with(s));
    mpi::Request sc = me == root ? scatter_init(space, all, 1, pair, in_place, 0, pair, root, MPI_COMM_WORLD, with(s))
                                 : scatter_init(space, nullptr, 0, pair, mine, 1, pair, root, MPI_COMM_WORLD, with(s));
    for (int round = 1; round <= 2; ++round) {
      Kokkos::deep_copy(src, on_space(std::vector<double>{10.0 * me + round, -1.0 * round}));
      if (me == root) Kokkos::deep_copy(all, on_space(std::vector<double>(2 * p, 0.5 * round)));
      if (me == root) {  // its own block is already in place
        std::vector<double> h = host(all);
        h[2 * root] = 10.0 * root + round, h[2 * root + 1] = -1.0 * round;
        Kokkos::deep_copy(all, on_space(h));
      }
      g.start();
      g.wait();
      if (me == root) {
        const std::vector<double> h = host(all);
        for (int j = 0; j < p; ++j) {
          CHECK(h[2 * j] == 10.0 * j + round);
          CHECK(h[2 * j + 1] == -1.0 * round);
        }
      }
      sc.start();  // every process gets its pair back
      sc.wait();
      if (me != root) CHECK(host(mine) == std::vector<double>{10.0 * me + round, -1.0 * round});
    }
  }
}

TEST_CASE("collectives: a strided column of doubles into a subarray at the root, against MPI's", "[collectives]") {
  // Each process owns a 12 x 6 row-major array and sends rows 1..10 of its column 2; the root places them as column
  // 2 + j of its 12 x (p + 4) array (rows 1..10): noncontiguous on both sides, one type each, as MPI_Gatherv takes.
  const int p = world_size(), me = world_rank();
  Space space;
  const int root = p / 2, cols = p + 4, rows = 10;
  Datatype row_step = resized(primitive<double>(), 0, 6 * 8);  // one double, then the rest of its row
  row_step.commit();
  Datatype column = resized(vector(rows, 1, cols, primitive<double>()), 0, 8);  // a column; the next starts 8 B on
  column.commit();
  std::vector<std::int64_t> one_each(p, 1), displs(p);
  for (int j = 0; j < p; ++j) displs[j] = cols + 2 + j;  // row 1, column 2 + j (in extents of 8 bytes)
  std::vector<double> h_src(12 * 6);
  for (int i = 0; i < 72; ++i) h_src[i] = 100.0 * me + i;
  MPI_Datatype mrow = mpi::to_mpi(row_step), mcolumn = mpi::to_mpi(column);
  std::vector<double> want(12 * cols, -1.0), back(72, -2.0);
  MPI_Gatherv(h_src.data() + 6 + 2, rows, mrow, want.data(), to_int(one_each).data(), to_int(displs).data(), mcolumn,
              root, MPI_COMM_WORLD);
  std::vector<double> table(12 * cols);
  for (int i = 0; i < 12 * cols; ++i) table[i] = 0.5 * i;
  MPI_Scatterv(table.data(), to_int(one_each).data(), to_int(displs).data(), mcolumn, back.data() + 8, rows, mrow, root,
               MPI_COMM_WORLD);
  const auto src = on_space(h_src), d_table = on_space(table);
  for (CollectiveSchedule s : kSchedules) {
    INFO("schedule " << static_cast<int>(s));
    auto dst = on_space(std::vector<double>(12 * cols, -1.0)), ours = on_space(std::vector<double>(72, -2.0));
    gatherv(space, src.data() + 8, rows, row_step, dst, one_each, displs, column, root, MPI_COMM_WORLD, with(s));
    if (me == root) CHECK(host(dst) == want);
    scatterv(space, d_table, one_each, displs, column, ours.data() + 8, rows, row_step, root, MPI_COMM_WORLD, with(s));
    CHECK(host(ours) == back);
  }
  MPI_Type_free(&mrow);
  MPI_Type_free(&mcolumn);
}

TEST_CASE("collectives: persistent init and differing options make every process throw, writing nothing",
          "[collectives]") {
  const int p = world_size(), me = world_rank();
  Test::Watchdog dog("collective errors at init");
  Space space;
  Datatype one = primitive<int>();
  one.commit();
  const int root = 0;
  std::vector<std::int64_t> m(p, 2), displs(p);
  for (int j = 0; j < p; ++j) displs[j] = 2 * j;
  auto src = on_space(std::vector<int>(2, me)), dst = on_space(std::vector<int>(2 * p, -1));
  auto throws_everywhere = [&](auto&& call, const char* argument) {
    bool threw = false;
    try {
      call();
    } catch (const Error& e) {
      threw = true;
      INFO(e.what());
      if (argument) CHECK(e.argument() == argument);
    }
    CHECK(threw);
    CHECK(host(dst) == std::vector<int>(2 * p, -1));
  };
  for (CollectiveSchedule s : kSchedules) {
    INFO("schedule " << static_cast<int>(s));
    // A negative count on the last process.
    throws_everywhere(
        [&] {
          gatherv_init(space, src, me == p - 1 ? -1 : 2, one, dst, m, displs, one, root, MPI_COMM_WORLD, with(s));
        },
        nullptr);
    if (p > 1) {  // root counts that disagree with what the processes send: refused at init, everywhere
      std::vector<std::int64_t> more = m;
      more[p - 1] += 1;
      throws_everywhere(
          [&] { gatherv_init(space, src, 2, one, dst, more, displs, one, root, MPI_COMM_WORLD, with(s)); },
          "recvcounts");
      auto got = on_space(std::vector<int>(2, -1));
      throws_everywhere(
          [&] { scatterv_init(space, dst, more, displs, one, got, 2, one, root, MPI_COMM_WORLD, with(s)); },
          "sendcounts");
    }
  }
  if (p > 1) {  // one process asks for another schedule, or another direct threshold (the tree may be computed locally)
    CollectiveOptions o = with(me == 1 ? CollectiveSchedule::Linear : CollectiveSchedule::Tree);
    throws_everywhere([&] { gatherv(space, src, 2, one, dst, m, displs, one, root, MPI_COMM_WORLD, o); }, "options");
    CollectiveOptions t = with(CollectiveSchedule::Tree);
    t.direct_threshold = me == 1 ? 16 : 1 << 20;
    throws_everywhere([&] { gatherv(space, src, 2, one, dst, m, displs, one, root, MPI_COMM_WORLD, t); }, "options");
  }
  // The communicator is clean afterwards.
  mpi::Request g = gatherv_init(space, src, 2, one, dst, m, displs, one, root, MPI_COMM_WORLD);
  g.start();
  g.wait();
  if (me == root) {
    const std::vector<int> h = host(dst);
    for (int j = 0; j < p; ++j) CHECK(h[2 * j] == j);
  }
}

TEST_CASE("collectives: a call with the same arguments as the last one runs its schedule again", "[collectives]") {
  const int p = world_size(), me = world_rank();
  Test::Watchdog dog("cached collective schedules");
  Space space;
  Datatype one = primitive<int>();
  one.commit();
  const int root = p / 2;
  std::vector<std::int64_t> m(p), displs(p);
  std::int64_t total = 0;
  for (int j = 0; j < p; ++j) m[j] = 1 + j % 3, displs[j] = total, total += m[j];
  auto src = on_space(std::vector<int>(4, 0)), dst = on_space(std::vector<int>(total + 4, -1));
  const Impl::CachedSchedule& slot = Impl::collective_context(MPI_COMM_WORLD, "test").cached[1];
  for (CollectiveSchedule s : kSchedules) {
    INFO("schedule " << static_cast<int>(s));
    std::uint64_t made = 0;
    for (int call = 0; call < 4; ++call) {
      // New data every call; the third call changes one process's count (and the root's counts): a new schedule.
      std::vector<std::int64_t> counts = m;
      if (call == 2) counts[p - 1] += 1;
      Kokkos::deep_copy(src, on_space(std::vector<int>{100 * call + me, 100 * call + me + 1, -me, 7}));
      gatherv(space, src, counts[me], one, dst, counts, displs, one, root, MPI_COMM_WORLD, with(s));
      if (me == root) {
        const std::vector<int> h = host(dst);
        for (int j = 0; j < p; ++j)
          for (std::int64_t i = 0; i < counts[j]; ++i)
            CHECK(h[displs[j] + i] == std::vector<int>{100 * call + j, 100 * call + j + 1, -j, 7}[i]);
      }
      if (call == 1) CHECK(slot.sequence == made);  // the same arguments: the schedule of call 0 ran again
      if (call == 2) CHECK(slot.sequence != made);  // other counts: a new one
      made = slot.sequence;
    }
  }
  // Two nonblocking calls in flight with the same arguments: the second makes its own schedule (the first runs the
  // cached one), and both complete.
  std::vector<std::int64_t> twos(p, 2), by2(p);
  for (int j = 0; j < p; ++j) by2[j] = 2 * j;
  auto a = on_space(std::vector<int>(2 * p, -1)), b = on_space(std::vector<int>(2 * p, -1));
  auto pair = on_space(std::vector<int>{me, me});
  gatherv(space, pair, 2, one, a, twos, by2, one, root, MPI_COMM_WORLD);
  std::vector<mpi::Request> r;
  r.push_back(igatherv(space, pair, 2, one, a, twos, by2, one, root, MPI_COMM_WORLD));
  r.push_back(igatherv(space, pair, 2, one, b, twos, by2, one, root, MPI_COMM_WORLD));
  r.push_back(igatherv(space, pair, 2, one, a, twos, by2, one, root, MPI_COMM_WORLD));
  mpi::wait_all(r);
  if (me == root) {
    std::vector<int> want(2 * p);
    for (int j = 0; j < 2 * p; ++j) want[j] = j / 2;
    CHECK(host(a) == want);
    CHECK(host(b) == want);
  }
}

// Unchecked calls (ArgumentCheck::Local): no agreement; each process throws for its own bad arguments, the receiver
// of a message of another size than its counts say throws (nothing written past its buffer: guards), and a call with
// this process's last arguments runs its schedule again, while checked and unchecked calls stay apart.
TEST_CASE("collectives: unchecked calls check what arrives, write nothing past the buffer, and run again",
          "[collectives]") {
  const int p = world_size(), me = world_rank();
  if (p < 2) return;
  Test::Watchdog dog("unchecked collectives");
  const Test::ReturningComm returning;  // (MPICH 4.0 raises a truncated receive on MPI_COMM_WORLD's handler)
  Space space;
  Datatype one = primitive<int>();
  one.commit();
  Datatype spread = resized(contiguous(1, primitive<int>()), 0, 8);  // (typed messages at the root: every other int)
  spread.commit();
  CollectiveOptions unchecked;
  unchecked.check = ArgumentCheck::Local;
  unchecked.schedule = CollectiveSchedule::Linear;
  const int root = 0, odd = 1;  // (rank `odd` sends another count than the root expects)
  const std::vector<std::int64_t> m(p, 2);
  std::vector<std::int64_t> displs(p);
  for (int j = 0; j < p; ++j) displs[j] = 2 * j;
  const auto src = on_space(std::vector<int>{me, me, me});
  for (const Datatype* at_root : {&one, &spread}) {
    const std::int64_t ints = at_root == &one ? 2 * p : 4 * p;  // (the root's buffer, then 4 guards)
    for (std::int64_t sent : {3, 1}) {                          // longer, then shorter than the root's counts
      INFO((at_root == &one ? "contiguous" : "typed") << " root, rank 1 sends " << sent);
      auto dst = on_space(std::vector<int>(ints + 4, -1));
      bool threw = false;
      try {
        gatherv(space, src, me == odd ? sent : 2, one, dst, m, displs, *at_root, root, MPI_COMM_WORLD, unchecked);
      } catch (const Error& e) {
        threw = true;
        CHECK(me == root);
        CHECK(std::string(e.what()).find("another size") != std::string::npos);
      }
      if (me == root) CHECK(threw);
      const std::vector<int> h = host(dst);
      CHECK(std::vector<int>(h.begin() + ints, h.end()) == std::vector<int>(4, -1));
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  // A bad argument of every process: each throws its own error, and nobody waits for the others.
  auto none = on_space(std::vector<int>(2 * p, -1));
  CHECK_THROWS_AS(gatherv(space, src, -1, one, none, m, displs, one, root, MPI_COMM_WORLD, unchecked), Error);
  CHECK_THROWS_AS(gatherv(space, src, 2, one, none, m, displs, one, p, MPI_COMM_WORLD, unchecked), Error);
  CHECK(host(none) == std::vector<int>(2 * p, -1));
  // The same arguments again: the schedule runs again; a checked call between them neither takes nor breaks it.
  const Impl::CachedSchedule& slot = Impl::collective_context(MPI_COMM_WORLD, "test").cached[1];
  auto dst = on_space(std::vector<int>(2 * p, -1));
  const Impl::Operation* first = nullptr;
  for (int call = 0; call < 4; ++call) {
    Kokkos::deep_copy(src, on_space(std::vector<int>{10 * call + me, 10 * call + me + 1, 0}));
    if (call == 2) {
      gatherv(space, src, 2, one, dst, m, displs, one, root, MPI_COMM_WORLD);  // (checked)
    } else {
      std::vector<mpi::Request> r;  // (two unchecked calls in flight, with a checked one between them)
      r.push_back(igatherv(space, src, 2, one, dst, m, displs, one, root, MPI_COMM_WORLD, unchecked));
      if (call == 3) r.push_back(igatherv(space, src, 2, one, dst, m, displs, one, root, MPI_COMM_WORLD));
      if (call == 3) r.push_back(igatherv(space, src, 2, one, dst, m, displs, one, root, MPI_COMM_WORLD, unchecked));
      mpi::wait_all(r);
    }
    if (me == root) {
      std::vector<int> want(2 * p);
      for (int j = 0; j < 2 * p; ++j) want[j] = 10 * call + j / 2 + j % 2;
      CHECK(host(dst) == want);
    }
    if (call == 0) first = slot.schedule.get();
    if (call == 1) CHECK(slot.schedule.get() == first);  // (this process's arguments of call 0: run again)
  }
  // Scatter: a receiver expecting more than the root sends throws; the root does not wait for it.
  auto table = on_space(std::vector<int>(2 * p, 5));
  auto mine = on_space(std::vector<int>(3 + 4, -1));
  bool threw = false;
  try {
    scatterv(space, table, m, displs, one, mine, me == odd ? 3 : 2, one, root, MPI_COMM_WORLD, unchecked);
  } catch (const Error& e) {
    threw = true;
    CHECK(me == odd);
  }
  CHECK(threw == (me == odd));
  const std::vector<int> h = host(mine);
  CHECK(std::vector<int>(h.begin() + 3, h.end()) == std::vector<int>(4, -1));
  MPI_Barrier(MPI_COMM_WORLD);
}
