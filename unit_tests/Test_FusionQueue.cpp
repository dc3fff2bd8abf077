// SPDX-License-Identifier: BSD-3-Clause
// The fusion queue on every enabled execution space: random mixes of packs and unpacks in one launch against the
// reference, a long stream of requests through a small ring (none lost), ordering of requests that touch the same
// bytes, concurrent queues on two instances, and bad input.
#include <algorithm>
#include <memory>
#include <numeric>
#include <type_traits>
#include <vector>

#include "support/Catch.hpp"
#include "support/Errors.hpp"
#include "support/PackCheck.hpp"
#include "support/RandomTypes.hpp"
#include "support/TestSpace.hpp"

using namespace KokkosDDT;
using Queue = FusionQueue<Test::ExecSpace>;
using Mem = Test::ExecSpace::memory_space;

namespace {

FusionOptions fuse_everything(int capacity = 256) {
  FusionOptions o;
  o.capacity = capacity;
  o.threshold_bytes = std::int64_t(1) << 40;  // launch only when asked (or when the ring is full)
  o.run_ready_at_once = false;                // batch on hosts too (this file tests batching)
  return o;
}

// One random type with its buffers: a source to pack from, a packed buffer, and, for unpacking, an expected packed
// stream on the device and a destination.
struct Case {
  Datatype type;
  std::int64_t count = 0, total = 0, lo = 0, hi = 0;
  std::vector<Test::Run> runs;
  std::unique_ptr<Test::GuardedBuffer<Mem>> src, packed, stream, dst;
  std::vector<char> expected_packed, expected_user;
  bool unpackable = false;
};

// `count` instances of `type` (committed), the source filled with `pattern`; the source and packed buffers start
// `src_misalign` and `packed_misalign` bytes past an aligned address.
Case case_of(const Datatype& type, std::int64_t count, int pattern, int src_misalign, int packed_misalign) {
  Case c;
  c.type = type;
  c.count = count;
  c.total = c.count * c.type.size();
  c.runs = Test::flatten(c.type, c.count);
  std::tie(c.lo, c.hi) = Test::footprint(c.runs);
  c.src = std::make_unique<Test::GuardedBuffer<Mem>>(c.hi - c.lo, src_misalign);
  c.src->fill_pattern(pattern);
  c.expected_packed.assign(c.total + 1, 0);
  Test::reference_pack(c.runs, c.src->host() - c.lo, c.expected_packed.data());
  c.packed = std::make_unique<Test::GuardedBuffer<Mem>>(c.total + 1, packed_misalign);
  c.unpackable = Test::runs_disjoint(c.runs);
  if (c.unpackable) {
    c.stream = std::make_unique<Test::GuardedBuffer<Mem>>(c.total + 1);
    std::copy(c.expected_packed.begin(), c.expected_packed.end(), c.stream->host());
    c.stream->push();
    c.expected_user.assign(c.hi - c.lo + 1, static_cast<char>(Test::kPoison));
    Test::reference_unpack(c.runs, c.expected_packed.data(), c.expected_user.data() - c.lo);
    c.dst = std::make_unique<Test::GuardedBuffer<Mem>>(c.hi - c.lo);
  }
  return c;
}

Case make_case(Test::TypeGenerator& gen, int i) {
  const Datatype type = gen.next().type.commit();
  const std::int64_t count = gen.pick(1, 3);
  const int src_misalign = static_cast<int>(gen.pick(0, 15));
  return case_of(type, count, i, src_misalign, static_cast<int>(gen.pick(0, 15)));
}

// A backend's team sizes, as LaunchKind reads them.
template <int Size, int Granule>
struct ShapeOf {
  static constexpr int team_size = Size, team_granule = Granule;
};

// Each case's pack, and its unpack where its runs are disjoint, on `q`, all in one launch (the queue launches only
// when asked).
std::vector<FusionRequest> enqueue_all(Queue& q, std::vector<Case>& cases) {
  std::vector<FusionRequest> requests;
  for (auto& c : cases) {
    requests.push_back(q.pack(c.src->device() - c.lo, c.count, c.type, c.packed->device(), c.total));
    if (c.unpackable)
      requests.push_back(q.unpack(c.stream->device(), c.total, c.dst->device() - c.lo, c.count, c.type));
  }
  return requests;
}

// What the launch wrote, against the reference, guard bytes intact.
void check_all(std::vector<Case>& cases) {
  for (auto& c : cases) {
    INFO(c.type.describe() << " count " << c.count);
    c.packed->pull();
    KOKKOSDDT_REQUIRE_BYTES(c.packed->host(), c.expected_packed.data(), c.total);
    REQUIRE(c.packed->guards_intact());
    if (!c.unpackable) continue;
    c.dst->pull();
    KOKKOSDDT_REQUIRE_BYTES(c.dst->host(), c.expected_user.data(), c.hi - c.lo);
    REQUIRE(c.dst->guards_intact());
  }
}

}  // namespace

