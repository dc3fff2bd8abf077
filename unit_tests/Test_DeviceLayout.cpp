// SPDX-License-Identifier: BSD-3-Clause
// The device layout of the kernel (wide teams, threads taking interleaved words) run on this backend, so that the
// code path GPUs take is checked on every build: random types, whole and partial, packed, unpacked and copied typed to
// typed, against the host reference.
#include <algorithm>
#include <random>

#include "support/Buffers.hpp"
#include "support/Catch.hpp"
#include "support/PackCheck.hpp"
#include "support/RandomTypes.hpp"
#include "support/Reference.hpp"
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
  // A device's worth: the tests' transfers count as latency-bound (carry_descriptor), so flat launches carry every
  // descriptor that fits one of the parameter blocks, as a GPU's small launches do; larger ones take the device copy.
  static std::int64_t resident_threads(const Test::ExecSpace&) { return std::int64_t(1) << 20; }
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

// Canonical shapes take ShapeInterleave on devices (words of 4 bytes and more): grids of one to three strided levels of
// floats and doubles (negative strides, gaps, resized extents, several instances), split mid-run.
TEST_CASE("device layout: canonical shapes, one word per thread", "[pack][shape]") {
  std::mt19937_64 rng(72);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return lo + static_cast<std::int64_t>(rng() % (hi - lo + 1)); };
  for (int trial = 0; trial < 80; ++trial) {
    const bool wide = trial % 2 == 0;
    const std::int64_t unit = wide ? 8 : 4;
    Datatype t = contiguous(pick(1, 6), wide ? primitive<double>() : primitive<float>());
    for (int l = 0, levels = static_cast<int>(pick(1, 3)); l < levels; ++l) {
      const std::int64_t stride = (t.extent() + pick(0, 3) * unit) * (pick(0, 4) == 0 ? -1 : 1);
      t = hvector(pick(1, 5), 1, stride, t);
    }
    if (pick(0, 2) == 0) t = resized(t, t.lb(), t.extent() + pick(1, 8) * unit);
    t.commit();
    REQUIRE(t.impl_committed("test").shape.kind != Impl::Shape::Kind::General);
    const std::int64_t count = pick(1, 3), total = count * t.size();
    INFO(t.describe() << " count " << count);
    check_round_trip<true>(t, count, trial, static_cast<int>(pick(0, 2)) * 8, pick(0, total / unit) * unit);
  }
}

// Every side of the carried-descriptor limits (Config::carried_descriptor_bytes and carried_descriptor_bytes_large): a
// short index list, whose descriptor the flat launch carries in its smaller parameter block (a vector would be a
// canonical shape, which needs no descriptor: ShapeInterleave), an index list of 48 blocks
// with a bucket table (~1.6 KiB with its nodes: the larger block), and a long one, read from its copy in the memory
// space.
TEMPLATE_TEST_CASE_SIG("device layout: carried and copied descriptors", "[pack]", ((bool Flat), Flat), false, true) {
  auto list = [](std::int64_t blocks) {
    std::vector<std::int64_t> lens, disps;
    for (std::int64_t b = 0, at = 0; b < blocks; ++b, at += 40) {
      lens.push_back(1 + (b * 7919) % 23);
      disps.push_back(at);
    }
    return hindexed(lens, disps, primitive<std::int16_t>()).commit();
  };
  const Datatype small = indexed({1, 3, 2}, {0, 5, 11}, primitive<double>()).commit();
  REQUIRE(small.impl_committed("test").shape.kind == Impl::Shape::Kind::General);
  const Datatype medium = list(48);
  const Datatype listed = list(300);
  auto fits = [](auto carried, const Datatype& t) {
    const auto& c = t.impl_committed("test");
    return decltype(carried)::fits(static_cast<std::int64_t>(c.nodes.size()),
                                   static_cast<std::int64_t>(c.lookaside.size()));
  };
  using Small = Impl::CarriedDescriptor<Config::carried_descriptor_bytes>;
  using Large = Impl::CarriedDescriptor<Config::carried_descriptor_bytes_large>;
  if (Config::carried_descriptor_bytes >= 1024) REQUIRE(fits(Small{}, small));
  if (Config::carried_descriptor_bytes_large >= 2048) {
    REQUIRE_FALSE(fits(Small{}, medium));
    REQUIRE(fits(Large{}, medium));
  }
  REQUIRE(listed.impl_committed("test").nodes[1].bucket_shift >= 0);
  REQUIRE_FALSE(fits(Small{}, listed));
  REQUIRE_FALSE(fits(Large{}, listed));
  for (const Datatype& t : {small, medium, listed}) {
    INFO(t.describe());
    check_round_trip<Flat>(t, 3, 3, 0, 3 * t.size() / 2);
  }
}

