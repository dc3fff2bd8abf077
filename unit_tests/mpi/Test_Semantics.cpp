// SPDX-License-Identifier: BSD-3-Clause
// The promises MPI makes that the typed p2p layer must keep (run under mpiexec -n 1, 2, 4; with 2 OpenMP threads, so
// that host packs stay pending; and with small KOKKOSDDT_MPI_CHUNK_BYTES, so that messages exceed the chunk size):
// message order (non-overtaking), a message is one message whatever its size, MPI_PROC_NULL, null buffers. Every case
// runs under a watchdog: a hang fails it.
#include <algorithm>
#include <vector>

#include <KokkosDDT_MPI.hpp>
#include <KokkosDDT_MpiBytes.hpp>

#include "support/Catch.hpp"
#include "support/Errors.hpp"
#include "support/MpiWorld.hpp"
#include "support/TestSpace.hpp"
#include "support/Watchdog.hpp"

using namespace KokkosDDT;
using Test::ExecSpace;
using Test::World;
using Mem = ExecSpace::memory_space;

namespace {

// n floats in the execution space's memory, element i = base + i.
Kokkos::View<float*, Mem> floats(std::int64_t n, float base) {
  Kokkos::View<float*, Mem> v("floats", n);
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(std::int64_t i) { v(i) = base + i; });
  Kokkos::fence();
  return v;
}

template <class View>
auto on_host(const View& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

// How many of the first n elements of v are not base + stride * i.
template <class View>
std::int64_t wrong(const View& v, std::int64_t n, float base, std::int64_t stride) {
  auto h = on_host(v);
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < n; ++i) bad += h(i) != base + static_cast<float>(stride * i);
  return bad;
}

// A size of the order of the piece size when a test lowers it (KOKKOSDDT_MPI_CHUNK_BYTES), else small: messages of
// this many bytes times 3 span several pieces where pieces are small.
std::int64_t piece_scale() { return std::min<std::int64_t>(Impl::mpi_chunk_bytes(), 1000); }

}  // namespace

