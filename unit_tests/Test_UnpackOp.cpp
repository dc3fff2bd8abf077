// SPDX-License-Identifier: BSD-3-Clause
// unpack with an operation (KokkosDDT_UnpackOp.hpp) against MPI: the destination's elements packed by MPI_Pack, the
// incoming stream reduced into them by MPI_Reduce_local per primitive element with its predefined type and operation,
// and the result unpacked by MPI_Unpack, byte for byte; random nested types of one and of several primitives (fixed
// seeds), whole and in partial ranges on element boundaries, into buffers between guard zones. Then a large
// one-primitive transfer, the View forms, and every error with nothing written.
#include <algorithm>
#include <array>
#include <complex>
#include <cstring>
#include <string>
#include <random>
#include <vector>

#include "support/Buffers.hpp"
#include "support/Catch.hpp"
#include "support/Errors.hpp"
#include "support/PackCheck.hpp"
#include "support/RandomTypes.hpp"
#include "support/Reference.hpp"
#include "support/TestSpace.hpp"
#include "KokkosDDT_FusedBatch.hpp"
#if defined(KOKKOSDDT_TEST_MPI)
#include "support/MpiOracle.hpp"
#endif

using namespace KokkosDDT;
using Test::ExecSpace;

namespace {

constexpr Op kOps[] = {Op::Replace, Op::Sum, Op::Prod, Op::Min, Op::Max, Op::Band, Op::Bor, Op::Bxor};

// Finite, exactly representable values for floating-point elements (random bytes would hold NaNs, whose payloads
// devices do not keep); random bytes for the others.
void fill_elements(const std::vector<Test::Element>& elements, char* at, std::mt19937_64& rng) {
  for (const Test::Element& e : elements) {
    const auto value = [&] { return static_cast<double>(static_cast<int>(rng() % 2001) - 1000) / 8.0; };
    if (e.primitive == Primitive::Float || e.primitive == Primitive::ComplexFloat) {
      for (std::int64_t k = 0; k < e.size; k += 4) {
        const float v = static_cast<float>(value());
        std::memcpy(at + k, &v, 4);
      }
    } else if (e.primitive == Primitive::Double || e.primitive == Primitive::ComplexDouble) {
      for (std::int64_t k = 0; k < e.size; k += 8) {
        const double v = value();
        std::memcpy(at + k, &v, 8);
      }
    } else {
      for (std::int64_t k = 0; k < e.size; ++k) at[k] = static_cast<char>(rng());
    }
    at += e.size;
  }
}

// The operations that apply to every primitive of `elements` (Replace always does).
std::vector<Op> applicable(const std::vector<Test::Element>& elements) {
  std::vector<Op> ops;
  for (Op op : kOps) {
    bool all = true;
    for (const Test::Element& e : elements) all = all && op_applies(op, e.primitive);
    if (all) ops.push_back(op);
  }
  return ops;
}

#if defined(KOKKOSDDT_TEST_MPI)
MPI_Op mpi_op(Op op) {
  switch (op) {
    case Op::Sum:
      return MPI_SUM;
    case Op::Prod:
      return MPI_PROD;
    case Op::Min:
      return MPI_MIN;
    case Op::Max:
      return MPI_MAX;
    case Op::Band:
      return MPI_BAND;
    case Op::Bor:
      return MPI_BOR;
    case Op::Bxor:
      return MPI_BXOR;
    default:
      return MPI_REPLACE;
  }
}

// Unsigned MIN and MAX by hand: MPICH 4.0.2 compares unsigned integers as signed ones (pmodels/mpich#6083).
template <class U>
void unsigned_min_max(Op op, const char* in, char* inout) {
  U a, b;
  std::memcpy(&a, inout, sizeof(U));
  std::memcpy(&b, in, sizeof(U));
  const U r = op == Op::Min ? (a < b ? a : b) : (a > b ? a : b);
  std::memcpy(inout, &r, sizeof(U));
}

// MPI_Reduce_local of each element of `in` into `inout` with its own predefined type.
void mpi_reduce_elements(Op op, const std::vector<Test::Element>& elements, const char* in, char* inout) {
  for (const Test::Element& e : elements) {
    const bool minmax = op == Op::Min || op == Op::Max;
    if (op == Op::Replace)
      std::memcpy(inout, in, e.size);
    else if (minmax && e.primitive == Primitive::UInt16)
      unsigned_min_max<std::uint16_t>(op, in, inout);
    else if (minmax && e.primitive == Primitive::UInt32)
      unsigned_min_max<std::uint32_t>(op, in, inout);
    else if (minmax && e.primitive == Primitive::UInt64)
      unsigned_min_max<std::uint64_t>(op, in, inout);
    else
      REQUIRE(MPI_Reduce_local(in, inout, 1, mpi::to_mpi(e.primitive), mpi_op(op)) == MPI_SUCCESS);
    in += e.size;
    inout += e.size;
  }
}
#endif

// Element boundaries of the stream, cut at random, visited in random order.
std::vector<std::pair<std::int64_t, std::int64_t>> element_segments(const std::vector<Test::Element>& elements,
                                                                    std::mt19937_64& rng) {
  std::vector<std::int64_t> bounds{0};
  for (const Test::Element& e : elements) bounds.push_back(bounds.back() + e.size);
  std::vector<std::int64_t> chosen{0};
  for (std::size_t i = 1; i + 1 < bounds.size(); ++i)
    if (rng() % 3 == 0) chosen.push_back(bounds[i]);
  chosen.push_back(bounds.back());
  std::vector<std::pair<std::int64_t, std::int64_t>> segments;
  for (std::size_t i = 1; i < chosen.size(); ++i) segments.push_back({chosen[i - 1], chosen[i]});
  std::shuffle(segments.begin(), segments.end(), rng);
  return segments;
}

}  // namespace

