// SPDX-License-Identifier: BSD-3-Clause
// Explicit instantiation of the scatters (every schedule, mode and form goes through CollectiveFactory).
// cmake/KokkosDDT_ETI.cmake compiles this file once per instantiated backend, with KOKKOSDDT_ETI_SPACE naming it; the
// header declares these instantiations extern for every other translation unit.
#ifndef KOKKOSDDT_ETI_SPACE
#error "compiled through cmake/KokkosDDT_ETI.cmake, which defines KOKKOSDDT_ETI_SPACE"
#endif

#include "KokkosDDT_Collectives.hpp"

namespace KokkosDDT::Impl {

template struct CollectiveFactory<KOKKOSDDT_ETI_SPACE, false>;

}  // namespace KokkosDDT::Impl
