// SPDX-License-Identifier: BSD-3-Clause
// Explicit instantiation of pack's and unpack's launch: the traversal kernels of every word size, both ways. Compiled
// once per backend (KOKKOSDDT_ETI_SPACE: cmake/KokkosDDT_ETI.cmake); declared extern for every other translation unit.
#include "KokkosDDT_Launch_impl.hpp"

namespace KokkosDDT::Impl {

template struct TraversalLaunch<KOKKOSDDT_ETI_SPACE, Direction::Pack>;
template struct TraversalLaunch<KOKKOSDDT_ETI_SPACE, Direction::Unpack>;

}  // namespace KokkosDDT::Impl
