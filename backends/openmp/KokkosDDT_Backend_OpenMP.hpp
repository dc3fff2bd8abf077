// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// OpenMP: the host walk, one tile per thread of the instance's pool; kernels complete before parallel_for returns.

#include "KokkosDDT_BackendTraits.hpp"

namespace KokkosDDT::Impl {

template <>
struct BackendTraits<Kokkos::OpenMP> : GenericBackend<Kokkos::OpenMP> {
  static constexpr bool synchronous = true;
  // concurrency() reports the whole pool even for a partition_space instance (and constructs a default instance to
  // do so), so ask the instance itself.
  static int threads(const Kokkos::OpenMP& space) { return std::max(1, space.impl_thread_pool_size()); }
};

}  // namespace KokkosDDT::Impl