TEST_CASE("mpi semantics: sends to one destination reach it in the order they were started", "[mpi][semantics]") {
  World w;
  if (w.size < 2) return;
  ExecSpace space;
  Test::Watchdog dog("message order");
  // A staged send (a strided vector: its pack may still be pending when the next send starts, as every pack on a GPU
  // and a multi-tile host pack are), then a contiguous one (posted at once, were it not for the order) to the same
  // destination with the same tag. Sizes equal: a swap would deliver the wrong data silently.
  for (const std::int64_t n : {std::int64_t(16), std::int64_t(17000), std::int64_t(60000)}) {
    INFO("n = " << n);
    Datatype strided = vector(n, 1, 2, primitive<float>()).commit();
    Datatype run = contiguous(n, primitive<float>()).commit();
    Datatype one = primitive<float>();
    one.commit();
    auto a = floats(2 * n, 1000.f * w.rank), b = floats(n, -1000.f * w.rank - 1);
    Kokkos::View<float*, Mem> first("first", n), second("second", n), short_one("short", 16);
    for (const bool reverse : {false, true}) {
      std::vector<mpi::Request> sends;
      sends.push_back(mpi::isend(space, a.data(), 1, strided, w.next(), 5, MPI_COMM_WORLD));
      sends.push_back(mpi::isend(space, b.data(), 1, run, w.next(), 5, MPI_COMM_WORLD));
      // Different sizes too: the 16-float message must not match the receive that expects the long one.
      sends.push_back(mpi::isend(space, a.data(), 1, strided, w.next(), 6, MPI_COMM_WORLD));
      sends.push_back(mpi::isend(space, b.data(), 16, one, w.next(), 6, MPI_COMM_WORLD));
      std::vector<mpi::Request> recvs;
      recvs.push_back(mpi::irecv(space, first.data(), 1, run, w.prev(), 5, MPI_COMM_WORLD));
      recvs.push_back(mpi::irecv(space, second.data(), 1, run, w.prev(), 5, MPI_COMM_WORLD));
      recvs.push_back(mpi::irecv(space, first.data(), 1, run, w.prev(), 6, MPI_COMM_WORLD));
      recvs.push_back(mpi::irecv(space, short_one.data(), 16, one, w.prev(), 6, MPI_COMM_WORLD));
      if (reverse) {  // waiting for the later send first must post the earlier one first
        for (int i = 3; i >= 0; --i) sends[i].wait();
        for (int i = 3; i >= 0; --i) recvs[i].wait();
      } else {  // waiting for the receives first must not starve the sends whose packs have run
        mpi::wait_all(recvs);
        mpi::wait_all(sends);
      }
      CHECK(wrong(first, n, 1000.f * w.prev(), 2) == 0);
      CHECK(wrong(second, n, -1000.f * w.prev() - 1, 1) == 0);
      CHECK(wrong(short_one, 16, -1000.f * w.prev() - 1, 1) == 0);
    }
  }
  // Persistent and one-off sends mixed, many rounds, waited for in reverse: the receiver sees them in start order.
  Datatype strided = vector(9000, 1, 2, primitive<float>()).commit();
  Datatype run = contiguous(9000, primitive<float>()).commit();
  auto a = floats(18000, 7.f), b = floats(9000, -7.f);
  std::vector<mpi::Request> persistent;
  persistent.push_back(mpi::send_init(space, a.data(), 1, strided, w.next(), 8, MPI_COMM_WORLD));
  Kokkos::View<float*, Mem> r0("r0", 9000), r1("r1", 9000);
  for (int round = 0; round < 3; ++round) {
    std::vector<mpi::Request> recvs;
    recvs.push_back(mpi::irecv(space, r0.data(), 1, run, w.prev(), 8, MPI_COMM_WORLD));
    recvs.push_back(mpi::irecv(space, r1.data(), 1, run, w.prev(), 8, MPI_COMM_WORLD));
    persistent[0].start();
    mpi::Request later = mpi::isend(space, b.data(), 1, run, w.next(), 8, MPI_COMM_WORLD);
    later.wait();
    persistent[0].wait();
    mpi::wait_all(recvs);
    CHECK(wrong(r0, 9000, 7.f, 2) == 0);
    CHECK(wrong(r1, 9000, -7.f, 1) == 0);
  }
}

