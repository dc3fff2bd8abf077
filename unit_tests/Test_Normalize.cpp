// SPDX-License-Identifier: BSD-3-Clause
// Commit-time normalization, pass by pass, then end to end on the seed's types. Layouts are compared through their
// one-line rendering: kind(d=disp,x=extent,...) with terminal elements written as "<bytes>B".
#include "support/Catch.hpp"
#include "KokkosDDT.hpp"
#include "KokkosDDT_Layout.hpp"
#include "KokkosDDT_Normalize.hpp"
#include "KokkosDDT_TypeNode.hpp"

using namespace KokkosDDT;
using namespace KokkosDDT::Impl;

namespace {
const Datatype& dbl() { return primitive<double>(); }
const Datatype& i32() { return primitive<std::int32_t>(); }
LayoutPtr lowered(const Datatype& t) { return lower(t.impl_node()); }
std::string normalized(const Datatype& t) {
  LayoutPtr l = lower(t.impl_node());
  normalize(l);
  return to_string(*l);
}
}  // namespace

// A dense primitive element lowers to terminal bytes at once; dup(dbl()) keeps a contig node (the passes' input).
const Datatype& node_dbl() {
  static const Datatype d = dup(dbl());
  return d;
}

TEST_CASE("normalize: lowering keeps the constructor's shape", "[normalize]") {
  CHECK(to_string(*lowered(vector(3, 2, 5, dbl()))) == "strided(x=96,n=3,s=40,bl=2,8B)");
  CHECK(to_string(*lowered(vector(3, 2, 5, node_dbl()))) == "strided(x=96,n=3,s=40,bl=2,contig(x=8,n=8B))");
  CHECK(to_string(*lowered(vector(3, 2, 5, resized(dbl(), 0, 16)))) ==
        "strided(x=192,n=3,s=80,bl=2,contig(x=16,n=8B))");
  CHECK(to_string(*lowered(struct_type({2, 1}, {0, 16}, {dbl(), node_dbl()}))) ==
        "struct(x=24,{2@0:8B},{1@16:contig(x=8,n=8B)})");
  CHECK(to_string(*lowered(subarray({4, 5}, {2, 3}, {1, 2}, Order::C, dbl()))) ==
        "strided(d=56,x=160,n=2,s=40,strided(x=40,n=3,s=8,contig(x=8,n=8B)))");
  CHECK(to_string(*lowered(contiguous(0, dbl()))) == "contig(x=0,n=0B)");
}

TEST_CASE("normalize: hoist_child_disp moves constant offsets up", "[normalize]") {
  LayoutPtr l = lowered(contiguous(3, subarray({4}, {2}, {1}, Order::C, dbl())));
  REQUIRE(hoist_child_disp(l));
  CHECK(to_string(*l) == "strided(d=8,x=96,n=3,s=32,strided(x=32,n=2,s=8,contig(x=8,n=8B)))");
  REQUIRE_FALSE(hoist_child_disp(l));
}

TEST_CASE("normalize: fold_contig_child makes runs terminal", "[normalize]") {
  LayoutPtr l = lowered(vector(3, 1, 5, node_dbl()));
  REQUIRE(fold_contig_child(l));
  CHECK(to_string(*l) == "strided(x=88,n=3,s=40,8B)");
  // A resized primitive is not dense: it folds only where blocks hold one element.
  LayoutPtr gap = lowered(vector(3, 2, 5, resized(dbl(), 0, 16)));
  REQUIRE_FALSE(fold_contig_child(gap));
  LayoutPtr single = lowered(vector(3, 1, 5, resized(dbl(), 0, 16)));
  REQUIRE(fold_contig_child(single));
}

