// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Serial: the host walk on the calling thread; kernels complete before parallel_for returns.

#include "KokkosDDT_BackendTraits.hpp"

namespace KokkosDDT::Impl {

template <>
struct BackendTraits<Kokkos::Serial> : GenericBackend<Kokkos::Serial> {
  static constexpr bool synchronous = true;
  static int threads(const Kokkos::Serial&) { return 1; }
};

}  // namespace KokkosDDT::Impl
