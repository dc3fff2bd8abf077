// SPDX-License-Identifier: BSD-3-Clause
// What a plan does when a peer does not keep up (issue 46): with a deadline (options.timeout), a wait that passes it
// throws Error(Timeout) naming the step, its routes and the ranks it heard nothing from, and the plan has failed
// (every later call throws); destroying a plan after a timeout, or after a start() its neighbour never matched,
// returns on every process. On the transport under test (KOKKOSDDT_TEST_TRANSPORT; "auto" otherwise), under the
// watchdog: a hang fails the test instead of CI. Hidden from the default run ("[.]": each waits for its timeouts):
// ctest's deadline passes and multi_gpu.sh run them by their tag, "[deadline]"; a rank that dies ("[killed]") has a
// pass of its own where the launcher can leave the survivors running (MPICH's hydra).
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <KokkosDDT_MPI.hpp>

#include "support/Catch.hpp"
#include "support/MpiWorld.hpp"
#include "support/TestSpace.hpp"
#include "support/Watchdog.hpp"

using namespace KokkosDDT;
using Test::ExecSpace;
using Test::World;

namespace {

using Cells = Kokkos::View<double*, ExecSpace::memory_space>;
constexpr int kCells = 1000;
// The deadline, in seconds: 1 unless KOKKOSDDT_TEST_DEADLINE_S says otherwise. Every process must come to a plan's
// setup within it, so an oversubscribed or slow machine needs more (CI's passes give 5: unit_tests/CMakeLists.txt).
const double kTimeout = [] {
  const char* seconds = std::getenv("KOKKOSDDT_TEST_DEADLINE_S");
  return seconds ? std::atof(seconds) : 1.0;
}();
// What a wait may take beyond its deadline before a test calls it late, in seconds. A wait has one deadline
// (Impl::Deadline), but the machine may stop the process on top of it: on CI's 2-vCPU VM (nested virtualization) two
// tests running at once saw three waits of 10.2-10.5 s under a 5-s deadline at the same moment, in two MPI
// jobs, while such waits took 5.3 s otherwise (2026-11-28).
constexpr double kSlack = 6;

// A ring: each rank sends kCells doubles to the next and receives as many from the previous.
struct Ring {
  Cells out{"out", kCells}, in{"in", kCells};
  mpi::ExchangePlan<ExecSpace> plan;
  explicit Ring(double timeout) : plan(ExecSpace(), MPI_COMM_WORLD, {Test::halo_transport(), timeout}) {
    World w;
    const Datatype doubles = contiguous(kCells, primitive<double>()).commit();
    plan.send(out, 1, doubles, w.next(), 7);
    plan.recv(in, 1, doubles, w.prev(), 7);
    plan.commit();
  }
  // One whole step with new contents; whether the cells from the previous rank arrived.
  bool step(int round) {
    World w;
    Kokkos::deep_copy(out, 1000.0 * w.rank + round);
    plan.start();
    plan.wait_host();
    auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in);
    for (int i = 0; i < kCells; ++i)
      if (got(i) != 1000.0 * w.prev() + round) return false;
    return true;
  }
};

}  // namespace

