// SPDX-License-Identifier: BSD-3-Clause
// pack/unpack of every constructor on every enabled execution space, against the reference and MPICH: counts above
// one, misaligned buffers, multi-tile sizes, absolute addresses (MPI_BOTTOM) and the View entry points.
#include <algorithm>
#include <numeric>
#include <random>

#include "support/Catch.hpp"
#include "support/PackCheck.hpp"
#include "support/TestSpace.hpp"

using namespace KokkosDDT;
using Test::check_pack_unpack;
using Test::CheckOptions;

namespace {
const Datatype& dbl() { return primitive<double>(); }
const Datatype& i32() { return primitive<std::int32_t>(); }

std::vector<Datatype> every_constructor() {
  Datatype r = resized(i32(), -4, 12);
  Datatype col = vector(5, 2, 7, dbl());
  std::vector<std::int64_t> disps(64);
  for (int i = 0; i < 64; ++i) disps[i] = (i * 37) % 101 - 20;
  std::vector<std::int64_t> bls(64);
  for (int i = 0; i < 64; ++i) bls[i] = i % 4;
  std::vector<std::int64_t> ones(12, 1), d1(12), d2(12);       // two children alike but for their last block
  for (int i = 0; i < 12; ++i) d1[i] = d2[i] = 3 * i + i % 2;  // uneven: stays indexed_block
  d2[11] = 40;
  return {
      dbl(),
      contiguous(33, primitive<std::int16_t>()),
      col,
      vector(4, 3, -5, r),
      hvector(6, 2, 52, i32()),
      hvector(3, 1, 7, primitive<char>()),  // odd byte stride
      indexed(bls, disps, dbl()),
      hindexed({2, 1, 3}, {40, -16, 100}, col),
      indexed_block(3, disps, primitive<std::complex<float>>()),
      hindexed_block(2, {0, 1000, 333}, primitive<char>()),
      subarray({5, 6, 7}, {2, 3, 4}, {1, 2, 3}, Order::C, dbl()),
      subarray({5, 6, 7}, {2, 3, 4}, {1, 2, 3}, Order::Fortran, r),
      struct_type({1, 1, 1, 1}, {0, 8, 12, 16}, {dbl(), i32(), i32(), primitive<char>()}),
      struct_type({2, 1, 3}, {-40, 0, 200}, {col, primitive<char>(), vector(2, 1, 3, i32())}),
      resized(col, -16, 400),
      dup(subarray({8, 8}, {3, 3}, {2, 2}, Order::C, col)),
      contiguous(0, dbl()),
      vector(3, 0, 2, dbl()),
      struct_type({1, 1}, {0, 1000}, {indexed(ones, d1, dbl()), indexed(ones, d2, dbl())}),
  };
}
}  // namespace

TEST_CASE("pack: every constructor against the reference and MPI_Pack", "[pack][mpi]") {
  std::uint64_t seed = 1;
  for (const Datatype& t0 : every_constructor()) {
    Datatype t = t0;
    t.commit();
    for (std::int64_t count : {0, 1, 3}) {
      for (int misalign : {0, 3, 8}) {
        CheckOptions opt;
        opt.misalign_typed = misalign;
        opt.misalign_packed = (misalign * 5) % 16;
        check_pack_unpack<Test::ExecSpace>(t, count, seed++, opt);
      }
    }
  }
}

// Strided shapes (KokkosDDT_Shape.hpp): host backends move them with the shape's loop nest instead of the walk. Grids
// of one to four strided levels (negative strides, runs of 1 to 40 bytes, resized extents, several instances), whole
// and in random partial ranges, against the reference and MPI_Pack.
TEST_CASE("pack: strided and listed shapes of random grids", "[pack][mpi][shape]") {
  std::mt19937_64 rng(20261202);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return lo + static_cast<std::int64_t>(rng() % (hi - lo + 1)); };
  const Datatype bytes = named(Primitive::Byte), doubles = named(Primitive::Double);
  for (int trial = 0; trial < 80; ++trial) {
    const bool narrow = trial % 2 == 0;  // byte runs of any length, or whole doubles
    const std::int64_t run = narrow ? pick(1, 40) : pick(1, 5);
    Datatype t = contiguous(run, narrow ? bytes : doubles);
    const int levels = static_cast<int>(pick(1, 3));
    for (int l = 0; l < levels; ++l) {
      const std::int64_t count = pick(1, 5), gap = pick(0, 3) * (narrow ? 1 : 8);
      const std::int64_t stride = (t.extent() + gap) * (pick(0, 4) == 0 ? -1 : 1);
      if (pick(0, 2) == 0) {  // a listed level: the same slots in a shuffled order (disjoint, irregular)
        std::vector<std::int64_t> at(static_cast<std::size_t>(count));
        for (std::int64_t i = 0; i < count; ++i) at[static_cast<std::size_t>(i)] = i * stride;
        std::shuffle(at.begin(), at.end(), rng);
        t = hindexed_block(1, at, t);
      } else {
        t = hvector(count, 1, stride, t);
      }
    }
    if (pick(0, 2) == 0) t = resized(t, t.lb(), t.extent() + pick(1, 64));
    t.commit();
    INFO("trial " << trial);
    for (std::int64_t count : {1, 2, 5}) check_pack_unpack<Test::ExecSpace>(t, count, rng());
  }
}

