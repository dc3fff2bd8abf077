// SPDX-License-Identifier: BSD-3-Clause
// Gather and scatter against MPI_Gatherv / MPI_Scatterv / MPI_Gather / MPI_Scatter of the same types, under
// mpiexec -n p, on the test executable's execution space with every buffer in its memory (device memory in GPU
// builds): the seed's problem types plus all-zero and one-nonzero, every root for small p, each schedule (Träff's tree
// with direct thresholds that send no subtree, some subtrees and every subtree straight to the root; the linear
// schedule; the model's choice), blocking and nonblocking, in place, and the errors that must not hang.
#include <KokkosDDT_Collectives.hpp>
#include <KokkosDDT_MPI.hpp>
#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "support/Catch.hpp"
#include "CollectiveTestSupport.hpp"
#include "support/Watchdog.hpp"

using namespace KokkosDDT;

namespace {

using Test::host;
using Test::on_space;
using Test::Space;
using Test::to_int;
using Test::world_rank;
using Test::world_size;

// Block sizes of the seed's problem types (section 5) for p processes and base size b, plus "zero" and "one".
std::vector<std::int64_t> problem(const std::string& kind, int p, std::int64_t b) {
  std::vector<std::int64_t> m(p, b);
  std::mt19937 rng(42);
  for (int i = 0; i < p; ++i) {
    if (kind == "random") m[i] = 1 + rng() % (2 * b);
    if (kind == "spikes") m[i] = rng() % 5 == 0 ? 5 * b : 1;
    if (kind == "decreasing") m[i] = 2 * b * (p - i) / p + 1;
    if (kind == "alternating") m[i] = i % 2 ? b - b / 2 : b + b / 2;
    if (kind == "two blocks") m[i] = i == 0 || i == p - 1 ? b : 0;
    if (kind == "zero") m[i] = 0;
    if (kind == "one") m[i] = i == p / 2 ? b : 0;
  }
  return m;
}

const char* const kKinds[] = {"same", "random", "spikes", "decreasing", "alternating", "two blocks", "zero", "one"};

// Every root for small p, three otherwise (the oversubscribed CI machine has two cores).
std::vector<int> roots(int p) {
  if (p <= 8) {
    std::vector<int> r(p);
    for (int i = 0; i < p; ++i) r[i] = i;
    return r;
  }
  return {0, p / 2, p - 1};
}

// The schedules under test: the tree with direct thresholds that send no subtree, some subtrees (16 bytes) and every
// subtree with data (1 byte) straight to the root; the linear schedule; the model's choice.
std::vector<CollectiveOptions> schedules() {
  std::vector<CollectiveOptions> all;
  for (std::int64_t threshold : {std::int64_t(1) << 40, std::int64_t(16), std::int64_t(1)}) {
    all.emplace_back();
    all.back().direct_threshold = threshold;
    all.back().schedule = CollectiveSchedule::Tree;
  }
  all.emplace_back();
  all.back().schedule = CollectiveSchedule::Linear;
  all.emplace_back();
  return all;
}

// ... and the unchecked calls (ArgumentCheck::Local: no agreement) on the linear schedule and on the tree.
std::vector<CollectiveOptions> checked_and_unchecked() {
  std::vector<CollectiveOptions> all = schedules();
  for (CollectiveSchedule s : {CollectiveSchedule::Linear, CollectiveSchedule::Tree}) {
    all.emplace_back();
    all.back().schedule = s;
    all.back().direct_threshold = 16;
    all.back().check = ArgumentCheck::Local;
  }
  return all;
}

std::string describe(const CollectiveOptions& o) {
  const std::string unchecked = o.check == ArgumentCheck::Local ? ", unchecked" : "";
  return (o.schedule == CollectiveSchedule::Tree     ? "tree, direct threshold " + std::to_string(o.direct_threshold)
          : o.schedule == CollectiveSchedule::Linear ? std::string("linear")
                                                     : std::string("auto")) +
         unchecked;
}

// Displacements at the root: reverse rank order with a gap of `gap` instances after each block.
std::vector<std::int64_t> reversed_displs(const std::vector<std::int64_t>& m, std::int64_t gap, std::int64_t& total) {
  std::vector<std::int64_t> d(m.size());
  total = 0;
  for (int j = static_cast<int>(m.size()) - 1; j >= 0; --j) {
    d[j] = total;
    total += m[j] + gap;
  }
  return d;
}

}  // namespace

