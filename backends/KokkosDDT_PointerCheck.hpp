#pragma once
// Raw pointers carry no memory space. Where a backend can tell where a pointer lives (CUDA:
// cudaPointerGetAttributes), pack/unpack refuse one the execution space cannot dereference, instead of faulting or
// reading garbage. Views are checked at compile time instead (SpaceAccessibility).

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Error.hpp"

namespace KokkosDDT::Impl {

enum class PointerKind { Unknown, Pageable, Pinned, Device, Managed };

#if defined(KOKKOS_ENABLE_CUDA)
PointerKind pointer_kind(const void* p);  // backends/cuda/KokkosDDT_CudaPointer.cpp
bool device_reads_pageable_memory();      // HMM/ATS systems: GPU kernels may touch pageable host memory
#else
inline PointerKind pointer_kind(const void*) { return PointerKind::Unknown; }
inline bool device_reads_pageable_memory() { return false; }
#endif

// `p` is the first byte the transfer touches in that buffer.
template <class ExecSpace>
void check_pointer(const void* p, const char* where, const char* argument) {
  if (p == nullptr) return;
  const PointerKind kind = pointer_kind(p);
  if constexpr (Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible) {
    if (kind == PointerKind::Device)
      throw_error(ErrorCode::Inaccessible, where, argument,
                  std::string("is device memory, which ") + ExecSpace::name() + " cannot access");
  } else {
    if (kind == PointerKind::Pageable && !device_reads_pageable_memory())
      throw_error(ErrorCode::Inaccessible, where, argument,
                  std::string("is pageable host memory, which ") + ExecSpace::name() +
                      " cannot access; use pinned memory (Kokkos::SharedHostPinnedSpace): the kernel then writes "
                      "it directly (zero-copy)");
  }
}

}  // namespace KokkosDDT::Impl
