// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Division by a constant known at commit time, as a multiply-high and a shift (Granlund & Montgomery 1994, Thm 4.2).
// The traversal divides once per tree level per element; a 64-bit hardware division costs tens of cycles on a CPU
// and a ~70-instruction subroutine on a GPU, the multiply-high a few.
//
// For a divisor d in [1, 2^63) let l = ceil(log2 d). With m = ceil(2^(63+l) / d) (< 2^64 when d is not a power of
// two), floor(n / d) = floor(m * n / 2^(63+l)) for every n in [0, 2^63). Powers of two just shift.

#include <cstdint>

#include <Kokkos_Macros.hpp>

namespace KokkosDDT::Impl {

struct Divisor {
  std::uint64_t magic = 0;  // 0: power of two, shift only
  std::int32_t shift = 0;
  std::int32_t pad_ = 0;

  // Host only. d <= 0 is treated as 1 (never used for division: empty nodes are removed at commit).
  static Divisor make(std::int64_t d) {
    Divisor r;
    if (d <= 1) return r;
    const std::uint64_t u = static_cast<std::uint64_t>(d);
    int l = 0;
    while ((std::uint64_t(1) << l) < u) ++l;  // l = ceil(log2 d), 1 <= l <= 63
    if ((std::uint64_t(1) << l) == u) {
      r.shift = l;
      return r;
    }
    const unsigned __int128 num = static_cast<unsigned __int128>(1) << (63 + l);
    r.magic = static_cast<std::uint64_t>((num + static_cast<unsigned __int128>(d) - 1) / static_cast<std::uint64_t>(d));
    r.shift = l - 1;
    return r;
  }

  // n must be in [0, 2^63).
  KOKKOS_FORCEINLINE_FUNCTION std::int64_t divide(std::int64_t n) const {
    const std::uint64_t u = static_cast<std::uint64_t>(n);
    if (magic == 0) return static_cast<std::int64_t>(u >> shift);
    const std::uint64_t hi = static_cast<std::uint64_t>((static_cast<unsigned __int128>(magic) * u) >> 64);
    return static_cast<std::int64_t>(hi >> shift);
  }
};

}  // namespace KokkosDDT::Impl
