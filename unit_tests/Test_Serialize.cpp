// SPDX-License-Identifier: BSD-3-Clause
// The serialized descriptor: preorder node array plus lookaside, and the traversal over it checked byte by byte
// against the reference flattening (no kernel involved).
#include <algorithm>
#include <random>

#include "support/Catch.hpp"
#include "support/RandomTypes.hpp"
#include "support/Reference.hpp"
#include "KokkosDDT_Committed.hpp"
#include "KokkosDDT_ShapeOffset.hpp"
#include "KokkosDDT_Traversal.hpp"
#include "KokkosDDT_TraversalArgs.hpp"

using namespace KokkosDDT;
using namespace KokkosDDT::Impl;

namespace {
// Keeps the types alive for the test's duration: a committed form lives as long as its type.
std::vector<Datatype> keep;
const CommittedType* committed(Datatype t) {
  keep.push_back(t.commit());
  return &t.impl_committed("test");
}
}  // namespace

TEST_CASE("serialize: fixed-length nodes in preorder, variable data in the lookaside", "[serialize]") {
  // nodes[0] is always the instance level: instances one extent apart.
  auto v = committed(vector(4, 1, 3, primitive<double>()));
  REQUIRE(v->nodes.size() == 2);
  CHECK(v->nodes[0].kind == Impl::LayoutKind::Strided);
  CHECK(v->nodes[0].stride == v->extent);
  CHECK(v->nodes[0].child == 1);
  CHECK(v->nodes[1].kind == Impl::LayoutKind::Strided);
  CHECK(v->nodes[1].child == -1);
  CHECK(v->nodes[1].count == 4);
  CHECK(v->nodes[1].stride == 24);
  CHECK(v->nodes[1].elem == 8);
  CHECK(v->lookaside.empty());

  // A dense type folds into the instance level: one run for any count.
  auto c = committed(contiguous(5, primitive<double>()));
  REQUIRE(c->nodes.size() == 1);
  CHECK(c->nodes[0].kind == Impl::LayoutKind::Contig);

  auto x = committed(indexed({1, 3, 2}, {0, 10, 4}, primitive<double>()));
  REQUIRE(x->nodes.size() == 2);
  CHECK(x->nodes[1].kind == Impl::LayoutKind::Indexed);
  CHECK(x->lookaside == std::vector<std::int64_t>{0, 8, 32, 48, 0, 80, 32});  // prefix bytes, then displacements

  Datatype a = vector(2, 1, 2, primitive<double>()), b = vector(3, 1, 2, primitive<std::int32_t>());
  auto s = committed(struct_type({1, 1, 1}, {0, 64, 128}, {a, primitive<char>(), b}));
  REQUIRE(s->nodes.size() == 4);
  CHECK(s->nodes[1].kind == Impl::LayoutKind::Struct);
  CHECK(s->nodes[2].kind == Impl::LayoutKind::Strided);  // field 0's child, then field 2's: preorder
  CHECK(s->nodes[3].kind == Impl::LayoutKind::Strided);
  const std::int64_t la = s->nodes[1].lookaside;
  CHECK(std::vector<std::int64_t>(s->lookaside.begin() + la, s->lookaside.begin() + la + 10) ==
        std::vector<std::int64_t>{0, 16, 17, 29, 0, 64, 128, 2, -1, 3});
}