TEST_CASE("collectives: the gather tree has ceil(log2 p) rounds and covers every rank once", "[collectives]") {
  const int p = world_size(), me = world_rank();
  for (int root : roots(p)) {
    const std::int64_t mine = 1 + (me * 7) % 5;
    const Impl::GatherTree t = Impl::build_gather_tree(MPI_COMM_WORLD, root, mine, std::int64_t(1) << 40, {900});
    CHECK(t.rounds == Impl::ceil_log2(p));
    CHECK((t.parent < 0) == (me == root));
    if (me != root) CHECK(t.send_round >= 0);
    for (const auto& c : t.children) CHECK(c.round < (me == root ? t.rounds : t.send_round));
    std::int64_t sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (me == root) CHECK(t.total == sum);  // no direct subtrees: every byte reaches the root through the tree
    // At most ceil(log2 p) messages reach the root.
    if (me == root) CHECK(static_cast<int>(t.children.size()) <= t.rounds);
  }
}

TEST_CASE("collectives: with blocks of one size the local tree is the constructed tree", "[collectives]") {
  // Every process computes its place alone (no message) when all blocks have one size; it must be exactly the tree
  // the rounds of messages build, or the data phase would wait on messages nobody sends.
  const int p = world_size(), me = world_rank();
  for (int root : roots(p))
    for (std::int64_t bytes : {0, 8, 100})
      for (std::int64_t threshold : {std::int64_t(1) << 40, std::int64_t(16), std::int64_t(200)}) {
        INFO("root " << root << ", bytes " << bytes << ", threshold " << threshold);
        const Impl::GatherTree built = Impl::build_gather_tree(MPI_COMM_WORLD, root, bytes, threshold, {900});
        Impl::GatherTree local = Impl::local_gather_tree(p, me, root, bytes, threshold);
        std::sort(local.children.begin(), local.children.end(),
                  [](const auto& a, const auto& b) { return a.lo < b.lo; });
        CHECK(local.rounds == built.rounds);
        CHECK(local.parent == built.parent);
        CHECK(local.direct == built.direct);
        CHECK(local.send_round == built.send_round);
        CHECK(local.lo == built.lo);
        CHECK(local.hi == built.hi);
        CHECK(local.total == built.total);
        CHECK(local.direct_total == built.direct_total);
        REQUIRE(local.children.size() == built.children.size());
        for (std::size_t i = 0; i < local.children.size(); ++i) {
          const auto &l = local.children[i], &b = built.children[i];
          CHECK((l.round == b.round && l.rank == b.rank && l.lo == b.lo && l.hi == b.hi));
          CHECK(std::memcmp(&l.record, &b.record, sizeof l.record) == 0);
        }
      }
}

TEST_CASE("collectives: local trees of every process fit together, p = 1 .. 70", "[collectives]") {
  // Without messages, at many more process counts than mpiexec runs: every process's tree (computed alone) must agree
  // with its parent's, and every byte must reach the root exactly once, through the tree or a direct subtree.
  if (world_rank() != 0) return;  // (the same on every process)
  for (int p = 1; p <= 70; ++p)
    for (int root : {0, p / 2, p - 1})
      for (std::int64_t bytes : {0, 8, 100})
        for (std::int64_t threshold : {std::int64_t(1) << 40, std::int64_t(16), std::int64_t(200)}) {
          INFO("p " << p << ", root " << root << ", bytes " << bytes << ", threshold " << threshold);
          std::vector<Impl::GatherTree> t(static_cast<std::size_t>(p));
          for (int i = 0; i < p; ++i) t[i] = Impl::local_gather_tree(p, i, root, bytes, threshold);
          CHECK(t[root].parent == -1);
          std::int64_t direct_bytes = 0, direct_subtrees = 0;
          for (int i = 0; i < p; ++i) {
            if (i == root) continue;
            REQUIRE(t[i].parent >= 0);
            REQUIRE(t[i].send_round < t[i].rounds);
            if (t[i].direct) {
              CHECK(t[i].parent == root);
              direct_bytes += t[i].total, ++direct_subtrees;
              continue;
            }
            int found = 0;  // the parent lists this process as a child, with its cube and its bytes
            for (const auto& c : t[t[i].parent].children)
              if (c.rank == i) found += c.lo == t[i].lo && c.hi == t[i].hi && c.record.eff == t[i].total ? 1 : 100;
            CHECK(found == 1);
          }
          CHECK(t[root].direct_total == direct_subtrees);
          CHECK(t[root].total + direct_bytes == p * bytes);
        }
}

