// SPDX-License-Identifier: BSD-3-Clause
// How each message of a plan travels (mpi/transports/KokkosDDT_Routes.hpp): the peer route's rule on fabricated facts
// (peer/KokkosDDT_PeerRefusal.hpp, header-only, so tested in every build: every reason a message does not take it,
// and that both ends derive the same), what "auto" is on host and device
// spaces in this build, "auto" plans on host spaces (MPI, every message said so by describe()), a plan whose processes
// name different transports ("auto" on one) throwing on every process, and the emulated nodes (KOKKOSDDT_NODE_SIZE).
#include <string>
#include <vector>

#include <KokkosDDT_Communicators.hpp>
#include <KokkosDDT_MPI.hpp>
#include <KokkosDDT_PeerRefusal.hpp>
#include <KokkosDDT_Routes.hpp>
#include <KokkosDDT_Transports.hpp>

#include "support/Catch.hpp"
#include "support/Errors.hpp"
#include "support/MpiWorld.hpp"
#include "support/TestSpace.hpp"
#include "support/Watchdog.hpp"

using namespace KokkosDDT;
using Impl::PeerFacts;
using Impl::PeerRefusal;
using Test::ExecSpace;

TEST_CASE("routes: the peer route's rule names every reason a message does not take it", "[mpi][routes]") {
  const PeerFacts sender{0, 100, true, false};
  const PeerFacts near{0, 101, true, true};  // same node, another process, counters and cells exported
  CHECK(Impl::peer_refusal(sender, near, true) == PeerRefusal::None);
  CHECK(Impl::peer_refusal(sender, {0, 100, true, true}, true) == PeerRefusal::SameProcess);
  CHECK(Impl::peer_refusal(sender, {4, 101, true, true}, true) == PeerRefusal::OtherNode);
  CHECK(Impl::peer_refusal(sender, {4, 100, true, true}, true) == PeerRefusal::OtherNode);  // (pids repeat on nodes)
  CHECK(Impl::peer_refusal(sender, near, false) == PeerRefusal::Unreachable);
  CHECK(Impl::peer_refusal({0, 100, false, false}, near, true) == PeerRefusal::NoCounters);
  CHECK(Impl::peer_refusal(sender, {0, 101, false, true}, true) == PeerRefusal::NoCounters);
  CHECK(Impl::peer_refusal(sender, {0, 101, true, false}, true) == PeerRefusal::Cells);
  // Another node wins over what the GPUs could do: the reason a user reads is the first that applies.
  CHECK(Impl::peer_refusal(sender, {4, 101, false, false}, false) == PeerRefusal::OtherNode);
  // Both ends of a pair: each process, as a sender, decides its own sends from the receiver's facts; the rule depends
  // on nodes and processes symmetrically, so a pair on two nodes is refused in both directions.
  const PeerFacts a{0, 7, true, true}, b{8, 7, true, true};
  CHECK(Impl::peer_refusal(a, b, true) == Impl::peer_refusal(b, a, true));
  for (int r = 0; r <= static_cast<int>(PeerRefusal::Failed); ++r) {
    const std::string text = Impl::why(static_cast<PeerRefusal>(r));
    CHECK(text.empty() == (r == 0));
  }
}

TEST_CASE("routes: describe() writes a line per direction, peer and route", "[mpi][routes]") {
  const std::vector<mpi::Route> routes{{true, 3, "peer", "", 2, 16384}, {false, 5, "NCCL", "another node", 1, 8}};
  CHECK(mpi::describe(routes) ==
        "send to 3: peer, 2 messages, 16384 bytes\nreceive from 5: NCCL (another node), 1 message, 8 bytes\n");
  CHECK(mpi::describe({}).empty());
}

