// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// primitive<T>(): the Datatype of one T. Fixed-width integers, float, double, complex<float>, complex<double>
// (std:: or Kokkos::), bool, char and std::byte map to named primitives; any other trivially copyable T is carried as
// sizeof(T) opaque bytes with alignof(T).

#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <Kokkos_Complex.hpp>

#include "KokkosDDT_Constructors.hpp"

namespace KokkosDDT {
namespace Impl {

template <class T>
constexpr Primitive primitive_kind() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, std::byte>)
    return Primitive::Byte;
  else if constexpr (std::is_same_v<U, char>)
    return Primitive::Char;
  else if constexpr (std::is_same_v<U, bool>)
    return Primitive::Bool;
  else if constexpr (std::is_same_v<U, float>)
    return Primitive::Float;
  else if constexpr (std::is_same_v<U, double>)
    return Primitive::Double;
  else if constexpr (std::is_same_v<U, std::complex<float>> || std::is_same_v<U, Kokkos::complex<float>>)
    return Primitive::ComplexFloat;
  else if constexpr (std::is_same_v<U, std::complex<double>> || std::is_same_v<U, Kokkos::complex<double>>)
    return Primitive::ComplexDouble;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) {
    if constexpr (sizeof(U) == 1)
      return Primitive::Int8;
    else if constexpr (sizeof(U) == 2)
      return Primitive::Int16;
    else if constexpr (sizeof(U) == 4)
      return Primitive::Int32;
    else if constexpr (sizeof(U) == 8)
      return Primitive::Int64;
    else
      return Primitive::Opaque;
  } else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U>) {
    if constexpr (sizeof(U) == 1)
      return Primitive::UInt8;
    else if constexpr (sizeof(U) == 2)
      return Primitive::UInt16;
    else if constexpr (sizeof(U) == 4)
      return Primitive::UInt32;
    else if constexpr (sizeof(U) == 8)
      return Primitive::UInt64;
    else
      return Primitive::Opaque;
  } else
    return Primitive::Opaque;
}

}  // namespace Impl

template <class T>
const Datatype& primitive() {
  static_assert(std::is_trivially_copyable_v<T>, "KokkosDDT::primitive<T>: T must be trivially copyable");
  static const Datatype type = [] {
    constexpr Primitive kind = Impl::primitive_kind<T>();
    if constexpr (kind == Primitive::Opaque)
      return opaque(sizeof(T), alignof(T));
    else
      return named(kind);
  }();
  return type;
}

// MPI_BYTE: one uninterpreted byte.
inline const Datatype& byte() { return primitive<std::byte>(); }

}  // namespace KokkosDDT
