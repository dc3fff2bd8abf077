// SPDX-License-Identifier: BSD-3-Clause
// A seeded robustness fuzzer of KokkosDDT's public API, on Kokkos' default host execution space:
//   constructors  extreme and boundary arguments: a type is built or KokkosDDT::Error is thrown, and a built type's
//                 properties and commit are defined (under UBSan: no signed overflow anywhere);
//   deep          types nested 17-80 levels deep (past any fixed limit of the traversal), packed and unpacked against
//                 the reference flattening of the constructor tree;
//   views         strided subviews of rank 1-3 in every layout: datatype_of packs them right, and counts that reach
//                 past the View are refused with nothing written;
//   arguments     bad pack/unpack arguments (counts, ranges, buffer sizes, null pointers) throw and write nothing,
//                 good ones match the reference;
//   fusion        random requests, some invalid, through one FusionQueue;
//   operations    unpacks with random operations (some inapplicable, some not an Op) and ranges (some splitting an
//                 element), through unpack and a FusionQueue: refused with nothing written, or equal to the destination
//                 packed, combined element by element, and unpacked back.
// Usage: kokkosddt_fuzz [--seconds S] [--seed N]   (CI runs it for a few seconds in each preset, longest under the
// sanitizers; long runs by hand: kokkosddt_fuzz --seconds 3600 --seed $RANDOM). Exits non-zero on the first failure,
// printing the seed and case to replay it.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "KokkosDDT.hpp"
#include "support/Buffers.hpp"
#include "support/RandomTypes.hpp"
#include "support/Reference.hpp"

using namespace KokkosDDT;
using Space = Kokkos::DefaultHostExecutionSpace;