TEST_CASE("collectives: gatherv equals MPI_Gatherv on the seed's problem types", "[collectives]") {
  const int p = world_size(), me = world_rank();
  Space space;
  // Noncontiguous on both sides: every other int on the send side, ints with a gap of one int at the root.
  Datatype send = resized(vector(1, 1, 2, primitive<int>()), 0, 8);
  send.commit();
  Datatype recv = resized(contiguous(1, primitive<int>()), 0, 8);
  recv.commit();
  MPI_Datatype msend = mpi::to_mpi(send), mrecv = mpi::to_mpi(recv);
  for (const char* kind : kKinds) {
    const std::vector<std::int64_t> m = problem(kind, p, 5);
    for (int root : roots(p)) {
      std::int64_t total = 0;
      const std::vector<std::int64_t> displs = reversed_displs(m, 1, total);
      std::vector<int> src(2 * m[me] + 1);
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = 1000 * me + static_cast<int>(i);
      std::vector<int> ref(2 * total + 2, -1);
      MPI_Gatherv(src.data(), static_cast<int>(m[me]), msend, ref.data(), to_int(m).data(), to_int(displs).data(),
                  mrecv, root, MPI_COMM_WORLD);
      const auto d_src = on_space(src);
      for (const CollectiveOptions& o : checked_and_unchecked()) {
        INFO(kind << " root " << root << " " << describe(o));
        auto ours = on_space(std::vector<int>(2 * total + 2, -1));
        gatherv(space, d_src.data(), m[me], send, ours.data(), m, displs, recv, root, MPI_COMM_WORLD, o);
        if (me == root) CHECK(host(ours) == ref);
      }
    }
  }
  MPI_Type_free(&msend);
  MPI_Type_free(&mrecv);
}

TEST_CASE("collectives: scatterv equals MPI_Scatterv on the seed's problem types", "[collectives]") {
  const int p = world_size(), me = world_rank();
  Space space;
  Datatype send = resized(contiguous(1, primitive<int>()), 0, 8);  // one int, then a gap of one
  send.commit();
  Datatype recv = resized(vector(1, 1, 2, primitive<int>()), 0, 12);  // one int every three
  recv.commit();
  MPI_Datatype msend = mpi::to_mpi(send), mrecv = mpi::to_mpi(recv);
  for (const char* kind : kKinds) {
    const std::vector<std::int64_t> m = problem(kind, p, 5);
    for (int root : roots(p)) {
      std::int64_t total = 0;
      const std::vector<std::int64_t> displs = reversed_displs(m, 2, total);
      std::vector<int> src(2 * total + 2);
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = 100000 * root + static_cast<int>(i);
      std::vector<int> ref(3 * m[me] + 3, -1);
      MPI_Scatterv(src.data(), to_int(m).data(), to_int(displs).data(), msend, ref.data(), static_cast<int>(m[me]),
                   mrecv, root, MPI_COMM_WORLD);
      const auto d_src = on_space(src);
      for (const CollectiveOptions& o : checked_and_unchecked()) {
        INFO(kind << " root " << root << " " << describe(o));
        auto ours = on_space(std::vector<int>(3 * m[me] + 3, -1));
        scatterv(space, d_src.data(), m, displs, send, ours.data(), m[me], recv, root, MPI_COMM_WORLD, o);
        CHECK(host(ours) == ref);
      }
    }
  }
  MPI_Type_free(&msend);
  MPI_Type_free(&mrecv);
}