TEST_CASE("fusion queue: random mixes of packs and unpacks in one launch match the reference", "[fusion][random]") {
  Test::TypeGenerator gen(4242);
  const int rounds = std::max(1, Test::scaled(12));
  // 40 cases make 40-80 requests (records copied to the device); 12 make at most 24 (records in kernel parameters).
  for (int round = 0; round < 2 * rounds; ++round) {
    Queue q(Test::ExecSpace(), fuse_everything());
    std::vector<Case> cases;
    for (int i = 0; i < (round % 2 ? 12 : 40); ++i) cases.push_back(make_case(gen, 100 * round + i));
    std::vector<FusionRequest> requests = enqueue_all(q, cases);
    CHECK(q.launches() == 0);
    q.flush();
    CHECK(q.launches() == 1);  // everything went out together
    for (auto& r : requests) q.wait(r);
    check_all(cases);
  }
}

TEST_CASE("fusion queue: launches of small requests only match the reference", "[fusion][random]") {
  // Every request under 1 KiB: on devices no team has a full tile of words, and the launch runs teams of fewer threads
  // (LaunchKind::team_size); one request alone, then several.
  Test::TypeGenerator gen(5151);
  for (int round = 0; round < std::max(2, Test::scaled(8)); ++round) {
    Queue q(Test::ExecSpace(), fuse_everything());
    std::vector<Case> cases;
    for (int tries = 0; tries < 400 && static_cast<int>(cases.size()) < (round % 2 ? 6 : 1); ++tries) {
      Case c = make_case(gen, 100 * round + tries);
      if (c.total > 0 && c.total <= 1024) cases.push_back(std::move(c));
    }
    REQUIRE(!cases.empty());
    std::vector<FusionRequest> requests = enqueue_all(q, cases);
    q.flush();
    CHECK(q.launches() == 1);
    for (auto& r : requests) q.wait(r);
    check_all(cases);
  }
}

TEST_CASE("fusion queue: requests whose bytes are one contiguous run match the reference", "[fusion]") {
  // On devices such a request is flat (make_flat: no descriptor in the kernel): contiguous ranges of every word size,
  // at a displacement, from one byte to several tiles, the buffers misaligned, alone and several in one launch.
  const Datatype d = primitive<double>(), b = primitive<char>();
  std::vector<std::pair<Datatype, std::int64_t>> types;  // (type, count)
  for (std::int64_t n : {1, 7, 8, 1000, 5001, 70000}) types.push_back({contiguous(n, b), 1});
  for (std::int64_t n : {1, 3, 640}) types.push_back({contiguous(n, d), 2});
  types.push_back({hindexed({1001}, {24}, b), 1});                          // one block at a displacement
  types.push_back({subarray({8, 100}, {1, 50}, {3, 10}, Order::C, d), 1});  // one row of a 2-D array
  types.push_back({struct_type({1, 2}, {8, 16}, {d, d}), 3});               // fields that merge into one run
  types.push_back({resized(contiguous(5, primitive<int>()), 0, 20), 7});    // instances that abut
  types.push_back({contiguous(3, primitive<std::int16_t>()), 1});
  for (const bool together : {false, true}) {
    Queue q(Test::ExecSpace(), fuse_everything());
    std::vector<Case> cases;
    for (std::size_t i = 0; i < types.size(); ++i) {
      Datatype type = types[i].first;
      const int k = static_cast<int>(i);
      cases.push_back(case_of(type.commit(), types[i].second, k, k % 16, (3 * k) % 16));
      if (together) continue;
      for (auto& r : enqueue_all(q, cases)) q.wait(r);  // (a launch of its own)
      check_all(cases);
      cases.clear();
    }
    std::vector<FusionRequest> requests = enqueue_all(q, cases);
    q.flush();
    for (auto& r : requests) q.wait(r);
    check_all(cases);
  }
}