TEST_CASE("deadlines: a rank that skips a step: its neighbour times out naming it, and every destroy returns",
          "[.][deadline]") {
  World w;
  if (w.size < 2) return;  // (needs a neighbour that is another process)
  Test::Watchdog dog("a skipped step under a deadline", 60);
  const int late = 1, victim = (late + 1) % w.size;  // rank 1 skips; the rank after it waits for it
  {
    Ring ring(kTimeout);
    CHECK(ring.step(1));
    if (w.rank != late) {
      Kokkos::deep_copy(ring.out, -1.0);
      ring.plan.start();
      bool timed_out = false;
      try {
        ring.plan.wait_host();
      } catch (const Error& e) {
        timed_out = true;
        CHECK(e.code() == ErrorCode::Timeout);
        const std::string what = e.what();
        CHECK(what.find("step 2") != std::string::npos);
        // Host-completed messages (MPI) always tell which receive is missing: there the victim must name the late
        // rank. Others name it where they can (the peer route's counters; NCCL cannot).
        const bool named = what.find("rank " + std::to_string(late)) != std::string::npos;
        const mpi::TransportCapabilities can = mpi::capabilities(Impl::resolved<ExecSpace>(Test::halo_transport()));
        if (w.rank == victim && can.completion == Impl::Completion::Host && !can.direct)
          CHECK(named);
        else if (!named)
          WARN("the timeout names no rank: " + what);
        // The plan has failed: every later call throws.
        try {
          ring.plan.start();
          FAIL("a failed plan started");
        } catch (const Error& again) {
          CHECK(again.code() == ErrorCode::Timeout);
        }
      }
      if (w.rank == victim) CHECK(timed_out);
    }
    MPI_Barrier(MPI_COMM_WORLD);  // (every rank's wait has ended: the late rank destroys with the others)
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

namespace {

// Whether this rank's receive from `peer` in `plan` is written by the peer's own kernel (the peer route): its waits are
// on the device, which only the library's departure boards and watchdog can end without a deadline.
bool direct_from(const mpi::ExchangePlan<ExecSpace>& plan, int peer) {
  for (const mpi::Route& r : plan.routes())
    if (!r.send && r.peer == peer && r.via.rfind("peer", 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE(
    "deadlines: start, wait and a fence against a rank that skips a step: released by the deadline, the next "
    "call throws",
    "[.][deadline]") {
  // README's loop. Host-completed messages (MPI) throw in wait() at the deadline; stream-ordered ones (peer, NCCL)
  // return from wait() at once, the fence returns once the library ended the step's device-side waits at the deadline,
  // and the next call throws. Either way the rank that waits for the late one learns it within the deadline (and the
  // slack of a loaded machine), never a stale step without an error.
  World w;
  if (w.size < 2) return;
  Test::Watchdog dog("README's loop against a skipped step", 90);
  using Clock = std::chrono::steady_clock;
  const int late = 1, victim = (late + 1) % w.size;
  {
    Ring ring(kTimeout);
    CHECK(ring.step(1));
    if (w.rank != late) {
      Kokkos::deep_copy(ring.out, -1.0);
      ExecSpace space;
      const auto t0 = Clock::now();
      std::string what;
      try {
        ring.plan.start(space);
        ring.plan.wait();
        space.fence();
      } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::Timeout);
        what = e.what();
      }
      const double released = std::chrono::duration<double>(Clock::now() - t0).count();
      if (w.rank == victim) {
        INFO("rank " << w.rank << " released after " << released << " s");
        CHECK(released <= kTimeout + kSlack);
        if (what.empty()) {  // (stream-ordered: the next call says it)
          try {
            ring.plan.start(space);
            FAIL("a step whose deadline passed was not reported");
          } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::Timeout);
            what = e.what();
          }
        }
        CHECK(what.find("step 2") != std::string::npos);
        std::printf("rank %d: released after %.2f s under a %.1f-s deadline: %s\n", w.rank, released, kTimeout,
                    what.c_str());
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);  // (the late rank destroys with the others, after their deadlines)
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_CASE("deadlines: without a deadline, a rank that gives the plan up fails the step it left, never completes it",
          "[.][deadline]") {
  // The late rank destroys its plan instead of starting step 2. A peer route's receiver waits on the device, and the
  // destroy ends that wait (terminal counter values) as the late rank's writes would have: the step must fail, at the
  // receiver's next call, not complete with the last step's cells. Messages of a host-completed transport that never
  // come have no end without a deadline: there the case says so and checks nothing.
  World w;
  if (w.size < 2) return;
  Test::Watchdog dog("a rank that gives the plan up", 60);
  const int late = 1, victim = (late + 1) % w.size;
  {
    Ring ring(0);
    CHECK(ring.step(1));
    int direct = w.rank == victim && direct_from(ring.plan, late) ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &direct, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!direct) {
      if (w.rank == 0)
        std::printf(
            "(skipped: the late rank's messages are not written direct (%s); without a deadline their wait "
            "has no end)\n",
            mpi::name(Test::halo_transport()));
    } else if (w.rank == late) {
      // Gives the plan up instead of starting step 2. (Its destroy then meets the others' at the end of the scope.)
      ring.plan = mpi::ExchangePlan<ExecSpace>();
    } else if (w.rank == victim) {
      Kokkos::deep_copy(ring.out, -1.0);
      ExecSpace space;
      try {  // (start(2) already throws where the late rank gave up first; else the fence returns and start(3) throws)
        ring.plan.start(space);
        ring.plan.wait();
        space.fence();
        ring.plan.start(space);
        FAIL("a step the late rank left was completed");
      } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::Timeout);
        const std::string what = e.what();
        INFO(what);
        CHECK(what.find("step 2") != std::string::npos);
        CHECK(what.find("rank " + std::to_string(late) + " gave the plan up after step 1") != std::string::npos);
      }
    }
  }  // (no barrier before: the late rank's destroy waits for the others')
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_CASE("deadlines: a start never matched (its neighbour skips the step) and a destroy without wait return",
          "[.][deadline]") {
  World w;
  if (w.size < 2) return;
  Test::Watchdog dog("a destroy after an unmatched start", 60);
  {
    Ring ring(kTimeout);
    CHECK(ring.step(1));
    if (w.rank == 0) {  // (and no wait: the plan is destroyed with the step in flight)
      try {
        ring.plan.start();
      } catch (const Error& e) {  // (a neighbour that gave the plan up first: this start is already refused)
        CHECK(e.code() == ErrorCode::Timeout);
        CHECK(std::string(e.what()).find("gave the plan up after step 1") != std::string::npos);
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  Ring again(0);  // the processes still make and run plans together afterwards
  CHECK(again.step(3));
}

TEST_CASE("deadlines: a rank late to a plan's setup: the others throw Timeout within the deadline", "[.][deadline]") {
  World w;
  if (w.size < 2) return;
  Test::Watchdog dog("a rank late to the setup", 60);
  using Clock = std::chrono::steady_clock;
  const int late = 1;
  const double comes = 2 * kTimeout + kSlack;  // (when the late rank comes: after the others may have left)
  if (w.rank == late) std::this_thread::sleep_for(std::chrono::duration<double>(comes));
  const auto t0 = Clock::now();
  bool timed_out = false;
  try {
    Ring ring(kTimeout);
  } catch (const Error& e) {
    timed_out = e.code() == ErrorCode::Timeout;
    if (!timed_out) FAIL(e.what());
    CHECK(std::string(e.what()).find("setup") != std::string::npos);
  }
  const double waited = std::chrono::duration<double>(Clock::now() - t0).count();
  CHECK(timed_out);                    // (the late rank too: the others left before it came)
  CHECK(waited <= kTimeout + kSlack);  // (the others: within the deadline, before the late rank came)
  MPI_Barrier(MPI_COMM_WORLD);
  Ring again(0);  // the processes still make and run plans together afterwards
  CHECK(again.step(5));
}

TEST_CASE("deadlines: options.timeout is checked on every rank, and none changes nothing", "[.][deadline]") {
  Test::Watchdog dog("timeout options", 60);
  World w;
  mpi::ExchangePlan<ExecSpace> bad(ExecSpace(), MPI_COMM_WORLD, {Test::halo_transport(), w.rank == 0 ? -1.0 : 0.0});
  try {
    bad.commit();
    FAIL("a negative timeout was taken");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::InvalidArgument);
    CHECK(e.argument() == "options");
  }
  Ring ring(0);
  for (int round = 1; round <= 3; ++round) CHECK(ring.step(round));
}

// A rank that dies after a good step (it leaves without finalizing: std::_Exit; MPICH 4.0's hydra takes every rank
// down when one dies of a signal, even with -disable-auto-cleanup, but leaves them running after an exit), under a
// launcher told not to take the others down (ctest's "a rank that dies" pass): the rank it sent to gets an error
// within the deadline (and kSlack), and every survivor's destroy returns within as long. Each survivor prints its
// verdict, which the pass reads, and leaves without MPI_Finalize (collective: the dead rank never comes).
// KOKKOSDDT_TEST_DEATH=kill: the rank dies of SIGKILL instead (launchers that allow it); KOKKOSDDT_TEST_DEATH_S: the
// deadline (default 1 s; a peer route reports a death sooner, which a longer one shows; 0: none, where a peer route
// still reports it).
TEST_CASE("deadlines: a rank that dies: its neighbour gets an error within the deadline, every destroy returns",
          "[.][killed]") {
  World w;
  if (w.size < 2) return;
  Test::Watchdog dog("a rank that dies", 60);
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  const int killed = 1, neighbour = (killed + 1) % w.size;
  const char* death = std::getenv("KOKKOSDDT_TEST_DEATH");
  const char* seconds = std::getenv("KOKKOSDDT_TEST_DEATH_S");
  const double timeout = seconds ? std::atof(seconds) : kTimeout;
  // A survivor's wait and its destroy must each end within the deadline and the slack of a loaded machine (on a 2-vCPU
  // VM running two tests at once, a destroy took 6.06 s and a wait 10.52 s under a 5-s deadline, 2026-11-28).
  const double bound = timeout + kSlack;
  bool ok = true, failed = false;
  std::string what = "no error";
  double waited = 0;
  Clock::time_point destroying, step_began;
  {
    Ring ring(timeout);
    ok = ring.step(1);
    // Without a deadline (KOKKOSDDT_TEST_DEATH_S=0) only a wait on the device has something to end it: the background
    // check of the linked peers' processes. A host wait for a message from a dead process has no end: not run there.
    int direct = w.rank == neighbour && direct_from(ring.plan, killed) ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &direct, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (timeout == 0 && !direct) {
      std::printf(
          "a rank that dies: rank %d survived (not run: no deadline, and rank %d's messages are not written "
          "direct)\n",
          w.rank, killed);
      std::fflush(stdout);
      MPI_Barrier(MPI_COMM_WORLD);
      std::_Exit(0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (w.rank == killed && death && std::string(death) == "kill") std::raise(SIGKILL);
    if (w.rank == killed) std::_Exit(3);
    const auto t0 = step_began = Clock::now();
    try {
      (void)ring.step(2);
    } catch (const Error& e) {
      failed = true;
      what = e.what();
    }
    waited = since(t0);
    if (w.rank == neighbour) ok = ok && failed && waited <= bound;
    destroying = Clock::now();
  }
  const double destroyed = since(destroying);
  ok = ok && destroyed <= bound;
  std::printf("a rank that dies: rank %d %s (waited %.2f s, destroyed in %.2f s): %s\n", w.rank,
              ok ? "survived" : "FAILED", waited, destroyed, what.c_str());
  std::fflush(stdout);
  // A launcher takes the others down once a process leaves without finalizing (Open MPI, even with status 0): a
  // survivor that knew early (a peer route sees the death at once) stays until the slowest survivor may have given its
  // verdict (its wait and its destroy, each within the bound).
  std::this_thread::sleep_until(step_began +
                                std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(2 * bound)));
  std::_Exit(ok ? 0 : 1);
}
