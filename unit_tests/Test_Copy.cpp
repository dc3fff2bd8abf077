// SPDX-License-Identifier: BSD-3-Clause
// Typed-to-typed copies (KokkosDDT::copy) against the host reference's pack + unpack: random nested types (fixed
// seeds) copied into another layout of the same signature and back, whole and in randomly ordered partial ranges,
// into poisoned buffers between guard zones, also as a fused batch's request; and every error, with nothing written.
#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "KokkosDDT_CommittedWire.hpp"
#include "KokkosDDT_FusedBatch.hpp"
#include "KokkosDDT_SameShape.hpp"
#include "support/Buffers.hpp"
#include "support/Catch.hpp"
#include "support/Errors.hpp"
#include "support/PackCheck.hpp"
#include "support/RandomTypes.hpp"
#include "support/Reference.hpp"
#include "support/TestSpace.hpp"

using namespace KokkosDDT;
using Test::ExecSpace;
using Test::rearranged;
using Test::Side;

namespace {

// copy(from -> to) on ExecSpace equals unpacking `to` from what packing `from` gives, whole and in partial ranges;
// the destination's other bytes and every guard are untouched. Returns the bytes copied (0: nothing to check).
std::int64_t check_copy(const Side& from, const Side& to, std::uint64_t seed, int misalign_src, int misalign_dst) {
  using Mem = ExecSpace::memory_space;
  INFO("from " << from.type.describe() << " x " << from.count << " to " << to.type.describe() << " x " << to.count
               << ", seed " << seed);
  const auto sruns = Test::flatten(from.type, from.count), druns = Test::flatten(to.type, to.count);
  if (!Test::runs_disjoint(druns)) return 0;  // (writing a byte twice is erroneous, as in an unpack)
  const auto [slo, shi] = Test::footprint(sruns);
  const auto [dlo, dhi] = Test::footprint(druns);
  const std::int64_t total = from.count * from.type.size();
  REQUIRE(total == to.count * to.type.size());
  Test::GuardedBuffer<Mem> src(shi - slo, misalign_src), dst(dhi - dlo, misalign_dst);
  src.fill_pattern(seed);
  std::vector<char> packed(total + 1), want(dhi - dlo + 1, static_cast<char>(Test::kPoison));
  Test::reference_pack(sruns, src.host() - slo, packed.data());
  Test::reference_unpack(druns, packed.data(), want.data() - dlo);
  ExecSpace space;
  REQUIRE(copy(space, src.device() - slo, from.count, from.type, dst.device() - dlo, to.count, to.type) == total);
  space.fence();
  dst.pull();
  src.pull();
  KOKKOSDDT_REQUIRE_BYTES(dst.host(), want.data(), dhi - dlo);
  REQUIRE(dst.guards_intact());
  REQUIRE(src.guards_intact());
  // Partial ranges, in random order.
  std::mt19937_64 rng(seed);
  dst.poison();
  for (auto [a, b] : Test::random_segments(total, rng)) {
    const PackRange range{a, b == total && (rng() & 1) ? -1 : b - a};
    REQUIRE(copy(space, src.device() - slo, from.count, from.type, dst.device() - dlo, to.count, to.type, range) ==
            b - a);
  }
  space.fence();
  dst.pull();
  KOKKOSDDT_REQUIRE_BYTES(dst.host(), want.data(), dhi - dlo);
  REQUIRE(dst.guards_intact());
  if (total == 0) return 0;
  // The same copy as a request of a fixed fused batch (a plan's message to itself), beside a pack of the source in the
  // same launch, launched twice.
  dst.poison();
  Test::GuardedBuffer<Mem> out(total, 0);
  Impl::FusedBatch<ExecSpace> batch(space);
  batch.add_copy(src.device() - slo, false, from.count, from.type, dst.device() - dlo, false, to.count, to.type);
  batch.add_pack(src.device() - slo, from.count, from.type, out.device(), total);
  for (int k = 0; k < 2; ++k) {
    batch.launch();
    batch.wait();
  }
  space.fence();
  dst.pull();
  out.pull();
  KOKKOSDDT_REQUIRE_BYTES(dst.host(), want.data(), dhi - dlo);
  KOKKOSDDT_REQUIRE_BYTES(out.host(), packed.data(), total);
  REQUIRE(dst.guards_intact());
  REQUIRE(out.guards_intact());
  // The same copy as a fusion-queue request between two packs of its source (they only read what it reads: one
  // launch, or one batch on the calling thread of a host).
  dst.poison();
  out.poison();
  {
    Test::GuardedBuffer<Mem> again(total, 0);
    FusionQueue<ExecSpace> q(space, {64, std::int64_t(1) << 40, false});
    q.pack(src.device() - slo, from.count, from.type, out.device(), total);
    const FusionRequest r = q.copy(src.device() - slo, from.count, from.type, dst.device() - dlo, to.count, to.type);
    q.pack(src.device() - slo, from.count, from.type, again.device(), total);
    CHECK(q.pending_requests() == 3);
    q.wait(r);
    q.wait_all();
    CHECK(q.launches() == 1);
    dst.pull();
    out.pull();
    again.pull();
    KOKKOSDDT_REQUIRE_BYTES(dst.host(), want.data(), dhi - dlo);
    KOKKOSDDT_REQUIRE_BYTES(out.host(), packed.data(), total);
    KOKKOSDDT_REQUIRE_BYTES(again.host(), packed.data(), total);
    REQUIRE(dst.guards_intact());
  }
  // The same copy as a mapped request (the peer transport's): the destination's committed type as words and back, as
  // the sender receives it from a peer.
  dst.poison();
  const std::vector<std::int64_t> words = Impl::committed_to_words(to.type.impl_committed("test"));
  Impl::FusedBatch<ExecSpace> mapped(space);
  mapped.add_mapped_copy(src.device() - slo, false, from.count, from.type, dst.device() - dlo, to.count,
                         Impl::committed_from_words(words.data(), words.size(), "test"));
  mapped.launch();
  mapped.wait();
  space.fence();
  dst.pull();
  KOKKOSDDT_REQUIRE_BYTES(dst.host(), want.data(), dhi - dlo);
  REQUIRE(dst.guards_intact());
  return total;
}

// Elements of n that differ from what a pack, a copy one element along and an unpack of every other element leave,
// where the first `moved` of them moved: packed(k) = src_at(2k), copied(2k + 1) = src_at(2k), unpacked(2k) =
// unpacked_at(k), every other element 0 (as allocated).
template <class T, class Mem, class SrcAt, class UnpackedAt>
std::int64_t every_other_wrong(const Kokkos::View<T*, Mem>& packed, const Kokkos::View<T*, Mem>& copied,
                               const Kokkos::View<T*, Mem>& unpacked, std::int64_t n, std::int64_t moved, SrcAt src_at,
                               UnpackedAt unpacked_at) {
  const auto p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), packed);
  const auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), copied);
  const auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), unpacked);
  std::int64_t wrong = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    const bool m = k < moved;
    wrong += p(k) != (m ? src_at(2 * k) : T(0));
    wrong += c(2 * k + 1) != (m ? src_at(2 * k) : T(0)) || c(2 * k) != T(0);
    wrong += u(2 * k) != (m ? unpacked_at(k) : T(0)) || u(2 * k + 1) != T(0);
  }
  return wrong;
}

}  // namespace

