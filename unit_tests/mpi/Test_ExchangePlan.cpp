// SPDX-License-Identifier: BSD-3-Clause
// Exchange plans (typed persistent p2p on any transport) against MPI's own messages: random nested types (fixed seeds)
// sent to the next rank, the previous one and this rank itself, several per peer with repeated tags (so the matching
// order matters), run for several steps with new contents each step, into poisoned buffers with guard bytes. The
// transport is the one KOKKOSDDT_TEST_TRANSPORT names (NCCL in the one-rank pass of CUDA builds, where every message
// goes to this process itself through NCCL). Then every error path: local argument errors at once, mismatched messages
// and options on every rank, never a hang (a watchdog fails one).
#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include <KokkosDDT_MPI.hpp>

#include "support/Catch.hpp"
#include "support/Errors.hpp"
#include "support/MessageCases.hpp"
#include "support/MpiOracle.hpp"
#include "support/MpiWorld.hpp"
#include "support/TestSpace.hpp"
#include "support/Watchdog.hpp"

using namespace KokkosDDT;
using Test::download;
using Test::ExecSpace;
using Test::MessageCase;
using Test::pattern;
using Test::upload;
using Test::World;

namespace {

using M = ExecSpace::memory_space;

mpi::ExchangeOptions options() { return {Test::halo_transport()}; }

// One message of a round: its case, its peer offset (to rank + offset, from rank - offset) and its tag.
struct Planned {
  MessageCase c;
  int offset = 0, tag = 0;
};

// What MPI's own messages leave in a poisoned receive buffer of message i: plain MPI with the exported types, one tag
// per message, where MPICH is the reference and the types are in its safe zone; else the host pack/unpack.
std::vector<std::vector<char>> reference(const std::vector<Planned>& msgs, int salt) {
  World w;
  std::vector<std::vector<char>> in, out;
  const bool by_mpi = Test::mpi_is_reference() &&
                      std::all_of(msgs.begin(), msgs.end(), [](const Planned& m) { return m.c.mpich_safe; });
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    const MessageCase& c = msgs[i].c;
    const int from = (w.rank - msgs[i].offset + w.size) % w.size;
    if (!by_mpi || c.bytes() == 0)  // (MPICH 4.0.2 divides by zero on zero-size derived receives: #6234)
      in.push_back(Test::expected_receive(c, pattern(from, c.n, salt + static_cast<int>(i))));
    else
      in.emplace_back(c.n, Test::kPoison);
    out.push_back(pattern(w.rank, c.n, salt + static_cast<int>(i)));
  }
  if (!by_mpi) return in;
  std::vector<MPI_Request> r;
  std::vector<MPI_Datatype> types;
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    const MessageCase& c = msgs[i].c;
    if (c.bytes() == 0) continue;
    types.push_back(mpi::to_mpi(c.type));
    const int to = (w.rank + msgs[i].offset) % w.size, from = (w.rank - msgs[i].offset + w.size) % w.size;
    r.emplace_back();
    MPI_Irecv(in[i].data() + c.origin, static_cast<int>(c.count), types.back(), from, 900 + static_cast<int>(i),
              MPI_COMM_WORLD, &r.back());
    r.emplace_back();
    MPI_Isend(out[i].data() + c.origin, static_cast<int>(c.count), types.back(), to, 900 + static_cast<int>(i),
              MPI_COMM_WORLD, &r.back());
  }
  MPI_Waitall(static_cast<int>(r.size()), r.data(), MPI_STATUSES_IGNORE);
  for (MPI_Datatype& t : types) MPI_Type_free(&t);
  return in;
}

