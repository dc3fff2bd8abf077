// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One element combined into another, as MPI_Reduce_local(incoming, existing) combines them with a predefined
// operation (MPICH's expressions, so that the host oracle compares bit for bit): existing = existing OP incoming, with
// Min/Max as (existing < incoming ? existing : incoming) and (existing > incoming ? existing : incoming), integers
// wrapping as their unsigned type does (MPI leaves signed overflow to C; every MPI wraps), a complex product as
// (ar br - ai bi, ar bi + ai br). The same code runs on hosts and devices; elements may be unaligned.

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <Kokkos_Macros.hpp>

#include "KokkosDDT_Datatype.hpp"
#include "KokkosDDT_Op.hpp"
#include "KokkosDDT_Words.hpp"

namespace KokkosDDT::Impl {

template <class F>
struct ComplexOf {
  F re, im;
};

// a OP b for an integer type T, wrapping (products of narrow types promote to unsigned int, not int).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T combine_integer(Op op, T a, T b) {
  using U = std::make_unsigned_t<T>;
  using Wide = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  switch (op) {
    case Op::Sum:
      return static_cast<T>(
          static_cast<U>(static_cast<Wide>(static_cast<U>(a)) + static_cast<Wide>(static_cast<U>(b))));
    case Op::Prod:
      return static_cast<T>(
          static_cast<U>(static_cast<Wide>(static_cast<U>(a)) * static_cast<Wide>(static_cast<U>(b))));
    case Op::Min:
      return a < b ? a : b;
    case Op::Max:
      return a > b ? a : b;
    case Op::Band:
      return static_cast<T>(a & b);
    case Op::Bor:
      return static_cast<T>(a | b);
    case Op::Bxor:
      return static_cast<T>(a ^ b);
    default:  // Replace
      return b;
  }
}

template <class T>
KOKKOS_FORCEINLINE_FUNCTION T combine_floating(Op op, T a, T b) {
  switch (op) {
    case Op::Sum:
      return a + b;
    case Op::Prod:
      return a * b;
    case Op::Min:
      return a < b ? a : b;
    case Op::Max:
      return a > b ? a : b;
    default:  // Replace (the check before the launch admits nothing else)
      return b;
  }
}

template <class F>
KOKKOS_FORCEINLINE_FUNCTION ComplexOf<F> combine_complex(Op op, ComplexOf<F> a, ComplexOf<F> b) {
  switch (op) {
    case Op::Sum:
      return {a.re + b.re, a.im + b.im};
    case Op::Prod:
      return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    default:  // Replace
      return b;
  }
}

// T's value at `at`, and stored there (unaligned-safe: memcpy, which compiles to one move where aligned).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T load_value(const char* at) {
  T v;
  std::memcpy(&v, at, sizeof(T));
  return v;
}
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void store_value(char* at, const T& v) {
  std::memcpy(at, &v, sizeof(T));
}

// a OP b for any element type T.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T combine_value(Op op, T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return combine_integer(op, a, b);
  else if constexpr (std::is_floating_point_v<T>)
    return combine_floating(op, a, b);
  else
    return combine_complex(op, a, b);
}

// The element of T at `dst` combined with the one at `src`.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void combine_one(Op op, char* dst, const char* src) {
  store_value(dst, combine_value(op, load_value<T>(dst), load_value<T>(src)));
}

// The n elements of T at `dst` combined with those at `src`, n * sizeof(T) bytes each: as T where both are aligned
// for it (the fused kernel's words of a fused request usually are), byte by byte otherwise.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION void combine_elements(Op op, char* dst, const char* src, std::int64_t n) {
  constexpr std::uintptr_t align = alignof(T);
  if (((reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src)) & (align - 1)) == 0) {
    T* d = reinterpret_cast<T*>(dst);
    const T* s = reinterpret_cast<const T*>(src);
    for (std::int64_t i = 0; i < n; ++i) d[i] = combine_value(op, d[i], s[i]);
  } else {
    for (std::int64_t i = 0; i < n; ++i) combine_one<T>(op, dst + i * sizeof(T), src + i * sizeof(T));
  }
}

// Calls f(T{}) with the C++ type of primitive p's elements (Byte as std::uint8_t; Char, Bool and Opaque, which only
// Replace applies to, as bytes).
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class F>
KOKKOS_FORCEINLINE_FUNCTION void with_element_type(Primitive p, F&& f) {
  switch (p) {
    case Primitive::Int8:
      return f(std::int8_t{});
    case Primitive::Int16:
      return f(std::int16_t{});
    case Primitive::Int32:
      return f(std::int32_t{});
    case Primitive::Int64:
      return f(std::int64_t{});
    case Primitive::UInt16:
      return f(std::uint16_t{});
    case Primitive::UInt32:
      return f(std::uint32_t{});
    case Primitive::UInt64:
      return f(std::uint64_t{});
    case Primitive::Float:
      return f(float{});
    case Primitive::Double:
      return f(double{});
    case Primitive::ComplexFloat:
      return f(ComplexOf<float>{});
    case Primitive::ComplexDouble:
      return f(ComplexOf<double>{});
    default:  // Byte, UInt8, Char, Bool, Opaque
      return f(std::uint8_t{});
  }
}