TEST_CASE("copy: random nested types into another layout of the same signature and back", "[copy][random]") {
  Test::TypeGenerator gen(20261126);
  const int cases = Test::scaled(600);
  int checked = 0;
  for (int i = 0; i < cases; ++i) {
    Test::RandomType r = gen.next();
    r.type.commit();
    const Side from{r.type, gen.pick(0, 3)};
    const Side to = rearranged(r.type, from.count, gen);
    const int ms = static_cast<int>(gen.pick(0, 15)), md = static_cast<int>(gen.pick(0, 15));
    checked += check_copy(from, to, 5000 + i, ms, md) > 0;
    if (Test::runs_disjoint(Test::flatten(from.type, from.count)))
      checked += check_copy(to, from, 9000 + i, md, ms) > 0;
  }
  CHECK(checked > cases / 2);  // (overlapping destinations and empty types are skipped: most cases must remain)
}

// Two types of one shape (a halo's face and the ghost layer it fills): the copy locates each position once, in the
// source's layout (Impl::same_shape), and must still equal the reference; types of another shape keep both walks.
TEST_CASE("copy: a layout into the same layout elsewhere, located once", "[copy][random]") {
  // A face of a 3-D array of doubles into the ghost layer across: subarrays of one shape at two starts.
  const std::vector<std::int64_t> sizes{6, 7, 8}, face{1, 5, 6};
  const Datatype inner = subarray(sizes, face, {1, 1, 1}, Order::C, primitive<double>()).commit();
  const Datatype ghost = subarray(sizes, face, {5, 1, 1}, Order::C, primitive<double>()).commit();
  std::int64_t delta = 0;
  REQUIRE(Impl::same_shape(inner.impl_committed("test"), ghost.impl_committed("test"), delta));
  CHECK(delta == 4 * 7 * 8 * 8);
  CHECK(check_copy({inner, 2}, {ghost, 2}, 77, 0, 8) > 0);
  CHECK(check_copy({ghost, 1}, {inner, 1}, 78, 0, 0) > 0);
  // Structs of such faces of two fields (a halo plan's message): alike fields move alike; a field of floats beside one
  // of doubles moves by another difference, so the struct is not one shape moved.
  const Datatype inner_f = subarray(sizes, face, {1, 1, 1}, Order::C, primitive<float>()).commit();
  const Datatype ghost_f = subarray(sizes, face, {5, 1, 1}, Order::C, primitive<float>()).commit();
  const Datatype two_inner = struct_type({1, 1}, {0, 4096}, {inner, inner}).commit();
  const Datatype two_ghost = struct_type({1, 1}, {0, 4096}, {ghost, ghost}).commit();
  REQUIRE(Impl::same_shape(two_inner.impl_committed("test"), two_ghost.impl_committed("test"), delta));
  CHECK(delta == 4 * 7 * 8 * 8);
  CHECK(check_copy({two_inner, 1}, {two_ghost, 1}, 80, 0, 0) > 0);
  const Datatype mixed_inner = struct_type({1, 1}, {0, 4096}, {inner, inner_f}).commit();
  const Datatype mixed_ghost = struct_type({1, 1}, {0, 4096}, {ghost, ghost_f}).commit();
  CHECK_FALSE(Impl::same_shape(mixed_inner.impl_committed("test"), mixed_ghost.impl_committed("test"), delta));
  CHECK(check_copy({mixed_inner, 1}, {mixed_ghost, 1}, 81, 0, 0) > 0);
  // Fields at irregular places (a halo plan's message: a struct of one layout at the fields' addresses): normalized,
  // the region's start moves into the list of the fields' addresses, so the two lists differ entry by entry by one
  // amount; a list that differs by two amounts is another shape.
  const Datatype corner = subarray(sizes, {1, 2, 1}, {1, 1, 1}, Order::C, primitive<double>()).commit();
  const Datatype far = subarray(sizes, {1, 2, 1}, {5, 4, 6}, Order::C, primitive<double>()).commit();
  const Datatype near_fields = struct_type({1, 1, 1}, {0, 9000, 4096}, {corner, corner, corner}).commit();
  const Datatype far_fields = struct_type({1, 1, 1}, {0, 9000, 4096}, {far, far, far}).commit();
  REQUIRE(Impl::same_shape(near_fields.impl_committed("test"), far_fields.impl_committed("test"), delta));
  CHECK(delta == ((4 * 7 + 3) * 8 + 5) * 8);
  CHECK(check_copy({near_fields, 1}, {far_fields, 1}, 84, 0, 8) > 0);
  CHECK(check_copy({far_fields, 2}, {near_fields, 2}, 85, 8, 0) > 0);
  const Datatype moved_field = struct_type({1, 1, 1}, {0, 9008, 4096}, {far, far, far}).commit();
  CHECK_FALSE(Impl::same_shape(near_fields.impl_committed("test"), moved_field.impl_committed("test"), delta));
  CHECK(check_copy({near_fields, 1}, {moved_field, 1}, 86, 0, 0) > 0);
  // One contiguous run at two places (on devices a flat record: no descriptor in the kernel): a row of a 2-D array
  // into another row, and runs of bytes from one to several tiles moved by a displacement.
  const Datatype row = subarray({8, 100}, {1, 50}, {3, 10}, Order::C, primitive<double>()).commit();
  const Datatype other_row = subarray({8, 100}, {1, 50}, {6, 40}, Order::C, primitive<double>()).commit();
  REQUIRE(Impl::same_shape(row.impl_committed("test"), other_row.impl_committed("test"), delta));
  CHECK(check_copy({row, 1}, {other_row, 1}, 82, 0, 8) > 0);
  CHECK(check_copy({other_row, 2}, {row, 2}, 83, 0, 0) > 0);
  for (const std::int64_t n : {1, 7, 4097, 70001}) {
    const Datatype run = contiguous(n, primitive<char>()).commit();
    const Datatype moved = hindexed({1}, {n % 13 + 3}, run).commit();
    CHECK(check_copy({run, 1}, {moved, 1}, 90 + static_cast<std::uint64_t>(n), 1, 5) > 0);
  }
  // Another shape: a y face.
  const Datatype yface = subarray(sizes, {4, 1, 6}, {1, 1, 1}, Order::C, primitive<double>()).commit();
  CHECK_FALSE(Impl::same_shape(inner.impl_committed("test"), yface.impl_committed("test"), delta));
  // Indexed blocks at other displacements: the same nodes, another lookaside.
  const Datatype a = indexed({2, 3}, {0, 5}, primitive<int>()).commit(),
                 b = indexed({2, 3}, {0, 6}, primitive<int>()).commit();
  CHECK_FALSE(Impl::same_shape(a.impl_committed("test"), b.impl_committed("test"), delta));
  CHECK(check_copy({a, 3}, {b, 3}, 79, 0, 0) > 0);
  // Random nested types, each moved by a random displacement (a one-block hindexed of it, or a one-field struct).
  Test::TypeGenerator gen(20261129);
  const int cases = Test::scaled(300);
  int checked = 0, once = 0;
  for (int i = 0; i < cases; ++i) {
    Test::RandomType r = gen.next();
    r.type.commit();
    const std::int64_t by = gen.pick(-64, 64) * (gen.chance(0.5) ? 1 : 8);
    Datatype moved = gen.chance(0.5) ? hindexed({1}, {by}, r.type) : struct_type({1}, {by}, {r.type});
    moved.commit();
    once += Impl::same_shape(r.type.impl_committed("test"), moved.impl_committed("test"), delta);
    const std::int64_t count = gen.pick(0, 3);
    const int ms = static_cast<int>(gen.pick(0, 15)), md = static_cast<int>(gen.pick(0, 15));
    checked += check_copy({r.type, count}, {moved, count}, 13000 + i, ms, md) > 0;
    checked += check_copy({moved, count}, {r.type, count}, 17000 + i, md, ms) > 0;
  }
  CHECK(checked > cases / 2);
  CHECK(once > cases / 4);  // (most random types are chains: the one-walk path is exercised)
}

