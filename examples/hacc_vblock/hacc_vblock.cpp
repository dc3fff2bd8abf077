// SPDX-License-Identifier: BSD-3-Clause
// The seed's HACC analysis structure (jenkins-tpds14 section 5.2) moved with one struct datatype built from absolute
// addresses: every rank holds a vblock_t of its own size in the execution space's memory (device memory on GPUs),
// packs it with one KokkosDDT::pack from KokkosDDT::bottom into a pinned host buffer, and sends it to the next rank
// with KokkosDDT::mpi::isend(space, bottom, 1, type, ...), which receives into a vblock_t sized by the sender.
//
//   mpiexec -n 4 hacc_vblock [particles per rank, on average = 4096]
//
// Checks the packed bytes and the received structure against values computed on the host; exits non-zero when they
// differ. Prints each rank's bytes and its pack time against one copy per member (the seed's "CUDA DMA").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT_MPI.hpp>
#include <mpi.h>

#include "hacc_vblock.hpp"

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Mem = Space::memory_space;
using Pinned = Kokkos::SharedHostPinnedSpace;  // host memory the device writes to directly
using namespace hacc_example;

template <class F>
double median_us(int reps, const F& f) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    t.push_back(1e6 * std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int run(int argc, char** argv) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int base = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int next = (rank + 1) % ranks, prev = (rank + ranks - 1) % ranks;
  Space space;

  // This rank's block: pack it once and check the bytes.
  const vblock_t sizes = sizes_for(particles_of(rank, base));
  const VBlock<Mem> mine(sizes, rank);
  const KokkosDDT::Datatype type = mine.type();
  const std::int64_t bytes = type.size();
  Kokkos::View<char*, Pinned> packed("hacc::packed", bytes);
  KokkosDDT::pack(space, KokkosDDT::bottom, 1, type, packed.data(), bytes);
  space.fence();
  bool ok = std::memcmp(packed.data(), VBlock<Mem>::expected_packed(sizes, rank).data(), bytes) == 0;

  // Send it to the next rank; receive the previous rank's into a block of the sender's sizes.
  vblock_t incoming_sizes{};
  MPI_Sendrecv(&sizes, sizeof(vblock_t), MPI_BYTE, next, 1, &incoming_sizes, sizeof(vblock_t), MPI_BYTE, prev, 1,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  const VBlock<Mem> incoming(incoming_sizes, -1);  // filled with other values first
  const KokkosDDT::Datatype incoming_type = incoming.type();
  std::vector<KokkosDDT::mpi::Request> requests;
  requests.push_back(KokkosDDT::mpi::irecv(space, KokkosDDT::bottom, 1, incoming_type, prev, 2, MPI_COMM_WORLD));
  requests.push_back(KokkosDDT::mpi::isend(space, KokkosDDT::bottom, 1, type, next, 2, MPI_COMM_WORLD));
  KokkosDDT::mpi::wait_all(requests);
  Kokkos::View<char*, Pinned> received("hacc::received", incoming_type.size());
  KokkosDDT::pack(space, KokkosDDT::bottom, 1, incoming_type, received.data(), incoming_type.size());
  space.fence();
  ok = ok && std::memcmp(received.data(), VBlock<Mem>::expected_packed(incoming_sizes, prev).data(),
                         incoming_type.size()) == 0;

  // The pack against one copy per member (asynchronous copies on the same instance, one fence).
  const double pack_us = median_us(20, [&] {
    KokkosDDT::pack(space, KokkosDDT::bottom, 1, type, packed.data(), bytes);
    space.fence();
  });
  const std::vector<Member> members = mine.members();
  const double copies_us = median_us(20, [&] {
    std::int64_t offset = 0;
    for (const Member& m : members) {
      Kokkos::View<char*, Pinned, Kokkos::MemoryUnmanaged> to(packed.data() + offset, m.bytes());
      Kokkos::View<const char*, Mem, Kokkos::MemoryUnmanaged> from(
          reinterpret_cast<const char*>(static_cast<std::uintptr_t>(m.address)), m.bytes());
      Kokkos::deep_copy(space, to, from);
      offset += m.bytes();
    }
    space.fence();
  });

  int all_ok = 0;
  const int my_ok = ok ? 1 : 0;
  MPI_Allreduce(&my_ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  for (int r = 0; r < ranks; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == rank)
      std::printf("rank %d: %d particles, %lld bytes in %zu members: one pack %.1f us, %zu copies %.1f us (%s)\n", rank,
                  sizes.num_orig_particles, static_cast<long long>(bytes), members.size(), pack_us, members.size(),
                  copies_us, ok ? "verified" : "WRONG");
    std::fflush(stdout);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::printf("hacc_vblock on %s: %s\n", Space::name(), all_ok ? "PASSED" : "FAILED");
  return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 0;
  Kokkos::initialize(argc, argv);
  try {
    status = run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hacc_vblock: %s\n", e.what());
    status = 1;
  }
  Kokkos::finalize();
  MPI_Finalize();
  return status;
}
