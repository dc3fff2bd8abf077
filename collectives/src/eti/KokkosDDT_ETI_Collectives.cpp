// SPDX-License-Identifier: BSD-3-Clause
// Explicit instantiation of the gathers and the scatters (every schedule, mode and form goes through
// CollectiveFactory). Compiled once per backend (KOKKOSDDT_ETI_SPACE: cmake/KokkosDDT_ETI.cmake); declared extern for
// every other translation unit.
#include "KokkosDDT_Collectives.hpp"

namespace KokkosDDT::Impl {

template struct CollectiveFactory<KOKKOSDDT_ETI_SPACE, true>;
template struct CollectiveFactory<KOKKOSDDT_ETI_SPACE, false>;

}  // namespace KokkosDDT::Impl
