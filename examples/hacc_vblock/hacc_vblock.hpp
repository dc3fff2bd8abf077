// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The HACC analysis structure of jenkins-tpds14 (section 5.2, Fig. 7): a Voronoi block of scalars, two fixed arrays
// and pointers to eight variable-length arrays whose lengths differ per rank. It lives in one memory space: the
// structure itself and every array it points to (on a GPU, all device memory). One KokkosDDT struct type built from
// absolute addresses describes all of it, so a single pack (or a single send from KokkosDDT::bottom) gathers the lot.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
#include <mpi.h>

namespace hacc_example {

// Fig. 7, member for member (the figure names two pointers like two scalars; they are *_counts here).
struct vblock_t {
  int num_verts, num_cells;
  int num_cell_verts, num_complete_cells;
  int num_cell_faces, num_face_verts;
  int num_orig_particles;
  float mins[3], maxs[3];
  float *vertices, *sites;
  float *areas, *vols;
  int *cells, *face_verts;
  int *cell_face_counts, *face_vert_counts;
};

// The sizes of a tessellation of `particles` particles (about 6.5 vertices, 15 faces of 5 vertices per cell, 90 %
// complete cells: the proportions of a 3-D Voronoi mesh).
inline vblock_t sizes_for(int particles) {
  vblock_t s{};
  s.num_orig_particles = particles;
  s.num_cells = particles;
  s.num_complete_cells = particles - particles / 10;
  s.num_verts = 6 * particles + particles / 2;
  s.num_cell_faces = 15 * particles;
  s.num_face_verts = 5 * s.num_cell_faces;
  s.num_cell_verts = 27 * particles;
  return s;
}

// The packed bytes of a block of these sizes (every member is 4 bytes per element).
inline std::int64_t packed_bytes_of(const vblock_t& s) {
  const std::int64_t elements = 7 + 6 + 3 * std::int64_t(s.num_verts) + 3 * std::int64_t(s.num_orig_particles) +
                                3 * std::int64_t(s.num_cell_faces) + s.num_complete_cells + s.num_face_verts +
                                s.num_cells;
  return 4 * elements;
}

// One member of the structure: its bytes in the pack order (Fig. 7's order), where it is, and its KokkosDDT type.
struct Member {
  const char* name;
  std::int64_t count;    // elements
  std::int64_t address;  // absolute address of the first element
  bool is_float;
  std::int64_t bytes() const { return count * 4; }
};

// A vblock_t and its arrays in the memory space Mem, filled with values that depend on `seed`.
template <class Mem>
class VBlock {
 public:
  VBlock(const vblock_t& sizes, int seed)
      : header_("hacc::vblock"),
        vertices_("hacc::vertices", 3 * std::int64_t(sizes.num_verts)),
        sites_("hacc::sites", 3 * std::int64_t(sizes.num_orig_particles)),
        areas_("hacc::areas", sizes.num_cell_faces),
        vols_("hacc::vols", sizes.num_complete_cells),
        cells_("hacc::cells", sizes.num_cell_faces),
        face_verts_("hacc::face_verts", sizes.num_face_verts),
        cell_face_counts_("hacc::cell_face_counts", sizes.num_cells),
        face_vert_counts_("hacc::face_vert_counts", sizes.num_cell_faces) {
    vblock_t h = sizes;
    for (int d = 0; d < 3; ++d) h.mins[d] = float(seed + d), h.maxs[d] = float(seed + 10 + d);
    h.vertices = vertices_.data(), h.sites = sites_.data(), h.areas = areas_.data(), h.vols = vols_.data();
    h.cells = cells_.data(), h.face_verts = face_verts_.data();
    h.cell_face_counts = cell_face_counts_.data(), h.face_vert_counts = face_vert_counts_.data();
    Kokkos::deep_copy(header_, Kokkos::View<const vblock_t, Kokkos::HostSpace>(&h));
    host_ = h;
    fill_all(seed);
  }
  const vblock_t& header() const { return host_; }  // a host copy (its pointers point into Mem)

  // The members in Fig. 7's order: each scalar, the two fixed arrays, then the eight arrays the pointers reach.
  std::vector<Member> members() const {
    const auto at = [&](const void* p) { return std::int64_t(reinterpret_cast<std::uintptr_t>(p)); };
    const vblock_t* d = header_.data();  // the device copy's address: only used as a number
    const vblock_t& h = host_;
    return {{"num_verts", 1, at(&d->num_verts), false},
            {"num_cells", 1, at(&d->num_cells), false},
            {"num_cell_verts", 1, at(&d->num_cell_verts), false},
            {"num_complete_cells", 1, at(&d->num_complete_cells), false},
            {"num_cell_faces", 1, at(&d->num_cell_faces), false},
            {"num_face_verts", 1, at(&d->num_face_verts), false},
            {"num_orig_particles", 1, at(&d->num_orig_particles), false},
            {"mins", 3, at(&d->mins[0]), true},
            {"maxs", 3, at(&d->maxs[0]), true},
            {"vertices", 3 * std::int64_t(h.num_verts), at(h.vertices), true},
            {"sites", 3 * std::int64_t(h.num_orig_particles), at(h.sites), true},
            {"areas", h.num_cell_faces, at(h.areas), true},
            {"vols", h.num_complete_cells, at(h.vols), true},
            {"cells", h.num_cell_faces, at(h.cells), false},
            {"face_verts", h.num_face_verts, at(h.face_verts), false},
            {"cell_face_counts", h.num_cells, at(h.cell_face_counts), false},
            {"face_vert_counts", h.num_cell_faces, at(h.face_vert_counts), false}};
  }

