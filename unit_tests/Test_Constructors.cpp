// SPDX-License-Identifier: BSD-3-Clause
// Type properties (size, bounds, extent, true bounds) for every constructor: hand-checked values, then MPICH's
// values for the same type built through MPI (to_mpi), on hand-picked edge cases and thousands of random types.
#include "support/Catch.hpp"
#if defined(KOKKOSDDT_TEST_MPI)
#include "support/MpiOracle.hpp"
#endif
#include "support/RandomTypes.hpp"

using namespace KokkosDDT;

namespace {
#if defined(KOKKOSDDT_TEST_MPI)
void require_like_mpich(const Datatype& t) {
  if (!Test::mpi_is_reference()) return;  // the MPI library is not MPICH: its bounds rules differ
  INFO(t.describe());
  const Test::MpiBounds m = Test::mpi_bounds(t);
  CHECK(t.size() == m.size);
  CHECK(t.lb() == m.lb);
  CHECK(t.extent() == m.extent);
  CHECK(t.true_lb() == m.true_lb);
  CHECK(t.true_extent() == m.true_extent);
}
#endif
const Datatype& dbl() { return primitive<double>(); }
const Datatype& i32() { return primitive<std::int32_t>(); }
const Datatype& chr() { return primitive<char>(); }
}  // namespace

TEST_CASE("constructors: named primitives", "[types]") {
  CHECK(primitive<double>().size() == 8);
  CHECK(primitive<std::complex<double>>().size() == 16);
  CHECK(primitive<Kokkos::complex<float>>().size() == 8);
  CHECK(primitive<std::int16_t>().extent() == 2);
  CHECK(primitive<bool>().size() == 1);
  CHECK(byte().size() == 1);
  CHECK(primitive<double>().combiner() == Combiner::Named);
  CHECK(&primitive<double>() == &primitive<double>());  // one handle per T
  struct Pod {
    double x;
    char c;
  };
  const Datatype& pod = primitive<Pod>();  // any trivially copyable T: opaque bytes
  CHECK(pod.size() == sizeof(Pod));
  // Committed from the start, as MPI's predefined types are (a T nothing else has used, so no earlier test did it).
  CHECK(pod.is_committed());
  CHECK(primitive<std::uint16_t>().is_committed());
  CHECK(named(Primitive::Float).is_committed());
  CHECK(opaque(3, 1).is_committed());
  CHECK(pod.layout().size() > 0);
  CHECK(pod.extent() == sizeof(Pod));
  CHECK(pod.signature().length == static_cast<std::int64_t>(sizeof(Pod)));
}

TEST_CASE("constructors: hand-checked properties", "[types]") {
  Datatype v = vector(3, 2, 5, dbl());  // Fig. 1 of the paper
  CHECK(v.size() == 48);
  CHECK(v.lb() == 0);
  CHECK(v.extent() == (2 * 5 + 2) * 8);
  CHECK(v.num_primitives() == 6);
  Datatype neg = vector(3, 1, -2, dbl());
  CHECK(neg.lb() == -32);
  CHECK(neg.extent() == 40);
  Datatype s = struct_type({1, 1, 1, 1}, {0, 8, 12, 16}, {dbl(), i32(), i32(), chr()});
  CHECK(s.size() == 17);
  CHECK(s.extent() == 24);  // padded to double alignment
  CHECK(s.true_extent() == 17);
  Datatype sub = subarray({4, 5}, {2, 2}, {1, 1}, Order::C, dbl());
  CHECK(sub.size() == 32);
  CHECK(sub.lb() == 0);
  CHECK(sub.extent() == 160);
  CHECK(sub.true_lb() == 48);
  CHECK(sub.true_extent() == 56);
  Datatype r = resized(i32(), -2, 10);
  CHECK(r.lb() == -2);
  CHECK(r.extent() == 10);
  CHECK(r.true_lb() == 0);
  CHECK(contiguous(3, r).extent() == 30);
  Datatype empty = contiguous(0, dbl());
  CHECK(empty.size() == 0);
  CHECK(empty.extent() == 0);
  CHECK(indexed({0, 0}, {3, 5}, dbl()).extent() == 0);
  CHECK(dup(v).extent() == v.extent());
  CHECK(dup(v).combiner() == Combiner::Dup);
}

#if defined(KOKKOSDDT_TEST_MPI)
TEST_CASE("constructors: properties match MPICH on edge cases", "[types][mpi]") {
  Datatype r = resized(i32(), -2, 10);
  std::vector<Datatype> cases = {
      struct_type({1, 1, 1, 1}, {0, 8, 12, 16}, {dbl(), i32(), i32(), chr()}),
      struct_type({1, 1}, {-3, 8}, {dbl(), chr()}),
      struct_type({1, 1}, {0, 20}, {r, chr()}),
      struct_type({1, 1}, {0, 4}, {r, chr()}),
      struct_type({1}, {0}, {resized(i32(), 0, 5)}),
      struct_type({1, 1}, {0, 4}, {i32(), primitive<std::uint32_t>()}),  // one MPICH object: not padded
      struct_type({1, 1}, {0, 5}, {i32(), primitive<float>()}),
      struct_type({0, 1}, {100, 8}, {dbl(), chr()}),
      struct_type({1, 1}, {0, 9}, {dbl(), contiguous(1, dbl())}),
      struct_type({1, 1}, {0, 8}, {primitive<std::complex<float>>(), chr()}),
      struct_type({1, 1}, {0, 16}, {primitive<std::complex<double>>(), chr()}),
      struct_type({1, 1}, {0, 40}, {vector(3, 1, -2, dbl()), chr()}),
      vector(3, 0, 2, i32()),
      vector(2, 2, 3, r),
      hvector(3, 2, -17, r),
      indexed({2, 0, 1}, {5, -100, -3}, dbl()),
      indexed_block(0, {4, 9}, i32()),
      hindexed_block(2, {40, -7, 3}, r),
      hindexed({1, 2}, {-5, 33}, struct_type({1, 1}, {0, 8}, {dbl(), chr()})),
      subarray({4}, {2}, {1}, Order::C, resized(i32(), -4, 8)),
      subarray({3, 4, 5}, {2, 3, 1}, {1, 0, 4}, Order::Fortran, r),
      contiguous(0, dbl()),
      contiguous(4, contiguous(0, dbl())),
      resized(contiguous(0, dbl()), 4, 10),
      dup(resized(dbl(), 0, 4)),
  };
  for (const auto& t : cases) require_like_mpich(t);
}

TEST_CASE("constructors: properties match MPICH on random nested types", "[types][mpi][random]") {
  Test::TypeGenerator gen(7);
  for (int i = 0; i < Test::scaled(3000); ++i) {
    auto r = gen.next();
    if (r.mpich_safe) require_like_mpich(r.type);
  }
}
#endif