TEST_CASE("copy: a column into a row, between Views, and absolute addresses", "[copy]") {
  using Mem = ExecSpace::memory_space;
  ExecSpace space;
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> a("a", 6, 5), b("b", 5, 6);
  Kokkos::parallel_for(
      "fill", Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(space, {0, 0}, {6, 5}),
      KOKKOS_LAMBDA(int i, int j) { a(i, j) = 10.0 * i + j; });
  Kokkos::deep_copy(space, b, -1.0);
  const Datatype column = vector(6, 1, 5, primitive<double>()).commit();  // column j of a (6 x 5)
  const Datatype row = contiguous(6, primitive<double>()).commit();       // a row of b (5 x 6)
  // Column 2 of a into row 3 of b (View forms: the footprint of each side is checked inside its View).
  Kokkos::View<double*, Kokkos::LayoutRight, Mem> a_col(a.data() + 2, a.size() - 2), b_row(b.data() + 3 * 6, 6);
  CHECK(copy(space, a_col, 1, column, b_row, 1, row) == 48);
  // Column 4 of a into row 0 of b, both at absolute addresses.
  const Datatype at_col =
      hindexed({1}, {static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(a.data() + 4))}, column).commit();
  const Datatype at_row =
      hindexed({1}, {static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(b.data()))}, row).commit();
  CHECK(copy(space, bottom, 1, at_col, bottom, 1, at_row) == 48);
  space.fence();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  for (int j = 0; j < 6; ++j) {
    CHECK(h(3, j) == 10.0 * j + 2);
    CHECK(h(0, j) == 10.0 * j + 4);
    CHECK(h(1, j) == -1.0);
  }
}