TEST_CASE("unpack with an operation: random nested types against MPI_Pack, MPI_Reduce_local and MPI_Unpack", "[op]") {
#if !defined(KOKKOSDDT_TEST_MPI)
  WARN("built without MPI: the oracle, MPI_Reduce_local, is not there");
#else
  if (!Test::mpi_is_reference()) {
    WARN("the byte-for-byte oracle is MPICH");
    return;
  }
  using Mem = ExecSpace::memory_space;
  Test::TypeGenerator gen(20261202);
  int checked = 0, mixed = 0;
  for (int i = 0; i < Test::scaled(400); ++i) {
    const Test::RandomType r = gen.next();
    if (!r.mpich_safe || r.type.size() == 0) continue;
    Datatype type = r.type;
    if (i % 2 == 1) {  // every other type a struct of two random ones: mostly several primitives
      const Test::RandomType s = gen.next();
      if (!s.mpich_safe) continue;
      const std::int64_t gap = std::max<std::int64_t>(0, r.type.true_lb() + r.type.true_extent() - s.type.true_lb());
      type = struct_type({1, 1}, {0, gap + gen.pick(0, 8)}, {r.type, s.type});
    }
    type.commit();
    const std::int64_t count = gen.pick(1, 3);
    const auto runs = Test::flatten(type, count);
    if (!Test::runs_disjoint(runs)) continue;  // (a receive type reaching a byte twice is erroneous in MPI)
    const auto elements = Test::flatten_elements(type, count);
    const std::vector<Op> ops = applicable(elements);
    const Op op = ops[gen.pick(0, static_cast<std::int64_t>(ops.size()) - 1)];
    INFO(type.describe() << " x " << count << ", " << op_name(op) << ", case " << i);
    const auto [lo, hi] = Test::footprint(runs);
    const std::int64_t total = count * type.size();
    std::mt19937_64 rng(i);
    // The destination: a pattern, its elements set to values the operation reads.
    Test::GuardedBuffer<Mem> dst(hi - lo, static_cast<int>(i % 3));
    dst.fill_pattern(i);
    std::vector<char> values(total);
    fill_elements(elements, values.data(), rng);
    Test::reference_unpack(runs, values.data(), dst.host() - lo);
    dst.push();
    Test::GuardedBuffer<Mem> src(total, static_cast<int>(i % 2));
    fill_elements(elements, src.host(), rng);
    src.push();
    // MPI's answer.
    std::vector<char> want(dst.host(), dst.host() + (hi - lo));
    std::vector<char> reduced = Test::mpi_pack(type, count, want.data() - lo);
    REQUIRE(static_cast<std::int64_t>(reduced.size()) == total);
    mpi_reduce_elements(op, elements, src.host(), reduced.data());
    Test::mpi_unpack(type, count, reduced, want.data() - lo);
    // Ours, whole.
    ExecSpace space;
    REQUIRE(unpack(space, src.device(), total, dst.device() - lo, count, type, op) == total);
    space.fence();
    dst.pull();
    KOKKOSDDT_REQUIRE_BYTES(dst.host(), want.data(), hi - lo);
    REQUIRE(dst.guards_intact());
    REQUIRE(src.guards_intact());
    // Ours, in ranges on element boundaries in random order (each element is reached once, so any order agrees).
    Test::reference_unpack(runs, values.data(), dst.host() - lo);
    dst.push();
    for (auto [a, b] : element_segments(elements, rng))
      REQUIRE(unpack(space, src.device() + a, b - a, dst.device() - lo, count, type, op, PackRange{a, b - a}) == b - a);
    space.fence();
    dst.pull();
    KOKKOSDDT_REQUIRE_BYTES(dst.host(), want.data(), hi - lo);
    REQUIRE(dst.guards_intact());
    ++checked;
    mixed += Impl::single_primitive(type).single ? 0 : 1;
  }
  INFO(checked << " types checked, " << mixed << " of several primitives");
  CHECK(checked > 100);
  CHECK(mixed > 20);
#endif
}