void round_trip(std::uint64_t seed, int round) {
  World w;
  ExecSpace space;
  Test::TypeGenerator gen(seed + static_cast<std::uint64_t>(round));  // the same on every rank
  const int n = static_cast<int>(gen.pick(1, 6));
  std::vector<Planned> msgs;
  for (int i = 0; i < n; ++i) {
    Planned m;
    m.c = Test::make_message_case(gen);
    const int offsets[3] = {0, 1, w.size - 1};
    m.offset = offsets[gen.pick(0, 2)];
    m.tag = static_cast<int>(gen.pick(0, 2));  // (repeated tags: their order matters)
    msgs.push_back(m);
  }
  INFO("round " << round << ": " << n << " messages");
  std::vector<Kokkos::View<char*, M>> out(n), in(n);
  mpi::ExchangePlan<ExecSpace> plan(space, MPI_COMM_WORLD, options());
  // Sends in message order; receives grouped by (offset, tag) in a random order of the groups, each group in message
  // order (the order the sends of one peer and tag match in).
  for (int i = 0; i < n; ++i) {
    const Planned& m = msgs[i];
    out[i] = upload<M>(pattern(w.rank, m.c.n, i));
    in[i] = upload<M>(std::vector<char>(m.c.n, Test::kPoison));
    plan.send(out[i].data() + m.c.origin, m.c.count, m.c.type, (w.rank + m.offset) % w.size, m.tag);
  }
  std::vector<int> group_key(3 * 3);
  std::iota(group_key.begin(), group_key.end(), 0);
  std::shuffle(group_key.begin(), group_key.end(), gen.rng());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  auto group = [&](int i) {  // (offsets that name the same peer are one group: 1 and size - 1 at two ranks)
    const int d = msgs[i].offset % w.size;
    return group_key[3 * (d == 0 ? 0 : d == 1 ? 1 : 2) + msgs[i].tag];
  };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return group(a) < group(b); });
  for (int i : order) {
    const Planned& m = msgs[i];
    plan.recv(in[i].data() + m.c.origin, m.c.count, m.c.type, (w.rank - m.offset + w.size) % w.size, m.tag);
  }
  plan.commit();
  // Steps with new contents each time; the first as one call, the others split around a progress call.
  for (int step = 0; step < 3; ++step) {
    const int salt = 100 * step;
    if (step > 0)  // (into the plan's buffers: they are fixed, their contents not)
      for (int i = 0; i < n; ++i) Kokkos::deep_copy(out[i], upload<M>(pattern(w.rank, msgs[i].c.n, salt + i)));
    const auto expect = reference(msgs, salt);
    if (step == 0) {
      plan.exchange();
    } else {
      plan.start(space);
      plan.progress();
      plan.wait();
      plan.wait_host();
    }
    for (int i = 0; i < n; ++i) {
      INFO("step " << step << ", message " << i << ": " << msgs[i].c.type.describe() << " x " << msgs[i].c.count
                   << " to +" << msgs[i].offset << ", tag " << msgs[i].tag);
      CHECK(download(in[i]) == expect[i]);
    }
    for (int i = 0; i < n; ++i) Kokkos::deep_copy(in[i], Test::kPoison);
  }
}

}  // namespace

TEST_CASE("mpi exchange plan: random nested types equal MPI's own messages, step after step", "[mpi][exchange]") {
  for (int round = 0; round < Test::scaled(24); ++round) {
    Test::Watchdog dog("exchange plan round " + std::to_string(round));
    round_trip(0xe8c4, round);
  }
}

TEST_CASE("mpi exchange plan: bad arguments throw at once and leave the plan as it was", "[mpi][exchange][errors]") {
  World w;
  ExecSpace space;
  Test::Watchdog dog("exchange plan argument errors");
  Kokkos::View<double*, M> a("a", 64);
  Datatype v = vector(4, 2, 8, primitive<double>());
  Datatype loose = vector(4, 2, 8, primitive<double>());  // (not committed)
  v.commit();
  mpi::ExchangePlan<ExecSpace> plan(space, MPI_COMM_WORLD, options());
  Test::require_error([&] { plan.send(a, 1, loose, w.next(), 0); }, ErrorCode::NotCommitted, "type");
  Test::require_error([&] { plan.send(a, -1, v, w.next(), 0); }, ErrorCode::InvalidArgument, "count");
  Test::require_error([&] { plan.send(a, 3, v, w.next(), 0); }, ErrorCode::BufferTooSmall, "buf");
  Test::require_error([&] { plan.send(nullptr, 1, v, w.next(), 0); }, ErrorCode::NullPointer, "buf");
  Test::require_error([&] { plan.send(a, 1, v, w.size, 0); }, ErrorCode::InvalidArgument, "dest");
  Test::require_error([&] { plan.recv(a, 1, v, MPI_ANY_SOURCE, 0); }, ErrorCode::InvalidArgument, "source");
  Test::require_error([&] { plan.recv(a, 1, v, w.prev(), MPI_ANY_TAG); }, ErrorCode::InvalidArgument, "tag");
  Test::require_error([&] { plan.recv(a, 1, v, w.prev(), -3); }, ErrorCode::InvalidArgument, "tag");
  int* tag_ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
  REQUIRE(found);
  if (*tag_ub < std::numeric_limits<int>::max())  // (above MPI_TAG_UB)
    Test::require_error([&] { plan.send(a, 1, v, w.next(), *tag_ub + 1); }, ErrorCode::InvalidArgument, "tag");
  Test::require_error([&] { plan.start(); }, ErrorCode::InvalidArgument, "plan");
  CHECK(plan.sends() == 0);
  CHECK(plan.receives() == 0);
  // The plan still works: one message around the ring, MPI_PROC_NULL moving nothing.
  plan.send(a, 1, v, w.next(), 5);
  plan.recv(Kokkos::subview(a, std::make_pair(32, 64)), 1, v, w.prev(), 5);
  plan.send(a, 1, v, MPI_PROC_NULL, 5);
  plan.recv(a, 1, v, MPI_PROC_NULL, 5);
  plan.commit();
  Test::require_error([&] { plan.commit(); }, ErrorCode::InvalidArgument, "plan");
  Test::require_error([&] { plan.send(a, 1, v, w.next(), 0); }, ErrorCode::InvalidArgument, "plan");
  plan.exchange();
  mpi::ExchangePlan<ExecSpace> moved = std::move(plan);
  moved.exchange();
  Test::require_error([&] { plan.start(); }, ErrorCode::InvalidArgument, "plan");  // NOLINT: use after move, on purpose
}

