// SPDX-License-Identifier: BSD-3-Clause
// Explicit instantiation of pack's and unpack's launch: the traversal kernels of every word size, both ways.
// cmake/KokkosDDT_ETI.cmake compiles this file once per instantiated backend, with KOKKOSDDT_ETI_SPACE naming it; the
// header declares these instantiations extern for every other translation unit.
#ifndef KOKKOSDDT_ETI_SPACE
#error "compiled through cmake/KokkosDDT_ETI.cmake, which defines KOKKOSDDT_ETI_SPACE"
#endif

#include "KokkosDDT_Launch.hpp"

namespace KokkosDDT::Impl {

template struct TraversalLaunch<KOKKOSDDT_ETI_SPACE, Direction::Pack>;
template struct TraversalLaunch<KOKKOSDDT_ETI_SPACE, Direction::Unpack>;

}  // namespace KokkosDDT::Impl
