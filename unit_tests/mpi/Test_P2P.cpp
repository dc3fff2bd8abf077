// SPDX-License-Identifier: BSD-3-Clause
// Typed point-to-point messages between the ranks of MPI_COMM_WORLD (run under mpiexec -n 1, 2, 4): every rank sends
// to the next and receives from the previous one, for random nested types, in the execution space's memory and in
// pinned host memory, with one-off, persistent and wait_any completion; then the error paths.
#include <cstring>
#include <vector>

#include <KokkosDDT_MPI.hpp>

#include "support/Catch.hpp"
#include "support/Errors.hpp"
#include "support/MessageCases.hpp"
#include "support/MpiWorld.hpp"
#include "support/RandomTypes.hpp"
#include "support/TestSpace.hpp"

using namespace KokkosDDT;
using Test::ExecSpace;

namespace {

using Test::download;
using Test::MessageCase;
using Test::pattern;
using Test::upload;
using Test::World;

// Ring exchange of `cases` random types between buffers in SendSpace and RecvSpace; all requests completed by `how`.
template <class SendSpace, class RecvSpace>
void ring(std::uint64_t seed, int cases, const char* how) {
  World w;
  ExecSpace space;
  // Every rank draws the same types (same seed): what rank r sends, rank r + 1 receives with the same type.
  Test::TypeGenerator gen(seed);
  std::vector<MessageCase> all;
  for (int i = 0; i < cases; ++i) all.push_back(Test::make_message_case(gen));
  std::vector<Kokkos::View<char*, SendSpace>> out;
  std::vector<Kokkos::View<char*, RecvSpace>> in;
  std::vector<mpi::Request> requests;
  for (int i = 0; i < cases; ++i) {
    const MessageCase& c = all[i];
    out.push_back(upload<SendSpace>(pattern(w.rank, c.n)));
    in.push_back(upload<RecvSpace>(std::vector<char>(c.n, Test::kPoison)));
    requests.push_back(mpi::irecv(space, in.back().data() + c.origin, c.count, c.type, w.prev(), i, MPI_COMM_WORLD));
    requests.push_back(mpi::isend(space, out.back().data() + c.origin, c.count, c.type, w.next(), i, MPI_COMM_WORLD));
  }
  if (std::strcmp(how, "wait_any") == 0) {
    int done = 0;
    while (mpi::wait_any(requests) != MPI_UNDEFINED) ++done;
    CHECK(done == 2 * cases);
  } else {
    mpi::wait_all(requests);
  }
  for (int i = 0; i < cases; ++i) {
    const MessageCase& c = all[i];
    INFO("case " << i << ": " << c.type.describe() << " x " << c.count);
    CHECK(download(in[i]) == Test::expected_receive(c, pattern(w.prev(), c.n)));
  }
}

}  // namespace

TEST_CASE("mpi p2p: random types around the ring, execution-space memory", "[mpi][p2p]") {
  using M = ExecSpace::memory_space;
  ring<M, M>(0x5eed01, Test::scaled(60), "wait_all");
  ring<M, M>(0x5eed02, Test::scaled(20), "wait_any");
}

TEST_CASE("mpi p2p: every memory-space pair the build reaches", "[mpi][p2p]") {
  using M = ExecSpace::memory_space;
  using Pinned = Kokkos::SharedHostPinnedSpace;
  ring<M, Pinned>(0x5eed03, Test::scaled(15), "wait_all");
  ring<Pinned, M>(0x5eed04, Test::scaled(15), "wait_all");
  if constexpr (!std::is_same_v<M, Kokkos::HostSpace> &&
                Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible)
    ring<Kokkos::HostSpace, M>(0x5eed05, Test::scaled(15), "wait_all");
}