namespace device_layout_test {

// A typed-to-typed copy in the device layout (TypedCopy without the host walk: a word per work item, located on both
// sides) of stream bytes [begin, end); `carried`: the descriptors in the functor (CarriedDescriptor, as a device's
// single copy carries small ones) instead of their copies in the memory space. Returns false where they do not fit.
bool run_copy(const Test::Side& from, char* src, const Test::Side& to, char* dst, std::int64_t begin, std::int64_t end,
              bool carried) {
  constexpr int bytes = Config::carried_descriptor_bytes;
  const auto& s = from.type.impl_committed("test");
  const auto& d = to.type.impl_committed("test");
  auto fits = [](const Impl::CommittedType& c) {
    return Impl::CarriedDescriptor<bytes>::fits(static_cast<std::int64_t>(c.nodes.size()),
                                                static_cast<std::int64_t>(c.lookaside.size()));
  };
  if (carried && !(fits(s) && fits(d))) return false;
  if (end <= begin) return true;
  const int word = Impl::copy_word(s, from.count, src, d, to.count, dst, begin, end - begin);
  Test::ExecSpace space;
  Impl::with_word_size(word, [&](auto w) {
    constexpr int W = decltype(w)::value;
    using Mem = Test::ExecSpace::memory_space;
    using Range = Kokkos::RangePolicy<Test::ExecSpace, Kokkos::IndexType<std::int64_t>>;
    if constexpr (bytes > 0) {
      if (carried) {
        Impl::TypedCopy<Test::ExecSpace, W, false, bytes> kernel{{{}, {}, src}, {{}, {}, dst}, begin, end, W};
        kernel.carried[0].fill(s.nodes.data(), static_cast<std::int64_t>(s.nodes.size()), s.lookaside.data(),
                               static_cast<std::int64_t>(s.lookaside.size()));
        kernel.carried[1].fill(d.nodes.data(), static_cast<std::int64_t>(d.nodes.size()), d.lookaside.data(),
                               static_cast<std::int64_t>(d.lookaside.size()));
        return Kokkos::parallel_for(Range(space, 0, kernel.items()), kernel);
      }
    }
    const auto sd = Impl::descriptor<Mem>(s, space);
    const auto dd = Impl::descriptor<Mem>(d, space);
    const Impl::TypedCopy<Test::ExecSpace, W, false> kernel{
        {sd.nodes, sd.lookaside, src}, {dd.nodes, dd.lookaside, dst}, begin, end, W};
    Kokkos::parallel_for(Range(space, 0, kernel.items()), kernel);
  });
  space.fence();
  return true;
}

}  // namespace device_layout_test

TEST_CASE("device layout: typed-to-typed copies match the reference", "[copy][random]") {
  using Mem = Test::ExecSpace::memory_space;
  Test::TypeGenerator gen(4711);
  int checked = 0, carried_checked = 0;
  for (int i = 0; i < Test::scaled(400); ++i) {
    Datatype t = gen.next().type.commit();
    const Test::Side from{t, gen.pick(1, 3)};
    const Test::Side to = Test::rearranged(t, from.count, gen);
    const std::int64_t total = from.count * t.size();
    const auto sruns = Test::flatten(from.type, from.count), druns = Test::flatten(to.type, to.count);
    if (total == 0 || !Test::runs_disjoint(druns)) continue;
    INFO("from " << from.type.describe() << " x " << from.count << " to " << to.type.describe() << " x " << to.count);
    const auto [slo, shi] = Test::footprint(sruns);
    const auto [dlo, dhi] = Test::footprint(druns);
    Test::GuardedBuffer<Mem> src(shi - slo, static_cast<int>(gen.pick(0, 15)));
    Test::GuardedBuffer<Mem> dst(dhi - dlo, static_cast<int>(gen.pick(0, 15)));
    src.fill_pattern(i);
    std::vector<char> packed(total), want(dhi - dlo + 1, static_cast<char>(Test::kPoison));
    Test::reference_pack(sruns, src.host() - slo, packed.data());
    Test::reference_unpack(druns, packed.data(), want.data() - dlo);
    const std::int64_t cut = gen.pick(0, total);  // two ranges, split anywhere
    for (bool carried : {false, true}) {
      INFO("descriptors carried in the functor: " << carried);
      dst.poison();
      if (!device_layout_test::run_copy(from, src.device() - slo, to, dst.device() - dlo, cut, total, carried))
        continue;
      device_layout_test::run_copy(from, src.device() - slo, to, dst.device() - dlo, 0, cut, carried);
      dst.pull();
      KOKKOSDDT_REQUIRE_BYTES(dst.host(), want.data(), dhi - dlo);
      REQUIRE(dst.guards_intact());
      carried_checked += carried;
    }
    ++checked;
  }
  CHECK(checked > Test::scaled(400) / 2);
  if (Config::carried_descriptor_bytes > 0)
    CHECK(carried_checked > checked / 2);  // (most random types' descriptors fit)
}