TEST_CASE("collectives: gather and scatter equal MPI_Gather and MPI_Scatter, also in place", "[collectives]") {
  const int p = world_size(), me = world_rank();
  Space space;
  Datatype pair = contiguous(2, primitive<double>());
  pair.commit();
  Datatype strided = vector(2, 1, 3, primitive<double>());  // the same signature, spread out
  strided.commit();
  MPI_Datatype mpair = mpi::to_mpi(pair), mstrided = mpi::to_mpi(strided);
  const int root = p / 2;
  std::vector<double> src(4 * 3);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = 100.0 * me + static_cast<double>(i);
  const auto d_src = on_space(src);
  // gather: 4 strided instances per process -> 4 pairs per process at the root.
  std::vector<double> ref(8 * p, -1);
  MPI_Gather(src.data(), 2, mstrided, ref.data(), 2, mpair, root, MPI_COMM_WORLD);
  std::vector<double> table(4 * p);
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = 7.0 * static_cast<double>(i);
  std::vector<double> want(12, -1);
  MPI_Scatter(table.data(), 2, mpair, want.data(), 2, mstrided, root, MPI_COMM_WORLD);
  const auto d_table = on_space(table);
  for (const CollectiveOptions& o : checked_and_unchecked()) {
    INFO(describe(o));
    auto ours = on_space(std::vector<double>(8 * p, -1));
    gather(space, d_src.data(), 2, strided, ours.data(), 2, pair, root, MPI_COMM_WORLD, o);
    if (me == root) CHECK(host(ours) == ref);
    // gather in place: the root's block is already in recvbuf.
    std::vector<double> h_in_place(8 * p, -1);
    if (me == root) std::copy(ref.begin() + 4 * root, ref.begin() + 4 * root + 4, h_in_place.begin() + 4 * root);
    auto in_place_buf = on_space(h_in_place);
    if (me == root)
      gather(space, in_place, 0, pair, in_place_buf.data(), 2, pair, root, MPI_COMM_WORLD, o);
    else
      gather(space, d_src.data(), 2, strided, nullptr, 0, pair, root, MPI_COMM_WORLD, o);
    if (me == root) CHECK(host(in_place_buf) == std::vector<double>(ref.begin(), ref.begin() + 8 * p));
    // scatter: pairs from the root -> strided instances everywhere; in place leaves the root's block where it is.
    auto got = on_space(std::vector<double>(12, -1));
    scatter(space, d_table.data(), 2, pair, got.data(), 2, strided, root, MPI_COMM_WORLD, o);
    CHECK(host(got) == want);
    auto untouched = on_space(std::vector<double>(12, -1));
    if (me == root)
      scatter(space, d_table.data(), 2, pair, in_place, 0, strided, root, MPI_COMM_WORLD, o);
    else
      scatter(space, nullptr, 0, pair, untouched.data(), 2, strided, root, MPI_COMM_WORLD, o);
    if (me != root) CHECK(host(untouched) == want);
  }
  MPI_Type_free(&mpair);
  MPI_Type_free(&mstrided);
}

TEST_CASE("collectives: nonblocking gathers and scatters in flight together complete in any order", "[collectives]") {
  const int p = world_size(), me = world_rank();
  Space space;
  Datatype one = primitive<std::int64_t>();
  one.commit();
  const std::vector<std::int64_t> m = problem("random", p, 3);
  std::vector<std::int64_t> displs(p), src(m[me], me);
  std::int64_t total = 0;
  for (int j = 0; j < p; ++j) displs[j] = total, total += m[j];
  std::vector<std::int64_t> a(total, -1), b(total, -1), want(total);
  for (int j = 0; j < p; ++j)
    for (std::int64_t i = 0; i < m[j]; ++i) want[displs[j] + i] = j;
  auto d_src = on_space(src), d_a = on_space(a), d_b = on_space(b), d_want = on_space(want),
       d_back = on_space(std::vector<std::int64_t>(m[me], -1));
  CollectiveOptions tree, linear;
  tree.direct_threshold = 8, tree.schedule = CollectiveSchedule::Tree;
  linear.schedule = CollectiveSchedule::Linear;
  std::vector<mpi::Request> r;
  r.push_back(igatherv(space, d_src.data(), m[me], one, d_a.data(), m, displs, one, 0, MPI_COMM_WORLD, linear));
  r.push_back(igatherv(space, d_src.data(), m[me], one, d_b.data(), m, displs, one, p - 1, MPI_COMM_WORLD, tree));
  r.push_back(iscatterv(space, d_want.data(), m, displs, one, d_back.data(), m[me], one, p / 2, MPI_COMM_WORLD));
  r[2].wait();
  r[1].wait();
  r[0].wait();
  if (me == 0) CHECK(host(d_a) == want);
  if (me == p - 1) CHECK(host(d_b) == want);
  CHECK(host(d_back) == src);
}

