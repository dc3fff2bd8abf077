// SPDX-License-Identifier: BSD-3-Clause
// Bad input: every class gets a KokkosDDT::Error that names the argument, and nothing is written.
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "support/Buffers.hpp"
#include "support/Catch.hpp"
#include "support/Errors.hpp"
#include "KokkosDDT.hpp"

using namespace KokkosDDT;
using Test::require_error;

namespace {

const Datatype& dbl() { return primitive<double>(); }
constexpr std::int64_t kBig = std::int64_t(1) << 40;

}  // namespace

TEST_CASE("errors: invalid constructor arguments", "[errors]") {
  using E = ErrorCode;
  require_error([] { contiguous(-1, dbl()); }, E::InvalidArgument, "count");
  require_error([] { vector(-2, 1, 1, dbl()); }, E::InvalidArgument, "count");
  require_error([] { vector(2, -1, 1, dbl()); }, E::InvalidArgument, "blocklength");
  require_error([] { hvector(2, -1, 8, dbl()); }, E::InvalidArgument, "blocklength");
  require_error([] { indexed({1, -1}, {0, 4}, dbl()); }, E::InvalidArgument, "blocklengths[1]");
  require_error([] { indexed({1, 1}, {0}, dbl()); }, E::InvalidArgument, "displacements");
  require_error([] { hindexed({1}, {0, 8}, dbl()); }, E::InvalidArgument, "displacements");
  require_error([] { indexed_block(-1, {0}, dbl()); }, E::InvalidArgument, "blocklength");
  require_error([] { hindexed_block(2, 3, nullptr, dbl()); }, E::NullPointer, "displacements");
  require_error([] { indexed(2, nullptr, nullptr, dbl()); }, E::NullPointer, "blocklengths");
  require_error([] { subarray({4, 4}, {2, 3}, {1, 2}, Order::C, dbl()); }, E::InvalidArgument, "starts[1]");
  require_error([] { subarray({4, 4}, {5, 1}, {0, 0}, Order::C, dbl()); }, E::InvalidArgument, "subsizes[0]");
  require_error([] { subarray({4, 0}, {1, 1}, {0, 0}, Order::C, dbl()); }, E::InvalidArgument, "sizes[1]");
  require_error([] { subarray({4}, {0}, {0}, Order::C, dbl()); }, E::InvalidArgument, "subsizes[0]");
  require_error([] { subarray({4}, {2}, {-1}, Order::C, dbl()); }, E::InvalidArgument, "starts[0]");
  require_error([] { subarray({4, 4}, {1}, {0, 0}, Order::C, dbl()); }, E::InvalidArgument, "subsizes");
  require_error([] { subarray(0, nullptr, nullptr, nullptr, Order::C, dbl()); }, E::InvalidArgument, "ndims");
  require_error([] { struct_type({1, 1}, {0, 8}, {dbl()}); }, E::InvalidArgument, "types");
  require_error([] { struct_type({1, -3}, {0, 8}, {dbl(), dbl()}); }, E::InvalidArgument, "blocklengths[1]");
  require_error([] { resized(dbl(), 0, -8); }, E::InvalidArgument, "extent");
  require_error([] { opaque(0, 1); }, E::InvalidArgument, "size");
  require_error([] { opaque(12, 3); }, E::InvalidArgument, "alignment");
}

TEST_CASE("errors: sizes and extents that overflow 64 bits", "[errors]") {
  using E = ErrorCode;
  require_error([] { contiguous(kBig, contiguous(kBig, dbl())); }, E::Overflow, "count");
  require_error([] { vector(kBig, kBig, 1, dbl()); }, E::Overflow, "count");
  require_error([] { hvector(4, 1, std::numeric_limits<std::int64_t>::max() / 2, dbl()); }, E::Overflow, "stride");
  require_error([] { vector(4, 1, (std::int64_t(1) << 62) / 1024, contiguous(1024, dbl())); }, E::Overflow, "stride");
  require_error([] { resized(dbl(), std::numeric_limits<std::int64_t>::max(), 8); }, E::Overflow, "extent");
  require_error([] { subarray({kBig, kBig}, {1, 1}, {0, 0}, Order::C, dbl()); }, E::Overflow, "sizes");
  Datatype huge = contiguous(kBig, contiguous(1 << 19, dbl())).commit();  // 2^62 bytes: 8 of them overflow
  std::vector<char> buf(64);
  require_error([&] { pack(Kokkos::DefaultHostExecutionSpace(), buf.data(), 8, huge, buf.data(), 64); }, E::Overflow,
                "count");
}

