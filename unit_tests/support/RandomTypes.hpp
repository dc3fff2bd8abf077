// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Random nested datatypes (fixed seeds): every constructor, depth <= 4, with zero counts, zero blocklengths, negative
// strides and displacements, overlapping blocks, unaligned byte strides, resized bounds and homogeneous and
// heterogeneous structs. Footprints stay small so thousands of cases run in seconds.

#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "KokkosDDT.hpp"

namespace KokkosDDT::Test {

// How many random cases to run: `n` times KOKKOSDDT_TEST_SCALE (default 1; the sanitizer runs use less).
inline int scaled(int n) {
  static const double scale = [] {
    const char* s = std::getenv("KOKKOSDDT_TEST_SCALE");
    return s ? std::atof(s) : 1.0;
  }();
  return std::max(1, static_cast<int>(n * scale));
}

struct RandomType {
  Datatype type;
  // False when the type holds a zero-blocklength (h)vector or (h)indexed_block over a derived child: MPICH 4.0.2
  // divides by zero packing those inside a struct (yaksa num_contig == 0), so the MPI comparison is skipped.
  bool mpich_safe = true;
};

class TypeGenerator {
 public:
  explicit TypeGenerator(std::uint64_t seed, int max_depth = 4) : rng_(seed), max_depth_(max_depth) {}

  RandomType next() {
    while (true) {
      bool safe = true;
      Datatype t = make(1 + pick(0, max_depth_ - 1), safe);
      if (t.size() > (1 << 14) || t.true_extent() > (1 << 16) || std::abs(t.true_lb()) > (1 << 16) ||
          t.extent() > (1 << 16) || std::abs(t.lb()) > (1 << 16))
        continue;
      return {t, safe};
    }
  }

  std::int64_t pick(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  std::mt19937_64& rng() { return rng_; }

 private:
  Datatype primitive_leaf() {
    static const Primitive kinds[] = {Primitive::Int8,   Primitive::Int16,        Primitive::Int32,
                                      Primitive::Int64,  Primitive::UInt16,       Primitive::Float,
                                      Primitive::Double, Primitive::Char,         Primitive::Byte,
                                      Primitive::Bool,   Primitive::ComplexFloat, Primitive::ComplexDouble};
    return named(kinds[pick(0, sizeof(kinds) / sizeof(kinds[0]) - 1)]);
  }

  std::int64_t count() { return chance(0.08) ? 0 : pick(1, 4); }
  std::int64_t blocklength() { return chance(0.08) ? 0 : pick(1, 3); }

  std::vector<std::int64_t> values(std::int64_t n, std::int64_t lo, std::int64_t hi) {
    std::vector<std::int64_t> v(n);
    for (auto& x : v) x = pick(lo, hi);
    return v;
  }

  static bool derived(const Datatype& t) { return t.combiner() != Combiner::Named; }

  Datatype make(int depth, bool& safe) {
    if (depth == 0 || chance(0.15)) return primitive_leaf();
    Datatype c = make(depth - 1, safe);
    const std::int64_t e = std::max<std::int64_t>(1, c.extent());
    switch (pick(0, 10)) {
      case 0:
        return contiguous(count(), c);
      case 1: {
        const std::int64_t n = count(), bl = blocklength();
        if (n > 0 && bl == 0 && derived(c)) safe = false;
        return vector(n, bl, pick(-5, 5), c);
      }
      case 2: {
        const std::int64_t n = count(), bl = blocklength();
        if (n > 0 && bl == 0 && derived(c)) safe = false;
        return hvector(n, bl, pick(-3 * e, 3 * e) + (chance(0.3) ? pick(-7, 7) : 0), c);
      }
      case 3: {
        const std::int64_t n = count();
        return indexed(values(n, 0, 3), values(n, -6, 6), c);
      }
      case 4: {
        const std::int64_t n = count();
        return hindexed(values(n, 0, 3), values(n, -4 * e, 4 * e), c);
      }
      case 5: {
        const std::int64_t n = count(), bl = blocklength();
        if (n > 0 && bl == 0 && derived(c)) safe = false;
        return indexed_block(bl, values(n, -6, 6), c);
      }
      case 6: {
        const std::int64_t n = count(), bl = blocklength();
        if (n > 0 && bl == 0 && derived(c)) safe = false;
        return hindexed_block(bl, values(n, -4 * e, 4 * e), c);
      }
      case 7: {
        const int nd = static_cast<int>(pick(1, 3));
        std::vector<std::int64_t> sizes(nd), sub(nd), starts(nd);
        for (int d = 0; d < nd; ++d) {
          sizes[d] = pick(1, 4);
          sub[d] = pick(1, sizes[d]);
          starts[d] = pick(0, sizes[d] - sub[d]);
        }
        return subarray(sizes, sub, starts, chance(0.5) ? Order::C : Order::Fortran, c);
      }
      case 8: {
        const std::int64_t n = pick(1, 4);
        std::vector<Datatype> types{c};
        for (std::int64_t i = 1; i < n; ++i) types.push_back(chance(0.3) ? c : make(depth - 1, safe));
        std::vector<std::int64_t> bls = values(n, 0, 3), disps(n);
        std::int64_t at = 0;
        for (std::int64_t i = 0; i < n; ++i) {  // mostly increasing, like a C struct; sometimes anywhere
          disps[i] = chance(0.7) ? at : pick(-64, 64);
          at = disps[i] + bls[i] * std::max<std::int64_t>(0, types[i].extent()) + pick(0, 3);
        }
        return struct_type(bls, disps, types);
      }
      case 9:
        return resized(c, c.lb() + pick(-8, 8), std::max<std::int64_t>(0, c.extent() + pick(-8, 16)));
      default:
        return dup(c);
    }
  }

  std::mt19937_64 rng_;
  int max_depth_;
};

// One side of a typed copy (KokkosDDT::copy): `count` instances of `type`.
struct Side {
  Datatype type;
  std::int64_t count;
};

// Another layout of `count` instances of `t` with the same signature: the type itself, its instances as one
// contiguous type, spread out with gaps (hvector), or in reverse order (a struct). Committed.
inline Side rearranged(const Datatype& t, std::int64_t count, TypeGenerator& gen) {
  const std::int64_t span = std::max<std::int64_t>(1, t.true_extent()) + gen.pick(0, 24);
  Datatype d;
  std::int64_t n = 1;
  switch (count == 0 ? 0 : gen.pick(0, 3)) {
    case 0:
      d = t, n = count;
      break;
    case 1:
      d = contiguous(count, t);
      break;
    case 2:
      d = hvector(count, 1, gen.chance(0.3) ? -span : span, t);
      break;
    default: {
      std::vector<std::int64_t> ones(count, 1), disps(count);
      for (std::int64_t i = 0; i < count; ++i) disps[i] = (count - 1 - i) * span;
      d = struct_type(ones, disps, std::vector<Datatype>(count, t));
    }
  }
  d.commit();
  return {d, n};
}

}  // namespace KokkosDDT::Test