TEST_CASE("pack: sizes spanning many tiles", "[pack][mpi]") {
  std::vector<std::int64_t> disps(20000);
  for (std::int64_t i = 0; i < 20000; ++i) disps[i] = 3 * i + (i % 7);
  const Datatype types[] = {
      vector(100000, 1, 3, dbl()),                                 // 800 KB of 8-byte blocks
      vector(3000, 40, 64, dbl()),                                 // 960 KB of 320-byte blocks
      indexed(std::vector<std::int64_t>(20000, 2), disps, i32()),  // irregular
      subarray({40, 40, 40}, {30, 31, 32}, {5, 4, 3}, Order::C, dbl()),
  };
  std::uint64_t seed = 100;
  for (Datatype t : types) {
    t.commit();
    CheckOptions opt;
    opt.misalign_typed = 8;
    check_pack_unpack<Test::ExecSpace>(t, 2, seed++, opt);
  }
}

TEST_CASE("pack: transposing types, whose unpack walks the typed buffer in memory order", "[pack][mpi]") {
  // Unpack interchanges a strided node with its strided parent when the parent's typed stride is the smaller one
  // (HostWalk::unpack_interchanged): every such shape, whole and in partial ranges, on one tile and on many.
  const Datatype cplx = contiguous(2, dbl());
  auto transpose = [&](std::int64_t n, std::int64_t ld) {  // n x n block of an ld-row column-major matrix, transposed
    return contiguous(n, resized(vector(n, 1, ld, cplx), 0, 16));
  };
  const Datatype types[] = {
      transpose(20, 300),                                             // FFT's receive type
      transpose(200, 1000),                                           // 640 KB: many tiles
      hvector(7, 1, 8, vector(9, 1, -13, dbl())),                     // negative inner stride
      hvector(5, 1, -24, hvector(6, 1, 1000, contiguous(3, dbl()))),  // negative outer stride, 24-byte runs
      hvector(4, 1, 8, vector(3, 2, 50, dbl())),  // blocks of 2: not interchanged (runs overlap rows)
  };
  std::uint64_t seed = 300;
  for (Datatype t : types) {
    t.commit();
    for (std::int64_t count : {1, 3}) check_pack_unpack<Test::ExecSpace>(t, count, seed++);
  }
}

namespace {
// The seed's HACC analysis structure: separately allocated arrays (here in the execution space's memory) described
// by one struct of absolute addresses.
using Mem = Test::ExecSpace::memory_space;
struct Block {
  Kokkos::View<int*, Mem> counts{"counts", 2};
  Kokkos::View<float*, Mem> mins{"mins", 3};
  Kokkos::View<float*, Mem> vertices{"vertices", 15};
  Kokkos::View<int*, Mem> cells{"cells", 7};

  Datatype type() const {
    auto address = [](const void* p) { return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(p)); };
    return struct_type({2, 3, 15, 7},
                       {address(counts.data()), address(mins.data()), address(vertices.data()), address(cells.data())},
                       {i32(), primitive<float>(), primitive<float>(), i32()})
        .commit();
  }

  // The packed stream, read on the host.
  std::vector<char> bytes() const {
    std::vector<char> out;
    auto append = [&out](const auto& view) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
      const char* p = reinterpret_cast<const char*>(h.data());
      out.insert(out.end(), p, p + h.size() * sizeof(typename decltype(h)::value_type));
    };
    append(counts);
    append(mins);
    append(vertices);
    append(cells);
    return out;
  }
};

template <class V>
void fill(const V& v, double base) {
  auto h = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < h.size(); ++i) h(i) = static_cast<typename V::value_type>(base + i);
  Kokkos::deep_copy(v, h);
}
}  // namespace

TEST_CASE("pack: absolute addresses from KokkosDDT::bottom", "[pack][mpi]") {
  Block b;
  fill(b.counts, 5);
  fill(b.mins, 1.5);
  fill(b.vertices, 100.25);
  fill(b.cells, 1000);
  const Datatype t = b.type();
  REQUIRE(t.size() == 108);
  Test::ExecSpace space;
  Kokkos::View<char*, Mem> packed("packed", t.size());
  REQUIRE(pack(space, bottom, 1, t, packed.data(), t.size()) == t.size());
  space.fence();
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), packed);
  const std::vector<char> expected = b.bytes();
  REQUIRE(std::vector<char>(host.data(), host.data() + t.size()) == expected);
