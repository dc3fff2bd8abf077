// SPDX-License-Identifier: BSD-3-Clause
// Explicit instantiation of the typed messages (p2p and the collectives' messages), both ways.
// cmake/KokkosDDT_ETI.cmake compiles this file once per instantiated backend, with KOKKOSDDT_ETI_SPACE naming it; the
// headers declare these instantiations extern for every other translation unit.
#ifndef KOKKOSDDT_ETI_SPACE
#error "compiled through cmake/KokkosDDT_ETI.cmake, which defines KOKKOSDDT_ETI_SPACE"
#endif

#include "KokkosDDT_MPIP2P.hpp"

namespace KokkosDDT::Impl {

template struct MessageFactory<KOKKOSDDT_ETI_SPACE, Direction::Pack>;
template struct MessageFactory<KOKKOSDDT_ETI_SPACE, Direction::Unpack>;

}  // namespace KokkosDDT::Impl
