// SPDX-License-Identifier: BSD-3-Clause
// datatype_of(View): subviews of rank 1-8 in LayoutLeft, LayoutRight and LayoutStride pack their elements in layout
// order; contiguous Views normalize to a single run.
#include "support/Catch.hpp"
#include "KokkosDDT.hpp"
#include "support/TestSpace.hpp"

using namespace KokkosDDT;

namespace {

// The expected packed order of a subview: its parent's layout order (Right: last index fastest; Left: first).
template <class V, class F>
void for_each_in_layout_order(const V& v, bool left, F&& f) {
  constexpr int R = static_cast<int>(V::rank());
  std::size_t idx[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t total = 1;
  for (int d = 0; d < R; ++d) total *= v.extent(d);
  for (std::size_t n = 0; n < total; ++n) {
    f(idx);
    for (int k = 0; k < R; ++k) {
      const int d = left ? k : R - 1 - k;
      if (++idx[d] < v.extent(d)) break;
      idx[d] = 0;
    }
  }
}

template <class V>
double at(const V& v, const std::size_t* i) {
  return v.access(i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7]);
}

template <class Exec, class Layout, class Array, class... Slices>
void check_subview(const Array& full, Slices... slices) {
  auto sub = Kokkos::subview(full, slices...);
  INFO("rank " << decltype(sub)::rank() << " " << typeid(Layout).name());
  Datatype t = datatype_of(sub).commit();
  REQUIRE(static_cast<std::size_t>(t.size()) == sub.size() * sizeof(double));
  Kokkos::View<double*, typename Exec::memory_space> packed("packed", sub.size());
  Exec space;
  REQUIRE(pack(space, sub, packed) == t.size());
  space.fence();
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), packed);
  // The same subview of a host copy of the whole array (a strided subview cannot be copied between spaces).
  auto hfull = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), full);
  auto hsub = Kokkos::subview(hfull, slices...);
  std::size_t k = 0;
  bool ok = true;
  for_each_in_layout_order(hsub, std::is_same_v<Layout, Kokkos::LayoutLeft>,
                           [&](const std::size_t* i) { ok = ok && host(k++) == at(hsub, i); });
  REQUIRE(ok);
}

template <class Exec, class Layout>
void check_layout() {
  using Mem = typename Exec::memory_space;
  Kokkos::View<double*, Layout, Mem> v1("v1", 50);
  Kokkos::View<double***, Layout, Mem> v3("v3", 5, 6, 7);
  Kokkos::View<double********, Layout, Mem> v8("v8", 3, 2, 3, 2, 3, 2, 3, 2);
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, 50), KOKKOS_LAMBDA(int i) { v1(i) = i; });
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, 5), KOKKOS_LAMBDA(int i) {
        for (int j = 0; j < 6; ++j)
          for (int k = 0; k < 7; ++k) v3(i, j, k) = 100 * i + 10 * j + k;
      });
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Exec>(0, static_cast<int>(v8.size())), KOKKOS_LAMBDA(int i) { v8.data()[i] = i; });
  Kokkos::fence();
  using P = std::pair<int, int>;
  const auto A = Kokkos::ALL;
  check_subview<Exec, Layout>(v1, P(3, 40));
  check_subview<Exec, Layout>(v3, A, A, A);  // contiguous
  check_subview<Exec, Layout>(v3, P(1, 4), A, P(2, 5));
  check_subview<Exec, Layout>(v3, A, 2, A);
  check_subview<Exec, Layout>(v3, 4, P(0, 3), 6);
  check_subview<Exec, Layout>(v8, A, P(0, 1), A, A, P(1, 3), A, 2, A);
  check_subview<Exec, Layout>(v8, P(1, 3), A, A, A, A, A, A, P(1, 2));
  // A contiguous View normalizes to one run.
  Datatype whole = datatype_of(v3).commit();
  CHECK(whole.layout() == "contig(x=1680,n=1680B)");
}

}  // namespace

TEST_CASE("view datatype: subviews of rank 1-8 in every layout", "[view]") {
  check_layout<Test::ExecSpace, Kokkos::LayoutRight>();
  check_layout<Test::ExecSpace, Kokkos::LayoutLeft>();
}

TEST_CASE("view datatype: LayoutStride views", "[view]") {
  using Mem = typename Test::ExecSpace::memory_space;
  // A transposed 2-D view: dimension 1 has the smaller stride, so it packs fastest.
  Kokkos::LayoutStride layout(4, 1, 6, 4);  // extent 4 stride 1, extent 6 stride 4
  Kokkos::View<double**, Kokkos::LayoutStride, Mem> t("t", layout);
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Test::ExecSpace>(0, 24), KOKKOS_LAMBDA(int i) { t.data()[i] = i; });
  Kokkos::fence();
  Datatype d = datatype_of(t).commit();
  CHECK(d.layout() == "contig(x=192,n=192B)");
  auto sub = Kokkos::subview(t, std::make_pair(1, 3), std::make_pair(2, 5));  // strides 1 and 4
  Kokkos::View<double*, Mem> out("out", 6);
  Test::ExecSpace space;
  REQUIRE(pack(space, sub, out) == 48);
  space.fence();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  // Memory order: dimension 0 (stride 1) fastest.
  const double expect[6] = {9, 10, 13, 14, 17, 18};
  for (int i = 0; i < 6; ++i) CHECK(h(i) == expect[i]);
}
