// SPDX-License-Identifier: BSD-3-Clause
// The seed's HACC structure (jenkins-tpds14 section 5.2, Table 4; examples/hacc_vblock): a vblock_t of 17 members in
// the execution space's memory moved to a pinned host buffer, over a sweep of particle counts and the seed's 8 ranks'
// sizes, by
//   kokkosddt     one KokkosDDT::pack from KokkosDDT::bottom with the struct type (the seed's "Kernel")
//   copies        one asynchronous copy per member on the same instance, one fence (the seed's "CUDA DMA", queued)
//   copies_sync   one synchronous Kokkos::deep_copy per member (cudaMemcpy each: the seed's "CUDA DMA" as written)
//   cpu_kokkosddt / cpu_mpi_pack  a host copy of the block packed on the host by KokkosDDT and by MPI_Pack with the
//                 MPI's struct type (the seed's "CPU Ref.")
// With 2 ranks it also times a one-way send of the block (half a ping-pong) by KokkosDDT::mpi::isend from bottom and by
// MPI_Send(MPI_BOTTOM) with the MPI's struct type over the same memory (over a host copy where the MPI is not
// GPU-aware).
//
//   [mpiexec -n 2] hacc_bench [--quick] [--reps 50] [--csv out.csv]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT_MPI.hpp>
#include <mpi.h>

#include "hacc_vblock.hpp"
#include "support/Mpi.hpp"
#include "support/Options.hpp"
#include "support/Timing.hpp"

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Mem = Space::memory_space;
using Pinned = Kokkos::SharedHostPinnedSpace;
using namespace hacc_example;

struct Case {
  std::string label;
  int particles;
};

}  // namespace