TEST_CASE("mpi p2p: both staging modes", "[mpi][p2p]") {
  using M = ExecSpace::memory_space;
  const bool detected = mpi::gpu_aware();
  mpi::set_gpu_aware(false);  // device data staged in pinned host memory
  ring<M, M>(0x5eed06, Test::scaled(15), "wait_all");
  // Staging in device memory needs an MPI that reads it; host spaces stage in host memory either way.
  if (detected || Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible) {
    mpi::set_gpu_aware(true);
    ring<M, M>(0x5eed07, Test::scaled(15), "wait_all");
  }
  mpi::set_gpu_aware(detected);
}

TEST_CASE("mpi p2p: persistent requests run many rounds", "[mpi][p2p]") {
  World w;
  ExecSpace space;
  using M = ExecSpace::memory_space;
  // A column of a 40 x 30 matrix of doubles (staged) and 100 contiguous ints (direct).
  Datatype column = vector(40, 1, 30, primitive<double>());
  Datatype ints = contiguous(100, primitive<int>());
  column.commit();
  ints.commit();
  Kokkos::View<double**, Kokkos::LayoutRight, M> a("a", 40, 30), b("b", 40, 30);
  Kokkos::View<int*, M> x("x", 100), y("y", 100);
  std::vector<mpi::Request> requests;
  requests.push_back(mpi::recv_init(space, b.data() + 3, 1, column, w.prev(), 1, MPI_COMM_WORLD));
  requests.push_back(mpi::recv_init(space, y.data(), 1, ints, w.prev(), 2, MPI_COMM_WORLD));
  requests.push_back(mpi::send_init(space, a.data() + 3, 1, column, w.next(), 1, MPI_COMM_WORLD));
  requests.push_back(mpi::send_init(space, x.data(), 1, ints, w.next(), 2, MPI_COMM_WORLD));
  for (int round = 0; round < 4; ++round) {
    const int me = w.rank, from = w.prev();
    Kokkos::parallel_for(
        "fill", Kokkos::RangePolicy<ExecSpace>(space, 0, 100), KOKKOS_LAMBDA(int i) {
          if (i < 40) a(i, 3) = 1000.0 * me + 10 * i + round;
          x(i) = me * 100 + i + round;
        });
    space.fence();
    mpi::start_all(requests);
    mpi::wait_all(requests);
    for (auto& r : requests) CHECK(!r.is_active());
    auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
    auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
    int stray = 0;  // the column's unpack writes nothing beside the column
    for (int i = 0; i < 40; ++i) {
      CHECK(hb(i, 3) == 1000.0 * from + 10 * i + round);
      for (int j = 0; j < 30; ++j) stray += j != 3 && hb(i, j) != 0.0;
    }
    CHECK(stray == 0);
    for (int i = 0; i < 100; ++i) CHECK(hy(i) == from * 100 + i + round);
  }
  mpi::start_all(requests);
  CHECK_THROWS_AS(requests[0].start(), Error);  // starting an active request is an error
  mpi::wait_all(requests);
}

