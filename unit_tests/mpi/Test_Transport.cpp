// SPDX-License-Identifier: BSD-3-Clause
// The transport seam's contract (mpi/transports/KokkosDDT_Transport.hpp) on every transport this build has: MPI on
// any number of processes (a ring), NCCL with a one-process communicator on the GPU (NCCL refuses two processes on one
// GPU). Sets of several messages per peer with tags posted out of order, one-off and persistent, repeated; what each
// transport refuses, and how.
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <KokkosDDT_MPI.hpp>
#include <KokkosDDT_MpiTransport.hpp>
#include <KokkosDDT_Transports.hpp>

#include "support/Catch.hpp"
#include "support/Errors.hpp"
#include "support/MpiWorld.hpp"
#include "support/TestSpace.hpp"
#include "support/Watchdog.hpp"

using namespace KokkosDDT;
using Test::ExecSpace;

namespace {

char byte_of(int rank, int message, int round, std::size_t i) {
  return static_cast<char>((rank * 31 + message * 7 + round * 13 + static_cast<int>(i)) & 0x7f);
}

}  // namespace

TEST_CASE("transport: the registry names the build's transports and what each can do", "[mpi][transport]") {
  const std::vector<std::string> names = mpi::transports();
  REQUIRE(!names.empty());
  CHECK(names.front() == "mpi");
  CHECK(mpi::TransportChoice().name() == "auto");
  CHECK(mpi::TransportChoice("NCCL").name() == "nccl");  // names are case-insensitive
  for (const std::string& n : names) {  // (by what each says it can do, never by name: any transport registered)
    CHECK(mpi::has_transport(n));
    const mpi::TransportCapabilities c = mpi::capabilities(n);
    CHECK((c.host_memory || c.device_memory));
    if (!c.host_memory) continue;  // (a transport of device memory only is made in its own cases, on a GPU)
    // What the registry says before a transport is made is what a made one says; one without direct routes routes
    // nothing direct.
    auto t = Impl::library_transport(n, MPI_COMM_SELF, "test");
    CHECK(t->capabilities().completion == c.completion);
    CHECK(t->capabilities().tags == c.tags);
    CHECK(t->capabilities().host_memory == c.host_memory);
    // A plan's routes over it (Transport::route): a message to this process itself, three steps, by the Step's
    // verbs as the engine calls them; staged routes lie in the staging asked for (device memory where the transport
    // that carries the messages asks for it: "auto" may hand them to NCCL).
    using DeviceMemory = Kokkos::DefaultExecutionSpace::memory_space;
    using Bytes = Kokkos::View<char*, DeviceMemory, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const Datatype bytes = contiguous(40, primitive<char>()).commit();
    std::vector<char> out(40), in(40), got(40);
    const Impl::CommittedMessage send{out.data(), false, 1, &bytes.impl_committed("test"), 0, 7};
    const Impl::CommittedMessage receive{in.data(), false, 1, &bytes.impl_committed("test"), 0, 7};
    bool on_device = false;  // (the transport asked for device memory)
    auto staging = [&](std::int64_t n, bool device) {
      on_device = on_device || device;
      if (device) {
        auto owner = std::make_shared<Kokkos::View<char*, DeviceMemory>>("staging", n);
        return Impl::Staging{owner->data(), n, owner};
      }
      auto owner = std::make_shared<std::vector<char>>(static_cast<std::size_t>(n));
      return Impl::Staging{owner->data(), n, owner};
    };
    Impl::Deliveries routes = t->route({send}, {receive}, staging, false, "test");
    REQUIRE(routes.sends.size() == 1);
    REQUIRE(routes.receives.size() == 1);
    REQUIRE(routes.step);
    CHECK(routes.sends[0].kind == Impl::DeliveryKind::Staged);  // (to itself: no peer route)
    CHECK(routes.receives[0].kind == Impl::DeliveryKind::Staged);
    if (!c.direct) CHECK(std::string(routes.sends[0].why).empty());
    const bool device = on_device && !Kokkos::SpaceAccessibility<Kokkos::HostSpace, DeviceMemory>::accessible;
    for (int round = 0; round < 3; ++round) {
      const Impl::StreamRef stream{};
      const Impl::StreamRef writing = routes.step->begin(stream);
      CHECK(writing.native == nullptr);
      for (int i = 0; i < 40; ++i) out[i] = static_cast<char>(round * 40 + i);
      if (device)  // (the "pack")
        Kokkos::deep_copy(Bytes(routes.sends[0].at, 40), Kokkos::View<char*, Kokkos::HostSpace>(out.data(), 40));
      else
        std::memcpy(routes.sends[0].at, out.data(), 40);
      routes.step->send(stream);
      routes.step->wait(stream);
      if (device)
        Kokkos::deep_copy(Kokkos::View<char*, Kokkos::HostSpace>(got.data(), 40), Bytes(routes.receives[0].at, 40));
      else
        std::memcpy(got.data(), routes.receives[0].at, 40);
      CHECK(got == out);
    }
  }
  CHECK_FALSE(mpi::has_transport("carrier-pigeon"));
  Test::require_error([] { mpi::capabilities("carrier-pigeon"); }, ErrorCode::InvalidArgument, "transport");
  Test::require_error([] { Impl::library_transport("carrier-pigeon", MPI_COMM_SELF, "test"); },
                      ErrorCode::InvalidArgument, "transport");
  CHECK(Impl::fingerprint("mpi") == Impl::fingerprint("MPI"));
  CHECK(Impl::fingerprint("mpi") != Impl::fingerprint("nccl"));
}