TEST_CASE("traversal: locate() agrees with the reference for every packed byte", "[serialize][random]") {
  Test::TypeGenerator gen(99);
  for (int i = 0; i < Test::scaled(1500); ++i) {
    Datatype t = gen.next().type;
    const std::int64_t count = 1 + i % 3;
    auto c = committed(t);
    INFO(t.describe() << " layout " << t.layout() << " count " << count);
    // Expected user offset of each packed byte.
    std::vector<std::int64_t> expected;
    for (const auto& r : Test::flatten(t, count))
      for (std::int64_t k = 0; k < r.length; ++k) expected.push_back(r.offset + k);
    REQUIRE(static_cast<std::int64_t>(expected.size()) == count * t.size());
    std::int64_t run_at = 0;
    if (contiguous_run(*c, count, run_at))  // (one dense run by the rule: the reference's bytes follow each other)
      for (std::size_t k = 0; k < expected.size(); ++k) REQUIRE(expected[k] == run_at + static_cast<std::int64_t>(k));
    if (t.size() > 0) {  // the committed data bounds are exactly the bytes one instance moves
      const auto [lo, hi] = Test::footprint(Test::flatten(t, 1));
      REQUIRE(c->data_lb == lo);
      REQUIRE(c->data_ub == hi);
    }
    for (std::int64_t p = 0; p < static_cast<std::int64_t>(expected.size()); ++p) {
      const Hit h = locate(c->nodes.data(), c->lookaside.data(), p);
      const Span s = block_span(h.node, c->lookaside.data(), h.block, h.base);
      REQUIRE(s.length > h.inner);
      REQUIRE(s.offset + h.inner == expected[p]);
      // The rest of the run is contiguous in the reference too.
      const std::int64_t rest = std::min<std::int64_t>(s.length - h.inner, expected.size() - p);
      REQUIRE(expected[p + rest - 1] == expected[p] + rest - 1);
      // Positions divided in 32 bits (device walks below 2^31) find the same block.
      const Hit h32 = locate<std::uint32_t>(c->nodes.data(), c->lookaside.data(), p);
      REQUIRE((h32.node == h.node && h32.block == h.block && h32.base == h.base && h32.inner == h.inner));
      // A shaped type's arithmetic (device engines) finds the same byte, in 64 bits and, where narrow, in 32.
      if (c->shape.kind != Shape::Kind::General) {
        REQUIRE(shape_offset<false>(c->shape, c->lookaside.data(), p) == expected[p]);
        if (shape_narrow(c->shape, static_cast<std::int64_t>(expected.size())))
          REQUIRE(shape_offset<true>(c->shape, c->lookaside.data(), p) == expected[p]);
      }
    }
    // A range's walks started below the levels the whole range shares (device launches) reach the same bytes.
    const std::int64_t total = static_cast<std::int64_t>(expected.size());
    for (int k = 0; k < 4 && total > 0; ++k) {
      const std::int64_t begin = (i * 7919 + k * 104729) % total;
      const std::int64_t end = begin + 1 + (k == 0 ? 0 : (i * 31 + k) % (total - begin));
      const SharedLevels l = shared_levels(c->nodes.data(), c->lookaside.data(), begin, end);
      INFO("range [" << begin << ", " << end << ") starts at node " << l.start);
      for (std::int64_t p = begin; p < end; ++p) {
        const Hit h =
            locate<std::uint32_t>(c->nodes.data(), c->lookaside.data(), p - l.at, NoPath(), c->nodes.data() + l.start);
        REQUIRE(l.disp + block_span(h.node, c->lookaside.data(), h.block, h.base).offset + h.inner == expected[p]);
      }
    }
  }
}

TEST_CASE("contiguous_run: bytes in one dense block at any level travel as they are", "[serialize]") {
  struct Case {
    Datatype type;
    std::int64_t count;
    bool run;
    std::int64_t offset;
  };
  const Datatype column = resized(primitive<double>(), 0, 64);  // one double of each row of eight
  const std::vector<Case> cases = {
      {contiguous(3, primitive<double>()), 4, true, 0},
      {column, 1, true, 0},
      {column, 2, false, 0},
      {resized(primitive<double>(), -16, 64), 1, true, 0},
      {vector(3, 2, 5, primitive<int>()), 1, false, 0},
      {vector(1, 3, 5, primitive<int>()), 1, true, 0},
      {hindexed({2, 3}, {40, 8}, primitive<int>()), 1, false, 0},
      {hindexed({5, 3}, {40, 8}, primitive<char>()), 1, false, 0},
      {struct_type({2, 1}, {24, 0}, {primitive<double>(), primitive<char>()}), 1, false, 0},
      {resized(hindexed({4}, {40}, primitive<char>()), 0, 100), 1, true, 40},
  };
  for (const Case& k : cases) {
    const CommittedType* c = committed(k.type);
    INFO(k.type.describe() << " layout " << k.type.layout() << " count " << k.count);
    std::int64_t offset = -1;
    CHECK(contiguous_run(*c, k.count, offset) == k.run);
    if (k.run) CHECK(offset == k.offset);
  }
}

