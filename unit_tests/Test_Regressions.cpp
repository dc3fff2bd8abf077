// SPDX-License-Identifier: BSD-3-Clause
// Regressions of the review and of the outside fuzzer of 2026-11 (issue 14), backend-independent part: bounds and
// extents beyond 64 bits, commit arithmetic on accepted types, internal invariants reported as KokkosDDT::Error. Each
// case failed before its fix (wrong type accepted, signed-overflow UB under UBSan, or std::logic_error).
#include <cstdint>
#include <limits>

#include "support/Catch.hpp"
#include "support/Errors.hpp"
#include "KokkosDDT.hpp"
#include "KokkosDDT_Committed.hpp"
#include "KokkosDDT_Serialize.hpp"

using namespace KokkosDDT;
using Test::require_error;

namespace {
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
}  // namespace

TEST_CASE("regression: an extent beyond 64 bits is refused with Overflow", "[regression][errors]") {
  // lb = INT64_MIN, ub = 1: every bound fits, the extent does not.
  require_error([] { hindexed({1, 1}, {kMin, 0}, byte()); }, ErrorCode::Overflow, "displacements");
  // The struct pads its extent: the difference was formed before any check.
  require_error(
      [] {
        struct_type({1, 1}, {kMin, 0}, {primitive<std::int32_t>(), primitive<double>()});
      },
      ErrorCode::Overflow, "displacements");
}

TEST_CASE("regression: true bounds far from the bounds are computed without their difference", "[regression]") {
  // A valid type: lb = ub = INT64_MIN + 1, data at byte 5. true_lb - lb does not fit 64 bits, but no property needs it.
  Datatype r = resized(hindexed({1}, {5}, byte()), kMin + 1, 0);
  Datatype t = contiguous(1, r);
  CHECK(t.lb() == kMin + 1);
  CHECK(t.extent() == 0);
  CHECK(t.true_lb() == 5);
  CHECK(t.true_extent() == 1);
  t.commit();
  CHECK(t.size() == 1);
}

TEST_CASE("regression: commit of accepted types with far-apart offsets", "[regression]") {
  // count * stride of the inner level (2^63) does not fit: the strides do not line up, nothing merges.
  Datatype nested = hvector(2, 1, 1, hvector(2, 1, std::int64_t(1) << 62, byte()));
  CHECK_NOTHROW(nested.commit());
  CHECK(nested.size() == 4);
  // A zero-length block may sit at any displacement: its byte offset (INT64_MAX / 2 doubles) is never formed.
  Datatype zero_block = indexed({1, 0}, {0, kMax / 2}, primitive<double>());
  CHECK_NOTHROW(zero_block.commit());
  CHECK(zero_block.layout() == "contig(x=8,n=8B)");
  // INT64_MIN as a displacement: its magnitude (the word size's gcd) is taken without negating it.
  Datatype far = hindexed({1}, {kMin}, byte());
  CHECK_NOTHROW(far.commit());
  CHECK(far.true_lb() == kMin);
}

TEST_CASE("regression: an internal invariant failing is a KokkosDDT::Error", "[regression][errors]") {
  // Blocks of several elements are removed by normalize(); serialize() meeting one is a bug, reported as Internal.
  Impl::LayoutNode n;
  n.kind = Impl::LayoutKind::Strided;
  n.count = 2;
  n.blocklength = 2;
  n.stride = 16;
  n.elem = 4;
  n.size = 16;
  n.extent = 32;
  try {
    Impl::serialize(n);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Internal);
  }
}