TEST_CASE("fusion queue: packs of one word size, contiguous and not, in one launch match the reference", "[fusion]") {
  // One direction and one word size: a uniform launch on devices, whose records are flat (make_flat) and not, or all
  // flat, or none (each has a kernel instance of its own: Locating).
  const Datatype d = primitive<double>();
  const std::vector<std::vector<Datatype>> launches{
      {contiguous(640, d), vector(40, 2, 5, d), hindexed({3}, {16}, d), subarray({6, 7}, {3, 4}, {1, 2}, Order::C, d)},
      {contiguous(1, d), contiguous(4000, d)},
      {vector(3, 1, 4, d), vector(100, 3, 7, d)}};
  int pattern = 0;
  for (const auto& types : launches) {
    Queue q(Test::ExecSpace(), fuse_everything());
    std::vector<Case> cases;
    std::vector<FusionRequest> requests;
    for (Datatype type : types) {
      cases.push_back(case_of(type.commit(), 1, ++pattern, 0, 0));
      Case& c = cases.back();
      c.unpackable = false;  // (packs only)
      requests.push_back(q.pack(c.src->device() - c.lo, c.count, c.type, c.packed->device(), c.total));
    }
    q.flush();
    CHECK(q.launches() == 1);
    for (auto& r : requests) q.wait(r);
    check_all(cases);
  }
}

TEST_CASE("fusion queue: shaped requests alone, beside flat ones and beside walks match the reference",
          "[fusion][shape]") {
  // On devices, types of a canonical shape with words of 4 bytes or more locate each word by the shape (make_shaped):
  // strided grids, indexed blocks of one length and structs of one layout at several places (listed levels), in
  // launches of shaped records only, with flat ones, with walks, of two word sizes, and packs beside unpacks.
  const Datatype d = primitive<double>(), f = primitive<float>();
  const Datatype face = subarray({6, 7, 8}, {4, 3, 5}, {1, 2, 1}, Order::C, d);
  const Datatype fields = struct_type({1, 1, 1}, {0, 6 * 7 * 8 * 8 * 3, 6 * 7 * 8 * 8}, {face, face, face});
  const std::vector<Datatype> shaped{vector(40, 2, 5, d), face, indexed_block(2, {7, 0, 3, 12}, d), fields,
                                     resized(vector(3, 1, 4, d), 0, 200)};
  const std::vector<std::vector<Datatype>> launches{shaped,
                                                    {shaped[0], contiguous(640, d), shaped[2]},
                                                    {shaped[1], indexed({1, 3}, {0, 5}, d), shaped[3]},
                                                    {vector(33, 3, 4, f), shaped[0], indexed_block(1, {9, 2, 30}, f)}};
  int pattern = 0;
  for (const bool unpacks : {false, true}) {  // packs alone (one direction), or packs and unpacks
    for (const auto& types : launches) {
      Queue q(Test::ExecSpace(), fuse_everything());
      std::vector<Case> cases;
      for (Datatype type : types) {
        for (const std::int64_t count : {1, 3}) {
          ++pattern;
          cases.push_back(case_of(type.commit(), count, pattern, 8 * (pattern % 2), 4 * (pattern % 3)));
          cases.back().unpackable = cases.back().unpackable && unpacks;
        }
      }
      std::vector<FusionRequest> requests = enqueue_all(q, cases);
      q.flush();
      CHECK(q.launches() == 1);
      for (auto& r : requests) q.wait(r);
      check_all(cases);
    }
  }
}

