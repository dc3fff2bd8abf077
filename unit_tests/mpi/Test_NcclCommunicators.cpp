// SPDX-License-Identifier: BSD-3-Clause
// Who owns the NCCL communicators (mpi/transports/nccl/): the library makes one per group of processes and GPU and
// shares it between the MPI communicators of those processes, whatever their rank order (a map to NCCL's ranks); a
// user's own communicator (nccl_from_raw) is used as it is and never freed. Needs one GPU per process (NCCL refuses
// two on one): where processes share a GPU the cases say so and pass. Builds without NCCL compile nothing here.
#if KOKKOSDDT_HAVE_NCCL
#include <cstring>
#include <vector>

#include <KokkosDDT_MPI.hpp>
#include <KokkosDDT_Transports.hpp>

#include "support/Catch.hpp"
#include "support/Errors.hpp"
#include "support/MpiWorld.hpp"
#include "support/TestSpace.hpp"
#include "support/Watchdog.hpp"

#include <nccl.h>

#include <KokkosDDT_NcclTransport.hpp>

using namespace KokkosDDT;
using Test::ExecSpace;

namespace {

// Whether two processes of MPI_COMM_WORLD share a GPU (NCCL's transport then refuses them).
bool gpus_shared() {
  Test::World w;
  char bus[32] = {};
  int device = 0;
  cudaGetDevice(&device);
  cudaDeviceGetPCIBusId(bus, sizeof bus, device);
  std::vector<char> all(32 * static_cast<std::size_t>(w.size));
  MPI_Allgather(bus, 32, MPI_CHAR, all.data(), 32, MPI_CHAR, MPI_COMM_WORLD);
  for (int a = 0; a < w.size; ++a)
    for (int b = a + 1; b < w.size; ++b)
      if (std::strncmp(&all[32 * a], &all[32 * b], 32) == 0) return true;
  return false;
}

// A ring over `t`'s ranks: each process sends 64 bytes naming its rank in MPI_COMM_WORLD to the next rank of `t` and
// receives the previous one's; true when what arrived came from the process that is the previous rank of `t`.
bool ring_arrives(Impl::Transport& t, MPI_Comm comm) {
  using M = ExecSpace::memory_space;
  Test::World w;
  const int n = t.size(), me = t.rank();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  int prev_world = 0;  // (who that is, learnt over MPI)
  MPI_Sendrecv(&w.rank, 1, MPI_INT, next, 0, &prev_world, 1, MPI_INT, prev, 0, comm, MPI_STATUS_IGNORE);
  Kokkos::View<int*, M> out("out", 16), in("in", 16);
  Kokkos::deep_copy(out, w.rank);
  Kokkos::deep_copy(in, -1);
  auto set = t.make_set({{reinterpret_cast<char*>(out.data()), 64, next, 0}},
                        {{reinterpret_cast<char*>(in.data()), 64, prev, 0}}, true, "test");
  ExecSpace space;
  const Impl::StreamRef stream{Impl::BackendTraits<ExecSpace>::native_stream(space)};
  set->enqueue(stream);
  set->join(stream);
  space.fence();
  auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), in);
  int wrong = 0;
  for (int i = 0; i < 16; ++i) wrong += got(i) != prev_world;
  return wrong == 0;
}

}  // namespace

TEST_CASE("NCCL: communicators of one group of processes share one NCCL communicator, in any rank order",
          "[mpi][transport][nccl]") {
  Test::Watchdog dog("NCCL communicator cache");
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, ExecSpace::memory_space>::accessible) {
    SUCCEED("NCCL moves device memory: GPU execution spaces only");
  } else {
    if (gpus_shared()) {
      SUCCEED("processes share a GPU: NCCL refuses them");
      return;
    }
    Test::World w;
    MPI_Comm dup, reversed;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, 0, w.size - 1 - w.rank, &reversed);  // (the same processes, ranks reversed)
    auto a = Impl::library_transport("nccl", dup, "test");
    const long made = Impl::nccl_communicators_made();
    auto b = Impl::library_transport("nccl", reversed, "test");
    CHECK(Impl::nccl_communicators_made() == made);  // no new ncclCommInitRank
    CHECK(b->rank() == w.size - 1 - w.rank);
    CHECK(ring_arrives(*a, dup));
    CHECK(ring_arrives(*b, reversed));  // (peers are the reversed communicator's ranks, mapped to NCCL's)
    // Freed from the cache: the next transport makes a new one; those in use keep theirs.
    mpi::free_cached_communicators();
    auto c = Impl::library_transport("nccl", dup, "test");
    CHECK(Impl::nccl_communicators_made() == made + 1);
    CHECK(ring_arrives(*b, reversed));
    CHECK(ring_arrives(*c, dup));
    a.reset(), b.reset(), c.reset();
    MPI_Comm_free(&dup);
    MPI_Comm_free(&reversed);
  }
}

TEST_CASE("NCCL: a plan on the user's communicator (nccl_from_raw) uses it as it is and never frees it",
          "[mpi][transport][nccl]") {
  Test::Watchdog dog("NCCL user communicator");
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, ExecSpace::memory_space>::accessible) {
    SUCCEED("NCCL moves device memory: GPU execution spaces only");
  } else {
    if (gpus_shared()) {
      SUCCEED("processes share a GPU: NCCL refuses them");
      return;
    }
    Test::World w;
    ncclUniqueId id{};
    if (w.rank == 0) REQUIRE(ncclGetUniqueId(&id) == ncclSuccess);
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclComm_t user = nullptr;
    REQUIRE(ncclCommInitRank(&user, w.size, id, w.size - 1 - w.rank) == ncclSuccess);  // (NCCL ranks reversed)
    const long made = Impl::nccl_communicators_made();
    {
      auto t = Impl::library_transport(mpi::nccl_from_raw(user), MPI_COMM_WORLD, "test");
      CHECK(t->rank() == w.rank);  // (the MPI communicator's ranks; NCCL's are mapped)
      CHECK(ring_arrives(*t, MPI_COMM_WORLD));
    }
    CHECK(Impl::nccl_communicators_made() == made);
    int count = 0;
    CHECK(ncclCommCount(user, &count) == ncclSuccess);  // still the user's, alive
    CHECK(count == w.size);
    // A null communicator, or one whose processes are not the MPI communicator's, throws on every process.
    Test::require_error([&] { Impl::library_transport(mpi::nccl_from_raw(nullptr), MPI_COMM_WORLD, "test"); },
                        ErrorCode::InvalidArgument, "transport");
    if (w.size > 1)
      Test::require_error([&] { Impl::library_transport(mpi::nccl_from_raw(user), MPI_COMM_SELF, "test"); },
                          ErrorCode::InvalidArgument, "transport");
    CHECK(ncclCommDestroy(user) == ncclSuccess);
  }
}
#endif
