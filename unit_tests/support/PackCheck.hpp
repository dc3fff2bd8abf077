// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One full check of a type on one execution space: pack and unpack, whole and in randomly ordered partial ranges,
// against the host reference and (optionally) MPICH, with poisoned outputs and guard zones.

#include <algorithm>
#include <cstring>
#include <random>
#include <sstream>
#include <vector>

#include "Buffers.hpp"
#include "Catch.hpp"
#include "KokkosDDT.hpp"
#include "Reference.hpp"
#if defined(KOKKOSDDT_TEST_MPI)
#include "MpiOracle.hpp"
#endif

namespace KokkosDDT::Test {

inline std::string first_difference(const char* a, const char* b, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i)
    if (a[i] != b[i]) {
      std::ostringstream os;
      os << "first difference at byte " << i << " of " << n << ": " << int(static_cast<unsigned char>(a[i])) << " vs "
         << int(static_cast<unsigned char>(b[i]));
      return os.str();
    }
  return "identical";
}

#define KOKKOSDDT_REQUIRE_BYTES(a, b, n)                              \
  do {                                                                \
    INFO(::KokkosDDT::Test::first_difference((a), (b), (n)));         \
    REQUIRE(std::memcmp((a), (b), static_cast<std::size_t>(n)) == 0); \
  } while (0)

// Random cut points of [0, total) visited in random order.
inline std::vector<std::pair<std::int64_t, std::int64_t>> random_segments(std::int64_t total, std::mt19937_64& rng) {
  std::vector<std::int64_t> cuts{0, total};
  const int k = static_cast<int>(rng() % 6);
  for (int i = 0; i < k && total > 0; ++i) cuts.push_back(static_cast<std::int64_t>(rng() % (total + 1)));
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::pair<std::int64_t, std::int64_t>> segs;
  for (std::size_t i = 1; i < cuts.size(); ++i) segs.push_back({cuts[i - 1], cuts[i]});
  std::shuffle(segs.begin(), segs.end(), rng);
  return segs;
}

struct CheckOptions {
  bool compare_mpi = true;
  bool partial = true;
  int misalign_typed = 0;
  int misalign_packed = 0;
};

template <class ExecSpace>
void check_pack_unpack(const Datatype& type, std::int64_t count, std::uint64_t seed, const CheckOptions& opt = {}) {
  using Mem = typename ExecSpace::memory_space;
  INFO("type " << type.describe() << ", count " << count << ", seed " << seed);
  const auto runs = flatten(type, count);
  const auto [lo, hi] = footprint(runs);
  const std::int64_t total = count * type.size();
  std::mt19937_64 rng(seed);
  ExecSpace space;

  GuardedBuffer<Mem> src(hi - lo, opt.misalign_typed);
  src.fill_pattern(seed);
  std::vector<char> expected(total + 1);
  reference_pack(runs, src.host() - lo, expected.data());

  // Whole pack.
  GuardedBuffer<Mem> packed(total, opt.misalign_packed);
  const std::int64_t n = pack(space, src.device() - lo, count, type, packed.device(), total);
  space.fence();
  packed.pull();
  src.pull();
  REQUIRE(n == total);
  KOKKOSDDT_REQUIRE_BYTES(packed.host(), expected.data(), total);
  REQUIRE(packed.guards_intact());
  REQUIRE(src.guards_intact());
#if defined(KOKKOSDDT_TEST_MPI)
  if (opt.compare_mpi && mpi_is_reference()) {
    const std::vector<char> theirs = mpi_pack(type, count, src.host() - lo);
    REQUIRE(static_cast<std::int64_t>(theirs.size()) == total);
    KOKKOSDDT_REQUIRE_BYTES(theirs.data(), expected.data(), total);
  }
#endif

  // Partial packs, random segments in random order.
  if (opt.partial) {
    packed.poison();
    for (auto [a, b] : random_segments(total, rng)) {
      const PackRange range{a, b == total && (rng() & 1) ? -1 : b - a};
      REQUIRE(pack(space, src.device() - lo, count, type, packed.device() + a, b - a, range) == b - a);
    }
    space.fence();
    packed.pull();
    KOKKOSDDT_REQUIRE_BYTES(packed.host(), expected.data(), total);
    REQUIRE(packed.guards_intact());
  }

  if (!runs_disjoint(runs)) return;  // unpacking an overlapping type is erroneous in MPI

  // What the typed buffer must hold after an unpack: the packed bytes in the runs, poison elsewhere.
  std::vector<char> want(hi - lo + 1, static_cast<char>(kPoison));
  reference_unpack(runs, expected.data(), want.data() - lo);
  GuardedBuffer<Mem> in(total);
  std::memcpy(in.host(), expected.data(), total);
  in.push();

  GuardedBuffer<Mem> dst(hi - lo, opt.misalign_typed);
  REQUIRE(unpack(space, in.device(), total, dst.device() - lo, count, type) == total);
  space.fence();
  dst.pull();
  KOKKOSDDT_REQUIRE_BYTES(dst.host(), want.data(), hi - lo);
  REQUIRE(dst.guards_intact());
#if defined(KOKKOSDDT_TEST_MPI)
  if (opt.compare_mpi && total > 0 && mpi_is_reference()) {
    GuardedBuffer<> theirs(hi - lo, opt.misalign_typed);
    mpi_unpack(type, count, std::vector<char>(expected.begin(), expected.begin() + total), theirs.host() - lo);
    KOKKOSDDT_REQUIRE_BYTES(theirs.host(), want.data(), hi - lo);
  }
#endif

  if (opt.partial) {
    dst.poison();
    for (auto [a, b] : random_segments(total, rng)) {
      REQUIRE(unpack(space, in.device() + a, b - a, dst.device() - lo, count, type, PackRange{a, b - a}) == b - a);
    }
    space.fence();
    dst.pull();
    KOKKOSDDT_REQUIRE_BYTES(dst.host(), want.data(), hi - lo);
    REQUIRE(dst.guards_intact());
  }
}

}  // namespace KokkosDDT::Test
