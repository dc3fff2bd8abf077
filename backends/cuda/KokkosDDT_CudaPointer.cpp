// Where a raw pointer lives, as the CUDA runtime sees it (see KokkosDDT_PointerCheck.hpp).
#include <cuda_runtime.h>

#include "KokkosDDT_PointerCheck.hpp"

namespace KokkosDDT::Impl {

PointerKind pointer_kind(const void* p) {
  cudaPointerAttributes attributes;
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error state of a failed query
    return PointerKind::Unknown;
  }
  switch (attributes.type) {
    case cudaMemoryTypeUnregistered:
      return PointerKind::Pageable;
    case cudaMemoryTypeHost:
      return PointerKind::Pinned;
    case cudaMemoryTypeDevice:
      return PointerKind::Device;
    case cudaMemoryTypeManaged:
      return PointerKind::Managed;
  }
  return PointerKind::Unknown;
}

bool device_reads_pageable_memory() {
  static const bool pageable = [] {
    int device = 0, value = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return false;
    if (cudaDeviceGetAttribute(&value, cudaDevAttrPageableMemoryAccess, device) != cudaSuccess) return false;
    return value != 0;
  }();
  return pageable;
}

}  // namespace KokkosDDT::Impl
