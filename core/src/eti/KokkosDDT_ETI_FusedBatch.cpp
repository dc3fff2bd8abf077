// SPDX-License-Identifier: BSD-3-Clause
// Explicit instantiation of the fixed batches (the plans' steps) and their fused kernel. Compiled once per backend
// (KOKKOSDDT_ETI_SPACE: cmake/KokkosDDT_ETI.cmake); declared extern for every other translation unit.
#include "KokkosDDT_FusedBatch.hpp"

namespace KokkosDDT::Impl {

template class FusedBatch<KOKKOSDDT_ETI_SPACE>;

}  // namespace KokkosDDT::Impl