TEST_CASE("normalize: split_blocklength", "[normalize]") {
  LayoutPtr l = lowered(vector(3, 2, 5, dbl()));
  fold_contig_child(l);
  REQUIRE(split_blocklength(l));
  CHECK(to_string(*l) == "strided(x=96,n=3,s=40,16B)");
  LayoutPtr nested = lowered(vector(3, 2, 5, vector(2, 1, 3, i32())));  // blocks of non-dense elements
  REQUIRE(split_blocklength(nested));
  CHECK(to_string(*nested) == "strided(x=192,n=3,s=80,strided(x=32,n=2,s=16,strided(x=16,n=2,s=12,4B)))");
}

TEST_CASE("normalize: terminal_to_contig for abutting runs", "[normalize]") {
  LayoutPtr l = lowered(vector(4, 2, 2, dbl()));  // stride == blocklength
  fold_contig_child(l);
  split_blocklength(l);
  REQUIRE(terminal_to_contig(l));
  CHECK(to_string(*l) == "contig(x=64,n=64B)");
}

TEST_CASE("normalize: drop_count_one", "[normalize]") {
  LayoutPtr l = lowered(hindexed({1}, {24}, vector(2, 1, 4, dbl())));
  REQUIRE(drop_count_one(l));
  CHECK(to_string(*l) == "strided(d=24,x=40,n=2,s=32,8B)");
}

TEST_CASE("normalize: merge_nested_strided folds lined-up levels", "[normalize]") {
  // A 2-D block whose rows are one stride apart is one strided level.
  LayoutPtr l = lowered(hvector(4, 1, 3 * 64, hvector(3, 1, 64, dbl())));
  fold_contig_child(l->child);
  REQUIRE(merge_nested_strided(l));
  CHECK(to_string(*l) == "strided(x=712,n=12,s=64,8B)");
  LayoutPtr no = lowered(hvector(4, 1, 1000, hvector(3, 1, 64, dbl())));
  REQUIRE_FALSE(merge_nested_strided(no));
}

TEST_CASE("normalize: uniform_indexed_to_block and even_block_to_strided", "[normalize]") {
  LayoutPtr l = lowered(indexed({2, 2, 2}, {0, 5, 10}, dbl()));
  REQUIRE(uniform_indexed_to_block(l));
  CHECK(l->kind == LayoutKind::IndexedBlock);
  REQUIRE(even_block_to_strided(l));
  CHECK(to_string(*l) == "strided(x=96,n=3,s=40,bl=2,8B)");
  LayoutPtr uneven = lowered(indexed_block(1, {0, 5, 11}, dbl()));
  REQUIRE_FALSE(even_block_to_strided(uneven));
}

TEST_CASE("normalize: struct_to_indexed and merge_adjacent_blocks", "[normalize]") {
  LayoutPtr s = lowered(struct_type({1, 2, 1}, {0, 8, 16}, {dbl(), i32(), primitive<char>()}));
  fold_contig_child(s);
  split_blocklength(s);
  REQUIRE(struct_to_indexed(s));
  CHECK(to_string(*s) == "indexed(x=24,n=3,l=[8,8,1],d=[0,8,16],1B)");
  REQUIRE(merge_adjacent_blocks(s));
  CHECK(to_string(*s) == "indexed(x=24,n=1,l=[17],d=[0],1B)");
  Datatype v = vector(2, 1, 3, dbl());  // the same derived child in every field
  LayoutPtr h = lowered(struct_type({1, 2}, {0, 100}, {v, v}));
  REQUIRE(struct_to_indexed(h));
  CHECK(to_string(*h) == "indexed(x=164,n=2,l=[1,2],d=[0,100],strided(x=32,n=2,s=24,8B))");
}

TEST_CASE("normalize: struct fields are merged only when their children are the same layout", "[normalize]") {
  // Two indexed children that agree on their first eleven blocks and differ in the twelfth (past any rendering cut).
  std::vector<std::int64_t> bls(12, 1), d1(12), d2(12);
  for (int i = 0; i < 12; ++i) d1[i] = d2[i] = 3 * i + i % 2;  // uneven: stays indexed_block
  d2[11] = 40;
  Datatype a = indexed(bls, d1, dbl()), b = indexed(bls, d2, dbl());
  LayoutPtr s = lowered(struct_type({1, 1}, {0, 1000}, {a, b}));
  normalize(s);
  CHECK(s->kind == LayoutKind::Struct);
  LayoutPtr same = lowered(struct_type({1, 1}, {0, 1000}, {a, indexed(bls, d1, dbl())}));
  normalize(same);
  CHECK(same->kind != LayoutKind::Struct);
}

