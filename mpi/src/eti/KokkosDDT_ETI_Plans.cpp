// SPDX-License-Identifier: BSD-3-Clause
// Explicit instantiation of the halo plans and the exchange plans.
// cmake/KokkosDDT_ETI.cmake compiles this file once per instantiated backend, with KOKKOSDDT_ETI_SPACE naming it; the
// headers declare these instantiations extern for every other translation unit.
#ifndef KOKKOSDDT_ETI_SPACE
#error "compiled through cmake/KokkosDDT_ETI.cmake, which defines KOKKOSDDT_ETI_SPACE"
#endif

#include "KokkosDDT_ExchangePlan.hpp"
#include "KokkosDDT_HaloPlan.hpp"

namespace KokkosDDT::mpi {

template class HaloPlan<KOKKOSDDT_ETI_SPACE>;
template class ExchangePlan<KOKKOSDDT_ETI_SPACE>;

}  // namespace KokkosDDT::mpi
