// SPDX-License-Identifier: BSD-3-Clause
// Explicit instantiation of the fused kernel: its launch and its run of one record on the calling thread.
// cmake/KokkosDDT_ETI.cmake compiles this file once per instantiated backend, with KOKKOSDDT_ETI_SPACE naming it; the
// header declares these instantiations extern for every other translation unit.
#ifndef KOKKOSDDT_ETI_SPACE
#error "compiled through cmake/KokkosDDT_ETI.cmake, which defines KOKKOSDDT_ETI_SPACE"
#endif

#include "KokkosDDT_FusedKernel.hpp"

namespace KokkosDDT::Impl {

template struct FusedLaunch<KOKKOSDDT_ETI_SPACE>;

}  // namespace KokkosDDT::Impl
