// SPDX-License-Identifier: BSD-3-Clause
// Explicit instantiation of copy's launch: the typed-to-typed kernels of every word size. Compiled once per backend
// (KOKKOSDDT_ETI_SPACE: cmake/KokkosDDT_ETI.cmake); declared extern for every other translation unit.
#include "KokkosDDT_Copy_impl.hpp"

namespace KokkosDDT::Impl {

template struct CopyLaunch<KOKKOSDDT_ETI_SPACE>;

}  // namespace KokkosDDT::Impl