TEST_CASE("unpack with an operation: a large one-primitive transfer, the View and fencing forms", "[op]") {
  using Mem = ExecSpace::memory_space;
  const std::int64_t n = 300000;  // doubles: every other one of a strided column
  Datatype column = vector(n, 1, 2, primitive<double>());
  column.commit();
  Kokkos::View<double*, Mem> field("field", 2 * n);
  Kokkos::View<double*, Mem> incoming("incoming", n);
  auto f = Kokkos::create_mirror_view(field);
  auto in = Kokkos::create_mirror_view(incoming);
  for (std::int64_t i = 0; i < 2 * n; ++i) f(i) = static_cast<double>(i % 97);
  for (std::int64_t i = 0; i < n; ++i) in(i) = static_cast<double>(i % 13) - 6.0;
  Kokkos::deep_copy(field, f);
  Kokkos::deep_copy(incoming, in);
  ExecSpace space;
  REQUIRE(unpack(space, incoming, field, 1, column, Op::Sum) == n * 8);
  unpack(incoming, field, 1, column, Op::Max);  // the fencing form
  space.fence();
  auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field);
  for (std::int64_t i = 0; i < 2 * n; ++i) {
    const double base = static_cast<double>(i % 97);
    const double want = i % 2 == 0 ? std::max(base + in(i / 2), in(i / 2)) : base;
    if (got(i) != want) FAIL("element " << i << ": " << got(i) << ", want " << want);
  }
  // A View alone: its own datatype; Replace is the plain unpack.
  Kokkos::View<std::int32_t*, Mem> ints("ints", 1000), more("more", 1000);
  Kokkos::deep_copy(ints, 5);
  Kokkos::deep_copy(more, 3);
  unpack(space, more, ints, Op::Bxor);
  unpack(space, more, ints, Op::Prod);
  space.fence();
  auto i_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ints);
  for (int i = 0; i < 1000; ++i) REQUIRE(i_host(i) == ((5 ^ 3) * 3));
  unpack(space, more, ints, Op::Replace);
  space.fence();
  Kokkos::deep_copy(i_host, ints);
  for (int i = 0; i < 1000; ++i) REQUIRE(i_host(i) == 3);
}

TEST_CASE("unpack with an operation: errors leave the destination untouched", "[op][errors]") {
  using Mem = ExecSpace::memory_space;
  ExecSpace space;
  Test::GuardedBuffer<Mem> dst(256), src(256);
  dst.fill_pattern(1);
  dst.push();
  src.fill_pattern(2);
  src.push();
  const std::vector<char> before(dst.host(), dst.host() + 256);
  auto untouched = [&] {
    space.fence();
    dst.pull();
    KOKKOSDDT_REQUIRE_BYTES(dst.host(), before.data(), 256);
  };
  Datatype cplx = contiguous(4, primitive<std::complex<double>>()), dbl = contiguous(8, primitive<double>());
  Datatype chars = contiguous(16, primitive<char>());
  Datatype mixed = struct_type({1, 1}, {0, 8}, {primitive<double>(), primitive<std::int32_t>()});
  for (Datatype* t : {&cplx, &dbl, &chars, &mixed}) t->commit();
  Test::require_error([&] { unpack(space, src.device(), 64, dst.device(), 1, cplx, Op::Min); },
                      ErrorCode::InvalidArgument, "op");
  Test::require_error([&] { unpack(space, src.device(), 64, dst.device(), 1, dbl, Op::Bxor); },
                      ErrorCode::InvalidArgument, "op");
  Test::require_error([&] { unpack(space, src.device(), 16, dst.device(), 1, chars, Op::Sum); },
                      ErrorCode::InvalidArgument, "op");
  Test::require_error([&] { unpack(space, src.device(), 16, dst.device(), 1, mixed, Op::Band); },
                      ErrorCode::InvalidArgument, "op");
  Test::require_error([&] { unpack(space, src.device(), 64, dst.device(), 1, dbl, static_cast<Op>(99)); },
                      ErrorCode::InvalidArgument, "op");
  untouched();
  // Ranges that split an element: one primitive (checked before the launch) and several (checked as it combines).
  Test::require_error(
      [&] {
        unpack(space, src.device(), 64, dst.device(), 1, dbl, Op::Sum, PackRange{4, 8});
      },
      ErrorCode::InvalidArgument, "range");
  Test::require_error(
      [&] {
        unpack(space, src.device(), 64, dst.device(), 2, mixed, Op::Sum, PackRange{0, 10});
      },
      ErrorCode::InvalidArgument, "range");
  untouched();
  // The plain unpack's own checks come first.
  Test::require_error([&] { unpack(space, src.device(), 63, dst.device(), 1, dbl, Op::Sum); },
                      ErrorCode::BufferTooSmall, "src_bytes");
  Datatype uncommitted = contiguous(2, primitive<double>());
  Test::require_error([&] { unpack(space, src.device(), 64, dst.device(), 1, uncommitted, Op::Sum); },
                      ErrorCode::NotCommitted, "type");
  untouched();
  CHECK(op_applies(Op::Band, Primitive::Byte));
  CHECK(!op_applies(Op::Sum, Primitive::Bool));
  CHECK(!op_applies(Op::Max, Primitive::ComplexFloat));
  CHECK(std::string(op_name(Op::Bxor)) == "bxor");
}

