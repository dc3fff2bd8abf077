// SPDX-License-Identifier: BSD-3-Clause
// The device layout of the kernel (wide teams, threads taking interleaved words) run on this backend, so that the
// code path GPUs take is checked on every build: random types, whole and partial, against the host reference.
#include <algorithm>

#include "support/Catch.hpp"
#include "support/PackCheck.hpp"
#include "support/RandomTypes.hpp"
#include "support/TestSpace.hpp"

using namespace KokkosDDT;

namespace device_layout_test {  // (named: nvcc warns about constexpr members of unnamed-namespace templates)

// The device layout (interleaved words in wide teams) on this backend: as many threads per team as the space allows
// (Serial: 1, so this exercises the interleave with tiny tiles there), a few words per thread per tile. Both launch
// forms: the TeamPolicy with the descriptor in team scratch (the fused kernel's) and the flat one (single device
// launches').
template <bool Flat>
struct DeviceLayout {
  static constexpr bool walks_runs = false;
  static constexpr bool inline_single_team = false;
  static constexpr bool flat = Flat;
  static int team_size() {
    return std::min(4, Kokkos::TeamPolicy<Test::ExecSpace>(1, Kokkos::AUTO)
                           .team_size_max(Impl::DeviceInterleave<Test::ExecSpace, Impl::Direction::Pack, 1>{},
                                          Kokkos::ParallelForTag()));
  }
  // 8 words per thread: tiles are multiples of the packed-side word, so narrow types take that path when aligned.
  static std::int64_t tile_bytes(const Test::ExecSpace&, std::int64_t, int word) { return 8 * word * team_size(); }
};

template <Impl::Direction Dir, bool Flat>
void run(const Datatype& t, std::int64_t count, char* typed, char* packed, std::int64_t begin, std::int64_t end) {
  Test::ExecSpace space;
  const auto& c = t.impl_committed("test");
  std::int64_t word = count > 1 ? c.word_repeated : c.word_single;
  for (std::uint64_t v : {reinterpret_cast<std::uint64_t>(typed), reinterpret_cast<std::uint64_t>(packed),
                          static_cast<std::uint64_t>(begin), static_cast<std::uint64_t>(end - begin)})
    word = std::min(word, Impl::low_bit(v));
  Impl::TraversalLaunch<Test::ExecSpace, Dir, DeviceLayout<Flat>>::launch(space, c, typed, packed, begin, end,
                                                                          static_cast<int>(word));
  space.fence();
}

// Packs `count` instances of t from a patterned buffer in two ranges split at `cut` (so that a range boundary falls
// mid-run), checks the bytes and the guards against the reference, then unpacks them into a fresh buffer and checks
// that too (types whose runs overlap have no defined unpack, and stop after the pack).
template <bool Flat>
void check_round_trip(const Datatype& t, std::int64_t count, int pattern, int pad, std::int64_t cut) {
  using Mem = Test::ExecSpace::memory_space;
  const std::int64_t total = count * t.size();
  const auto runs = Test::flatten(t, count);
  const auto [lo, hi] = Test::footprint(runs);
  Test::GuardedBuffer<Mem> src(hi - lo, pad);
  src.fill_pattern(pattern);
  std::vector<char> expected(total);
  Test::reference_pack(runs, src.host() - lo, expected.data());
  Test::GuardedBuffer<Mem> packed(total);
  run<Impl::Direction::Pack, Flat>(t, count, src.device() - lo, packed.device(), 0, cut);
  run<Impl::Direction::Pack, Flat>(t, count, src.device() - lo, packed.device() + cut, cut, total);
  packed.pull();
  KOKKOSDDT_REQUIRE_BYTES(packed.host(), expected.data(), total);
  REQUIRE(packed.guards_intact());
  if (!Test::runs_disjoint(runs)) return;
  std::vector<char> want(hi - lo + 1, static_cast<char>(Test::kPoison));
  Test::reference_unpack(runs, expected.data(), want.data() - lo);
  Test::GuardedBuffer<Mem> dst(hi - lo);
  run<Impl::Direction::Unpack, Flat>(t, count, dst.device() - lo, packed.device(), 0, total);
  dst.pull();
  KOKKOSDDT_REQUIRE_BYTES(dst.host(), want.data(), hi - lo);
  REQUIRE(dst.guards_intact());
}

}  // namespace device_layout_test

using device_layout_test::check_round_trip;

TEMPLATE_TEST_CASE_SIG("device layout: interleaved words match the reference", "[pack][random]", ((bool Flat), Flat),
                       false, true) {
  Test::TypeGenerator gen(777);
  for (int i = 0; i < Test::scaled(600); ++i) {
    Datatype t = gen.next().type.commit();
    const std::int64_t count = gen.pick(1, 3), total = count * t.size();
    if (total == 0) continue;
    INFO(t.describe() << " count " << count);
    const int pad = static_cast<int>(gen.pick(0, 15));
    check_round_trip<Flat>(t, count, i, pad, gen.pick(0, total));
  }
}

// Both sides of the inline-descriptor limit (Config::inline_descriptor_bytes): a short vector, whose descriptor the
// flat launch carries in its parameters, and a long irregular index list with a bucket table, read from its copy in
// the memory space.
TEMPLATE_TEST_CASE_SIG("device layout: carried and copied descriptors", "[pack]", ((bool Flat), Flat), false, true) {
  std::vector<std::int64_t> lens, disps;
  for (std::int64_t b = 0, at = 0; b < 300; ++b, at += 40) {
    lens.push_back(1 + (b * 7919) % 23);
    disps.push_back(at);
  }
  const Datatype small = vector(5, 3, 7, primitive<double>()).commit();
  const Datatype listed = hindexed(lens, disps, primitive<std::int16_t>()).commit();
  using Carried = Impl::InlineDescriptor<Config::inline_descriptor_bytes>;
  const auto& v = small.impl_committed("test");
  if (Config::inline_descriptor_bytes >= 1024)
    REQUIRE(Carried::fits(static_cast<std::int64_t>(v.nodes.size()), static_cast<std::int64_t>(v.lookaside.size())));
  const auto& c = listed.impl_committed("test");
  REQUIRE(c.nodes[1].bucket_shift >= 0);
  REQUIRE_FALSE(
      Carried::fits(static_cast<std::int64_t>(c.nodes.size()), static_cast<std::int64_t>(c.lookaside.size())));
  for (const Datatype& t : {small, listed}) {
    INFO(t.describe());
    check_round_trip<Flat>(t, 3, 3, 0, 3 * t.size() / 2);
  }
}
