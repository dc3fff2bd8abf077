// SPDX-License-Identifier: BSD-3-Clause
// Type signatures: composed hashes equal the hash of the expanded primitive sequence, and matching follows MPI's
// rule (same primitive sequence, whatever the layout).
#include "support/Catch.hpp"
#include "support/RandomTypes.hpp"
#include "KokkosDDT_Signature.hpp"
#include "KokkosDDT_TypeNode.hpp"

using namespace KokkosDDT;

namespace {
// The signature by brute force: walk the typemap element by element.
void expand(const Impl::TypeNode& n, TypeSignature& s) {
  using C = Combiner;
  auto times = [&](const Impl::TypeNode& c, std::int64_t k) {
    for (std::int64_t i = 0; i < k; ++i) expand(c, s);
  };
  switch (n.combiner) {
    case C::Named:
      s = Impl::concat(
          s, n.primitive == Primitive::Opaque ? Impl::opaque_signature(n.size) : Impl::signature_of(n.primitive));
      return;
    case C::Dup:
    case C::Resized:
      expand(n.child(), s);
      return;
    case C::Contiguous:
      times(n.child(), n.count);
      return;
    case C::Vector:
    case C::Hvector:
      times(n.child(), n.count * n.blocklength);
      return;
    case C::IndexedBlock:
    case C::HindexedBlock:
      times(n.child(), n.count * n.blocklength);
      return;
    case C::Indexed:
    case C::Hindexed:
      for (auto b : n.blocklengths) times(n.child(), b);
      return;
    case C::Subarray: {
      std::int64_t k = 1;
      for (auto x : n.subsizes) k *= x;
      times(n.child(), k);
      return;
    }
    case C::Struct:
      for (std::size_t i = 0; i < n.children.size(); ++i) times(n.child(i), n.blocklengths[i]);
      return;
  }
}
}  // namespace

TEST_CASE("signature: composed hash equals the expanded typemap's", "[signature]") {
  Test::TypeGenerator gen(2024, 3);
  for (int i = 0; i < Test::scaled(500); ++i) {
    Datatype t = gen.next().type;
    TypeSignature brute;
    expand(t.impl_node(), brute);
    INFO(t.describe());
    REQUIRE(t.signature() == brute);
    REQUIRE(t.signature().length >= t.num_primitives());
  }
}

TEST_CASE("signature: matching follows the primitive sequence, not the layout", "[signature]") {
  const Datatype& d = primitive<double>();
  const Datatype& i = primitive<std::int32_t>();
  Datatype col = vector(10, 1, 7, d);
  Datatype run = contiguous(10, d);
  REQUIRE(signatures_match(col, 1, run, 1));
  REQUIRE(signatures_match(col, 3, d, 30));
  REQUIRE_FALSE(signatures_match(col, 1, d, 9));
  REQUIRE_FALSE(signatures_match(col, 1, contiguous(10, primitive<std::int64_t>()), 1));  // same size, other type
  Datatype s1 = struct_type({1, 2}, {0, 8}, {d, i});
  Datatype s2 = struct_type({1, 1, 1}, {16, 0, 4}, {d, i, i});
  REQUIRE(signatures_match(s1, 4, s2, 4));
  REQUIRE_FALSE(signatures_match(s1, 1, struct_type({2, 1}, {0, 8}, {i, d}), 1));
  REQUIRE(signatures_match(resized(col, -8, 1000), 2, dup(run), 2));
  REQUIRE(signatures_match(contiguous(0, d), 1, i, 0));
}