TEST_CASE("copy: bad arguments throw, naming them, and write nothing", "[copy][errors]") {
  using E = ErrorCode;
  using Mem = ExecSpace::memory_space;
  ExecSpace space;
  Test::GuardedBuffer<Mem> src(256), dst(256);
  src.fill_pattern(7);
  const Datatype d8 = contiguous(8, primitive<double>()).commit();
  const Datatype i16 = contiguous(16, primitive<std::int32_t>()).commit();  // 64 bytes, another signature
  const Datatype f16 = contiguous(16, primitive<float>()).commit();         // 64 bytes, another signature
  const Datatype uncommitted = contiguous(8, primitive<double>());
  auto attempt = [&](auto&& call, E code, const char* argument) {
    Test::require_error(call, code, argument);
    space.fence();
    dst.pull();
    CHECK(std::all_of(dst.host(), dst.host() + dst.size(),
                      [](char c) { return static_cast<unsigned char>(c) == Test::kPoison; }));
  };
  char* s = src.device();
  char* d = dst.device();
  attempt([&] { copy(space, s, 1, uncommitted, d, 1, d8); }, E::NotCommitted, "stype");
  attempt([&] { copy(space, s, 1, d8, d, 1, uncommitted); }, E::NotCommitted, "dtype");
  attempt([&] { copy(space, s, 1, Datatype(), d, 1, d8); }, E::NullDatatype, "stype");
  attempt([&] { copy(space, s, -1, d8, d, 1, d8); }, E::InvalidArgument, "scount");
  attempt([&] { copy(space, s, 1, d8, d, -1, d8); }, E::InvalidArgument, "dcount");
  attempt([&] { copy(space, s, 2, d8, d, 1, d8); }, E::InvalidArgument, "dcount");   // 128 bytes into 64
  attempt([&] { copy(space, s, 1, i16, d, 1, f16); }, E::InvalidArgument, "dtype");  // same size, int vs float
  attempt([&] { copy(space, s, 1, d8, d, 1, i16); }, E::InvalidArgument, "dtype");   // double vs int32
  attempt([&] { copy(space, s, 1, d8, d, 1, d8, {65, -1}); }, E::InvalidArgument, "range.offset");
  attempt([&] { copy(space, s, 1, d8, d, 1, d8, {0, -2}); }, E::InvalidArgument, "range.max_bytes");
  attempt([&] { copy(space, nullptr, 1, d8, d, 1, d8); }, E::NullPointer, "src");
  attempt([&] { copy(space, s, 1, d8, nullptr, 1, d8); }, E::NullPointer, "dst");
  attempt([&] { copy(space, s, std::int64_t(1) << 61, d8, d, std::int64_t(1) << 61, d8); }, E::Overflow, "scount");
  Kokkos::View<double*, Mem> small("small", 4), big("big", 16);
  attempt([&] { copy(space, big, 1, d8, small, 1, d8); }, E::BufferTooSmall, "dst");
  attempt([&] { copy(space, small, 1, d8, big, 1, d8); }, E::BufferTooSmall, "src");
  if constexpr (!Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible) {
    Kokkos::View<double*, Kokkos::HostSpace> host("host", 16);  // memory the device cannot reach
    attempt([&] { copy(space, host, 1, d8, big, 1, d8); }, E::Inaccessible, "src");
    attempt([&] { copy(space, big, 1, d8, host, 1, d8); }, E::Inaccessible, "dst");
  }
  // Nothing to move is no error, with any pointers: zero counts, or an empty range.
  CHECK(copy(space, nullptr, 0, d8, nullptr, 0, i16) == 0);
  CHECK(copy(space, s, 1, d8, d, 1, d8, {64, -1}) == 0);
}