TEST_CASE("traversal: find_block on even, skewed and random block lengths", "[serialize]") {
  // Each list twice: as a hand-made Indexed node without a bucket table (the first guess and the gallop), and as
  // committed by hindexed() (lists of kBucketMinBlocks blocks or more get a bucket table).
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    const std::int64_t count = 1 + static_cast<std::int64_t>(rng() % 3000);
    std::vector<std::int64_t> prefix{0}, lens, disps;
    for (std::int64_t b = 0; b < count; ++b) {
      const std::int64_t len = trial % 3 == 0 ? 8 : trial % 3 == 1 ? (b < count / 2 ? 1 : 1000) : 1 + rng() % 100;
      disps.push_back(prefix.back() + 2 * b);  // gaps, so that normalize keeps every block
      lens.push_back(len);
      prefix.push_back(prefix.back() + len);
    }
    DescriptorNode bare{};
    bare.kind = Impl::LayoutKind::Indexed;
    bare.count = count;
    bare.bucket_shift = -1;
    const CommittedType* c = committed(hindexed(lens, disps, primitive<char>()));
    const DescriptorNode* listed = c->nodes.size() == 2 ? &c->nodes[1] : nullptr;
    if (listed && listed->kind != Impl::LayoutKind::Indexed) listed = nullptr;  // (equal lengths: IndexedBlock)
    if (listed) CHECK((listed->bucket_shift >= 0) == (count >= 32));
    std::vector<std::int64_t> probes{0, prefix.back() - 1};
    for (int probe = 0; probe < 200; ++probe) probes.push_back(static_cast<std::int64_t>(rng() % prefix.back()));
    for (std::int64_t p : probes) {
      const std::int64_t expected = std::upper_bound(prefix.begin(), prefix.end(), p) - prefix.begin() - 1;
      REQUIRE(find_block(&bare, prefix.data(), p) == expected);
      if (listed) REQUIRE(find_block(listed, c->lookaside.data(), p) == expected);
    }
  }
}