TEST_CASE("mpi semantics: a message longer than the piece size is one message", "[mpi][semantics]") {
  World w;
  if (w.size < 2) return;
  ExecSpace space;
  Test::ReturningComm comm;
  Test::Watchdog dog("whole messages");
  const std::int64_t k = piece_scale() / 4;  // ints: 3k of them span three pieces where pieces are small
  Datatype ints = primitive<int>();
  ints.commit();
  Kokkos::View<int*, Mem> out("out", 3 * k), in("in", 3 * k);
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<ExecSpace>(0, 3 * k), KOKKOS_LAMBDA(std::int64_t i) { out(i) = 100 + i; });
  Kokkos::fence();
  // The message after each mismatch must arrive whole and in place: nothing of the bad one is left in MPI's queues.
  auto check_next = [&](int from, int to) {
    if (w.rank == from) mpi::isend(space, out.data(), 3 * k, ints, to, 21, comm).wait();
    if (w.rank == to) {
      Kokkos::deep_copy(in, -1);
      auto r = mpi::irecv(space, in.data(), 3 * k, ints, from, 21, comm);
      r.wait();
      int count = -1;
      MPI_Status s = r.status();
      MPI_Get_count(&s, MPI_BYTE, &count);
      CHECK(count == 12 * k);  // the packed bytes of the whole message
      CHECK(s.MPI_SOURCE == from);
      CHECK(wrong(in, 3 * k, 100.f, 1) == 0);
    }
  };
  // Rank 0 sends `sent` instances of `type` from `src`, rank 1 expects `expected` into `dst`: rank 1's wait throws
  // Error(MPI) naming `argument`. A staged receive (`untouched`) leaves its buffer as it was: the size is checked
  // before the unpack (a direct receive is MPI's own, which may have written what arrived).
  auto mismatch = [&](const Kokkos::View<int*, Mem>& src, const Kokkos::View<int*, Mem>& dst, std::int64_t sent,
                      std::int64_t expected, const Datatype& type, const char* argument, bool untouched) {
    if (w.rank == 0) mpi::isend(space, src.data(), sent, type, 1, 20, comm).wait();
    if (w.rank == 1) {
      Kokkos::deep_copy(dst, -7);
      auto r = mpi::irecv(space, dst.data(), expected, type, 0, 20, comm);
      Test::require_error([&] { r.wait(); }, ErrorCode::MPI, argument);
      auto h = on_host(dst);
      if (untouched) CHECK(std::count(h.data(), h.data() + h.size(), -7) == static_cast<std::ptrdiff_t>(h.size()));
    }
    check_next(0, 1);
  };
  SECTION("longer than the receive: MPI_ERR_TRUNCATE on the receiving side, and nothing left behind") {
    mismatch(out, in, 3 * k, 2 * k, ints, "", false);
  }
  SECTION("shorter than the receive: an error, not a wait for more") {
    mismatch(out, in, 2 * k, 3 * k, ints, "type", false);
  }
  SECTION("staged sides too (a strided send into a strided receive), the receive buffer untouched") {
    Datatype every_other = vector(k, 1, 2, primitive<int>()).commit();
    Kokkos::View<int*, Mem> wide("wide", 6 * k);  // 3 instances of every_other span 6k - 1 ints
    mismatch(wide, wide, 3, 2, every_other, "", true);
    mismatch(wide, wide, 2, 3, every_other, "type", true);
  }
  SECTION("two senders, two MPI_ANY_SOURCE receives: each receive holds one whole message") {
    if (w.size < 3) return;
    const std::int64_t n = 8 * k;  // several pieces where pieces are small
    if (w.rank == 1 || w.rank == 2) {
      Kokkos::View<int*, Mem> mine("mine", n);
      const int me = w.rank;
      Kokkos::parallel_for(
          "fill", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(std::int64_t i) { mine(i) = 1000000 * me + i; });
      Kokkos::fence();
      mpi::isend(space, mine.data(), n, ints, 0, 22, comm).wait();
    }
    if (w.rank == 0) {
      Kokkos::View<int*, Mem> x("x", n), y("y", n);
      std::vector<mpi::Request> r;
      r.push_back(mpi::irecv(space, x.data(), n, ints, MPI_ANY_SOURCE, 22, comm));
      r.push_back(mpi::irecv(space, y.data(), n, ints, MPI_ANY_SOURCE, 22, comm));
      mpi::wait_all(r);
      for (int i = 0; i < 2; ++i) {
        const int from = r[i].status().MPI_SOURCE;
        CHECK((from == 1 || from == 2));
        auto h = on_host(i == 0 ? x : y);
        std::int64_t bad = 0;
        for (std::int64_t j = 0; j < n; ++j) bad += h(j) != 1000000 * from + j;
        CHECK(bad == 0);
      }
      CHECK(r[0].status().MPI_SOURCE != r[1].status().MPI_SOURCE);
    }
  }
}

TEST_CASE("mpi semantics: MPI_PROC_NULL completes at once and moves nothing", "[mpi][semantics]") {
  ExecSpace space;
  Test::Watchdog dog("MPI_PROC_NULL");
  Datatype run = contiguous(16, primitive<int>()).commit();        // direct
  Datatype strided = vector(16, 1, 2, primitive<int>()).commit();  // staged
  Kokkos::View<int*, Mem> buf("buf", 64);
  Kokkos::deep_copy(buf, 77);
  for (const Datatype& t : {run, strided}) {
    INFO(t.describe());
    auto r = mpi::irecv(space, buf.data(), 1, t, MPI_PROC_NULL, 3, MPI_COMM_WORLD);
    CHECK(r.test());
    MPI_Status s = r.status();
    int count = -1;
    MPI_Get_count(&s, MPI_BYTE, &count);
    CHECK(count == 0);
    CHECK(s.MPI_SOURCE == MPI_PROC_NULL);
    CHECK(s.MPI_TAG == MPI_ANY_TAG);
    auto p = mpi::recv_init(space, buf.data(), 1, t, MPI_PROC_NULL, 3, MPI_COMM_WORLD);
    for (int round = 0; round < 2; ++round) {
      p.start();
      p.wait();
      s = p.status();
      CHECK(s.MPI_SOURCE == MPI_PROC_NULL);
    }
    mpi::isend(space, buf.data(), 1, t, MPI_PROC_NULL, 3, MPI_COMM_WORLD).wait();
  }
  auto h = on_host(buf);
  CHECK(std::count(h.data(), h.data() + 64, 77) == 64);  // untouched
}

