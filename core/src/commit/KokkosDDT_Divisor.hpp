// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Division by a constant known at commit time, as a multiply-high and a shift (Granlund & Montgomery 1994, Thm 4.2).
// The traversal divides once per tree level per element; a 64-bit hardware division costs tens of cycles on a CPU
// and a ~70-instruction subroutine on a GPU, the multiply-high a few.
//
// For a divisor d in [1, 2^63) let l = ceil(log2 d). With m = ceil(2^(63+l) / d) (< 2^64 when d is not a power of
// two), floor(n / d) = floor(m * n / 2^(63+l)) for every n in [0, 2^63). Powers of two just shift.
//
// Dividends below 2^31 (a device walk whose positions all fit 32 bits: see locate) use a 32-bit form without a branch:
// with m32 = ceil(2^(32+l) / d) - 2^32 (in [0, 2^32) as d is in (2^(l-1), 2^l]), floor(n / d) = (mulhi(n, m32) + n) >>
// l for every n in [0, 2^31): n * d < 2^(32+l) bounds the error of the ceiling, and mulhi(n, m32) + n < 2n does not
// overflow. Powers of two (m32 = 0) just shift, d = 1 included; divisors of 2^31 and more, whose quotient is 0 (as
// n >> 31 is), take m32 = 0 and a shift clamped to 31. One multiply-high, an add and a shift, where the 64-bit
// multiply-high takes four multiplies on a GPU and a test of m32 would add a compare and a select.

#include <cstdint>

#include <Kokkos_Macros.hpp>

namespace KokkosDDT::Impl {

struct Divisor {
  std::uint64_t magic = 0;  // 0: power of two, shift only
  std::int16_t shift = 0;
  // Dividends below 2^31 (divide32): m32 (0: shift only) and its shift l.
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
    if (l <= 31)
      r.magic32 = static_cast<std::uint32_t>(((std::uint64_t(1) << (32 + l)) + u - 1) / u - (std::uint64_t(1) << 32));
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
    return (static_cast<std::uint32_t>((static_cast<std::uint64_t>(n) * magic32) >> 32) + n) >> shift32;
  }
};

}  // namespace KokkosDDT::Impl
