// SPDX-License-Identifier: BSD-3-Clause
// Explicit instantiation of the persistent step under both plans. Compiled once per backend
// (KOKKOSDDT_ETI_SPACE: cmake/KokkosDDT_ETI.cmake); declared extern for every other translation unit.
#include "KokkosDDT_ExchangeEngine.hpp"

namespace KokkosDDT::Impl {

template class ExchangeEngine<KOKKOSDDT_ETI_SPACE>;

}  // namespace KokkosDDT::Impl