TEST_CASE("mpi semantics: a null buffer is refused even when the type's data starts past byte 0", "[mpi][semantics]") {
  ExecSpace space;
  using E = ErrorCode;
  // One contiguous run of 8 ints at byte 16: buf + 16 is not null, but buf is.
  Datatype shifted = hindexed({8}, {16}, primitive<int>()).commit();
  Datatype strided = vector(8, 1, 2, primitive<int>()).commit();
  for (const Datatype& t : {shifted, strided}) {
    INFO(t.describe());
    Test::require_error([&] { mpi::isend(space, nullptr, 1, t, 0, 0, MPI_COMM_WORLD); }, E::NullPointer, "buf");
    Test::require_error([&] { mpi::irecv(space, nullptr, 1, t, 0, 0, MPI_COMM_WORLD); }, E::NullPointer, "buf");
    Test::require_error([&] { mpi::send_init(space, nullptr, 1, t, 0, 0, MPI_COMM_WORLD); }, E::NullPointer, "buf");
    Test::require_error([&] { mpi::recv_init(space, nullptr, 1, t, 0, 0, MPI_COMM_WORLD); }, E::NullPointer, "buf");
    // MPI checks the buffer of a message to or from MPI_PROC_NULL too.
    Test::require_error([&] { mpi::irecv(space, nullptr, 1, t, MPI_PROC_NULL, 0, MPI_COMM_WORLD); }, E::NullPointer,
                        "buf");
  }
  // Nothing moves: a null buffer is fine.
  CHECK(mpi::irecv(space, nullptr, 0, shifted, MPI_PROC_NULL, 0, MPI_COMM_WORLD).test());
}

TEST_CASE("mpi semantics: an agreement gives every process the same verdict", "[mpi][semantics]") {
  // Values that differ per rank and values that agree, with an error on some ranks.
  World w;
  Test::Watchdog dog("agreement");
  const bool error = w.rank % 3 == 2;
  Impl::Agreement agreement(MPI_COMM_WORLD, error, {7, 1000 - 3 * w.rank, -5 * w.rank}, "test");
  agreement.wait();
  CHECK(agreement.agreed(0));
  CHECK(agreement.max(0) == 7);
  CHECK(agreement.max(1) == 1000);
  CHECK(agreement.min(1) == 1000 - 3 * (w.size - 1));
  CHECK(agreement.agreed(1) == (w.size == 1));
  CHECK(agreement.min(2) == -5 * (w.size - 1));
  CHECK(agreement.any_error() == (w.size > 2));
  if (w.size > 2) CHECK(agreement.lowest_error_rank() == 2);
  std::uint64_t errors = 0;
  for (int r = 0; r < w.size; ++r) errors += r % 3 == 2;
  CHECK(agreement.errors() == errors);

  // The same with sums (mod 2^64) beside the values, blocking: one reduction takes the maximum of some words and the
  // sum of the others.
  const std::uint64_t big = std::uint64_t(1) << 63;
  Impl::Agreement both(MPI_COMM_WORLD, error, {w.rank, 42}, {std::uint64_t(w.rank + 1), big}, true, "test");
  CHECK(both.max(0) == w.size - 1);
  CHECK(both.min(0) == 0);
  CHECK(both.agreed(1));
  CHECK(both.sum(0) == std::uint64_t(w.size) * (w.size + 1) / 2);
  CHECK(both.sum(1) == (w.size % 2 == 1 ? big : 0));
  CHECK(both.errors() == errors);
  CHECK(both.any_error() == (w.size > 2));
}