TEST_CASE("fusion queue: large shaped requests, several words per device thread, match the reference",
          "[fusion][shape]") {
  // Faces and a column of an 80 x 160 x 200 grid of doubles (20 MB), packed and unpacked in one launch: on a device the
  // launch holds more words than its threads (launch_words_per_thread > 1), so each thread of a shaped record moves
  // several words, kWordsInFlight at a time, and the rest one by one (FusedTile::shaped_words).
  const Datatype d = primitive<double>();
  const std::vector<std::int64_t> n{80, 160, 200};
  const std::vector<Datatype> types{subarray(n, {80, 160, 3}, {0, 0, 1}, Order::C, d),
                                    subarray(n, {80, 2, 200}, {0, 157, 0}, Order::C, d),
                                    subarray(n, {1, 160, 200}, {78, 0, 0}, Order::C, d), vector(64000, 1, 5, d)};
  Queue q(Test::ExecSpace(), fuse_everything());
  std::vector<Case> cases;
  int pattern = 100;
  for (Datatype type : types) cases.push_back(case_of(type.commit(), 1, ++pattern, 0, 0));
  std::vector<FusionRequest> requests = enqueue_all(q, cases);
  q.flush();
  CHECK(q.launches() == 1);
  for (auto& r : requests) q.wait(r);
  check_all(cases);
}

TEST_CASE("fusion queue: a launch's team size follows its widest team's words", "[fusion]") {
  using Device = ShapeOf<256, 32>;
  using Host = ShapeOf<1, 1>;
  auto record = [](std::int64_t bytes, std::int64_t tile, int word) {
    Impl::FusedRecord r;
    r.begin = 100;
    r.end = 100 + bytes;
    r.tile = tile;
    r.word = static_cast<std::int8_t>(word);
    return r;
  };
  Impl::LaunchKind none;
  CHECK(none.team_size<Device>() == 32);
  Impl::LaunchKind tiny;
  tiny.add(record(8, 256, 1));  // 8 one-byte words: one warp
  CHECK(tiny.team_size<Device>() == 32);
  CHECK(tiny.team_size<Host>() == 1);
  tiny.add(record(520, 2048, 8));  // 65 eight-byte words: three warps
  CHECK(tiny.team_size<Device>() == 96);
  tiny.add(record(1 << 20, 2048, 8));  // full tiles of 256 words
  CHECK(tiny.team_size<Device>() == 256);
  Impl::LaunchKind wide;
  wide.add(record(1 << 20, 8192, 4));  // a tile of more words than the backend's team: its team size
  CHECK(wide.team_size<Device>() == 256);
  CHECK(wide.team_size<Host>() == 1);
}

TEST_CASE("fusion queue: a combining launch's word holds every record's elements", "[fusion][ops]") {
  auto record = [](int word, Primitive element) {
    Impl::FusedRecord r;
    r.end = 4096;
    r.tile = 4096;
    r.word = static_cast<std::int8_t>(word);
    r.direction = static_cast<std::int8_t>(Impl::Direction::Combine);
    r.element = static_cast<std::int8_t>(element);
    return r;
  };
  Impl::LaunchKind kind;
  CHECK(kind.combining_word() == 0);
  kind.add(record(16, Primitive::Double));
  CHECK(kind.combining_word() == 16);
  kind.add(record(8, Primitive::Double));  // the smallest word: the 16-byte record's runs divide into 8-byte words
  CHECK(kind.combining_word() == 8);
  kind.add(record(4, Primitive::Float));
  CHECK(kind.combining_word() == 0);  // 4-byte words cannot hold the doubles: each record's own word
  Impl::LaunchKind bytes;
  bytes.add(record(2, Primitive::Int8));
  bytes.add(record(1, Primitive::Byte));
  CHECK(bytes.combining_word() == 1);
  Impl::LaunchKind complex;
  complex.add(record(16, Primitive::ComplexDouble));
  CHECK(complex.combining_word() == 16);
}

// The fused kernels must each compile into one function: one that passes its record's address to a function apart
// copies all of its parameters, 4 KiB, to every thread's stack first (KokkosDDT_FusedKernel.hpp). Hosts report 0.
TEST_CASE("fusion queue: no fused kernel copies its parameters to the stack", "[fusion]") {
  const std::int64_t bytes = Impl::FusedLaunch<Test::ExecSpace>::largest_stack_bytes(Test::ExecSpace());
  INFO("the largest stack frame of a fused kernel: " << bytes << " bytes");
  CHECK(bytes < 1024);
}

