// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where a raw pointer lives, as the CUDA runtime sees it (KokkosDDT_CudaPointer.cpp).

#include "KokkosDDT_BackendTraits.hpp"

namespace KokkosDDT::Impl {

PointerKind cuda_pointer_kind(const void* p);
bool cuda_is_device_pointer(const void* p);  // the one question host execution spaces ask
bool cuda_device_reads_pageable_memory();    // HMM/ATS systems: GPU kernels may touch pageable host memory

}  // namespace KokkosDDT::Impl