TEST_CASE("mpi p2p: absolute addresses from KokkosDDT::bottom", "[mpi][p2p]") {
  // A struct over separately allocated Views (the seed's LAMMPS and HACC layouts): one staged message of every field,
  // and one contiguous field that goes to MPI as it is; one-off and persistent.
  World w;
  ExecSpace space;
  using M = ExecSpace::memory_space;
  auto address = [](const void* p) { return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p)); };
  Kokkos::View<double*, M> xs("xs", 30), xr("xr", 30);
  Kokkos::View<int*, M> ts("ts", 10), tr("tr", 10);
  const std::vector<std::int64_t> list{7, 2, 9, 4};
  auto fields = [&](const Kokkos::View<double*, M>& x, const Kokkos::View<int*, M>& t) {
    Datatype s =
        struct_type({1, 1}, {address(x.data()), address(t.data())},
                    {indexed_block(3, {21, 6, 27, 12}, primitive<double>()), indexed_block(1, list, primitive<int>())});
    return s.commit();
  };
  Datatype send = fields(xs, ts), recv = fields(xr, tr);
  Datatype direct_send = struct_type({4}, {address(ts.data())}, {primitive<int>()}).commit();
  Datatype direct_recv = struct_type({4}, {address(tr.data()) + 8}, {primitive<int>()}).commit();
  const int me = w.rank, from = w.prev();
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<ExecSpace>(space, 0, 30), KOKKOS_LAMBDA(int i) {
        xs(i) = 100.0 * me + i;
        if (i < 10) ts(i) = 1000 * me + i;
      });
  space.fence();
  std::vector<mpi::Request> r;
  r.push_back(mpi::irecv(space, bottom, 1, recv, from, 7, MPI_COMM_WORLD));
  r.push_back(mpi::isend(space, bottom, 1, send, w.next(), 7, MPI_COMM_WORLD));
  mpi::wait_all(r);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), xr);
  auto ht = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tr);
  for (int i = 0; i < 30; ++i) {
    const bool listed = i / 3 == 7 || i / 3 == 2 || i / 3 == 9 || i / 3 == 4;
    CHECK(hx(i) == (listed ? 100.0 * from + i : 0.0));
  }
  for (int i = 0; i < 10; ++i) CHECK(ht(i) == (i == 7 || i == 2 || i == 9 || i == 4 ? 1000 * from + i : 0));
  // Contiguous: straight to MPI, into tr[2..6), twice through persistent requests.
  Kokkos::deep_copy(tr, 0);
  std::vector<mpi::Request> p;
  p.push_back(mpi::recv_init(space, bottom, 1, direct_recv, from, 8, MPI_COMM_WORLD));
  p.push_back(mpi::send_init(space, bottom, 1, direct_send, w.next(), 8, MPI_COMM_WORLD));
  for (int round = 0; round < 2; ++round) {
    mpi::start_all(p);
    mpi::wait_all(p);
  }
  Kokkos::deep_copy(ht, tr);
  for (int i = 0; i < 10; ++i) CHECK(ht(i) == (i >= 2 && i < 6 ? 1000 * from + i - 2 : 0));
}

TEST_CASE("mpi p2p: messages longer than a chunk go as one message", "[mpi][p2p]") {
  // KOKKOSDDT_MPI_CHUNK_BYTES (set by some ctest runs) makes these larger than a chunk: one MPI message of a derived
  // byte type each, as messages over 1 GiB go; without it, one MPI message of MPI_BYTE each.
  World w;
  ExecSpace space;
  using M = ExecSpace::memory_space;
  Datatype strided = vector(5000, 3, 4, primitive<float>());  // 60000 bytes, staged
  strided.commit();
  Kokkos::View<float*, M> a("a", 20000), b("b", 20000);
  const int me = w.rank;
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<ExecSpace>(space, 0, 20000), KOKKOS_LAMBDA(int i) { a(i) = me * 100000.f + i; });
  space.fence();
  std::vector<mpi::Request> r;
  r.push_back(mpi::irecv(space, b.data(), 1, strided, w.prev(), 9, MPI_COMM_WORLD));
  r.push_back(mpi::isend(space, a.data(), 1, strided, w.next(), 9, MPI_COMM_WORLD));
  r.push_back(mpi::irecv(space, b.data() + 0, 0, strided, w.prev(), 10, MPI_COMM_WORLD));  // empty messages match too
  r.push_back(mpi::isend(space, a.data() + 0, 0, strided, w.next(), 10, MPI_COMM_WORLD));
  mpi::wait_all(r);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  int wrong = 0;
  for (int i = 0; i < 20000; ++i) wrong += hb(i) != (i % 4 < 3 ? w.prev() * 100000.f + i : 0.f);
  CHECK(wrong == 0);
}