TEST_CASE("fusion queue: unpacks with operations equal the reference engine's, in the order they were enqueued",
          "[op][fusion]") {
  using Mem = ExecSpace::memory_space;
  Test::TypeGenerator gen(7301);
  ExecSpace space;
  int fused = 0, referenced = 0;
  for (int i = 0; i < Test::scaled(60); ++i) {
    // A type, half the time a struct of two (several primitives: the queue runs the reference engine for those),
    // sometimes its elements moved off their alignment (words narrower than an element).
    Datatype type = gen.next().type;
    if (i % 4 == 1)
      type = struct_type({1, 2}, {0, type.true_lb() + type.true_extent() + 5},
                         {type, i % 8 == 1 ? primitive<std::int32_t>() : primitive<float>()});
    if (i % 4 == 2) type = hindexed({1, 2}, {3, 3 + 4 * std::max<std::int64_t>(1, type.extent())}, type);
    type.commit();
    const std::int64_t count = gen.pick(1, 3);
    const auto runs = Test::flatten(type, count);
    if (type.size() == 0 || !Test::runs_disjoint(runs)) continue;
    const auto elements = Test::flatten_elements(type, count);
    const std::vector<Op> ops = applicable(elements);
    INFO(type.describe() << " x " << count << ", case " << i);
    const auto [lo, hi] = Test::footprint(runs);
    const std::int64_t total = count * type.size();
    std::mt19937_64 rng(i);
    // Four incoming streams, each unpacked with its own operation into the same destination, twice: through the
    // queue (with a pack and a plain unpack of other buffers between) and one by one through the reference engine.
    constexpr int kRequests = 4;
    std::vector<Test::GuardedBuffer<Mem>> incoming;
    std::vector<Op> chosen;
    for (int k = 0; k < kRequests; ++k) {
      incoming.emplace_back(total, k % 2);
      fill_elements(elements, incoming.back().host(), rng);
      incoming.back().push();
      chosen.push_back(ops[gen.pick(0, static_cast<std::int64_t>(ops.size()) - 1)]);
    }
    std::vector<char> initial(total);
    fill_elements(elements, initial.data(), rng);
    Test::GuardedBuffer<Mem> mine(hi - lo, 1), theirs(hi - lo, 1), other(hi - lo), packed(total);
    for (auto* b : {&mine, &theirs, &other}) {
      b->fill_pattern(i);
      Test::reference_unpack(runs, initial.data(), b->host() - lo);
      b->push();
    }
    for (int k = 0; k < kRequests; ++k)
      unpack(space, incoming[k].device(), total, theirs.device() - lo, count, type, chosen[k]);
    space.fence();
    {
      FusionQueue<ExecSpace> q(space);
      for (int k = 0; k < kRequests; ++k) {
        q.unpack(incoming[k].device(), total, mine.device() - lo, count, type, chosen[k]);
        if (k == 1) q.pack(other.device() - lo, count, type, packed.device(), total);
        if (k == 2) q.unpack(incoming[0].device(), total, other.device() - lo, count, type);
      }
      q.wait_all();
    }
    space.fence();
    mine.pull();
    theirs.pull();
    KOKKOSDDT_REQUIRE_BYTES(mine.host(), theirs.host(), hi - lo);
    REQUIRE(mine.guards_intact());
    (Impl::single_primitive(type).single ? fused : referenced) += 1;
  }
  INFO(fused << " fused, " << referenced << " through the reference engine");
  CHECK(fused > 10);
  CHECK(referenced > 5);
}

TEST_CASE("fusion queue: an unpack with an operation checks its arguments at enqueue", "[op][fusion][errors]") {
  using Mem = ExecSpace::memory_space;
  ExecSpace space;
  Test::GuardedBuffer<Mem> dst(256), src(256);
  dst.fill_pattern(3);
  dst.push();
  const std::vector<char> before(dst.host(), dst.host() + 256);
  Datatype dbl = contiguous(8, primitive<double>());
  dbl.commit();
  FusionQueue<ExecSpace> q(space);
  Test::require_error([&] { q.unpack(src.device(), 64, dst.device(), 1, dbl, Op::Band); }, ErrorCode::InvalidArgument,
                      "op");
  Test::require_error(
      [&] {
        q.unpack(src.device(), 64, dst.device(), 1, dbl, Op::Sum, PackRange{2, 8});
      },
      ErrorCode::InvalidArgument, "range");
  Test::require_error([&] { q.unpack(src.device(), 8, dst.device(), 1, dbl, Op::Sum); }, ErrorCode::BufferTooSmall,
                      "src_bytes");
  q.wait_all();
  space.fence();
  dst.pull();
  KOKKOSDDT_REQUIRE_BYTES(dst.host(), before.data(), 256);
}