namespace {

struct Failure {
  std::string what;
};

[[noreturn]] void fail(const std::string& what) { throw Failure{what}; }
void expect(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

class Fuzzer {
 public:
  explicit Fuzzer(std::uint64_t seed) : rng_(seed), types_(seed ^ 0x9e3779b97f4a7c15ull, 3) {}

  std::int64_t pick(std::int64_t lo, std::int64_t hi) {  // [lo, hi]
    return lo + static_cast<std::int64_t>(rng_() % static_cast<std::uint64_t>(hi - lo + 1));
  }

  // Boundary values, and small ones.
  std::int64_t extreme() {
    static const std::int64_t pool[] = {0,
                                        1,
                                        2,
                                        3,
                                        -1,
                                        -2,
                                        7,
                                        std::numeric_limits<std::int64_t>::max(),
                                        std::numeric_limits<std::int64_t>::min(),
                                        std::numeric_limits<std::int64_t>::max() / 2,
                                        std::numeric_limits<std::int64_t>::min() / 2,
                                        std::numeric_limits<std::int64_t>::max() - 1,
                                        std::numeric_limits<std::int64_t>::min() + 1,
                                        std::int64_t(1) << 31,
                                        std::int64_t(1) << 32,
                                        std::int64_t(1) << 62,
                                        -(std::int64_t(1) << 62),
                                        std::int64_t(1) << 40};
    if (pick(0, 3) == 0) return pick(-100, 100);
    return pool[pick(0, sizeof(pool) / sizeof(pool[0]) - 1)];
  }

  std::vector<std::int64_t> extremes(std::size_t n) {
    std::vector<std::int64_t> v(n);
    for (auto& x : v) x = extreme();
    return v;
  }

  Datatype any_type() {
    if (!built_.empty() && pick(0, 2) == 0) return built_[pick(0, built_.size() - 1)];
    static const Datatype prims[] = {byte(), primitive<double>(), primitive<std::int32_t>(), primitive<char>(),
                                     opaque(3, 1)};
    return prims[pick(0, 4)];
  }

  // ------------------------------------------------------------------------------------------- constructors
  void constructors() {
    const std::size_t n = static_cast<std::size_t>(pick(0, 3));
    Datatype old = any_type(), t;
    try {
      switch (pick(0, 10)) {
        case 0:
          t = contiguous(extreme(), old);
          break;
        case 1:
          t = vector(extreme(), extreme(), extreme(), old);
          break;
        case 2:
          t = hvector(extreme(), extreme(), extreme(), old);
          break;
        case 3:
          t = indexed(extremes(n), extremes(n), old);
          break;
        case 4:
          t = hindexed(extremes(n), extremes(n), old);
          break;
        case 5:
          t = indexed_block(extreme(), extremes(n), old);
          break;
        case 6:
          t = hindexed_block(extreme(), extremes(n), old);
          break;
        case 7: {
          std::vector<std::int64_t> sizes = extremes(n + 1), subsizes = extremes(n + 1), starts = extremes(n + 1);
          t = subarray(sizes, subsizes, starts, pick(0, 1) ? Order::C : Order::Fortran, old);
          break;
        }
        case 8: {
          std::vector<Datatype> fields;
          for (std::size_t i = 0; i < n; ++i) fields.push_back(any_type());
          t = struct_type(extremes(n), extremes(n), fields);
          break;
        }
        case 9:
          t = resized(old, extreme(), extreme());
          break;
        default:
          t = dup(old);
      }
    } catch (const Error&) {
      return;  // refused, with a KokkosDDT::Error: fine
    }
    // Built: every property is defined, and consistent.
    expect(t.size() >= 0, "negative size");
    expect(t.extent() == t.ub() - t.lb(), "extent != ub - lb");
    expect(t.size() == 0 || t.true_extent() >= 0, "negative true extent");
    (void)t.signature();
    (void)t.describe();
    try {
      t.commit();
      (void)t.layout();
    } catch (const Error& e) {
      expect(e.code() == ErrorCode::Overflow, std::string("commit threw ") + e.what());
    }
    if (built_.size() < 64) built_.push_back(t);
  }

  // ------------------------------------------------------------------------------------------- deep
  void deep() {
    Datatype t = pick(0, 1) ? primitive<std::int16_t>() : contiguous(pick(1, 3), byte());
    const int levels = static_cast<int>(pick(17, 80));
    std::ostringstream how;
    for (int level = 0; level < levels; ++level) {
      const bool can_double = t.size() <= (8 << 10) && t.true_extent() <= (8 << 10);
      switch (pick(0, 5)) {
        case 0:
          t = contiguous(can_double ? pick(1, 2) : 1, t);
          break;
        case 1:
          t = hvector(can_double ? 2 : 1, 1, pick(-64, 64), t);
          break;
        case 2:
          t = resized(t, pick(-4, 4), t.extent() + pick(0, 8));
          break;
        case 3:
          t = struct_type({1}, {pick(-16, 16)}, {t});
          break;
        case 4:
          t = hindexed_block(1, {pick(-32, 32)}, t);
          break;
        default:
          t = dup(t);
      }
    }
    t.commit();
    check_pack(t, pick(1, 2), "deep(" + std::to_string(levels) + ") " + t.describe().substr(0, 300));
  }

  // Pack and unpack `count` instances with guarded buffers against the reference.
  void check_pack(const Datatype& t, std::int64_t count, const std::string& what) {
    const auto runs = Test::flatten(t, count);
    const auto [lo, hi] = Test::footprint(runs);
    const std::int64_t total = count * t.size();
    Test::GuardedBuffer<> src(hi - lo, static_cast<int>(pick(0, 15)));
    src.fill_pattern(rng_());
    std::vector<char> expected(total + 1);
    Test::reference_pack(runs, src.host() - lo, expected.data());
    Test::GuardedBuffer<> packed(total, static_cast<int>(pick(0, 15)));
    expect(pack(Space(), src.host() - lo, count, t, packed.host(), total) == total, what + ": pack count");
    Space().fence();
    expect(std::memcmp(packed.host(), expected.data(), total) == 0, what + ": packed bytes differ");
    expect(packed.guards_intact() && src.guards_intact(), what + ": guard bytes written by pack");
    if (!Test::runs_disjoint(runs)) return;
    std::vector<char> want(hi - lo + 1, static_cast<char>(Test::kPoison));
    Test::reference_unpack(runs, expected.data(), want.data() - lo);
    Test::GuardedBuffer<> dst(hi - lo, static_cast<int>(pick(0, 15)));
    expect(unpack(Space(), packed.host(), total, dst.host() - lo, count, t) == total, what + ": unpack count");
    Space().fence();
    expect(std::memcmp(dst.host(), want.data(), hi - lo) == 0, what + ": unpacked bytes differ");
    expect(dst.guards_intact(), what + ": guard bytes written by unpack");
  }

  // ------------------------------------------------------------------------------------------- views
  template <class Layout>
  void views_of_layout() {
    const int e0 = static_cast<int>(pick(1, 5)), e1 = static_cast<int>(pick(1, 5)), e2 = static_cast<int>(pick(1, 5));
    Kokkos::View<double***, Layout, Kokkos::HostSpace> a("a", e0, e1, e2);
    for (std::size_t i = 0; i < a.span(); ++i) a.data()[i] = static_cast<double>(i + 1);
    auto range = [&](int e) {
      const int b = static_cast<int>(pick(0, e - 1));
      return Kokkos::pair<int, int>(b, static_cast<int>(pick(b + 1, e)));
    };
    switch (pick(0, 2)) {
      case 0:
        view_case(Kokkos::subview(a, range(e0), range(e1), range(e2)));
        break;
      case 1:
        view_case(Kokkos::subview(a, range(e0), static_cast<int>(pick(0, e1 - 1)), range(e2)));
        break;
      default:
        view_case(Kokkos::subview(a, static_cast<int>(pick(0, e0 - 1)), range(e1), static_cast<int>(pick(0, e2 - 1))));
    }
  }

  template <class V>
  void view_case(const V& v) {
    Datatype t = datatype_of(v).commit();
    const auto n = static_cast<std::int64_t>(v.size());
    expect(t.size() == n * 8, "datatype_of size");
    const std::int64_t count = pick(1, 3);
    std::vector<double> out(count * n + 1, -1.0);
    try {
      const std::int64_t bytes =
          pack(Space(), v, count, t, Kokkos::View<double*, Kokkos::HostSpace>(out.data(), count * n));
      Space().fence();
      expect(bytes == count * n * 8, "view pack size");
    } catch (const Error& e) {
      expect(e.code() == ErrorCode::BufferTooSmall, std::string("view pack threw ") + e.what());
      expect(count > 1, "one instance of a View's own type refused");
      for (double x : out) expect(x == -1.0, "a refused view pack wrote");
      return;
    }
    // The first instance is the View's elements in layout order (datatype_of's order): compare with a flattening.
    const auto runs = Test::flatten(t, 1);
    std::vector<char> expected(n * 8);
    Test::reference_pack(runs, reinterpret_cast<const char*>(v.data()), expected.data());
    expect(std::memcmp(out.data(), expected.data(), n * 8) == 0, "view pack bytes");
    expect(out[count * n] == -1.0, "view pack wrote past its output");
  }

  void views() {
    switch (pick(0, 1)) {
      case 0:
        return views_of_layout<Kokkos::LayoutRight>();
      default:
        return views_of_layout<Kokkos::LayoutLeft>();
    }
  }

  // ------------------------------------------------------------------------------------------- arguments
  void arguments() {
    Datatype t = types_.next().type.commit();
    const std::int64_t count = pick(0, 4) == 0 ? extreme() : pick(0, 3);
    const std::int64_t total = count > 0 && count < 8 ? count * t.size() : 0;
    const auto runs = count > 0 && count < 8 ? Test::flatten(t, count) : std::vector<Test::Run>{};
    const auto [lo, hi] = Test::footprint(runs);
    Test::GuardedBuffer<> typed(hi - lo);
    typed.fill_pattern(rng_());
    std::int64_t bytes = pick(0, 3) == 0 ? extreme() : total + pick(-3, 3);
    if (bytes > total + 64) bytes = total + 64;  // (the buffer is what it is; larger claims are the user's bug)
    Test::GuardedBuffer<> packed(std::max<std::int64_t>(0, bytes));
    PackRange range;
    if (pick(0, 2) == 0) range.offset = pick(0, 3) == 0 ? extreme() : pick(-2, total + 2);
    if (pick(0, 2) == 0) range.max_bytes = pick(0, 3) == 0 ? extreme() : pick(-2, total + 2);
    // (Counts beyond the buffers made here get no typed buffer: valid ones may then move nothing, or throw
    // NullPointer.)
    const bool null_typed = pick(0, 9) == 0 || count < 0 || count >= 8, null_packed = pick(0, 9) == 0;
    char* typed_at = null_typed ? nullptr : typed.host() - lo;
    char* packed_at = null_packed ? nullptr : packed.host();
    std::int64_t moved = -1;
    try {
      moved = pack(Space(), typed_at, count, t, packed_at, bytes, range);
      Space().fence();
    } catch (const Error&) {
      for (std::int64_t i = 0; i < packed.size(); ++i)
        expect(packed.host()[i] == static_cast<char>(Test::kPoison), "a refused pack wrote");
      expect(packed.guards_intact(), "a refused pack wrote past the buffer");
      return;
    }
    // Accepted: the arguments were valid, so the bytes are the reference's.
    expect(count >= 0 && range.offset >= 0 && range.max_bytes >= -1, "invalid pack accepted");
    if (count >= 8) {
      expect(moved == 0, "a pack without a typed buffer moved bytes");
      return;
    }
    expect(range.offset <= total, "a range past the stream accepted");
    std::vector<char> expected(total + 1);
    Test::reference_pack(runs, typed.host() - lo, expected.data());
    expect(moved >= 0 && moved <= bytes, "pack reported more bytes than its buffer");
    expect(moved == 0 || std::memcmp(packed.host(), expected.data() + range.offset, moved) == 0,
           "partial pack bytes differ");
    expect(packed.guards_intact(), "pack wrote past its buffer");
  }

  // ------------------------------------------------------------------------------------------- operations
  void operations() {
    Datatype t = types_.next().type.commit();
    const std::int64_t count = pick(0, 3), total = count * t.size();
    const auto runs = Test::flatten(t, count);
    if (!Test::runs_disjoint(runs)) return;
    const auto elements = Test::flatten_elements(t, count);
    const auto [lo, hi] = Test::footprint(runs);
    const Op op = pick(0, 20) == 0 ? static_cast<Op>(pick(8, 255)) : static_cast<Op>(pick(0, 7));
    const std::int64_t a = pick(0, 2) == 0 ? pick(0, total) : 0;
    const std::int64_t b = pick(0, 2) == 0 ? pick(a, total) : total;
    // What must happen: every element's primitive takes the operation, and the range cuts no element.
    bool valid = static_cast<int>(op) <= 7;
    for (const Test::Element& e : Test::flatten_elements(t, 1))  // (the type's, whatever the count)
      valid = valid && op_applies(op, e.primitive);
    std::vector<std::int64_t> starts;  // each element's stream position
    std::int64_t at = 0;
    for (const Test::Element& e : elements) {
      valid = valid && op_applies(op, e.primitive);
      if (op != Op::Replace && b > a && ((a > at && a < at + e.size) || (b > at && b < at + e.size))) valid = false;
      starts.push_back(at);
      at += e.size;
    }
    Test::GuardedBuffer<> dst(hi - lo, static_cast<int>(pick(0, 15))), src(total, static_cast<int>(pick(0, 15)));
    dst.fill_pattern(rng_());
    src.fill_pattern(rng_());
    std::vector<char> before(dst.host(), dst.host() + (hi - lo)), want = before, stream(total + 1);
    if (valid) {
      Test::reference_pack(runs, want.data() - lo, stream.data());
      if (op == Op::Replace && b > a) std::memcpy(stream.data() + a, src.host(), b - a);  // (bytes: ranges may cut)
      for (std::size_t i = 0; i < elements.size() && op != Op::Replace; ++i)
        if (starts[i] >= a && starts[i] < b)
          Impl::combine_bytes(op, elements[i].primitive, stream.data() + starts[i], src.host() + (starts[i] - a),
                              elements[i].size);
      Test::reference_unpack(runs, stream.data(), want.data() - lo);
    }
    const bool queued = pick(0, 1) == 1;
    try {
      if (queued) {
        FusionQueue<Space> q;
        q.unpack(src.host(), b - a, dst.host() - lo, count, t, op, PackRange{a, b - a});
        q.wait_all();
      } else {
        expect(unpack(Space(), src.host(), b - a, dst.host() - lo, count, t, op, PackRange{a, b - a}) == b - a,
               "unpack with an operation: bytes read");
      }
      expect(valid, std::string("an invalid unpack with ") + op_name(op) + " was accepted");
    } catch (const Error& e) {
      expect(!valid, std::string("a valid unpack with an operation was refused: ") + e.what());
      want = before;
    }
    expect(
        hi == lo || std::memcmp(dst.host(), want.data(), hi - lo) == 0,  // (memcmp's pointers must not be null)
        std::string(queued ? "queued " : "") + "unpack with " + op_name(op) + ": bytes differ (" + t.describe() + ")");
    expect(dst.guards_intact() && src.guards_intact(), "unpack with an operation wrote past its buffer");
  }

  // ------------------------------------------------------------------------------------------- fusion
  void fusion() {
    FusionOptions options;
    options.capacity = static_cast<int>(pick(1, 8));
    options.threshold_bytes = pick(0, 1) ? pick(0, 4096) : (std::int64_t(1) << 40);
    FusionQueue<Space> queue(Space(), options);
    struct Pending {
      std::vector<char> expected;
      std::unique_ptr<Test::GuardedBuffer<>> src, packed;
    };
    std::vector<Pending> pending;
    for (int r = 0, n = static_cast<int>(pick(1, 12)); r < n; ++r) {
      Datatype t = types_.next().type.commit();
      const std::int64_t count = pick(1, 2), total = count * t.size();
      const auto runs = Test::flatten(t, count);
      const auto [lo, hi] = Test::footprint(runs);
      Pending p;
      p.src = std::make_unique<Test::GuardedBuffer<>>(hi - lo);
      p.src->fill_pattern(rng_());
      p.expected.resize(total + 1);
      Test::reference_pack(runs, p.src->host() - lo, p.expected.data());
      p.packed = std::make_unique<Test::GuardedBuffer<>>(total);
      const bool bad = pick(0, 5) == 0;
      try {
        queue.pack(p.src->host() - lo, count, t, p.packed->host(), bad ? total - 1 - pick(0, 3) : total);
        expect(!bad || total == 0, "fusion queue accepted a too-small buffer");
      } catch (const Error& e) {
        expect(bad, std::string("fusion queue refused a valid request: ") + e.what());
        continue;
      }
      pending.push_back(std::move(p));
    }
    queue.wait_all();
    for (auto& p : pending) {
      expect(std::memcmp(p.packed->host(), p.expected.data(), p.packed->size()) == 0, "fused pack bytes differ");
      expect(p.packed->guards_intact(), "fused pack wrote past its buffer");
    }
  }

 private:
  std::mt19937_64 rng_;
  Test::TypeGenerator types_;
  std::vector<Datatype> built_;
};

}  // namespace

int main(int argc, char** argv) {
  double seconds = 5;
  std::uint64_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atof(argv[i + 1]);
    if (std::strcmp(argv[i], "--seed") == 0) seed = std::strtoull(argv[i + 1], nullptr, 10);
  }
  Kokkos::ScopeGuard kokkos(argc, argv);
  const char* categories[] = {"constructors", "deep", "views", "arguments", "fusion", "operations"};
  long cases[6] = {0, 0, 0, 0, 0, 0};
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  long round = 0;
  for (; elapsed() < seconds; ++round) {
    // Each round has its own seed, so a failure replays alone: --seed <round seed> --seconds 0 runs one round.
    const std::uint64_t round_seed = seed + static_cast<std::uint64_t>(round);
    Fuzzer f(round_seed);
    int category = 0;
    try {
      for (category = 0; category < 6; ++category) {
        const int repeats = category == 0 ? 50 : category == 2 || category == 3 || category == 5 ? 10 : 1;
        for (int k = 0; k < repeats; ++k, ++cases[category]) {
          switch (category) {
            case 0:
              f.constructors();
              break;
            case 1:
              f.deep();
              break;
            case 2:
              f.views();
              break;
            case 3:
              f.arguments();
              break;
            case 4:
              f.fusion();
              break;
            default:
              f.operations();
          }
        }
      }
    } catch (const Failure& e) {
      std::printf("kokkosddt_fuzz: FAILED in %s, round seed %llu (replay: --seed %llu --seconds 0): %s\n",
                  categories[category], static_cast<unsigned long long>(round_seed),
                  static_cast<unsigned long long>(round_seed), e.what.c_str());
      return 1;
    } catch (const std::exception& e) {
      std::printf("kokkosddt_fuzz: FAILED in %s, round seed %llu: unexpected exception: %s\n", categories[category],
                  static_cast<unsigned long long>(round_seed), e.what());
      return 1;
    }
    if (seconds <= 0) break;
  }
  std::printf("kokkosddt_fuzz: seeds %llu..%llu, %.1f s:", static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(seed + round), elapsed());
  for (int c = 0; c < 6; ++c) std::printf(" %s %ld", categories[c], cases[c]);
  std::printf("; no failure\n");
  return 0;
}