TEST_CASE("fusion queue: a long stream through a 64-slot ring loses and repeats nothing", "[fusion]") {
  // Request i copies word (7 i) mod M of `src` into word i mod M of `dst`; at the end every dst word holds what its
  // last writer copied, and every request tests complete.
  const std::int64_t n = std::max<std::int64_t>(1000, Test::scaled(1000000)), m = 4096;
  Kokkos::View<std::uint64_t*, Mem> src("src", m), dst("dst", m);
  auto src_h = Kokkos::create_mirror_view(src);
  for (std::int64_t j = 0; j < m; ++j) src_h(j) = 0x9E3779B97F4A7C15ull * (j + 1);
  Kokkos::deep_copy(src, src_h);
  Datatype word = primitive<std::uint64_t>();
  word.commit();
  Queue q(Test::ExecSpace(), fuse_everything(64));
  std::int64_t completed = 0;
  std::vector<FusionRequest> recent;
  for (std::int64_t i = 0; i < n; ++i) {
    recent.push_back(q.pack(src.data() + (7 * i) % m, 1, word, dst.data() + i % m, 8));
    if (recent.size() == 1000) {  // wait for each request, then count it complete
      for (auto& r : recent) q.wait(r);
      for (auto& r : recent) completed += q.test(r) ? 1 : 0;
      recent.clear();
    }
  }
  q.wait_all();
  for (auto& r : recent) completed += q.test(r) ? 1 : 0;
  auto dst_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dst);
  std::uint64_t sum = 0, want = 0;
  for (std::int64_t j = 0; j < m; ++j) {
    std::int64_t last = (n - 1) - ((n - 1 - j) % m + m) % m;  // the last i < n with i mod m == j
    sum += dst_h(j);
    want += last >= 0 ? src_h((7 * last) % m) : 0;
  }
  REQUIRE(sum == want);
  REQUIRE(q.launches() >= n / 64);  // the ring (64 slots) forced a launch at least every 64 requests
  REQUIRE(completed == n);
}

TEST_CASE("fusion queue: requests touching the same bytes keep their order", "[fusion]") {
  Kokkos::View<double*, Mem> a("a", 8), b("b", 8), packed("packed", 8);
  Kokkos::deep_copy(a, 1.0);
  Kokkos::deep_copy(b, 2.0);
  Datatype d = primitive<double>();
  d.commit();
  Queue q(Test::ExecSpace(), fuse_everything());
  q.pack(a.data(), 8, d, packed.data(), 64);                // packed <- a
  q.pack(b.data(), 8, d, packed.data(), 64);                // then packed <- b: same destination, next launch
  auto last = q.unpack(packed.data(), 64, a.data(), 8, d);  // then a <- packed: reads what the last pack wrote
  q.wait(last);
  CHECK(q.launches() == 3);
  auto a_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  for (int i = 0; i < 8; ++i) CHECK(a_h(i) == 2.0);
}

// Two instances of the space; an OpenMP pool of one thread (OMP_NUM_THREADS=1) has no second part to give
// partition_space, which aborts there, so it gets the default instance twice.
static std::vector<Test::ExecSpace> two_instances() {
#ifdef KOKKOS_ENABLE_OPENMP
  if constexpr (std::is_same_v<Test::ExecSpace, Kokkos::OpenMP>)
    if (Test::ExecSpace().concurrency() < 2) return {Test::ExecSpace(), Test::ExecSpace()};
#endif
  auto parts = Kokkos::Experimental::partition_space(Test::ExecSpace(), 1, 1);
  return {parts.begin(), parts.end()};
}

TEST_CASE("fusion queue: two queues on two instances run side by side", "[fusion]") {
  const std::vector<Test::ExecSpace> instances = two_instances();
  Test::TypeGenerator gen(99);
  std::vector<Case> cases;
  for (int i = 0; i < 20; ++i) cases.push_back(make_case(gen, i));
  {
    Queue q0(instances[0], fuse_everything()), q1(instances[1], fuse_everything());
    for (std::size_t i = 0; i < cases.size(); ++i) {
      Case& c = cases[i];
      (i % 2 ? q1 : q0).pack(c.src->device() - c.lo, c.count, c.type, c.packed->device(), c.total);
    }
    q0.flush();
    q1.flush();
    q0.wait_all();
    q1.wait_all();
    CHECK(q0.launches() == 1);
    CHECK(q1.launches() == 1);
  }
  for (auto& c : cases) {
    c.packed->pull();
    KOKKOSDDT_REQUIRE_BYTES(c.packed->host(), c.expected_packed.data(), c.total);
  }
}

