// SPDX-License-Identifier: BSD-3-Clause
// The README's quick start, compiled and run as a test so that it stays true.
#include <cstdio>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  Kokkos::View<double**, Kokkos::LayoutRight> a("a", 100, 80);  // 100 rows of 80 doubles
  Kokkos::parallel_for(
      "fill", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {100, 80}),
      KOKKOS_LAMBDA(int i, int j) { a(i, j) = 1000.0 * i + j; });

  // [quick start]
  // Column 7 of `a`: 100 doubles, one row (80 doubles) apart.
  KokkosDDT::Datatype column = KokkosDDT::vector(100, 1, 80, KokkosDDT::primitive<double>());
  column.commit();  // normalize + serialize once; reuse for every pack

  Kokkos::View<double*> packed("packed", 100);
  Kokkos::DefaultExecutionSpace space;
  KokkosDDT::pack(space, Kokkos::subview(a, Kokkos::ALL, 7), 1, column, packed);    // enqueued on `space`
  KokkosDDT::unpack(space, packed, Kokkos::subview(a, Kokkos::ALL, 3), 1, column);  // column 7 -> column 3
  space.fence();

  // Or let a subview describe itself:
  KokkosDDT::pack(space, Kokkos::subview(a, 42, Kokkos::ALL), packed);  // row 42 (80 doubles)
  space.fence();
  // [quick start]

  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  auto p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), packed);
  bool ok = true;
  for (int i = 0; i < 100; ++i) ok = ok && h(i, 3) == 1000.0 * i + 7;
  for (int j = 0; j < 80; ++j) ok = ok && p(j) == (j == 3 ? 42007.0 : 42000.0 + j);
  std::printf("quick start: %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