TEST_CASE("collectives: Views in the execution space's memory", "[collectives]") {
  const int p = world_size(), me = world_rank();
  Space space;
  Datatype every_other = resized(primitive<int>(), 0, 8);
  every_other.commit();
  const std::vector<std::int64_t> m = problem("decreasing", p, 4);
  std::vector<std::int64_t> displs(p);
  std::int64_t total = 0;
  for (int j = 0; j < p; ++j) displs[j] = total, total += m[j];
  const int root = p - 1;
  Kokkos::View<int*, Space::memory_space> src("src", 2 * m[me] + 1), dst("dst", total), back("back", 2 * m[me] + 1);
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<Space>(space, 0, src.extent(0)), KOKKOS_LAMBDA(int i) { src(i) = 1000 * me + i; });
  space.fence();
  Datatype one = primitive<int>();
  one.commit();
  gatherv(space, src, m[me], every_other, dst, m, displs, one, root, MPI_COMM_WORLD);
  scatterv(space, dst, m, displs, one, back, m[me], every_other, root, MPI_COMM_WORLD, {4});
  auto h_dst = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dst);
  auto h_back = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back);
  if (me == root)
    for (int j = 0; j < p; ++j)
      for (std::int64_t i = 0; i < m[j]; ++i) CHECK(h_dst(displs[j] + i) == 1000 * j + 2 * i);
  for (std::int64_t i = 0; i < 2 * m[me] + 1; ++i)
    CHECK(h_back(i) == (i % 2 == 0 && i < 2 * m[me] ? 1000 * me + i : 0));
}

TEST_CASE("collectives: bad arguments throw everywhere or where they can be seen, write nothing and never hang",
          "[collectives]") {
  const int p = world_size(), me = world_rank();
  Test::Watchdog dog("collectives with bad arguments");
  Space space;
  Datatype one = primitive<int>();
  one.commit();
  const int root = p / 2;
  std::vector<std::int64_t> m(p, 2), displs(p);
  for (int j = 0; j < p; ++j) displs[j] = 3 * j;  // (a gap: one more int for a block is no overlap)
  const auto src = on_space(std::vector<int>(2, me));
  for (CollectiveSchedule schedule : {CollectiveSchedule::Tree, CollectiveSchedule::Linear}) {
    CollectiveOptions o;
    o.schedule = schedule;
    INFO(describe(o));
    auto dst = on_space(std::vector<int>(3 * p + 4, -1));
    // Nothing of the root's buffer is written by a call that throws anywhere.
    auto checked_gatherv = [&](std::int64_t count, std::vector<std::int64_t> counts, std::vector<std::int64_t> d,
                               bool expect_throw) {
      bool threw = false;
      try {
        gatherv(space, src.data(), count, one, dst.data(), counts, d, one, root, MPI_COMM_WORLD, o);
      } catch (const Error& e) {
        threw = true;
        UNSCOPED_INFO(e.what());
      }
      CHECK(threw == expect_throw);
      CHECK(host(dst) == std::vector<int>(3 * p + 4, -1));
    };
    SECTION("a negative count at a non-root: every process throws") {
      const int bad = (root + 1) % p;
      if (p > 1) checked_gatherv(me == bad ? -1 : 2, m, displs, true);
    }
    SECTION("root counts that disagree with the senders' (total and distribution): every process throws") {
      std::vector<std::int64_t> more = m;
      more[(root + 1) % p] += 1;
      if (p > 1) checked_gatherv(2, more, displs, true);
      if (p > 2) {
        std::vector<std::int64_t> moved = m;  // the same total, one int moved between two ranks
        const int a = (root + 1) % p, b = (root + 2) % p;
        moved[a] += 1, moved[b] -= 1;
        checked_gatherv(2, moved, displs, true);
      }
    }
    SECTION("negative or missing counts at the root: every process throws") {
      std::vector<std::int64_t> negative = m;
      negative[0] = -2;
      checked_gatherv(2, negative, displs, true);
      checked_gatherv(2, std::vector<std::int64_t>(p + 1, 2), displs, true);
    }
    SECTION("overlapping root displacements: every process throws") {
      std::vector<std::int64_t> overlap = displs;
      if (p > 1) overlap[p - 1] = overlap[0] + 1;
      if (p > 1) checked_gatherv(2, m, overlap, true);
      // Interleaved blocks of a type with holes do not overlap: every other int, blocks one int apart.
      Datatype spread = resized(vector(2, 1, 2, primitive<int>()), 0, 4);
      spread.commit();
      std::vector<std::int64_t> ones(p, 1), shifted(p);
      for (int j = 0; j < p; ++j) shifted[j] = (j / 2) * 4 + j % 2;
      auto wide = on_space(std::vector<int>(4 * p + 4, -1));
      CHECK_NOTHROW(gatherv(space, src.data(), 2, one, wide.data(), ones, shifted, spread, root, MPI_COMM_WORLD, o));
    }
    SECTION("scatterv: root counts that disagree with the receivers': every process throws, nothing written") {
      std::vector<std::int64_t> more = m;
      const int bad = (root + 1) % p;
      more[bad] += 1;
      const auto table = on_space(std::vector<int>(3 * p + 2, 5));
      auto got = on_space(std::vector<int>(2, -1));
      bool threw = false;
      try {
        scatterv(space, table.data(), more, displs, one, got.data(), 2, one, root, MPI_COMM_WORLD, o);
      } catch (const Error& e) {
        threw = true;
        CHECK(std::string(e.argument()) == "sendcounts");  // (p = 1: the root's own count disagrees with its block)
      }
      CHECK(threw);
      CHECK(host(got) == std::vector<int>(2, -1));
    }
    // The communicator is clean afterwards: a correct gatherv still works.
    auto ok = on_space(std::vector<int>(3 * p, -1));
    gatherv(space, src.data(), 2, one, ok.data(), m, displs, one, root, MPI_COMM_WORLD, o);
    if (me == root) {
      const std::vector<int> h = host(ok);
      for (int j = 0; j < p; ++j) CHECK(h[3 * j] == j);
    }
    // A root out of range is seen by every process: all throw at once.
    CHECK_THROWS_AS(gatherv(space, src.data(), 2, one, dst.data(), m, displs, one, p, MPI_COMM_WORLD, o), Error);
  }
}