  // One struct type over every member, displacements = absolute addresses: use it with KokkosDDT::bottom.
  KokkosDDT::Datatype type() const {
    std::vector<std::int64_t> lengths, addresses;
    std::vector<KokkosDDT::Datatype> types;
    for (const Member& m : members()) {
      lengths.push_back(m.count);
      addresses.push_back(m.address);
      types.push_back(m.is_float ? KokkosDDT::primitive<float>() : KokkosDDT::primitive<int>());
    }
    KokkosDDT::Datatype t = KokkosDDT::struct_type(lengths, addresses, types);
    t.commit();
    return t;
  }

  std::int64_t packed_bytes() const {
    std::int64_t b = 0;
    for (const Member& m : members()) b += m.bytes();
    return b;
  }

  // The packed bytes this block must produce, computed on the host from `seed` alone.
  static std::vector<char> expected_packed(const vblock_t& sizes, int seed) {
    VBlock<Kokkos::HostSpace> h(sizes, seed);
    std::vector<char> out;
    for (const Member& m : h.members()) {
      const char* p = reinterpret_cast<const char*>(static_cast<std::uintptr_t>(m.address));
      out.insert(out.end(), p, p + m.bytes());
    }
    return out;
  }

 private:
  template <class T>
  static void fill(const Kokkos::View<T*, Mem>& v, int seed, int salt) {
    auto h = Kokkos::create_mirror_view(v);
    for (std::size_t i = 0; i < h.extent(0); ++i) h(i) = T((std::int64_t(i) * 7 + seed * 131 + salt) % 100003);
    Kokkos::deep_copy(v, h);
  }
  void fill_all(int seed) {
    fill(vertices_, seed, 1), fill(sites_, seed, 2), fill(areas_, seed, 3), fill(vols_, seed, 4);
    fill(cells_, seed, 5), fill(face_verts_, seed, 6), fill(cell_face_counts_, seed, 7),
        fill(face_vert_counts_, seed, 8);
  }

  Kokkos::View<vblock_t, Mem> header_;
  Kokkos::View<float*, Mem> vertices_, sites_, areas_, vols_;
  Kokkos::View<int*, Mem> cells_, face_verts_, cell_face_counts_, face_vert_counts_;
  vblock_t host_{};
};

// The MPI's own struct type over a block, built as HACC's code builds it (MPI_Get_address on each member): the
// reference KokkosDDT is compared with. Free it with MPI_Type_free.
template <class Mem>
MPI_Datatype mpi_struct_of(const VBlock<Mem>& block) {
  std::vector<int> lengths;
  std::vector<MPI_Aint> addresses;
  std::vector<MPI_Datatype> types;
  for (const Member& m : block.members()) {
    MPI_Aint a = 0;
    MPI_Get_address(reinterpret_cast<void*>(static_cast<std::uintptr_t>(m.address)), &a);
    lengths.push_back(static_cast<int>(m.count));
    addresses.push_back(a);
    types.push_back(m.is_float ? MPI_FLOAT : MPI_INT);
  }
  MPI_Datatype t;
  MPI_Type_create_struct(static_cast<int>(lengths.size()), lengths.data(), addresses.data(), types.data(), &t);
  MPI_Type_commit(&t);
  return t;
}

// `absolute` (a type of absolute addresses) as one element at `anchor`, for MPI_Pack(anchor, 1, ...): MPICH rejects
// MPI_BOTTOM there (pmodels/mpich#6410). Free it with MPI_Type_free.
inline MPI_Datatype anchored_at(MPI_Datatype absolute, const void* anchor) {
  MPI_Aint at = 0;
  MPI_Get_address(anchor, &at);
  const int one = 1;
  const MPI_Aint shift = -at;
  MPI_Datatype t;
  MPI_Type_create_hindexed(1, &one, &shift, absolute, &t);
  MPI_Type_commit(&t);
  return t;
}

// Particles on rank r of a run: different on every rank, as in the seed's table (a 4x spread).
inline int particles_of(int rank, int base) { return base / 2 + (base * ((rank * 5) % 7)) / 4; }

}  // namespace hacc_example