#if defined(KOKKOSDDT_TEST_MPI)
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
    if (Test::mpi_is_reference()) {
      // MPICH rejects MPI_BOTTOM in MPI_Pack (pmodels/mpich#6410): pack one hindexed element at a non-null anchor.
      char anchor = 0;
      Datatype anchored = hindexed({1}, {-static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(&anchor))}, t);
      REQUIRE(Test::mpi_pack(anchored, 1, &anchor) == expected);
    }
  }
#endif
  // And back: unpack into a fresh structure.
  Block c;
  REQUIRE(unpack(space, packed.data(), t.size(), bottom, 1, c.type()) == t.size());
  space.fence();
  CHECK(c.bytes() == expected);
}

TEST_CASE("pack: View entry points", "[pack][view]") {
  using Mem = typename Test::ExecSpace::memory_space;
  Test::ExecSpace space;
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> a("a", 6, 5);
  auto h = Kokkos::create_mirror_view(a);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j) h(i, j) = 10 * i + j;
  Kokkos::deep_copy(a, h);
  Kokkos::View<double*, Mem> buf("buf", 6);

  // Explicit type: column 2.
  Datatype col = vector(6, 1, 5, dbl()).commit();
  REQUIRE(pack(space, Kokkos::subview(a, Kokkos::ALL, 2), 1, col, buf) == 48);
  space.fence();
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), buf);
  for (int i = 0; i < 6; ++i) CHECK(hb(i) == 10 * i + 2);

  // The subview's own type, and back into another column.
  Kokkos::deep_copy(buf, 0.0);
  REQUIRE(pack(space, Kokkos::subview(a, Kokkos::ALL, 3), buf) == 48);
  REQUIRE(unpack(space, buf, Kokkos::subview(a, Kokkos::ALL, 0)) == 48);
  space.fence();
  Kokkos::deep_copy(h, a);
  for (int i = 0; i < 6; ++i) CHECK(h(i, 0) == 10 * i + 3);

  // The fencing forms.
  REQUIRE(pack(Kokkos::subview(a, 1, Kokkos::ALL), buf) == 40);
  hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), buf);
  CHECK(hb(4) == 14);
  // Stream bytes [8, 24) of row 5 (its elements 1 and 2) come from buf[0..2) = row 1's {13, 11} (column 0 now
  // holds column 3).
  REQUIRE(unpack(buf, Kokkos::subview(a, 5, Kokkos::ALL), PackRange{8, 16}) == 16);
  Kokkos::deep_copy(h, a);
  CHECK(h(5, 0) == 53);
  CHECK(h(5, 1) == 13);
  CHECK(h(5, 2) == 11);
  CHECK(h(5, 3) == 53);
}

// completes_on_return: host backends whose launches run to completion return from pack, unpack and copy with every
// byte moved, one tile or many, so a caller may read the results without a fence; devices only enqueue.
TEST_CASE("pack: on Serial and OpenMP the instance-first forms return with every byte moved", "[pack]") {
#if defined(KOKKOS_ENABLE_SERIAL)
  static_assert(completes_on_return<Kokkos::Serial>);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  static_assert(completes_on_return<Kokkos::OpenMP>);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  static_assert(!completes_on_return<Kokkos::Cuda>);
#endif
  if constexpr (completes_on_return<Test::ExecSpace>) {
    const Datatype t = vector(40000, 3, 5, dbl()).commit();  // 960 KB: many tiles, a launch across every thread
    std::vector<double> src(5 * 40000), back(5 * 40000, -1.0), packed(3 * 40000, -1.0);
    std::iota(src.begin(), src.end(), 0.0);
    const Test::ExecSpace space;
    REQUIRE(pack(space, src.data(), 1, t, packed.data(), 8 * 3 * 40000) == 8 * 3 * 40000);
    for (std::int64_t i = 0; i < 40000; ++i) REQUIRE(packed[3 * i + 2] == src[5 * i + 2]);  // (no fence)
    REQUIRE(unpack(space, packed.data(), 8 * 3 * 40000, back.data(), 1, t) == 8 * 3 * 40000);
    for (std::int64_t i = 0; i < 40000; ++i) REQUIRE((back[5 * i] == src[5 * i] && back[5 * i + 4] == -1.0));
    std::fill(back.begin(), back.end(), -1.0);
    REQUIRE(copy(space, src.data(), 1, t, back.data(), 1, t) == 8 * 3 * 40000);
    for (std::int64_t i = 0; i < 40000; ++i) REQUIRE((back[5 * i + 1] == src[5 * i + 1] && back[5 * i + 3] == -1.0));
  }
}