// A fixed batch of combining unpacks in phases (FusedBatch::phase: a halo scatter's orders): every record covers cells
// the phases before wrote, with operations whose result depends on their order (add 1, double, add 1, ...), split
// into two records per phase over halves of the array (several teams each on a device), launched three times (the
// phase counters set back after each launch). The result must be the phases applied in order, three times over.
TEST_CASE("fused batch: combining unpacks in phases run in phase order, in one launch", "[ops][fusion]") {
  using Mem = ExecSpace::memory_space;
  ExecSpace space;
  constexpr int kN = 1 << 20, kPhases = 12;
  Kokkos::View<double*, Mem> cells("cells", kN), ones("ones", kN), twos("twos", kN);
  Kokkos::deep_copy(ones, 1.0);
  Kokkos::deep_copy(twos, 2.0);
  Datatype half = contiguous(kN / 2, primitive<double>());
  half.commit();
  const std::int64_t bytes = std::int64_t(kN / 2) * 8;
  Impl::FusedBatch<ExecSpace> batch(space);
  for (int p = 0; p < kPhases; ++p) {
    batch.phase(2 * p + 1);  // (sparse phase numbers: the batch makes them dense)
    const bool add = p % 2 == 0;
    for (int h = 0; h < 2; ++h)
      batch.add_unpack((add ? ones : twos).data() + h * (kN / 2), bytes, cells.data() + h * (kN / 2), 1, half,
                       add ? Op::Sum : Op::Prod);
  }
  Test::require_error([&] { batch.phase(0); }, ErrorCode::InvalidArgument, "p");  // (phases only go up)
  double want = 0;
  for (int launch = 0; launch < 3; ++launch) {
    batch.launch(space);
    batch.wait();
    for (int p = 0; p < kPhases; ++p) want = p % 2 == 0 ? want + 1 : want * 2;
  }
  space.fence();
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cells);
  int wrong = 0;
  for (int i = 0; i < kN; ++i) wrong += host(i) != want;
  INFO("want " << want << ", cell 0 " << host(0) << ", last cell " << host(kN - 1));
  CHECK(wrong == 0);
}

// Combining records large enough that a device thread combines several words (FusedTile::combine_words: four at a
// time, all loaded before any is combined), elements aligned for their words and not (doubles 9 bytes apart: the
// group falls back to bytes): a combining unpack and, in the next phase, a combining copy into the same cells, against
// the host's arithmetic; the bytes between elements and past the last one untouched.
TEST_CASE("fused batch: large combining unpacks and copies, several words per thread, aligned or not", "[op][fusion]") {
  using Mem = ExecSpace::memory_space;
  ExecSpace space;
  struct Case {
    std::int64_t n, stride;  // n doubles, `stride` bytes apart
  };
  for (const Case c : {Case{1 << 20, 16}, Case{600000, 9}}) {
    INFO(c.n << " doubles " << c.stride << " bytes apart");
    Datatype type = hvector(c.n, 1, c.stride, primitive<double>()).commit();
    const std::int64_t span = (c.n - 1) * c.stride + 8 + 64;  // (64 guard bytes after the last element)
    std::vector<char> cells(span), other(span);
    std::vector<double> incoming(c.n);
    for (std::int64_t b = 0; b < span; ++b) cells[b] = other[b] = static_cast<char>(b * 31 % 251);
    for (std::int64_t i = 0; i < c.n; ++i) {
      const double mine = static_cast<double>(i % 97), theirs = static_cast<double>(i % 89) / 4;
      std::memcpy(cells.data() + i * c.stride, &mine, 8);
      std::memcpy(other.data() + i * c.stride, &theirs, 8);
      incoming[i] = static_cast<double>(i % 13) - 6;
    }
    Kokkos::View<char*, Mem> d_cells("cells", span), d_other("other", span);
    Kokkos::View<double*, Mem> d_incoming("incoming", c.n);
    Kokkos::deep_copy(d_cells, Kokkos::View<char*, Kokkos::HostSpace>(cells.data(), span));
    Kokkos::deep_copy(d_other, Kokkos::View<char*, Kokkos::HostSpace>(other.data(), span));
    Kokkos::deep_copy(d_incoming, Kokkos::View<double*, Kokkos::HostSpace>(incoming.data(), c.n));
    Impl::FusedBatch<ExecSpace> batch(space);
    batch.add_unpack(d_incoming.data(), c.n * 8, d_cells.data(), 1, type, Op::Sum);
    batch.phase(1);
    batch.add_copy(d_other.data(), false, 1, type, d_cells.data(), false, 1, type, Op::Max);
    batch.launch();
    batch.wait();
    space.fence();
    std::vector<char> got(span);
    Kokkos::deep_copy(Kokkos::View<char*, Kokkos::HostSpace>(got.data(), span), d_cells);
    std::vector<char> want = cells;
    for (std::int64_t i = 0; i < c.n; ++i) {
      double mine, theirs;
      std::memcpy(&mine, cells.data() + i * c.stride, 8);
      std::memcpy(&theirs, other.data() + i * c.stride, 8);
      const double sum = mine + incoming[i], result = sum > theirs ? sum : theirs;
      std::memcpy(want.data() + i * c.stride, &result, 8);
    }
    KOKKOSDDT_REQUIRE_BYTES(got.data(), want.data(), span);
  }
}

