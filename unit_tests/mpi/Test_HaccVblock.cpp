// SPDX-License-Identifier: BSD-3-Clause
// The seed's HACC structure (examples/hacc_vblock, jenkins-tpds14 section 5.2): one struct type from absolute
// addresses over a vblock_t and its eight arrays, sized differently on every rank. Checked against the MPI's own
// struct type (MPI_Type_create_struct from MPI_Get_address) byte for byte, unpacked back, and sent around the ring
// between KokkosDDT and MPI in both directions, in the execution space's memory.
#include <cstring>
#include <vector>

#include <KokkosDDT_MPI.hpp>

#include "hacc_vblock.hpp"
#include "support/Catch.hpp"
#include "support/TestSpace.hpp"

using namespace KokkosDDT;
using hacc_example::anchored_at;
using hacc_example::mpi_struct_of;
using hacc_example::VBlock;
using hacc_example::vblock_t;
using Test::ExecSpace;

namespace {

using Mem = ExecSpace::memory_space;

std::vector<char> to_host(const Kokkos::View<char*, Mem>& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<char>(h.data(), h.data() + h.extent(0));
}

struct Ring {
  int rank = 0, size = 1, next = 0, prev = 0;
  Ring() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
  }
};

}  // namespace

TEST_CASE("hacc vblock: one struct type from absolute addresses, against the MPI's", "[mpi][hacc]") {
  const Ring ring;
  ExecSpace space;
  for (const int base : {0, 1, 7, 300}) {
    CAPTURE(base);
    const vblock_t sizes = hacc_example::sizes_for(hacc_example::particles_of(ring.rank, base));
    const VBlock<Mem> block(sizes, ring.rank + 3);
    const Datatype type = block.type();
    REQUIRE(type.size() == block.packed_bytes());
    REQUIRE(type.size() == hacc_example::packed_bytes_of(sizes));
    const std::vector<char> expected = VBlock<Mem>::expected_packed(sizes, ring.rank + 3);

    // Pack, guarded: a stray write past the packed bytes would show in the guard.
    Kokkos::View<char*, Mem> packed("packed", type.size() + 64);
    Kokkos::deep_copy(packed, char(0x5a));
    REQUIRE(pack(space, bottom, 1, type, packed.data(), type.size()) == type.size());
    space.fence();
    const std::vector<char> got = to_host(packed);
    REQUIRE(std::memcmp(got.data(), expected.data(), expected.size()) == 0);
    for (std::size_t i = expected.size(); i < got.size(); ++i) REQUIRE(got[i] == char(0x5a));

    // The MPI's struct type over a host copy packs the same bytes (anchored: MPICH rejects MPI_BOTTOM in MPI_Pack,
    // pmodels/mpich#6410).
    const VBlock<Kokkos::HostSpace> host(sizes, ring.rank + 3);
    MPI_Datatype theirs = mpi_struct_of(host);
    char anchor = 0;
    MPI_Datatype anchored = anchored_at(theirs, &anchor);
    int mpi_bytes = 0, position = 0;
    MPI_Pack_size(1, anchored, MPI_COMM_SELF, &mpi_bytes);
    std::vector<char> mpi_packed(mpi_bytes + 1);
    MPI_Pack(&anchor, 1, anchored, mpi_packed.data(), mpi_bytes, &position, MPI_COMM_SELF);
    REQUIRE(position == type.size());
    REQUIRE(std::memcmp(mpi_packed.data(), expected.data(), expected.size()) == 0);
    MPI_Type_free(&anchored);

    // Unpack into a fresh block of the same sizes: the same bytes come back out.
    const VBlock<Mem> copy(sizes, -7);
    const Datatype copy_type = copy.type();
    REQUIRE(unpack(space, packed.data(), type.size(), bottom, 1, copy_type) == type.size());
    REQUIRE(pack(space, bottom, 1, copy_type, packed.data(), type.size()) == type.size());
    space.fence();
    REQUIRE(std::memcmp(to_host(packed).data(), expected.data(), expected.size()) == 0);

    // Around the ring: KokkosDDT sends to the next rank, which receives with the MPI's struct type into host memory;
    // then the MPI sends its host block back around and KokkosDDT receives it into the execution space's memory.
    // A KokkosDDT message is one MPI message at any size (over the chunk size, of a derived byte type).
    vblock_t prev_sizes{};
    MPI_Sendrecv(&sizes, sizeof(vblock_t), MPI_BYTE, ring.next, 1, &prev_sizes, sizeof(vblock_t), MPI_BYTE, ring.prev,
                 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const std::vector<char> prev_expected = VBlock<Mem>::expected_packed(prev_sizes, ring.prev + 3);
    const VBlock<Kokkos::HostSpace> mpi_in(prev_sizes, -1);
    MPI_Datatype mpi_in_type = mpi_struct_of(mpi_in);
    MPI_Request r;
    MPI_Irecv(MPI_BOTTOM, 1, mpi_in_type, ring.prev, 2, MPI_COMM_WORLD, &r);
    mpi::Request s = mpi::isend(space, bottom, 1, type, ring.next, 2, MPI_COMM_WORLD);
    s.wait();
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    std::vector<char> in_bytes(prev_expected.size());
    REQUIRE(pack(Kokkos::DefaultHostExecutionSpace(), bottom, 1, mpi_in.type(), in_bytes.data(),
                 static_cast<std::int64_t>(in_bytes.size())) == static_cast<std::int64_t>(in_bytes.size()));
    CHECK(in_bytes == prev_expected);

    const VBlock<Mem> ddt_in(prev_sizes, -2);
    mpi::Request rr = mpi::irecv(space, bottom, 1, ddt_in.type(), ring.prev, 3, MPI_COMM_WORLD);
    MPI_Send(MPI_BOTTOM, 1, theirs, ring.next, 3, MPI_COMM_WORLD);
    rr.wait();
    Kokkos::View<char*, Mem> back("back", ddt_in.packed_bytes());
    pack(space, bottom, 1, ddt_in.type(), back.data(), ddt_in.packed_bytes());
    space.fence();
    CHECK(to_host(back) == prev_expected);
    MPI_Type_free(&mpi_in_type);
    MPI_Type_free(&theirs);
  }
}
