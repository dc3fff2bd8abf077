// SPDX-License-Identifier: BSD-3-Clause
// Explicit instantiation of copy's launch: the typed-to-typed kernels of every word size.
// cmake/KokkosDDT_ETI.cmake compiles this file once per instantiated backend, with KOKKOSDDT_ETI_SPACE naming it; the
// header declares these instantiations extern for every other translation unit.
#ifndef KOKKOSDDT_ETI_SPACE
#error "compiled through cmake/KokkosDDT_ETI.cmake, which defines KOKKOSDDT_ETI_SPACE"
#endif

#include "KokkosDDT_Copy.hpp"

namespace KokkosDDT::Impl {

template struct CopyLaunch<KOKKOSDDT_ETI_SPACE>;

}  // namespace KokkosDDT::Impl