TEST_CASE("routes: \"auto\" is MPI on host spaces and the build's best on device spaces", "[mpi][routes]") {
  CHECK(mpi::TransportChoice().name() == "auto");  // (the plans' default)
  CHECK(mpi::has_transport("auto"));
  CHECK(mpi::has_transport("AUTO"));
  CHECK(Impl::resolve("auto", false).name() == "mpi");
  const std::string device = Impl::resolve("auto", true).name();
  if (mpi::has_transport("peer"))
    CHECK(device == "auto");  // (the peer transport, its other messages on NCCL or MPI)
  else
    CHECK(device == (mpi::has_transport("nccl") ? "nccl" : "mpi"));
  for (const char* named : {"mpi", "nccl", "peer"}) {  // a named transport is itself, on any space
    CHECK(Impl::resolve(named, false).name() == named);
    CHECK(Impl::resolve(named, true).name() == named);
  }
  CHECK(Impl::fingerprint("auto") != Impl::fingerprint("mpi"));  // (plans agree on the choice as named)
}

namespace {

using M = ExecSpace::memory_space;
constexpr bool kHost = Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible;

}  // namespace

TEST_CASE("routes: an exchange plan over \"auto\" says how each message travels", "[mpi][routes][exchange]") {
  Test::World w;
  ExecSpace space;
  Test::Watchdog dog("auto exchange plan");
  Kokkos::View<double*, M> a("a", 64), b("b", 64), c("c", 16), d("d", 16);
  Datatype every_other = vector(8, 1, 2, primitive<double>());
  every_other.commit();
  mpi::ExchangePlan<ExecSpace> plan(space, MPI_COMM_WORLD);  // (default options: "auto")
  CHECK(plan.transport().name() == "auto");
  plan.send(a, 4, every_other, w.next(), 1);
  plan.recv(b, 4, every_other, w.prev(), 1);
  plan.send(c, 16, primitive<double>(), w.rank, 2);  // (to itself: a copy)
  plan.recv(d, 16, primitive<double>(), w.rank, 2);
  CHECK(plan.routes().empty());  // (not committed)
  plan.commit();
  Kokkos::deep_copy(a, w.rank + 1.0);
  Kokkos::deep_copy(c, 7.0);
  plan.exchange();
  auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  CHECK(got(0) == w.prev() + 1.0);
  CHECK(got(1) == 0.0);
  auto self = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  CHECK(self(15) == 7.0);
  std::int64_t sent = 0;
  for (const mpi::Route& r : plan.routes()) {
    INFO(plan.describe());
    if (r.send) sent += r.bytes;
    if (r.via == "self" || r.via == "peer" || r.via == "peer (landed)") {
      CHECK(r.why.empty());
    } else {
      CHECK((r.via == "MPI" || r.via == "NCCL"));
      if (kHost) CHECK(r.via == "MPI");  // (host spaces: MPI, no reason needed)
    }
  }
  CHECK(sent == 4 * 8 * 8 + 16 * 8);  // (every byte of every send, on one route or another)
  CHECK(plan.describe().find("send to") != std::string::npos);
}

TEST_CASE("routes: processes that name different transports (\"auto\" on one) throw on every process",
          "[mpi][routes][errors]") {
  Test::World w;
  if (w.size < 2) return;
  ExecSpace space;
  Test::Watchdog dog("auto against a named transport");
  mpi::ExchangePlan<ExecSpace> p(space, MPI_COMM_WORLD, {w.rank == 0 ? "auto" : "mpi"});
  Test::require_error([&] { p.commit(); }, ErrorCode::InvalidArgument, "options");
  Kokkos::View<double**, Kokkos::LayoutRight, M> f("f", 8, 8);
  MPI_Comm cart = MPI_COMM_NULL;
  int dims[2] = {0, 0}, periods[2] = {1, 1};
  MPI_Dims_create(w.size, 2, dims);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  mpi::HaloOptions o;
  o.transport = w.rank == w.size - 1 ? "auto" : "mpi";
  Test::require_error([&] { (void)mpi::make_halo_plan(space, cart, o, f); }, ErrorCode::InvalidArgument, "options");
  MPI_Comm_free(&cart);
}

TEST_CASE("routes: KOKKOSDDT_NODE_SIZE makes groups of consecutive ranks nodes of their own", "[mpi][routes]") {
  Test::World w;
  const int k = Impl::emulated_node_size();
  const std::int64_t leader = Impl::node_leader(MPI_COMM_WORLD, "test");
  // (the tests run on one machine: its node is every rank, split into groups of k where the knob is set)
  CHECK(leader == (k > 0 ? w.rank / k * k : 0));
}
