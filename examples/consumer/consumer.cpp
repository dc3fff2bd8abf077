// SPDX-License-Identifier: BSD-3-Clause
// Packs every third double of an array through an installed KokkosDDT.
#include <cstdio>
#include <vector>

#include <KokkosDDT.hpp>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  std::vector<double> a(30), packed(10);
  for (int i = 0; i < 30; ++i) a[i] = i;
  KokkosDDT::Datatype every_third = KokkosDDT::vector(10, 1, 3, KokkosDDT::primitive<double>()).commit();
  KokkosDDT::pack(Kokkos::DefaultHostExecutionSpace(), a.data(), 1, every_third, packed.data(), 80);
  Kokkos::fence();
  bool ok = true;
  for (int i = 0; i < 10; ++i) ok = ok && packed[i] == 3.0 * i;
  std::printf("consumer of KokkosDDT %s: %s\n", KOKKOSDDT_VERSION, ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
