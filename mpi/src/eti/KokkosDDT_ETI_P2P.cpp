// SPDX-License-Identifier: BSD-3-Clause
// Explicit instantiation of the typed messages (p2p and the collectives' messages), both ways. Compiled once per
// backend (KOKKOSDDT_ETI_SPACE: cmake/KokkosDDT_ETI.cmake); declared extern for every other translation unit.
#include "KokkosDDT_MPIP2P.hpp"

namespace KokkosDDT::Impl {

template struct MessageFactory<KOKKOSDDT_ETI_SPACE, Direction::Pack>;
template struct MessageFactory<KOKKOSDDT_ETI_SPACE, Direction::Unpack>;

}  // namespace KokkosDDT::Impl