// A combining copy (FusedBatch::add_copy with an operation: a halo scatter's message to its own process) in one pass
// equals a pack of the source and the reference engine's unpack with the operation into the destination's layout, on
// random types of one primitive (elements off their alignment too) into another layout of the same signature, with
// the operation changed between launches (set_op); guards intact.
TEST_CASE("fused batch: combining copies equal a pack and the reference engine's unpack with the operation",
          "[op][fusion][copy]") {
  using Mem = ExecSpace::memory_space;
  Test::TypeGenerator gen(7302);
  ExecSpace space;
  int checked = 0;
  for (int i = 0; i < Test::scaled(80); ++i) {
    Datatype type = gen.next().type;
    if (i % 3 == 1) type = hindexed({1, 2}, {3, 3 + 4 * std::max<std::int64_t>(1, type.extent())}, type);
    type.commit();
    const std::int64_t count = gen.pick(1, 3);
    const Test::Side to = Test::rearranged(type, count, gen);
    const auto from_runs = Test::flatten(type, count), to_runs = Test::flatten(to.type, to.count);
    if (type.size() == 0 || !Test::runs_disjoint(to_runs) || !Impl::single_primitive(type).single) continue;
    const auto elements = Test::flatten_elements(type, count);
    const std::vector<Op> ops = applicable(elements);
    const Op first = ops[gen.pick(0, static_cast<std::int64_t>(ops.size()) - 1)];
    const Op second = ops[gen.pick(0, static_cast<std::int64_t>(ops.size()) - 1)];
    INFO(type.describe() << " x " << count << " -> " << to.type.describe() << " x " << to.count << ", case " << i
                         << ", " << op_name(first) << " then " << op_name(second));
    const auto [slo, shi] = Test::footprint(from_runs);
    const auto [dlo, dhi] = Test::footprint(to_runs);
    const std::int64_t total = count * type.size();
    std::mt19937_64 rng(i);
    std::vector<char> incoming(total), initial(total);
    fill_elements(elements, incoming.data(), rng);
    fill_elements(elements, initial.data(), rng);
    Test::GuardedBuffer<Mem> src(shi - slo, i % 2), mine(dhi - dlo, 1), theirs(dhi - dlo, 1), packed(total);
    src.fill_pattern(i);
    Test::reference_unpack(from_runs, incoming.data(), src.host() - slo);
    src.push();
    for (auto* b : {&mine, &theirs}) {
      b->fill_pattern(i + 1);
      Test::reference_unpack(to_runs, initial.data(), b->host() - dlo);
      b->push();
    }
    pack(space, src.device() - slo, count, type, packed.device(), total);
    unpack(space, packed.device(), total, theirs.device() - dlo, to.count, to.type, first);
    unpack(space, packed.device(), total, theirs.device() - dlo, to.count, to.type, second);
    Impl::FusedBatch<ExecSpace> batch(space);
    batch.add_copy(src.device() - slo, false, count, type, mine.device() - dlo, false, to.count, to.type, first);
    batch.launch();
    batch.wait();
    batch.set_op(second);
    batch.launch();
    batch.wait();
    space.fence();
    mine.pull();
    theirs.pull();
    KOKKOSDDT_REQUIRE_BYTES(mine.host(), theirs.host(), dhi - dlo);
    REQUIRE(mine.guards_intact());
    ++checked;
  }
  CHECK(checked > 20);
  // Bad arguments throw before anything is added, naming them.
  Datatype dbl = contiguous(8, primitive<double>()).commit();
  Datatype mixed = struct_type({1, 1}, {0, 8}, {primitive<double>(), primitive<int>()}).commit();
  Test::GuardedBuffer<Mem> a(256), b(256);
  Impl::FusedBatch<ExecSpace> batch(space);
  Test::require_error([&] { batch.add_copy(a.device(), false, 1, dbl, b.device(), false, 1, dbl, Op::Bxor); },
                      ErrorCode::InvalidArgument, "op");
  Test::require_error([&] { batch.add_copy(a.device(), false, 1, mixed, b.device(), false, 1, mixed, Op::Sum); },
                      ErrorCode::Unsupported, "stype");
  CHECK(batch.size() == 0);
}

