// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The units a traversal moves: aligned words of W = 1, 2, 4, 8 or 16 bytes, the copies built from them, and the one
// dispatcher from a word size chosen at run time to the compile-time W the copies are specialized for.

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <Kokkos_Macros.hpp>

namespace KokkosDDT::Impl {

// Which way bytes move. Runtime: taken from the request at run time (the fused kernel on devices, see
// DeviceInterleave). Copy: typed to typed, both sides located per position (TypedCopy; a fused request's kind).
// Combine: an unpack that combines each incoming element into the one there with an operation (a fused request's
// kind: its record names the operation and the one primitive type of its elements; see KokkosDDT_Combine.hpp).
enum class Direction { Pack, Unpack, Runtime, Copy, Combine };

template <int W>
struct alignas(W) Word {
  unsigned char bytes[W];
};

// Copies n bytes (a multiple of W; both pointers W-aligned). Devices move aligned W-byte words; hosts, where
// unaligned moves are cheap, copy short runs with inlined fixed-size moves, the last one overlapping (run lengths
// repeat, so the branches predict), and long runs with memcpy.
// base + offset as an address. A typed buffer given with absolute displacements is null, and a copy between types of
// one shape moves the destination's buffer by their delta (record_of_copy), so only the sum need be an address:
// pointer arithmetic on the parts would be undefined (UBSan reports it as a pointer overflow).
KOKKOS_FORCEINLINE_FUNCTION char* address_at(char* base, std::int64_t offset) {
  return reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(offset));
}

template <int W>
KOKKOS_FORCEINLINE_FUNCTION void copy_bytes(char* dst, const char* src, std::int64_t n) {
  KOKKOS_IF_ON_HOST((
      if (n == W) { std::memcpy(dst, src, W); } else if (n >= 256) {
        std::memcpy(dst, src, n);
      } else if (n >= 32) {  // 32-byte moves, the last one overlapping its predecessor (src and dst never overlap)
        for (std::int64_t i = 0; i < n - 32; i += 32) std::memcpy(dst + i, src + i, 32);
        std::memcpy(dst + n - 32, src + n - 32, 32);
      } else if (n >= 16) {
        std::memcpy(dst, src, 16);
        std::memcpy(dst + n - 16, src + n - 16, 16);
      } else if (n >= 8) {
        std::memcpy(dst, src, 8);
        std::memcpy(dst + n - 8, src + n - 8, 8);
      } else {
        for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i];
      }))
  KOKKOS_IF_ON_DEVICE((for (std::int64_t i = 0; i < n; i += W) {
    *reinterpret_cast<Word<W>*>(dst + i) = *reinterpret_cast<const Word<W>*>(src + i);
  }))
}

// One aligned word, loaded and stored as such (host: memcpy, which compiles to the same move).
template <int W>
KOKKOS_FORCEINLINE_FUNCTION Word<W> load_word(const char* src) {
  Word<W> w;
  KOKKOS_IF_ON_HOST((std::memcpy(&w, src, W);))
  KOKKOS_IF_ON_DEVICE((w = *reinterpret_cast<const Word<W>*>(src);))
  return w;
}

template <int W>
KOKKOS_FORCEINLINE_FUNCTION void store_word(char* dst, const Word<W>& w) {
  KOKKOS_IF_ON_HOST((std::memcpy(dst, &w, W);))
  KOKKOS_IF_ON_DEVICE((*reinterpret_cast<Word<W>*>(dst) = w;))
}

// Runs of 9-15, 17-31 and 33-63 bytes (the seed's 17-byte struct, 5-double points): two overlapping moves on hosts,
// bytes on devices (the device traversal moves words and never calls these).
KOKKOS_FORCEINLINE_FUNCTION void copy_8_16(char* dst, const char* src, std::int64_t n) {
  KOKKOS_IF_ON_HOST((std::memcpy(dst, src, 8); std::memcpy(dst + n - 8, src + n - 8, 8);))
  KOKKOS_IF_ON_DEVICE((for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i];))
}

KOKKOS_FORCEINLINE_FUNCTION void copy_16_32(char* dst, const char* src, std::int64_t n) {
  KOKKOS_IF_ON_HOST((std::memcpy(dst, src, 16); std::memcpy(dst + n - 16, src + n - 16, 16);))
  KOKKOS_IF_ON_DEVICE((for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i];))
}

KOKKOS_FORCEINLINE_FUNCTION void copy_32_64(char* dst, const char* src, std::int64_t n) {
  KOKKOS_IF_ON_HOST((std::memcpy(dst, src, 32); std::memcpy(dst + n - 32, src + n - 32, 32);))
  KOKKOS_IF_ON_DEVICE((for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i];))
}

// Calls f(std::integral_constant<int, W>{}) for the word size `word` (16, 8, 4, 2, or 1 for anything else): the
// one place a run-time word size becomes a template argument. Host code passes host-only callables (a launch), device
// code device ones: nvcc's execution-space check of the call is off, so that a host caller's instantiation stays
// host-only instead of being hidden from the device pass (which then drops the kernels the callable launches).
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class F>
KOKKOS_FORCEINLINE_FUNCTION decltype(auto) with_word_size(int word, F&& f) {
  switch (word) {
    case 16:
      return f(std::integral_constant<int, 16>{});
    case 8:
      return f(std::integral_constant<int, 8>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    default:
      return f(std::integral_constant<int, 1>{});
  }
}

}  // namespace KokkosDDT::Impl