TEST_CASE("copy: a committed type sent as words comes back whole; malformed words throw", "[copy][errors]") {
  Datatype t = struct_type({2, 1}, {0, 24}, {vector(3, 1, 2, primitive<int>()), primitive<double>()});
  t.commit();
  const Impl::CommittedType& c = t.impl_committed("test");
  std::vector<std::int64_t> words = Impl::committed_to_words(c);
  auto back = Impl::committed_from_words(words.data(), words.size(), "test");
  CHECK(back->size == c.size);
  CHECK(back->extent == c.extent);
  CHECK(back->nodes.size() == c.nodes.size());
  CHECK(back->lookaside == c.lookaside);
  CHECK(back->id != c.id);
  auto malformed = [&](std::vector<std::int64_t> w) {
    Test::require_error([&] { Impl::committed_from_words(w.data(), w.size(), "test"); }, ErrorCode::InvalidArgument,
                        "type");
  };
  malformed({});
  malformed(std::vector<std::int64_t>(words.begin(), words.end() - 1));  // short
  std::vector<std::int64_t> w = words;
  w[1] += 1;  // another format
  malformed(w);
  w = words;
  w[10] = std::int64_t(99) << 32 | (w[10] & 0xffffffff);  // the first node's child index (its high half): out of range
  malformed(w);
}