TEST_CASE("mpi p2p: bad arguments throw before anything is posted", "[mpi][p2p][errors]") {
  ExecSpace space;
  using E = ErrorCode;
  Datatype uncommitted = vector(3, 1, 2, primitive<int>());
  Kokkos::View<int*, ExecSpace::memory_space> a("a", 16);
  Test::require_error([&] { mpi::isend(space, a.data(), 1, uncommitted, 0, 0, MPI_COMM_WORLD); }, E::NotCommitted,
                      "type");
  uncommitted.commit();
  Test::require_error([&] { mpi::isend(space, a.data(), -1, uncommitted, 0, 0, MPI_COMM_WORLD); }, E::InvalidArgument,
                      "count");
  Test::require_error([&] { mpi::irecv(space, nullptr, 1, uncommitted, 0, 0, MPI_COMM_WORLD); }, E::NullPointer, "buf");
  mpi::Request empty;
  CHECK(empty.test());
  Test::require_error([&] { empty.start(); }, E::InvalidArgument, "request");
}

TEST_CASE("mpi p2p: a message of another size is an MPI error, not a silent truncation", "[mpi][p2p][errors]") {
  World w;
  if (w.size < 2) return;
  ExecSpace space;
  Test::ReturningComm comm;
  Datatype small = contiguous(10, primitive<double>()), large = vector(20, 1, 2, primitive<double>());
  small.commit();
  large.commit();
  Kokkos::View<double*, ExecSpace::memory_space> a("a", 64), b("b", 64);
  // Rank 0 sends 10 doubles, rank 1 expects 20: a short message. Then rank 1 sends 20, rank 0 expects 10: too long.
  if (w.rank == 0) {
    auto s = mpi::isend(space, a.data(), 1, small, 1, 3, comm);
    s.wait();
    auto r = mpi::irecv(space, b.data(), 1, small, 1, 4, comm);
    Test::require_error([&] { r.wait(); }, ErrorCode::MPI, "");
  } else if (w.rank == 1) {
    auto r = mpi::irecv(space, b.data(), 1, large, 0, 3, comm);
    Test::require_error([&] { r.wait(); }, ErrorCode::MPI, "type");
    auto s = mpi::isend(space, a.data(), 1, large, 0, 4, comm);
    s.wait();
  }
}

// Messages over 2^31 bytes (hidden, about 13 GiB on one rank: run with "[huge]"): a contiguous one, which MPI sends
// from the user's buffer as one message of 1 GiB blocks, and a strided one, staged.
TEST_CASE("mpi p2p: messages over 2 GiB", "[.][huge]") {
  World w;
  ExecSpace space;
  using M = ExecSpace::memory_space;
  const std::int64_t n = (std::int64_t(1) << 31) / 8 + 1000;  // doubles in one message: just over 2 GiB
  Kokkos::View<double*, M> a(Kokkos::view_alloc(Kokkos::WithoutInitializing, "a"), 2 * n);
  Kokkos::View<double*, M> b(Kokkos::view_alloc(Kokkos::WithoutInitializing, "b"), 2 * n);
  const int me = w.rank;
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, 2 * n),
      KOKKOS_LAMBDA(std::int64_t i) { a(i) = static_cast<double>(i % 1000003) + me; });
  space.fence();
  for (const std::int64_t step : {1, 2}) {  // contiguous (direct), then every other double (staged)
    Datatype t = step == 1 ? contiguous(n, primitive<double>()) : vector(n, 1, 2, primitive<double>());
    t.commit();
    Kokkos::deep_copy(space, b, -1.0);
    std::vector<mpi::Request> r;
    r.push_back(mpi::irecv(space, b.data(), 1, t, w.prev(), 11, MPI_COMM_WORLD));
    r.push_back(mpi::isend(space, a.data(), 1, t, w.next(), 11, MPI_COMM_WORLD));
    mpi::wait_all(r);
    const int from = w.prev();
    std::int64_t wrong = 0;
    Kokkos::parallel_reduce(
        "check", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(space, 0, 2 * n),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t & sum) {
          const double want = i % step == 0 && i / step < n ? static_cast<double>(i % 1000003) + from : -1.0;
          sum += b(i) != want;
        },
        wrong);
    CHECK(t.size() > (std::int64_t(1) << 31));
    CHECK(wrong == 0);
  }
}