// Chains (FusedBatch::begin_chain: a halo scatter's zones, every neighbour's piece of one zone combined in a fixed
// order): a zone of a 3-D array (a subarray: shaped) gets seven requests in one chain, combining unpacks from packed
// buffers and combining copies from cells of the same shape elsewhere, with operations whose result depends on their
// order (add 1, double, ...), several teams and words per thread; beside it, in the same launch, a second chain.
// `mixed`: a record of 2-byte elements in 2-byte words joins them (no word holds every record's elements: the
// mixed-word kernel, where chains run one record after another); else the chains combine in one pass on devices
// (FusedTile::chain_in_one_pass). `odd`: the packed buffers 4 bytes off their words (element by element). `wide`:
// zones of an even number of cells at even places, in 16-byte words (whose launches run chains one record after
// another: FusedTile::kChainWordMax).
// Launched three times; the result must be each chain's requests applied in order, three times over, and nothing else
// touched.
void check_chains(bool mixed, bool odd, bool wide) {
  using Mem = ExecSpace::memory_space;
  ExecSpace space;
  constexpr int kN = 64, kChain = 7;
  const std::int64_t cells = std::int64_t(kN) * kN * kN;
  Kokkos::View<double*, Mem> field("field", cells), ones("ones", cells), twos("twos", cells);
  Kokkos::View<double*, Mem> packed("packed", kChain * cells + 1);
  char* const packed_at = reinterpret_cast<char*>(packed.data()) + (odd ? 4 : 0);
  struct Zone {
    std::array<std::int64_t, 3> lo, extent;
  };
  const Zone narrow_zones[2] = {{{2, 3, 1}, {60, 58, 9}}, {{40, 1, 20}, {3, 2, 5}}};
  const Zone wide_zones[2] = {{{2, 3, 2}, {60, 58, 10}}, {{40, 1, 20}, {3, 2, 6}}};
  const Zone(&zones)[2] = wide ? wide_zones : narrow_zones;
  // Request j of a chain: a Sum of 1 (j even) or a Prod by 2 (j odd), unpacked from packed(j), or for j = 2 and 5
  // copied from the same cells of `ones` or `twos`.
  auto op_of = [](int j) { return j % 2 == 0 ? Op::Sum : Op::Prod; };
  Kokkos::deep_copy(ones, 1.0);
  Kokkos::deep_copy(twos, 2.0);
  auto packed_h = Kokkos::create_mirror_view(packed);
  char* const packed_h_at = reinterpret_cast<char*>(packed_h.data()) + (odd ? 4 : 0);
  for (std::int64_t i = 0; i < kChain * cells; ++i) {
    const double v = op_of(static_cast<int>(i / cells)) == Op::Sum ? 1 : 2;
    std::memcpy(packed_h_at + i * sizeof(double), &v, sizeof v);
  }
  Kokkos::deep_copy(packed, packed_h);
  Kokkos::View<std::int16_t*, Mem> shorts("shorts", 1001), short_in("short_in", 1001);
  Kokkos::deep_copy(shorts, std::int16_t(5));
  Kokkos::deep_copy(short_in, std::int16_t(3));
  Datatype short_run = contiguous(1000, primitive<std::int16_t>()).commit();

  Impl::FusedBatch<ExecSpace> batch(space);
  for (const Zone& z : zones) {
    Datatype zone =
        subarray({kN, kN, kN}, {z.extent[0], z.extent[1], z.extent[2]}, {0, 0, 0}, Order::C, primitive<double>())
            .commit();
    const std::int64_t first = (z.lo[0] * kN + z.lo[1]) * kN + z.lo[2];
    double* at = field.data() + first;
    const std::int64_t bytes = zone.size();
    batch.begin_chain();
    for (int j = 0; j < kChain; ++j) {
      if (j == 2 || j == 5)
        batch.add_copy((j == 2 ? ones : twos).data() + first, false, 1, zone, at, false, 1, zone, op_of(j));
      else
        batch.add_unpack(packed_at + j * cells * std::int64_t(sizeof(double)), bytes, at, 1, zone, op_of(j));
    }
    Test::require_error([&] { batch.phase(1); }, ErrorCode::InvalidArgument, "this");  // (a chain is one phase)
    Test::require_error([&] { batch.add_unpack(packed.data(), 8, at, 1, primitive<double>(), Op::Sum); },
                        ErrorCode::InvalidArgument, "count");  // (another size than the chain's first)
    batch.end_chain();
  }
  if (mixed)
    batch.add_unpack(reinterpret_cast<char*>(short_in.data()) + 2, 2000, reinterpret_cast<char*>(shorts.data()) + 2, 1,
                     short_run, Op::Sum);
  double want = 0;
  for (int launch = 0; launch < 3; ++launch) {
    batch.launch(space);
    batch.wait();
    for (int j = 0; j < kChain; ++j) want = op_of(j) == Op::Sum ? want + 1 : want * 2;
  }
  // Devices take one pass for both chains (their records shaped alike, of doubles) but in the mixed-word kernel and in
  // 16-byte words; hosts run the records in turn.
  CHECK(batch.one_pass_chains() == (Impl::BackendTraits<ExecSpace>::walks_runs || mixed || wide ? 0 : 2));
  space.fence();
  auto field_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field);
  std::int64_t wrong = 0, inside = 0;
  for (std::int64_t a = 0; a < kN; ++a)
    for (std::int64_t b = 0; b < kN; ++b)
      for (std::int64_t c = 0; c < kN; ++c) {
        bool in = false;
        for (const Zone& z : zones)
          in = in || (a >= z.lo[0] && a < z.lo[0] + z.extent[0] && b >= z.lo[1] && b < z.lo[1] + z.extent[1] &&
                      c >= z.lo[2] && c < z.lo[2] + z.extent[2]);
        inside += in;
        wrong += field_h((a * kN + b) * kN + c) != (in ? want : 0.0);
      }
  INFO("want " << want << " in " << inside << " cells, mixed " << mixed << ", odd " << odd << ", wide " << wide);
  CHECK(wrong == 0);
  auto shorts_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), shorts);
  int wrong_shorts = shorts_h(0) != 5;
  for (int i = 1; i < 1001; ++i) wrong_shorts += shorts_h(i) != (mixed ? 5 + 3 * 3 : 5);
  CHECK(wrong_shorts == 0);
}