TEST_CASE("copy: a fusion-queue copy runs after a pending unpack into its source, and checks its arguments",
          "[copy][fusion]") {
  using Mem = ExecSpace::memory_space;
  ExecSpace space;
  Datatype column = vector(16, 1, 4, primitive<int>());  // every fourth int of 64
  column.commit();
  Datatype ints = contiguous(16, primitive<int>());
  ints.commit();
  Kokkos::View<int*, Mem> packed("packed", 16), middle("middle", 64), last("last", 16);
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<ExecSpace>(space, 0, 16), KOKKOS_LAMBDA(int i) { packed(i) = 100 + i; });
  space.fence();
  FusionQueue<ExecSpace> q(space, {64, std::int64_t(1) << 40, false});
  q.unpack(packed.data(), 64, middle.data(), 1, column);   // middle's column <- packed
  q.copy(middle.data(), 1, column, last.data(), 1, ints);  // reads what the unpack writes: the next launch
  q.wait_all();
  CHECK(q.launches() == 2);
  auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), last);
  for (int i = 0; i < 16; ++i) CHECK(got(i) == 100 + i);
  // Bad arguments throw at enqueue, naming them; nothing is queued.
  Test::require_error([&] { q.copy(middle.data(), 1, column, last.data(), 2, ints); }, ErrorCode::InvalidArgument,
                      "dcount");
  Test::require_error([&] { q.copy(middle.data(), 1, column, last.data(), 1, Datatype()); }, ErrorCode::NullDatatype,
                      "dtype");
  Test::require_error([&] { q.copy(nullptr, 1, column, last.data(), 1, ints); }, ErrorCode::NullPointer, "src");
  Datatype uncommitted = contiguous(16, primitive<int>());
  Test::require_error([&] { q.copy(middle.data(), 1, column, last.data(), 1, uncommitted); }, ErrorCode::NotCommitted,
                      "dtype");
  CHECK(q.pending_requests() == 0);
}

TEST_CASE("copy: what a fused request caches in team scratch, and requests whose block table does not fit",
          "[copy][fusion]") {
  using Impl::cache_level;
  using Mem = ExecSpace::memory_space;
  // Nodes and lookaside within Impl::kMaxScratchDescriptor bytes: both cached; the nodes alone: the nodes; else none.
  constexpr std::int64_t node = sizeof(Impl::DescriptorNode), entry = sizeof(std::int64_t);
  constexpr std::int64_t most = Impl::kMaxScratchDescriptor / node, room = Impl::kMaxScratchDescriptor - most * node;
  CHECK(cache_level(most, 0) == 2);
  CHECK(cache_level(most, room / entry) == 2);
  CHECK(cache_level(most, room / entry + 1) == 1);
  CHECK(cache_level(most - 1, (room + node) / entry + 1) == 1);
  CHECK(cache_level(most + 1, 0) == 0);
  // An indexed type of 3000 blocks of 1-3 ints with gaps: its lookaside (prefix sums, displacements, buckets) holds
  // over 6000 entries, more than team scratch takes, so its teams read the block table in place (level 1), the
  // nodes from scratch. Copied into a contiguous run and back, packed and unpacked, all in fused launches.
  std::vector<std::int64_t> lengths, displs;
  std::int64_t at = 0, ints = 0;
  for (int b = 0; b < 3000; ++b) {
    lengths.push_back(1 + b % 3);
    displs.push_back(at);
    at += lengths.back() + 1 + b % 2;  // (a gap after every block)
    ints += lengths.back();
  }
  Datatype scattered = indexed(lengths, displs, primitive<int>());
  scattered.commit();
  Datatype dense = contiguous(ints, primitive<int>());
  dense.commit();
  const auto& committed = scattered.impl_committed("test");
  REQUIRE(cache_level(static_cast<std::int64_t>(committed.nodes.size()),
                      static_cast<std::int64_t>(committed.lookaside.size())) == 1);
  const int poison = -7;
  Kokkos::View<int*, Mem> src("src", at), back("back", at), packed("packed", ints), copied("copied", ints);
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<ExecSpace>(ExecSpace(), 0, at), KOKKOS_LAMBDA(std::int64_t i) {
        src(i) = static_cast<int>(i);
        back(i) = poison;
      });
  ExecSpace space;
  space.fence();
  Impl::FusedBatch<ExecSpace> there(space), home(space);
  there.add_copy(src.data(), false, 1, scattered, copied.data(), false, 1, dense);
  there.add_pack(src.data(), 1, scattered, packed.data(), ints * static_cast<std::int64_t>(sizeof(int)));
  there.launch();
  there.wait();
  home.add_copy(copied.data(), false, 1, dense, back.data(), false, 1, scattered);
  home.launch();
  home.wait();
  auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), copied);
  auto p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), packed);
  auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back);
  std::int64_t k = 0, wrong = 0;
  std::vector<bool> inside(static_cast<std::size_t>(at), false);
  for (std::size_t b = 0; b < lengths.size(); ++b)
    for (std::int64_t e = 0; e < lengths[b]; ++e, ++k) {
      const std::int64_t i = displs[b] + e;
      inside[static_cast<std::size_t>(i)] = true;
      wrong += c(k) != i;
      wrong += p(k) != i;
    }
  for (std::int64_t i = 0; i < at; ++i) wrong += r(i) != (inside[static_cast<std::size_t>(i)] ? i : poison);
  CHECK(wrong == 0);
}

