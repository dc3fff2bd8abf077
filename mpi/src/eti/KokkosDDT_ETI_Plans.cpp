// SPDX-License-Identifier: BSD-3-Clause
// Explicit instantiation of the halo plans and the exchange plans. Compiled once per backend
// (KOKKOSDDT_ETI_SPACE: cmake/KokkosDDT_ETI.cmake); declared extern for every other translation unit.
#include "KokkosDDT_ExchangePlan.hpp"
#include "KokkosDDT_HaloPlan.hpp"

namespace KokkosDDT::mpi {

template class HaloPlan<KOKKOSDDT_ETI_SPACE>;
template class ExchangePlan<KOKKOSDDT_ETI_SPACE>;

}  // namespace KokkosDDT::mpi