TEST_CASE("shape_of: contiguous, strided and listed grids of up to four levels, and general", "[serialize][shape]") {
  using Kind = Shape::Kind;
  const Datatype d = named(Primitive::Double);
  const Shape contig = committed(contiguous(10, d))->shape;
  CHECK(contig.kind == Kind::Contig);
  CHECK(contig.disp == 0);
  // A vector: the instance level over its blocks, 3 doubles every 5.
  const Shape v = committed(vector(4, 3, 5, d))->shape;
  REQUIRE(v.kind == Kind::Strided);
  REQUIRE(v.levels == 2);
  CHECK(v.block == 24);
  CHECK(v.count[1] == 4);
  CHECK(v.stride[1] == 40);
  CHECK(v.stride[0] == (3 * 5 + 3) * 8);  // the instance level steps by the extent
  // A face of a 3-D subarray: two strided levels below the instance level, runs of one row.
  const Shape face = committed(subarray({8, 6, 10}, {4, 1, 5}, {2, 3, 1}, Order::C, d))->shape;
  REQUIRE(face.kind == Kind::Strided);
  CHECK(face.levels == 2);  // (the plane of one: the middle level has a count of one and normalizes away)
  CHECK(face.block == 5 * 8);
  CHECK(face.disp == ((2 * 6 + 3) * 10 + 1) * 8);
  const Shape box = committed(subarray({8, 6, 10}, {4, 3, 5}, {2, 1, 1}, Order::C, d))->shape;
  REQUIRE(box.kind == Kind::Strided);
  CHECK(box.levels == 3);
  CHECK(box.count[1] == 4);
  CHECK(box.stride[1] == 6 * 10 * 8);
  CHECK(box.count[2] == 3);
  CHECK(box.stride[2] == 10 * 8);
  // Too deep: four strided levels below the instance level.
  const Datatype deep = hvector(2, 1, 4096, hvector(2, 1, 1024, hvector(2, 1, 256, vector(2, 1, 4, d))));
  CHECK(committed(deep)->shape.kind == Kind::General);
  // An indexed block of constant length: a listed level over runs of its blocks.
  const CommittedType* ib = committed(indexed_block(2, {7, 0, 3}, d));
  REQUIRE(ib->shape.kind == Kind::Strided);
  REQUIRE(ib->shape.levels == 2);
  CHECK(ib->shape.block == 16);
  CHECK(ib->shape.count[1] == 3);
  REQUIRE(ib->shape.list[1] >= 0);
  CHECK(ib->lookaside[static_cast<std::size_t>(ib->shape.list[1])] + ib->shape.disp == 7 * 8);
  CHECK(ib->shape.list[0] == -1);  // (the instance level stays strided)
  // A halo message's fields: one subarray layout at several addresses, a listed level above strided ones.
  const Datatype block = subarray({8, 6, 10}, {4, 3, 5}, {2, 1, 1}, Order::C, d);
  const Shape fields = committed(struct_type({1, 1, 1}, {4096, 0, 100000}, {block, block, block}))->shape;
  REQUIRE(fields.kind == Kind::Strided);
  CHECK(fields.levels == 4);
  CHECK(fields.list[1] >= 0);
  CHECK(fields.list[2] == -1);
  CHECK(fields.list[3] == -1);
  CHECK(fields.block == 5 * 8);
  // Narrow (32-bit offsets on devices): the run and inner strided levels span less than 2^31 bytes, whatever the
  // instance level's or a listed level's reach; negative strides count by their size.
  CHECK(box.narrow);
  CHECK(fields.narrow);
  const Datatype wide_rows = hvector(3, 1, std::int64_t(1) << 30, contiguous(4, d));
  CHECK_FALSE(committed(hvector(2, 1, 1024, wide_rows))->shape.narrow);
  CHECK(committed(hvector(2, 1, -(std::int64_t(1) << 29), vector(3, 1, 4, d)))->shape.narrow);
  CHECK_FALSE(committed(hvector(2, 1, 1024, hvector(3, 1, -(std::int64_t(1) << 30), contiguous(4, d))))->shape.narrow);
  const Shape far = committed(resized(vector(3, 1, 4, d), 0, std::int64_t(1) << 40))->shape;
  REQUIRE(far.kind == Kind::Strided);
  CHECK(far.stride[0] == std::int64_t(1) << 40);
  CHECK(far.narrow);  // (the instance level is added in 64 bits)
  // Irregular blocks and mixed fields stay with the walk.
  CHECK(committed(indexed({1, 3}, {0, 5}, d))->shape.kind == Kind::General);
  CHECK(committed(struct_type({1, 1}, {0, 16}, {d, named(Primitive::Int32)}))->shape.kind == Kind::General);
}

TEST_CASE("commit: equal descriptions built apart share one committed type, any other argument does not",
          "[serialize][commit]") {
  auto region = [](std::int64_t at, std::int64_t stride, std::int64_t extent) {
    Datatype v = resized(vector(4, 2, stride, primitive<double>()), 0, extent);
    return struct_type({1, 2}, {at, at + 512}, {v, primitive<int>()});
  };
  const CommittedType* first = committed(region(64, 3, 256));
  CHECK(committed(region(64, 3, 256)) == first);  // (a plan made again: its types committed once)
  CHECK(committed(region(72, 3, 256)) != first);
  CHECK(committed(region(64, 4, 256)) != first);
  CHECK(committed(region(64, 3, 264)) != first);
  CHECK(committed(contiguous(3, primitive<int>())) != committed(contiguous(3, primitive<float>())));
  Datatype apart = region(64, 3, 256);
  CHECK(apart.commit().layout() == region(64, 3, 256).commit().layout());
  // A struct of committed regions (a halo scatter's message of pieces): its key names each region by its committed
  // type, and it shares as the whole description would.
  auto message = [&](std::int64_t stride) {
    Datatype a = region(64, stride, 256), b = region(8, 3, 256);
    a.commit();
    b.commit();
    return struct_type({1, 1}, {0, 4096}, {a, b});
  };
  const CommittedType* whole = committed(message(3));
  CHECK(committed(message(3)) == whole);
  CHECK(committed(message(5)) != whole);
  CHECK(committed(struct_type({1, 1}, {0, 4096}, {region(64, 3, 256), region(8, 3, 256)})) != nullptr);
  CHECK(message(5).commit().layout() != message(3).commit().layout());
}