int main(int argc, char* argv[]) {
  bench::MpiSession mpi(argc, argv);
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int reps = 50;
    std::string csv;
    std::vector<Case> cases;
    bool quick = false;
    bench::Options args("hacc_bench");
    const auto quick_run = [&] { quick = true, reps = 3; };
    args.flag("--quick", quick_run, "16 and 256 particles, 3 repetitions")
        .option("--reps", "N", reps, "repetitions (medians)")
        .option("--csv", "FILE", csv, "write the rows as CSV");
    if (const auto done = args.parse(argc, argv, rank == 0)) return *done;
    for (int p : quick ? std::vector<int>{16, 256} : std::vector<int>{4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144})
      cases.push_back({"sweep", p});
    if (!quick)  // the seed's run: 32768 particles over 8 ranks, sizes differing per rank
      for (int r = 0; r < 8; ++r) cases.push_back({"seed rank " + std::to_string(r), particles_of(r, 4096)});

    Space space;
    FILE* out = rank == 0 && !csv.empty() ? std::fopen(csv.c_str(), "w") : nullptr;
    if (out)
      std::fprintf(out,
                   "case,particles,bytes,space,kokkosddt_us,copies_us,copies_sync_us,cpu_kokkosddt_us,"
                   "cpu_mpi_pack_us,send_kokkosddt_us,send_mpi_struct_us\n");
    if (rank == 0) {
      std::printf("hacc_bench on %s, %d ranks, medians of %d (us); MPI %s device memory\n", Space::name(), ranks, reps,
                  KokkosDDT::mpi::gpu_aware() ? "reaches" : "does not reach (send_mpi: a host copy of the block)");
      std::printf("%-12s %9s %10s %10s %10s %11s %10s %10s %10s %10s %9s\n", "case", "particles", "bytes", "kokkosddt",
                  "copies", "copies_sync", "cpu_ddt", "cpu_mpi", "send_ddt", "send_mpi", "ddt/copy");
    }
    for (const Case& c : cases) {
      const vblock_t sizes = sizes_for(c.particles);
      const VBlock<Mem> block(sizes, 1);
      const KokkosDDT::Datatype type = block.type();
      const std::int64_t bytes = type.size();
      const std::vector<Member> members = block.members();
      Kokkos::View<char*, Pinned> packed("hacc::packed", bytes);
      double t[7] = {0, 0, 0, 0, 0, 0, 0};
      if (rank == 0) {
        t[0] = bench::median_us(reps, [&] {
          KokkosDDT::pack(space, KokkosDDT::bottom, 1, type, packed.data(), bytes);
          space.fence();
        });
        auto copies = [&](bool async) {
          std::int64_t offset = 0;
          for (const Member& m : members) {
            Kokkos::View<char*, Pinned, Kokkos::MemoryUnmanaged> to(packed.data() + offset, m.bytes());
            Kokkos::View<const char*, Mem, Kokkos::MemoryUnmanaged> from(
                reinterpret_cast<const char*>(static_cast<std::uintptr_t>(m.address)), m.bytes());
            if (async)
              Kokkos::deep_copy(space, to, from);
            else
              Kokkos::deep_copy(to, from);
            offset += m.bytes();
          }
          if (async) space.fence();
        };
        t[1] = bench::median_us(reps, [&] { copies(true); });
        t[2] = bench::median_us(reps, [&] { copies(false); });
        const VBlock<Kokkos::HostSpace> host(sizes, 1);
        const KokkosDDT::Datatype host_type = host.type();
        std::vector<char> host_packed(bytes + 1);
        Kokkos::DefaultHostExecutionSpace host_space;
        t[3] = bench::median_us(reps, [&] {
          KokkosDDT::pack(host_space, KokkosDDT::bottom, 1, host_type, host_packed.data(), bytes);
          host_space.fence();
        });
        // MPI_Pack with the MPI's struct, anchored at a non-null address (MPICH rejects MPI_BOTTOM there).
        MPI_Datatype theirs = mpi_struct_of(host);
        char anchor = 0;
        MPI_Datatype anchored = anchored_at(theirs, &anchor);
        t[4] = bench::median_us(reps, [&] {
          int position = 0;
          MPI_Pack(&anchor, 1, anchored, host_packed.data(), int(bytes), &position, MPI_COMM_SELF);
        });
        MPI_Type_free(&anchored);
        MPI_Type_free(&theirs);
      }
      if (ranks >= 2 && rank < 2) {  // half a ping-pong between ranks 0 and 1, both holding a block of these sizes
        const int peer = 1 - rank;
        // The MPI's struct over the same memory; a host copy of the block where the MPI cannot reach device memory
        // (it cannot send the device block at all then).
        const bool reaches =
            Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible || KokkosDDT::mpi::gpu_aware();
        const VBlock<Kokkos::HostSpace> host_block(reaches ? vblock_t{} : sizes, 1);
        MPI_Datatype theirs = reaches ? mpi_struct_of(block) : mpi_struct_of(host_block);
        space.fence();
        auto ping = [&](bool ours) {
          for (int leg = 0; leg < 2; ++leg) {
            const bool sending = (leg == 0) == (rank == 0);
            if (ours) {
              auto r = sending ? KokkosDDT::mpi::isend(space, KokkosDDT::bottom, 1, type, peer, 5, MPI_COMM_WORLD)
                               : KokkosDDT::mpi::irecv(space, KokkosDDT::bottom, 1, type, peer, 5, MPI_COMM_WORLD);
              r.wait();
            } else if (sending) {
              MPI_Send(MPI_BOTTOM, 1, theirs, peer, 6, MPI_COMM_WORLD);
            } else {
              MPI_Recv(MPI_BOTTOM, 1, theirs, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
          }
        };
        MPI_Barrier(MPI_COMM_WORLD);
        t[5] = bench::median_us(reps, [&] { ping(true); }) / 2;
        t[6] = bench::median_us(reps, [&] { ping(false); }) / 2;
        MPI_Type_free(&theirs);
      } else if (ranks >= 2) {
        MPI_Barrier(MPI_COMM_WORLD);
      }
      if (rank == 0) {
        std::printf("%-12s %9d %10lld %10.1f %10.1f %11.1f %10.1f %10.1f %10.1f %10.1f %8.2fx\n", c.label.c_str(),
                    c.particles, static_cast<long long>(bytes), t[0], t[1], t[2], t[3], t[4], t[5], t[6],
                    t[1] > 0 ? t[0] / t[1] : 0.0);
        std::fflush(stdout);
        if (out)
          std::fprintf(out, "%s,%d,%lld,%s,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n", c.label.c_str(), c.particles,
                       static_cast<long long>(bytes), Space::name(), t[0], t[1], t[2], t[3], t[4], t[5], t[6]);
      }
    }
    if (out) std::fclose(out);
  }
  return 0;
}