TEST_CASE("collectives: a root that differs between processes throws on every process, writing nothing",
          "[collectives]") {
  // The tree's shape depends on the root, and a process cannot see alone that its root differs from the others': the
  // processes settle it first, then every one throws (none waits, none writes).
  const int p = world_size(), me = world_rank();
  if (p < 2) return;
  Test::Watchdog dog("collectives with differing roots");
  Space space;
  Datatype one = primitive<int>();
  one.commit();
  std::vector<std::int64_t> m(p, 2), displs(p);
  for (int j = 0; j < p; ++j) displs[j] = 2 * j;
  std::vector<int> h_table(2 * p);
  for (int j = 0; j < 2 * p; ++j) h_table[j] = 1000 + j;
  const auto src = on_space(std::vector<int>(2, me)), table = on_space(h_table);
  auto throws_everywhere = [&](auto&& call) {
    bool threw = false;
    try {
      call();
    } catch (const Error& e) {
      threw = e.argument() == "root";
      INFO(e.what());
    }
    CHECK(threw);
  };
  for (const int bad_root : {p, -1, 1}) {  // out of range on rank 1 alone; rank 1 naming itself while the others say 0
    INFO("rank 1 passes root " << bad_root);
    const int root = me == 1 ? bad_root : 0;
    auto dst = on_space(std::vector<int>(2 * p, -1)), got = on_space(std::vector<int>(2, -1));
    throws_everywhere([&] { gatherv(space, src.data(), 2, one, dst.data(), m, displs, one, root, MPI_COMM_WORLD); });
    throws_everywhere([&] { scatterv(space, table.data(), m, displs, one, got.data(), 2, one, root, MPI_COMM_WORLD); });
    throws_everywhere([&] { igather(space, src.data(), 2, one, dst.data(), 2, one, root, MPI_COMM_WORLD).wait(); });
    throws_everywhere([&] { iscatter(space, table.data(), 2, one, got.data(), 2, one, root, MPI_COMM_WORLD).wait(); });
    CHECK(host(dst) == std::vector<int>(2 * p, -1));
    CHECK(host(got) == std::vector<int>(2, -1));
  }
  // The communicator is clean afterwards.
  auto ok = on_space(std::vector<int>(2 * p, -1));
  gatherv(space, src.data(), 2, one, ok.data(), m, displs, one, 0, MPI_COMM_WORLD);
  if (me == 0) {
    const std::vector<int> h = host(ok);
    for (int j = 0; j < p; ++j) CHECK(h[2 * j] == j);
  }
}