TEST_CASE("transport: MPI delivers every message of a set, by tag, one-off and persistent", "[mpi][transport]") {
  Test::Watchdog dog("MPI transport contract");
  Test::World w;
  auto t = Impl::MpiTransport::duplicate(MPI_COMM_WORLD, "test");
  CHECK(t->capabilities().completion == Impl::Completion::Host);
  CHECK(t->capabilities().tags);
  CHECK(t->rank() == w.rank);
  CHECK(t->size() == w.size);
  for (bool persistent : {false, true}) {
    std::vector<char> out_a(100), out_b(37), in_a(100, 0), in_b(37, 0);
    // Receives listed in the other tag order than the sends: tags, not positions, match them.
    auto set = t->make_set({{out_a.data(), 100, w.next(), 5}, {out_b.data(), 37, w.next(), 3}},
                           {{in_b.data(), 37, w.prev(), 3}, {in_a.data(), 100, w.prev(), 5}}, persistent, "test");
    for (int round = 0; round < 3; ++round) {
      for (std::size_t i = 0; i < out_a.size(); ++i) out_a[i] = byte_of(w.rank, 0, round, i);
      for (std::size_t i = 0; i < out_b.size(); ++i) out_b[i] = byte_of(w.rank, 1, round, i);
      set->post_receives();
      set->post_sends();
      while (!set->test()) {
      }
      int wrong = 0;
      for (std::size_t i = 0; i < in_a.size(); ++i) wrong += in_a[i] != byte_of(w.prev(), 0, round, i);
      for (std::size_t i = 0; i < in_b.size(); ++i) wrong += in_b[i] != byte_of(w.prev(), 1, round, i);
      CHECK(wrong == 0);
      const Impl::Arrival a = set->arrival(0);
      CHECK(a.source == w.prev());
      CHECK(a.tag == 3);
      CHECK(a.bytes == 37);
    }
    Test::require_error([&] { set->enqueue({}); }, ErrorCode::InvalidArgument, "transport");
    Test::require_error([&] { set->join({}); }, ErrorCode::InvalidArgument, "transport");
  }
}

TEST_CASE("transport: an MPI receive shorter than its message throws and leaves the set usable", "[mpi][transport]") {
  Test::Watchdog dog("MPI transport truncation");
  Test::World w;
  if (w.size < 2) return;         // (Open MPI 4.1 truncates a message to the process itself without an error)
  Test::ReturningComm returning;  // (MPICH raises MPI_Test's errors on MPI_COMM_WORLD's handler)
  auto t = Impl::MpiTransport::duplicate(returning, "test");
  std::vector<char> out(64, 1), in(32, 0);
  auto sends = t->make_set({{out.data(), 64, w.next(), 9}}, {}, false, "test");
  auto receives = t->make_set({}, {{in.data(), 32, w.prev(), 9}}, false, "test");
  receives->post_receives();
  sends->post_sends();
  bool threw = false;
  try {
    while (!receives->test()) {
    }
  } catch (const Error& e) {
    threw = e.code() == ErrorCode::MPI;
  }
  CHECK(threw);
  CHECK(receives->test());  // the failed message is gone; nothing else is pending
  while (!sends->test()) {
  }
}

