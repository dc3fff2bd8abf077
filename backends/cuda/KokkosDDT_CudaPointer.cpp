// SPDX-License-Identifier: BSD-3-Clause
// Where a raw pointer lives, as the CUDA runtime sees it.
#include <cuda.h>  // types only: the driver function is found at run time
#include <cuda_runtime.h>

#include <cstdint>

#include "KokkosDDT_CudaPointer.hpp"

namespace KokkosDDT::Impl {

static PointerKind query(const void* p);
static bool device_range(const void* p, std::uintptr_t& lo, std::uintptr_t& hi);

PointerKind cuda_pointer_kind(const void* p) {
  // The device allocations last seen by this host thread: a halo exchange passes the same buffers every step, at many
  // offsets (one per region), and the runtime's query costs more than a fused enqueue's other work. Only device memory
  // is remembered: its addresses stay device addresses for the process's life (the driver keeps the virtual range),
  // while freed pinned host memory may come back from malloc as pageable.
  constexpr int kRemembered = 16;
  thread_local std::uintptr_t lo[kRemembered] = {}, hi[kRemembered] = {};
  thread_local int next = 0;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  for (int i = 0; i < kRemembered; ++i)
    if (a - lo[i] < hi[i] - lo[i]) return PointerKind::Device;
  const PointerKind kind = query(p);
  if (kind == PointerKind::Device && device_range(p, lo[next], hi[next])) next = (next + 1) % kRemembered;
  return kind;
}

bool cuda_is_device_pointer(const void* p) {
  // Host execution spaces only need to know whether p is device memory, and they pass host buffers: the pages last
  // found not to be device memory are remembered too (uncached queries would cost a small host pack several times its
  // own time). Host pages stay host pages while mapped; a page freed and mapped again comes back from the host
  // allocator, outside the virtual ranges the driver reserves for device memory.
  constexpr int kPages = 16;
  constexpr std::uintptr_t kPage = 4096;
  thread_local std::uintptr_t pages[kPages] = {};
  thread_local int next = 0;
  const std::uintptr_t page = reinterpret_cast<std::uintptr_t>(p) / kPage + 1;  // + 1: 0 is an empty slot
  for (int i = 0; i < kPages; ++i)
    if (pages[i] == page) return false;
  const PointerKind kind = cuda_pointer_kind(p);
  if (kind == PointerKind::Pageable || kind == PointerKind::Pinned) {
    pages[next] = page;
    next = (next + 1) % kPages;
  }
  return kind == PointerKind::Device;
}

// The allocation holding p (the driver's cuMemGetAddressRange, found through the runtime so that we need not link
// libcuda); false if the driver cannot tell.
static bool device_range(const void* p, std::uintptr_t& lo, std::uintptr_t& hi) {
  using Function = CUresult(CUDAAPI*)(CUdeviceptr*, size_t*, CUdeviceptr);
  static const Function get_range = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &f, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      return Function(nullptr);
    }
    return reinterpret_cast<Function>(f);
  }();
  CUdeviceptr base = 0;
  size_t size = 0;
  if (get_range == nullptr || get_range(&base, &size, reinterpret_cast<CUdeviceptr>(p)) != CUDA_SUCCESS || size == 0)
    return false;
  lo = static_cast<std::uintptr_t>(base);
  hi = lo + size;
  return true;
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

bool cuda_device_reads_pageable_memory() {
  static const bool pageable = [] {
    int device = 0, value = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return false;
    if (cudaDeviceGetAttribute(&value, cudaDevAttrPageableMemoryAccess, device) != cudaSuccess) return false;
    return value != 0;
  }();
  return pageable;
}

}  // namespace KokkosDDT::Impl