// A launch whose words outnumber the threads a device holds at once (Impl::launch_words_per_thread: several words per
// thread, one wave) moves the same bytes as one word per thread would: a pack, a copy into the same layout one element
// along, and an unpack, of every other double of 2^21, as a fixed batch and as one flush of a fusion queue (hosts: the
// same launches, tiled as ever).
TEST_CASE("copy: a fused launch larger than the device moves every word once", "[copy][fusion]") {
  using Mem = ExecSpace::memory_space;
  const std::int64_t n = std::int64_t(1) << 20;  // doubles moved per request
  const Datatype every_other = vector(n, 1, 2, primitive<double>()).commit();
  Kokkos::View<double*, Mem> src("src", 2 * n + 1), to_unpack("to_unpack", n);
  ExecSpace space;
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<ExecSpace>(space, 0, 2 * n), KOKKOS_LAMBDA(std::int64_t i) { src(i) = 0.5 * i; });
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(std::int64_t i) { to_unpack(i) = -1.0 * i; });
  space.fence();
  for (bool queue : {false, true}) {
    INFO("through a fusion queue: " << queue);
    Kokkos::View<double*, Mem> packed("packed", n), copied("copied", 2 * n + 1), unpacked("unpacked", 2 * n);
    if (queue) {
      FusionQueue<ExecSpace> q(space, {8, std::int64_t(1) << 40, false});  // (one launch: flushed by wait_all)
      q.pack(src.data(), 1, every_other, packed.data(), n * 8);
      q.copy(src.data(), 1, every_other, copied.data() + 1, 1, every_other);
      q.unpack(to_unpack.data(), n * 8, unpacked.data(), 1, every_other);
      q.wait_all();
      CHECK(q.launches() == 1);
    } else {
      Impl::FusedBatch<ExecSpace> batch(space);
      batch.add_pack(src.data(), 1, every_other, packed.data(), n * 8);
      batch.add_copy(src.data(), false, 1, every_other, copied.data() + 1, false, 1, every_other);
      batch.add_unpack(to_unpack.data(), n * 8, unpacked.data(), 1, every_other);
      batch.launch();
      batch.wait();
    }
    space.fence();
    CHECK(every_other_wrong(
              packed, copied, unpacked, n, n, [](std::int64_t i) { return 0.5 * i; },
              [](std::int64_t k) { return -1.0 * k; }) == 0);
  }
}