TEST_CASE("normalize: end to end on the seed's types", "[normalize]") {
  CHECK(normalized(contiguous(1024, dbl())) == "contig(x=8192,n=8192B)");
  CHECK(normalized(vector(100, 1, 64, dbl())) == "strided(x=50696,n=100,s=512,8B)");
  CHECK(normalized(vector(100, 4, 64, dbl())) == "strided(x=50720,n=100,s=512,32B)");
  std::vector<std::int64_t> disps;
  for (int i = 0; i < 100; ++i) disps.push_back(64 * i);
  CHECK(normalized(indexed(std::vector<std::int64_t>(100, 4), disps, dbl())) == "strided(x=50720,n=100,s=512,32B)");
  CHECK(normalized(indexed_block(4, disps, dbl())) == "strided(x=50720,n=100,s=512,32B)");
  CHECK(normalized(subarray({64, 64, 64, 64}, {48, 48, 48, 48}, {8, 8, 8, 8}, Order::C, dbl())) ==
        "strided(d=17043520,x=134217728,n=48,s=2097152,strided(x=2097152,n=48,s=32768,"
        "strided(x=32768,n=48,s=512,384B)))");
  CHECK(normalized(struct_type({1, 1, 1, 1}, {0, 8, 12, 16}, {dbl(), i32(), i32(), primitive<char>()})) ==
        "contig(x=24,n=17B)");
  // A C-order 2-D subarray that spans whole rows is one run.
  CHECK(normalized(subarray({8, 16}, {3, 16}, {2, 0}, Order::C, dbl())) == "contig(d=256,x=1024,n=384B)");
  // Struct of two different derived types stays a struct.
  CHECK(
      normalized(struct_type({1, 1}, {0, 64}, {vector(2, 1, 2, dbl()), vector(3, 1, 2, i32())})).rfind("struct(", 0) ==
      0);
}

TEST_CASE("normalize: word size", "[normalize]") {
  auto word = [](const Datatype& t, bool repeated) {
    LayoutPtr l = lower(t.impl_node());
    normalize(l);
    return word_size(*l, repeated);
  };
  CHECK(word(vector(10, 1, 64, dbl()), false) == 8);
  CHECK(word(vector(10, 2, 64, dbl()), false) == 16);
  CHECK(word(contiguous(7, primitive<char>()), false) == 1);
  CHECK(word(contiguous(64, primitive<char>()), false) == 16);
  CHECK(word(hvector(10, 1, 6, i32()), false) == 2);
  Datatype s = struct_type({1, 1, 1, 1}, {0, 8, 12, 16}, {dbl(), i32(), i32(), primitive<char>()});
  CHECK(word(s, false) == 1);
  CHECK(word(resized(contiguous(4, dbl()), 0, 40), false) == 16);
  CHECK(word(resized(contiguous(4, dbl()), 0, 40), true) == 8);  // instances 40 bytes apart
  // Irregular blocks of doubles: the runs' lengths and offsets decide, not the 1-byte element of a normalized
  // indexed node (which once made this a byte-by-byte copy).
  CHECK(word(indexed({1, 8, 3, 2}, {0, 9, 64, 70}, dbl()), false) == 8);
  CHECK(word(indexed({2, 4, 6}, {0, 8, 64}, dbl()), false) == 16);
  CHECK(word(indexed({1, 2}, {0, 3}, primitive<char>()), false) == 1);
  CHECK(word(indexed_block(2, {0, 5, 9}, i32()), false) == 4);
}