#if KOKKOSDDT_HAVE_NCCL
namespace {

template <class Space>
void nccl_contract() {
  using M = typename Space::memory_space;
  auto t = Impl::library_transport("nccl", MPI_COMM_SELF, "test");
  CHECK(t->capabilities().completion == Impl::Completion::Stream);
  CHECK_FALSE(t->capabilities().tags);
  CHECK_FALSE(t->capabilities().host_memory);
  Space space;
  Kokkos::View<char*, M> out_a("a", 100), out_b("b", 37), in_a("in_a", 100), in_b("in_b", 37);
  auto set = t->make_set({{out_a.data(), 100, 0, 5}, {out_b.data(), 37, 0, 3}},
                         {{in_b.data(), 37, 0, 3}, {in_a.data(), 100, 0, 5}}, true, "test");
  for (int round = 0; round < 3; ++round) {
    Kokkos::parallel_for(
        "fill", Kokkos::RangePolicy<Space>(space, 0, 100), KOKKOS_LAMBDA(int i) {
          out_a(i) = static_cast<char>((i + 13 * round) & 0x7f);
          if (i < 37) out_b(i) = static_cast<char>((3 * i + round) & 0x7f);
        });
    const Impl::StreamRef stream{Impl::BackendTraits<Space>::native_stream(space)};
    set->enqueue(stream);
    set->join(stream);
    CHECK(set->test());
    auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in_a);
    auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in_b);
    int wrong = 0;
    for (int i = 0; i < 100; ++i) wrong += a(i) != static_cast<char>((i + 13 * round) & 0x7f);
    for (int i = 0; i < 37; ++i) wrong += b(i) != static_cast<char>((3 * i + round) & 0x7f);
    CHECK(wrong == 0);
  }
  CHECK(set->arrival(0).bytes == 37);
  // What NCCL cannot do throws: host posting, wildcards and absent peers, host memory.
  Test::require_error([&] { set->post_sends(); }, ErrorCode::InvalidArgument, "transport");
  Test::require_error(
      [&] {
        t->make_set({}, {{in_a.data(), 100, MPI_ANY_SOURCE, 0}}, false, "test");
      },
      ErrorCode::InvalidArgument, "peer");
  Test::require_error(
      [&] {
        t->make_set({{out_a.data(), 100, 1, 0}}, {}, false, "test");
      },
      ErrorCode::InvalidArgument, "peer");
  std::vector<char> host(8);
  Test::require_error(
      [&] {
        t->make_set({{host.data(), 8, 0, 0}}, {}, false, "test");
      },
      ErrorCode::Inaccessible, "buf");
}

// Over every process: an NCCL communicator where each has its own GPU; where two share one (the one-GPU passes), the
// same clear error on every process instead of NCCL's "invalid usage".
template <class Space>
void nccl_gpu_per_process() {
  Test::World w;
  char bus[32] = {};
  int device = 0;
  cudaGetDevice(&device);
  cudaDeviceGetPCIBusId(bus, sizeof bus, device);
  std::vector<char> all(32 * static_cast<std::size_t>(w.size));
  MPI_Allgather(bus, 32, MPI_CHAR, all.data(), 32, MPI_CHAR, MPI_COMM_WORLD);
  bool shared = false;
  for (int a = 0; a < w.size; ++a)
    for (int b = a + 1; b < w.size; ++b) shared = shared || std::strncmp(&all[32 * a], &all[32 * b], 32) == 0;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  if (shared) {
    Test::require_error([&] { Impl::library_transport("nccl", comm, "test"); }, ErrorCode::InvalidArgument,
                        "transport");
  } else {
    CHECK(Impl::library_transport("nccl", comm, "test")->size() == w.size);
  }
  MPI_Comm_free(&comm);
}

}  // namespace

TEST_CASE("transport: NCCL needs one GPU per process, and says so", "[mpi][transport][nccl]") {
  Test::Watchdog dog("NCCL one GPU per process");
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, ExecSpace::memory_space>::accessible)
    SUCCEED("NCCL moves device memory: GPU execution spaces only");
  else
    nccl_gpu_per_process<ExecSpace>();
}

TEST_CASE("transport: NCCL enqueues a set on the stream; tags order each peer's messages", "[mpi][transport][nccl]") {
  Test::Watchdog dog("NCCL transport contract");
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, ExecSpace::memory_space>::accessible)
    SUCCEED("NCCL moves device memory: GPU execution spaces only");
  else
    nccl_contract<ExecSpace>();
}
#endif
