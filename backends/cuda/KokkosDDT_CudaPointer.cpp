// Where a raw pointer lives, as the CUDA runtime sees it (see KokkosDDT_PointerCheck.hpp).
#include <cuda_runtime.h>

#include "KokkosDDT_PointerCheck.hpp"

namespace KokkosDDT::Impl {

static PointerKind query(const void* p);

PointerKind pointer_kind(const void* p) {
  // The last device pointers seen by this host thread: a halo exchange passes the same buffers every step, and the
  // query costs ~0.15 us. Only device memory is remembered: its addresses stay device addresses for the process's
  // life, while freed pinned host memory may come back from malloc as pageable.
  thread_local const void* known[8] = {};
  thread_local int next = 0;
  for (const void* k : known)
    if (k == p) return PointerKind::Device;
  const PointerKind kind = query(p);
  if (kind == PointerKind::Device) {
    known[next] = p;
    next = (next + 1) % 8;
  }
  return kind;
}

static PointerKind query(const void* p) {
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
