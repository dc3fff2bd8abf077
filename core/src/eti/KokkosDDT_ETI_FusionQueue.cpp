// SPDX-License-Identifier: BSD-3-Clause
// Explicit instantiation of the fusion queue: its checks, hazards and fused kernel. Compiled once per backend
// (KOKKOSDDT_ETI_SPACE: cmake/KokkosDDT_ETI.cmake); declared extern for every other translation unit.
#include "KokkosDDT_FusionQueue_impl.hpp"

namespace KokkosDDT {

template class FusionQueue<KOKKOSDDT_ETI_SPACE>;

}  // namespace KokkosDDT