// The same with runs of several words: runs of 3 doubles every 5 copied into the same layout one element along (one
// walk) and into runs of 2 every 3 (two walks), 786 432 doubles each, so that a device's threads take several words
// each and a thread's words lie in different runs of either side. Every other element stays poisoned.
TEST_CASE("copy: a fused launch larger than the device steps through runs", "[copy][fusion]") {
  using Mem = ExecSpace::memory_space;
  const std::int64_t m = 6 * (std::int64_t(1) << 17);  // doubles copied per request
  const Datatype threes = vector(m / 3, 3, 5, primitive<double>()).commit();
  const Datatype twos = vector(m / 2, 2, 3, primitive<double>()).commit();
  const std::int64_t src_len = m / 3 * 5, two_len = m / 2 * 3;
  Kokkos::View<double*, Mem> src("src", src_len), shifted("shifted", src_len + 1), reshaped("reshaped", two_len);
  ExecSpace space;
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<ExecSpace>(space, 0, src_len), KOKKOS_LAMBDA(std::int64_t i) { src(i) = 0.5 * i; });
  Kokkos::deep_copy(space, shifted, -1.0);
  Kokkos::deep_copy(space, reshaped, -1.0);
  Impl::FusedBatch<ExecSpace> batch(space);
  batch.add_copy(src.data(), false, 1, threes, shifted.data() + 1, false, 1, threes);
  batch.add_copy(src.data(), false, 1, threes, reshaped.data(), false, 1, twos);
  batch.launch();
  batch.wait();
  space.fence();
  auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), shifted);
  auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), reshaped);
  std::vector<double> want_a(static_cast<std::size_t>(src_len + 1), -1.0),
      want_b(static_cast<std::size_t>(two_len), -1.0);
  for (std::int64_t k = 0; k < m; ++k) {
    const double v = 0.5 * static_cast<double>(5 * (k / 3) + k % 3);
    want_a[static_cast<std::size_t>(5 * (k / 3) + k % 3 + 1)] = v;
    want_b[static_cast<std::size_t>(3 * (k / 2) + k % 2)] = v;
  }
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i <= src_len; ++i) wrong += a(i) != want_a[static_cast<std::size_t>(i)];
  for (std::int64_t i = 0; i < two_len; ++i) wrong += b(i) != want_b[static_cast<std::size_t>(i)];
  CHECK(wrong == 0);
}

// Single launches of 1-byte words beyond two waves of a device's threads read a small descriptor from its copy in
// device memory (Impl::carry_descriptor); the same type in a small launch carries it. Both move the same bytes: a pack,
// a copy one byte along and an unpack of every other byte of 2^22 (2^21 words), and of its first 1000 bytes.
TEST_CASE("copy: narrow words with carried and copied descriptors", "[copy][pack]") {
  using Mem = ExecSpace::memory_space;
  const std::int64_t n = std::int64_t(1) << 21;         // bytes moved per call
  REQUIRE_FALSE(Impl::carry_descriptor(n, 1, 270336));  // (an H200's resident threads)
  REQUIRE(Impl::carry_descriptor(n, 8, 270336));
  const Datatype every_other = vector(n, 1, 2, primitive<char>()).commit();
  const auto byte_at = [](std::int64_t i) { return static_cast<char>(i % 251); };
  Kokkos::View<char*, Mem> src("src", 2 * n + 1), to_unpack("to_unpack", n);
  ExecSpace space;
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<ExecSpace>(space, 0, 2 * n), KOKKOS_LAMBDA(std::int64_t i) {
        src(i) = static_cast<char>(i % 251);
        if (i < n) to_unpack(i) = static_cast<char>((3 * i) % 251);
      });
  space.fence();
  for (std::int64_t count : {n, std::int64_t(1000)}) {
    INFO("bytes per call: " << count);
    const Datatype t = count == n ? every_other : vector(count, 1, 2, primitive<char>()).commit();
    Kokkos::View<char*, Mem> packed("packed", n), copied("copied", 2 * n + 1), unpacked("unpacked", 2 * n);
    KokkosDDT::pack(space, src.data(), 1, t, packed.data(), count);
    KokkosDDT::copy(space, src.data(), 1, t, copied.data() + 1, 1, t);
    KokkosDDT::unpack(space, to_unpack.data(), count, unpacked.data(), 1, t);
    space.fence();
    CHECK(every_other_wrong(packed, copied, unpacked, n, count, byte_at,
                            [&](std::int64_t k) { return byte_at(3 * k); }) == 0);
  }
}