TEST_CASE("errors: null, freed and uncommitted types", "[errors]") {
  using E = ErrorCode;
  Datatype null;
  require_error([&] { contiguous(2, null); }, E::NullDatatype, "oldtype");
  require_error([&] { struct_type({1, 1}, {0, 8}, {dbl(), null}); }, E::NullDatatype, "types[1]");
  require_error([&] { (void)null.size(); }, E::NullDatatype, "type");
  Datatype v = vector(2, 1, 2, dbl());
  Datatype copy = v;
  Datatype outer = contiguous(2, v);
  v.free();
  REQUIRE(v.is_null());
  require_error([&] { v.commit(); }, E::NullDatatype, "type");
  CHECK(copy.size() == 16);   // other handles stay valid
  CHECK(outer.size() == 32);  // and so do types built from it
  std::vector<double> src(8, 1.0), dst(8, 0.0);
  require_error([&] { pack(Kokkos::DefaultHostExecutionSpace(), src.data(), 1, outer, dst.data(), 64); },
                E::NotCommitted, "type");
  require_error([&] { pack(Kokkos::DefaultHostExecutionSpace(), src.data(), 1, v, dst.data(), 64); }, E::NullDatatype,
                "type");
  CHECK(dst == std::vector<double>(8, 0.0));
}

TEST_CASE("errors: buffers, pointers and ranges, with nothing written", "[errors]") {
  using E = ErrorCode;
  Kokkos::DefaultHostExecutionSpace space;
  Datatype col = vector(4, 1, 3, dbl()).commit();  // 32 packed bytes
  std::vector<double> src(12, 2.0);
  Test::GuardedBuffer<> dst(64);
  auto untouched = [&] {
    space.fence();
    for (int i = 0; i < 64; ++i) REQUIRE(static_cast<unsigned char>(dst.host()[i]) == Test::kPoison);
    REQUIRE(dst.guards_intact());
  };
  require_error([&] { pack(space, src.data(), 1, col, dst.host(), 31); }, E::BufferTooSmall, "dst_bytes");
  require_error([&] { pack(space, src.data(), 2, col, dst.host(), 63); }, E::BufferTooSmall, "dst_bytes");
  require_error([&] { pack(space, src.data(), -1, col, dst.host(), 64); }, E::InvalidArgument, "count");
  require_error([&] { pack(space, nullptr, 1, col, dst.host(), 64); }, E::NullPointer, "src");
  require_error([&] { pack(space, src.data(), 1, col, nullptr, 64); }, E::NullPointer, "dst_bytes");
  require_error(
      [&] {
        pack(space, src.data(), 1, col, dst.host(), 64, PackRange{33, 1});
      },
      E::InvalidArgument, "range.offset");
  require_error(
      [&] {
        pack(space, src.data(), 1, col, dst.host(), 64, PackRange{-1, 1});
      },
      E::InvalidArgument, "range.offset");
  require_error(
      [&] {
        pack(space, src.data(), 1, col, dst.host(), 64, PackRange{0, -2});
      },
      E::InvalidArgument, "range.max_bytes");
  require_error([&] { unpack(space, dst.host(), 16, src.data(), 1, col); }, E::BufferTooSmall, "src_bytes");
  require_error([&] { unpack(space, dst.host(), 32, nullptr, 1, col); }, E::NullPointer, "dst");
  untouched();
  // Nothing to move: null pointers are fine.
  CHECK(pack(space, nullptr, 0, col, nullptr, 0) == 0);
  CHECK(pack(space, src.data(), 1, col, nullptr, 0, PackRange{32, -1}) == 0);
  CHECK(unpack(space, nullptr, 0, nullptr, 0, col) == 0);
}

TEST_CASE("errors: Views that are too small, not contiguous, or inaccessible", "[errors]") {
  using E = ErrorCode;
  using Host = Kokkos::DefaultHostExecutionSpace;
  Kokkos::View<double*, Kokkos::HostSpace> a("a", 10), packed("p", 10);
  Datatype col = vector(4, 1, 3, dbl()).commit();  // touches elements 0, 3, 6, 9
  CHECK(pack(Host(), a, 1, col, packed) == 32);
  require_error([&] { pack(Host(), Kokkos::subview(a, std::make_pair(0, 9)), 1, col, packed); }, E::BufferTooSmall,
                "src");
  require_error([&] { unpack(Host(), packed, Kokkos::subview(a, std::make_pair(1, 10)), 1, col); }, E::BufferTooSmall,
                "dst");
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> m("m", 4, 4);
  require_error([&] { pack(Host(), a, 1, col, Kokkos::subview(m, Kokkos::ALL, 0)); }, E::InvalidArgument, "dst");
  require_error([&] { pack(Host(), a, 1, contiguous(2, col).commit(), packed); }, E::BufferTooSmall, "src");
}

namespace {
// A memory space no execution space can reach, to exercise the accessibility check on any build.
struct UnreachableSpace {
  using memory_space = UnreachableSpace;
  using execution_space = Kokkos::DefaultHostExecutionSpace;
  using device_type = Kokkos::Device<execution_space, memory_space>;
  using size_type = std::size_t;
  static constexpr const char* name() { return "UnreachableSpace"; }
};
}  // namespace

TEST_CASE("errors: a memory space the execution space cannot access", "[errors]") {
  require_error([] { Impl::require_accessible<Kokkos::DefaultHostExecutionSpace, UnreachableSpace>("test", "src"); },
                ErrorCode::Inaccessible, "src");
}