// `bytes` bytes of primitive p's elements at `dst` combined with those at `src` (a multiple of its size).
KOKKOS_INLINE_FUNCTION void combine_bytes(Op op, Primitive p, char* dst, const char* src, std::int64_t bytes) {
  with_element_type(p, [&](auto t) {
    using T = decltype(t);
    combine_elements<T>(op, dst, src, bytes / static_cast<std::int64_t>(sizeof(T)));
  });
}

// a OP b without a branch: every operation's result computed and the one asked for selected (bitwise what
// combine_value gives), so that code combining many elements in a row stays straight (the device kernels combine
// several words at once: FusedTile::combine_words).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T combine_selected(Op op, T a, T b) {
  T r = b;  // Replace (and an operation T has no meaning for, as combine_value)
  r = op == Op::Sum ? combine_value(Op::Sum, a, b) : r;
  r = op == Op::Prod ? combine_value(Op::Prod, a, b) : r;
  if constexpr (std::is_arithmetic_v<T>) {
    r = op == Op::Min ? combine_value(Op::Min, a, b) : r;
    r = op == Op::Max ? combine_value(Op::Max, a, b) : r;
  }
  if constexpr (std::is_integral_v<T>) {
    r = op == Op::Band ? combine_value(Op::Band, a, b) : r;
    r = op == Op::Bor ? combine_value(Op::Bor, a, b) : r;
    r = op == Op::Bxor ? combine_value(Op::Bxor, a, b) : r;
  }
  return r;
}

// A word's bytes as whole elements of T (the word's own alignment is theirs or more).
template <int W, class T>
union WordOf {
  Word<W> word;
  T values[W / sizeof(T)];
};

// Word `incoming` combined into word `existing`, both in registers: W bytes of whole elements of T (read through a
// union, as the device compilers keep it in registers; byte copies into T made them shuffle bytes).
template <int W, class T>
KOKKOS_FORCEINLINE_FUNCTION void combine_in_word(Op op, Word<W>& existing, const Word<W>& incoming) {
  for (int i = 0; i + static_cast<int>(sizeof(T)) <= W; i += static_cast<int>(sizeof(T))) {
    T a, b;
    std::memcpy(&a, existing.bytes + i, sizeof(T));
    std::memcpy(&b, incoming.bytes + i, sizeof(T));
    a = combine_selected(op, a, b);
    std::memcpy(existing.bytes + i, &a, sizeof(T));
  }
}

// The size of primitive p's elements as with_element_type gives them (1 for those it takes as bytes).
KOKKOS_INLINE_FUNCTION int element_size(Primitive p) {
  int size = 1;
  with_element_type(p, [&](auto t) { size = static_cast<int>(sizeof(t)); });
  return size;
}

// Word `incoming` combined into word `existing` as elements of primitive p (the word holds whole ones).
template <int W>
KOKKOS_FORCEINLINE_FUNCTION void combine_in_word(Op op, Primitive p, Word<W>& existing, const Word<W>& incoming) {
  with_element_type(p, [&](auto t) {
    using T = decltype(t);
    if constexpr (sizeof(T) <= W) combine_in_word<W, T>(op, existing, incoming);
  });
}

// W bytes at `at` in registers, and stored there: one move where `at` is aligned for a word, bytes otherwise.
template <int W>
KOKKOS_FORCEINLINE_FUNCTION Word<W> load_word_anywhere(const char* at) {
  if ((reinterpret_cast<std::uintptr_t>(at) & (W - 1)) == 0) return load_word<W>(at);
  Word<W> w;
  for (int i = 0; i < W; ++i) w.bytes[i] = static_cast<unsigned char>(at[i]);
  return w;
}
template <int W>
KOKKOS_FORCEINLINE_FUNCTION void store_word_anywhere(char* at, const Word<W>& w) {
  if ((reinterpret_cast<std::uintptr_t>(at) & (W - 1)) == 0) return store_word<W>(at, w);
  for (int i = 0; i < W; ++i) at[i] = static_cast<char>(w.bytes[i]);
}

// One word of a Direction::Combine transfer on devices: W bytes of whole elements of primitive `element` at `dst`
// combined with those at `src` (either may be unaligned: the word is the elements' size where the buffers' alignment is
// less). Both words in registers, combined there by one choice of element type and a branch-free choice of operation:
// the walking kernels combine at several places each, and a per-element switch at each made them too large to inline.
template <int W>
KOKKOS_FORCEINLINE_FUNCTION void combine_word(std::int8_t op, std::int8_t element, char* dst, const char* src) {
  Word<W> existing = load_word_anywhere<W>(dst);
  combine_in_word<W>(static_cast<Op>(op), static_cast<Primitive>(element), existing, load_word_anywhere<W>(src));
  store_word_anywhere<W>(dst, existing);
}

}  // namespace KokkosDDT::Impl
