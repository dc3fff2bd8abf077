// SPDX-License-Identifier: BSD-3-Clause
// Explicit instantiation of the fused kernel: its launch and its run of one record on the calling thread. Compiled once
// per backend (KOKKOSDDT_ETI_SPACE: cmake/KokkosDDT_ETI.cmake); declared extern for every other translation unit.
#include "KokkosDDT_FusedLaunch.hpp"

namespace KokkosDDT::Impl {

template struct FusedLaunch<KOKKOSDDT_ETI_SPACE>;

}  // namespace KokkosDDT::Impl
