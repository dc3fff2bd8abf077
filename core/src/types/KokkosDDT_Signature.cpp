// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_Signature.hpp"

#include <array>

namespace KokkosDDT::Impl {

namespace {

constexpr std::uint64_t kPrime = (std::uint64_t(1) << 61) - 1;
constexpr std::uint64_t kBase = 0x1c6a5f3b2d4e9a7ull % kPrime;

std::uint64_t mod_mul(std::uint64_t a, std::uint64_t b) {
  unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  std::uint64_t lo = static_cast<std::uint64_t>(p & kPrime);
  std::uint64_t hi = static_cast<std::uint64_t>(p >> 61);
  std::uint64_t r = lo + hi;  // < 2^62: fold once more, then one subtraction leaves the canonical residue
  r = (r & kPrime) + (r >> 61);
  return r >= kPrime ? r - kPrime : r;
}

std::uint64_t mod_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = a + b;
  return r >= kPrime ? r - kPrime : r;
}

// kBase^exponent: one multiplication per nonzero byte of the exponent, from tables of kBase^(j * 256^k) (every
// constructor concatenates signatures: squaring anew per call was a tenth of a struct type's creation, and one
// multiplication per set bit still a twentieth).
std::uint64_t base_pow(std::uint64_t exponent) {
  using Table = std::array<std::array<std::uint64_t, 256>, 8>;
  static const Table powers = [] {
    Table t{};
    std::uint64_t unit = kBase;  // kBase^(256^k)
    for (auto& row : t) {
      row[0] = 1;
      for (int j = 1; j < 256; ++j) row[j] = mod_mul(row[j - 1], unit);
      unit = mod_mul(row[255], unit);
    }
    return t;
  }();
  std::uint64_t result = 1;
  for (int k = 0; exponent; ++k, exponent >>= 8)
    if (exponent & 255) result = mod_mul(result, powers[k][exponent & 255]);
  return result;
}

// A well-mixed nonzero value per primitive, so that distinct primitives hash apart.
std::uint64_t element_value(Primitive p) {
  std::uint64_t x = static_cast<std::uint64_t>(p) + 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x % (kPrime - 1) + 1;
}

}  // namespace

TypeSignature signature_of(Primitive p) { return {element_value(p), 1}; }

TypeSignature opaque_signature(std::int64_t bytes) { return repeat(signature_of(Primitive::Byte), bytes); }

TypeSignature concat(const TypeSignature& a, const TypeSignature& b) {
  std::uint64_t shifted = mod_mul(base_pow(static_cast<std::uint64_t>(a.length)), b.hash);
  return {mod_add(a.hash, shifted), a.length + b.length};
}

TypeSignature repeat(const TypeSignature& s, std::int64_t times) {
  // Doubling, with B^|result| and B^|power| carried along: two multiplications per bit of `times` instead of a
  // base_pow per concatenation (which made repeat O(log^2 times)).
  std::uint64_t hash = 0, scale = 1;  // result: hash and B^|result|
  std::uint64_t power = s.hash, power_scale = base_pow(static_cast<std::uint64_t>(s.length));  // s, 2^k times
  std::int64_t length = 0, power_length = s.length;
  while (times > 0) {
    if (times & 1) {
      hash = mod_add(hash, mod_mul(scale, power));
      scale = mod_mul(scale, power_scale);
      length += power_length;
    }
    times >>= 1;
    if (times) {
      power = mod_add(power, mod_mul(power_scale, power));
      power_scale = mod_mul(power_scale, power_scale);
      power_length += power_length;
    }
  }
  return {hash, length};
}

}  // namespace KokkosDDT::Impl