TEST_CASE("mpi exchange plan: messages that do not pair up throw on every rank at commit", "[mpi][exchange][errors]") {
  World w;
  ExecSpace space;
  Test::Watchdog dog("exchange plan matching");
  Kokkos::View<int*, M> a("a", 64), b("b", 64);
  Datatype ints = primitive<int>(), pairs = contiguous(2, primitive<int>()), halves = contiguous(4, primitive<short>());
  ints.commit();
  pairs.commit();
  halves.commit();
  auto plan_of = [&](auto&& add) {
    mpi::ExchangePlan<ExecSpace> p(space, MPI_COMM_WORLD, options());
    add(p);
    p.commit();
    return p;
  };
  // Sizes differ (every rank's receive is one int longer than what its peer sends).
  Test::require_error(
      [&] {
        plan_of([&](auto& p) {
          p.send(a, 4, ints, w.next(), 1);
          p.recv(b, 5, ints, w.prev(), 1);
        });
      },
      ErrorCode::InvalidArgument, "messages");
  // One rank sends a message more than its peer receives (a hang on the first step, without the check).
  Test::require_error(
      [&] {
        plan_of([&](auto& p) {
          p.send(a, 1, ints, w.next(), 1);
          p.recv(b, 1, ints, w.prev(), 1);
          if (w.rank == 0) p.send(a, 1, ints, w.next(), 2);
        });
      },
      ErrorCode::InvalidArgument, "messages");
  // Tags differ.
  Test::require_error(
      [&] {
        plan_of([&](auto& p) {
          p.send(a, 1, ints, w.next(), 1);
          p.recv(b, 1, ints, w.prev(), 2);
        });
      },
      ErrorCode::InvalidArgument, "messages");
  // Same bytes, another signature (ints against shorts).
  Test::require_error(
      [&] {
        plan_of([&](auto& p) {
          p.send(a, 2, pairs, w.next(), 1);
          p.recv(b, 2, halves, w.prev(), 1);
        });
      },
      ErrorCode::InvalidArgument, "messages");
  // Another type and count with the same signature is MPI's match: it works.
  auto good = plan_of([&](auto& p) {
    p.send(a, 4, ints, w.next(), 1);
    p.recv(b, 2, pairs, w.prev(), 1);
  });
  Kokkos::deep_copy(a, w.rank + 1);
  good.exchange();
  auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  CHECK(got(0) == w.prev() + 1);
  CHECK(got(3) == w.prev() + 1);
  CHECK(got(4) == 0);
}

TEST_CASE("mpi exchange plan: options that differ or cannot be met throw on every rank", "[mpi][exchange][errors]") {
  World w;
  ExecSpace space;
  Test::Watchdog dog("exchange plan options");
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible;
  if (host || !mpi::has_transport("nccl")) {  // NCCL: not in this build, or not for host memory
    mpi::ExchangePlan<ExecSpace> p(space, MPI_COMM_WORLD, {"nccl"});
    Test::require_error([&] { p.commit(); }, ErrorCode::InvalidArgument, "options");
  }
  {  // a transport no build has
    mpi::ExchangePlan<ExecSpace> p(space, MPI_COMM_WORLD, {"carrier-pigeon"});
    Test::require_error([&] { p.commit(); }, ErrorCode::InvalidArgument, "options");
  }
  if (w.size > 1) {
    mpi::ExchangePlan<ExecSpace> p(space, MPI_COMM_WORLD, {w.rank == 0 ? "nccl" : "mpi"});
    Test::require_error([&] { p.commit(); }, ErrorCode::InvalidArgument, "options");
  }
  mpi::ExchangePlan<ExecSpace> empty(space, MPI_COMM_WORLD);
  empty.commit();  // (no messages: a step does nothing, and waits for nothing)
  empty.exchange();
  CHECK(empty.messages() == 0);
}
