// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Division by a constant known at commit time, as a multiply-high and a shift (Granlund & Montgomery 1994, Thm 4.2).
// The traversal divides once per tree level per element; a 64-bit hardware division costs tens of cycles on a CPU
// and a ~70-instruction subroutine on a GPU, the multiply-high a few.
//
// For a divisor d in [1, 2^63) let l = ceil(log2 d). With m = ceil(2^(63+l) / d) (< 2^64 when d is not a power of
// two), floor(n / d) = floor(m * n / 2^(63+l)) for every n in [0, 2^63). Powers of two just shift.
//
// Dividends below 2^31 (a device walk whose positions all fit 32 bits: see locate) use the 32-bit form of the same
// theorem: m32 = ceil(2^(31+l) / d) < 2^32, floor(n / d) = floor(m32 * n / 2^(31+l)), one 32-bit multiply-high where
// the 64-bit one takes four multiplies on a GPU. Powers of two, and divisors of 2^31 and more (whose quotient is then
// 0, as n >> 31 is), shift only (m32 = 0), by a shift clamped to 31 at commit.

#include <cstdint>

#include <Kokkos_Macros.hpp>

namespace KokkosDDT::Impl {

struct Divisor {
  std::uint64_t magic = 0;  // 0: power of two, shift only
  std::int16_t shift = 0;
  // Dividends below 2^31 (divide32): m32 (0: shift only) and its shift.
  std::int16_t shift32 = 0;
  std::uint32_t magic32 = 0;

  // Host only. d <= 0 is treated as 1 (never used for division: empty nodes are removed at commit).
  static Divisor make(std::int64_t d) {
    Divisor r;
    if (d <= 1) return r;
    const std::uint64_t u = static_cast<std::uint64_t>(d);
    int l = 0;
    while ((std::uint64_t(1) << l) < u) ++l;  // l = ceil(log2 d), 1 <= l <= 63
    r.shift32 = static_cast<std::int16_t>(l < 31 ? l : 31);
    if ((std::uint64_t(1) << l) == u) {
      r.shift = static_cast<std::int16_t>(l);
      return r;
    }
    const unsigned __int128 num = static_cast<unsigned __int128>(1) << (63 + l);
    r.magic = static_cast<std::uint64_t>((num + static_cast<unsigned __int128>(d) - 1) / static_cast<std::uint64_t>(d));
    r.shift = static_cast<std::int16_t>(l - 1);
    if (l <= 31) {
      r.magic32 = static_cast<std::uint32_t>(((std::uint64_t(1) << (31 + l)) + u - 1) / u);
      r.shift32 = static_cast<std::int16_t>(l - 1);
    }
    return r;
  }

  // n must be in [0, 2^63).
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t divide(std::int64_t n) const {
    const std::uint64_t u = static_cast<std::uint64_t>(n);
    if (magic == 0) return static_cast<std::int64_t>(u >> shift);
    const std::uint64_t hi = static_cast<std::uint64_t>((static_cast<unsigned __int128>(magic) * u) >> 64);
    return static_cast<std::int64_t>(hi >> shift);
  }

  // n must be in [0, 2^31).
  KOKKOS_FORCEINLINE_FUNCTION std::uint32_t divide32(std::uint32_t n) const {
    if (magic32 == 0) return n >> shift32;
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(n) * magic32) >> 32) >> shift32;
  }
};

}  // namespace KokkosDDT::Impl