TEST_CASE("fused batch: chains combine into the same cells in the order added, in one launch", "[op][fusion]") {
  check_chains(true, false, false);
  check_chains(false, false, false);
  check_chains(false, true, false);
  check_chains(false, false, true);
}

// A batch's memory (its records and counters in the execution space, its completion flags) is on loan from pools
// (KokkosDDT_BlockPool.hpp): a destroyed batch gives it back only once its launches are done, so that a batch built
// right after it, on the same blocks, cannot overwrite records that a running launch still reads. A long launch (many
// phases over a large array) is left running on one instance while its batch is destroyed, and a batch alike (the same
// sizes: the blocks just given back) is built and launched on another; both results must be whole.
TEST_CASE("fused batch: memory goes back to its pool only after the batch's launches", "[ops][fusion]") {
  using Mem = ExecSpace::memory_space;
  ExecSpace space;
  const auto instances = Kokkos::Experimental::partition_space(space, 1, 1);
  constexpr int kN = 1 << 21, kPhases = 12;
  Kokkos::View<double*, Mem> first("first", kN), second("second", kN), ones("ones", kN), twos("twos", kN);
  Kokkos::deep_copy(ones, 1.0);
  Kokkos::deep_copy(twos, 2.0);
  space.fence();
  Datatype half = contiguous(kN / 2, primitive<double>());
  half.commit();
  const std::int64_t bytes = std::int64_t(kN / 2) * 8;
  auto fill = [&](Impl::FusedBatch<ExecSpace>& batch, double* cells) {
    for (int p = 0; p < kPhases; ++p) {
      batch.phase(p);
      const bool add = p % 2 == 0;
      for (int h = 0; h < 2; ++h)
        batch.add_unpack((add ? ones : twos).data() + h * (kN / 2), bytes, cells + h * (kN / 2), 1, half,
                         add ? Op::Sum : Op::Prod);
    }
  };
  const std::int64_t idle = Impl::BlockPool<Mem>::idle_blocks();
  {
    Impl::FusedBatch<ExecSpace> batch(instances[0]);
    fill(batch, first.data());
    batch.launch(instances[0]);  // (not waited for: the batch goes while it may run)
  }
  CHECK(Impl::BlockPool<Mem>::idle_blocks() > idle);  // (its arena is back)
  Impl::FusedBatch<ExecSpace> next(instances[1]);
  fill(next, second.data());
  next.launch(instances[1]);
  next.wait();
  for (const ExecSpace& s : instances) s.fence();
  double want = 0;
  for (int p = 0; p < kPhases; ++p) want = p % 2 == 0 ? want + 1 : want * 2;
  for (const auto& cells : {first, second}) {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cells);
    int wrong = 0;
    for (int i = 0; i < kN; ++i) wrong += host(i) != want;
    INFO((cells.data() == first.data() ? "the destroyed batch's" : "the next batch's")
         << " cells: want " << want << ", cell 0 " << host(0));
    CHECK(wrong == 0);
  }
}