TEST_CASE("fusion queue: bad input is reported, waiting twice is harmless", "[fusion][errors]") {
  Kokkos::View<double*, Mem> a("a", 4), packed("packed", 4);
  Datatype d = primitive<double>();
  d.commit();
  Queue q(Test::ExecSpace(), fuse_everything()), other(Test::ExecSpace(), fuse_everything());
  auto r = q.pack(a.data(), 4, d, packed.data(), 32);
  q.wait(r);
  q.wait(r);  // a no-op, as in MPI
  CHECK(q.test(r));
  Test::require_error([&] { q.wait(FusionRequest()); }, ErrorCode::InvalidArgument, "request");
  Test::require_error([&] { other.test(r); }, ErrorCode::InvalidArgument, "request");
  Kokkos::View<double*, Mem> untouched("untouched", 4);
  Kokkos::deep_copy(a, 7.0);
  Test::require_error([&] { q.pack(a.data(), 4, d, untouched.data(), 31); }, ErrorCode::BufferTooSmall, "dst_bytes");
  Test::require_error([&] { q.pack(a.data(), 1, vector(2, 1, 2, d), packed.data(), 32); }, ErrorCode::NotCommitted,
                      "type");
  FusionOptions bad;
  bad.run_ready_at_once = false;
  bad.capacity = 0;
  Test::require_error([&] { Queue(Test::ExecSpace(), bad); }, ErrorCode::InvalidArgument, "options.capacity");
  CHECK(q.pending_requests() == 0);                         // nothing was enqueued by the failed calls
  CHECK(q.test(q.pack(a.data(), 0, d, packed.data(), 0)));  // nothing to move: complete at once
  q.wait_all();
  auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), untouched);
  for (int i = 0; i < 4; ++i) CHECK(u(i) == 0.0);  // and nothing was written
  // A handle outliving its queue is refused by the next one, even at the same address.
  FusionRequest stale;
  {
    Queue gone(Test::ExecSpace(), fuse_everything());
    stale = gone.pack(a.data(), 4, d, packed.data(), 32);
  }
  Queue next(Test::ExecSpace(), fuse_everything());
  Test::require_error([&] { next.test(stale); }, ErrorCode::InvalidArgument, "request");
}

TEST_CASE("fusion queue: a request too large for one launch is refused at enqueue", "[fusion][errors]") {
  // Only devices split a transfer into that many tiles (2^31 teams of 2 KiB: 4 TiB); the check runs before any byte
  // is touched, so the buffers need not be that large.
  if constexpr (!Kokkos::SpaceAccessibility<Test::ExecSpace, Kokkos::HostSpace>::accessible) {
    Kokkos::View<char*, Mem> a("a", 64), packed("packed", 64);
    Datatype b = KokkosDDT::byte();
    b.commit();
    const std::int64_t huge = std::int64_t(1) << 44;
    Queue q(Test::ExecSpace(), fuse_everything());
    Test::require_error([&] { q.pack(a.data(), huge, b, packed.data(), huge); }, ErrorCode::Overflow, "count");
    CHECK(q.pending_requests() == 0);
  }
}

TEST_CASE("fusion queue: the launch threshold is derived from measurements", "[fusion]") {
  FusionOptions measured;  // threshold from this instance's launch cost and throughput
  measured.run_ready_at_once = false;
  Queue q(Test::ExecSpace(), measured);
  INFO("threshold " << q.threshold_bytes());
  CHECK(q.threshold_bytes() >= 4096);
  CHECK(q.threshold_bytes() < (std::int64_t(1) << 34));  // a measured value, not "never launch"
  Kokkos::View<double*, Mem> a("a", 4), packed("packed", 4);
  Datatype d = primitive<double>();
  d.commit();
  auto r = q.pack(a.data(), 4, d, packed.data(), 32);  // far below it: stays pending
  CHECK(q.pending_requests() == 1);
  q.wait(r);
  CHECK(q.pending_requests() == 0);
  FusionOptions now;
  now.threshold_bytes = 0;  // every request launches at once
  now.run_ready_at_once = false;
  Queue eager(Test::ExecSpace(), now);
  eager.pack(a.data(), 4, d, packed.data(), 32);
  CHECK(eager.pending_requests() == 0);
  CHECK(eager.launches() == 1);
}

