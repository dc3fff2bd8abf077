// SPDX-License-Identifier: BSD-3-Clause
// Explicit instantiation of the persistent step under both plans.
// cmake/KokkosDDT_ETI.cmake compiles this file once per instantiated backend, with KOKKOSDDT_ETI_SPACE naming it; the
// headers declare these instantiations extern for every other translation unit.
#ifndef KOKKOSDDT_ETI_SPACE
#error "compiled through cmake/KokkosDDT_ETI.cmake, which defines KOKKOSDDT_ETI_SPACE"
#endif

#include "KokkosDDT_ExchangeEngine.hpp"

namespace KokkosDDT::Impl {

template class ExchangeEngine<KOKKOSDDT_ETI_SPACE>;

}  // namespace KokkosDDT::Impl
