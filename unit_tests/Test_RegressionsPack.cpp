// SPDX-License-Identifier: BSD-3-Clause
// Regressions of the review and of the outside fuzzer of 2026-11 (issue 14) that run on an execution space: types
// nested deeper than the cursor remembers, Views whose layout span runs past their last element, the fusion queue's
// footprint arithmetic, and hidden global synchronization. Each case failed before its fix.
#include <cstdint>
#include <string>
#include <vector>

#include "support/Catch.hpp"
#include "support/Errors.hpp"
#include "support/PackCheck.hpp"
#include "support/TestSpace.hpp"

using namespace KokkosDDT;
using Test::require_error;
using Mem = Test::ExecSpace::memory_space;

TEST_CASE("regression: types nested deeper than the cursor remembers pack right", "[regression][pack]") {
  // 18 levels of hvector(2, ...): the host walk's cursor keeps 16 levels and used to step by the wrong stride below
  // them (byte 2 of the stream held src[3]; MPI_Pack gives src[1]).
  Datatype t = hvector(2, 1, 3, byte());
  for (std::int64_t s = 1; s <= 33; s += 2) t = hvector(2, 1, s, t);
  t.commit();
  Test::CheckOptions options;
  options.partial = false;  // 2^18 bytes: the whole stream once is enough
  Test::check_pack_unpack<Test::ExecSpace>(t, 1, 14, options);
  // Deeper still, alternating derived levels that normalization cannot merge, and count > 1.
  Datatype u = contiguous(3, primitive<std::int16_t>());
  for (int level = 0; level < 40; ++level)
    u = level % 8 == 0 ? hvector(2, 1, 7 + level, u) : resized(contiguous(1, u), 0, u.extent() + 1);
  u.commit();
  Test::check_pack_unpack<Test::ExecSpace>(u, 3, 15);
}

TEST_CASE("regression: a View's footprint is its last element, not its span", "[regression][view][errors]") {
  // A strided subview whose Kokkos span runs past the allocation: two instances of its type reach past `a`.
  Kokkos::View<double***, Kokkos::LayoutRight, Mem> a("a", 1, 1, 2);
  auto s = Kokkos::subview(a, Kokkos::ALL, Kokkos::ALL, 1);
  Datatype t = datatype_of(s).commit();
  REQUIRE(t.size() == 8);
  Kokkos::View<double*, Mem> out("out", 2);
  Test::ExecSpace space;
  require_error([&] { pack(space, s, 2, t, out); }, ErrorCode::BufferTooSmall, "src");
  require_error([&] { unpack(space, out, s, 2, t); }, ErrorCode::BufferTooSmall, "dst");
  CHECK(pack(space, s, 1, t, out) == 8);  // one instance fits
  space.fence();
  // Every rank and layout: the type of a strided subview fits the subview exactly once.
  Kokkos::View<double****, Kokkos::LayoutLeft, Mem> b("b", 3, 4, 2, 5);
  auto sb = Kokkos::subview(b, Kokkos::pair<int, int>(1, 3), Kokkos::ALL, 1, Kokkos::pair<int, int>(0, 4));
  Datatype tb = datatype_of(sb).commit();
  Kokkos::View<double*, Mem> outb("outb", 64);
  CHECK(pack(space, sb, 1, tb, outb) == 256);
  require_error([&] { pack(space, sb, 2, tb, outb); }, ErrorCode::BufferTooSmall, "src");
  space.fence();
}

TEST_CASE("regression: the fusion queue's footprint arithmetic is checked", "[regression][fusion][errors]") {
  // (count - 1) * extent overflows while count * size does not: the queue used to compute the footprint unchecked.
  Datatype sparse = resized(byte(), 0, std::int64_t(1) << 40).commit();
  Kokkos::View<char*, Mem> typed("typed", 8), packed("packed", 8);
  FusionOptions options;
  options.threshold_bytes = 1 << 20;
  FusionQueue<Test::ExecSpace> queue(Test::ExecSpace(), options);
  require_error(
      [&] {
        queue.pack(typed.data(), std::int64_t(1) << 30, sparse, packed.data(), 8, PackRange{0, 8});
      },
      ErrorCode::Overflow, "count");
  CHECK(queue.pending_requests() == 0);
}

namespace {
std::vector<std::string> global_fences;
void record_fence(const char* name, std::uint32_t device_id, std::uint64_t*) {
  if (device_id == 0) global_fences.emplace_back(name);  // Kokkos' id for a global (all-instances) fence
}
}  // namespace

TEST_CASE("regression: the fusion queue synchronizes only its own instance", "[regression][fusion]") {
  // Instance first means no hidden global synchronization: the queue used to fence every instance after allocating.
  Datatype t = vector(16, 1, 2, primitive<double>()).commit();
  Kokkos::View<double*, Mem> typed("typed", 32), packed("packed", 16);
  Test::ExecSpace space;
  space.fence();
  global_fences.clear();
  Kokkos::Tools::Experimental::set_begin_fence_callback(record_fence);
  {
    FusionOptions options;
    options.threshold_bytes = 1 << 20;
    FusionQueue<Test::ExecSpace> queue(space, options);
    queue.wait(queue.pack(typed, 1, t, packed));
    queue.wait_all();
    // (Destroying the queue frees host memory, before which Kokkos itself fences every instance: not ours to avoid.)
    Kokkos::Tools::Experimental::set_begin_fence_callback(nullptr);
  }
  INFO("global fences: " << (global_fences.empty() ? std::string("none") : global_fences.front()));
  CHECK(global_fences.empty());
}