TEST_CASE("fusion queue: unpacks into disjoint parts of one array share a launch", "[fusion]") {
  // Two columns of an 8 x 8 row-major array: their byte bounds interleave, their bytes do not.
  Kokkos::View<double*, Mem> grid("grid", 64), in("in", 16);
  Kokkos::deep_copy(in, 3.0);
  Datatype col = vector(8, 1, 8, primitive<double>()), col2 = resized(col, 0, 8 * 8);
  col.commit();
  col2.commit();
  Queue q(Test::ExecSpace(), fuse_everything());
  q.unpack(in.data(), 64, grid.data() + 1, 1, col);
  q.unpack(in.data() + 8, 64, grid.data() + 2, 1, col2);
  q.wait_all();
  CHECK(q.launches() == 1);
  auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), grid);
  for (int r = 0; r < 8; ++r) {
    CHECK(g(8 * r + 1) == 3.0);
    CHECK(g(8 * r + 2) == 3.0);
    CHECK(g(8 * r) == 0.0);
  }
}

TEST_CASE("fusion queue: on synchronous hosts a ready one-tile request runs at enqueue", "[fusion]") {
  Kokkos::View<double*, Mem> a("a", 64), packed("packed", 8);
  Kokkos::deep_copy(a, 2.0);
  Datatype col = vector(4, 1, 8, primitive<double>()).commit();
  Queue q(Test::ExecSpace(), FusionOptions{});
  const std::int64_t launched = q.launches();  // (measuring the threshold launched some)
  auto r = q.pack(a.data(), 1, col, packed.data(), 32);
  if constexpr (Impl::BackendTraits<Test::ExecSpace>::synchronous) {
    CHECK(q.pending_requests() == 0);  // done already: nothing pending, nothing launched
    CHECK(q.launches() == launched);
  }
  q.wait(r);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), packed);
  for (int i = 0; i < 4; ++i) CHECK(h(i) == 2.0);
}

// Combining requests of many tiles each (a host's tiles through its bounce buffer, a device's teams), overlapping, held
// back until one flush: each combines after the one before it, element by element, as if run in order.
TEST_CASE("fusion queue: large overlapping combining requests combine in enqueue order", "[fusion][ops]") {
  constexpr int kN = 400000;  // strided elements: every other double of 2 kN
  Kokkos::View<double*, Mem> grid("grid", 2 * kN + 2), a("a", kN), b("b", kN), c("c", kN);
  auto ha = Kokkos::create_mirror_view(a);
  auto hb = Kokkos::create_mirror_view(b);
  auto hc = Kokkos::create_mirror_view(c);
  auto hg = Kokkos::create_mirror_view(grid);
  for (int i = 0; i < kN; ++i) {
    ha(i) = i % 7;
    hb(i) = 1 + i % 3;
    hc(i) = i % 11;
  }
  for (int i = 0; i < 2 * kN + 2; ++i) hg(i) = 1 + i % 5;
  Kokkos::deep_copy(a, ha);
  Kokkos::deep_copy(b, hb);
  Kokkos::deep_copy(c, hc);
  Kokkos::deep_copy(grid, hg);
  Datatype every_other = vector(kN, 1, 2, primitive<double>());
  every_other.commit();
  const std::int64_t bytes = std::int64_t(kN) * 8;
  Queue q(Test::ExecSpace(), fuse_everything());
  q.unpack(a.data(), bytes, grid.data(), 1, every_other, Op::Sum);
  q.unpack(b.data(), bytes, grid.data(), 1, every_other, Op::Prod);     // (the same elements)
  q.unpack(c.data(), bytes, grid.data() + 2, 1, every_other, Op::Max);  // (shifted by one element)
  q.wait_all();
  std::vector<double> want(2 * kN + 2);  // (not from hg: on a host it may be the grid itself)
  for (int i = 0; i < 2 * kN + 2; ++i) want[i] = 1 + i % 5;
  for (int i = 0; i < kN; ++i) want[2 * i] = (want[2 * i] + ha(i)) * hb(i);
  for (int i = 0; i < kN; ++i) want[2 * i + 2] = std::max(want[2 * i + 2], hc(i));
  Kokkos::deep_copy(hg, grid);
  int wrong = 0;
  for (int i = 0; i < 2 * kN + 2; ++i) wrong += hg(i) != want[i];
  CHECK(wrong == 0);
}
