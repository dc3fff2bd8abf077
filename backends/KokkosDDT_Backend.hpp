// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The one header core includes from backends/: BackendTraits for every execution space this Kokkos enables, and the
// build's pointer query. The only place that asks which backends are enabled.

#include "KokkosDDT_BackendTraits.hpp"

#if defined(KOKKOS_ENABLE_SERIAL)
#include "KokkosDDT_Backend_Serial.hpp"
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
#include "KokkosDDT_Backend_OpenMP.hpp"
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#include "KokkosDDT_Backend_Cuda.hpp"
#endif

namespace KokkosDDT::Impl {

// Where a raw pointer lives, asked of the build's device runtime (raw pointers carry no memory space; Views are
// checked at compile time instead). Unknown where no runtime can tell.
inline PointerKind pointer_kind(const void* p) {
#if defined(KOKKOS_ENABLE_CUDA)
  return cuda_pointer_kind(p);
#else
  (void)p;
  return PointerKind::Unknown;
#endif
}

// Whether a raw pointer is device memory, as far as the build's device runtime can tell (what host execution spaces
// refuse; cheaper than pointer_kind on the host buffers they are given).
inline bool is_device_pointer(const void* p) {
#if defined(KOKKOS_ENABLE_CUDA)
  return cuda_is_device_pointer(p);
#else
  (void)p;
  return false;
#endif
}

// Whether device kernels may touch pageable host memory (HMM/ATS systems).
inline bool device_reads_pageable_memory() {
#if defined(KOKKOS_ENABLE_CUDA)
  return cuda_device_reads_pageable_memory();
#else
  return false;
#endif
}

}  // namespace KokkosDDT::Impl
