// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One transfer, one launch: what pack and unpack call (TraversalLaunch). Its definition, which picks the traversal
// layout the backend wants (the host walk or the device interleave), sizes the tiles and launches on the caller's
// instance, is in KokkosDDT_Launch_impl.hpp: compiled once per backend in the library, and included here only where
// some enabled backend is not (KOKKOSDDT_HEADER_DEFINITIONS).

#include <cstdint>

#include "KokkosDDT_Committed.hpp"
#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_Words.hpp"

namespace KokkosDDT::Impl {

// How transfers on ExecSpace are laid out and launched (KokkosDDT_Launch_impl.hpp).
template <class ExecSpace>
struct LaunchShape;

// Moves stream bytes [begin, end) of `type` between `typed` and `packed` on `space` (asynchronously), in `word`-byte
// words. A class, so that the library compiles it once per backend and direction (explicit instantiation).
template <class ExecSpace, Direction Dir, class Launch = LaunchShape<ExecSpace>>
struct TraversalLaunch {
  static void launch(const ExecSpace& space, const CommittedType& type, char* typed, char* packed, std::int64_t begin,
                     std::int64_t end, int word);
};

// Compiled once per backend in the library (core/src/eti/KokkosDDT_ETI_Traversal.cpp);
// other shapes and spaces instantiate the definition in KokkosDDT_Launch_impl.hpp.
#define KOKKOSDDT_EXTERN_TRAVERSAL(Space)                         \
  extern template struct TraversalLaunch<Space, Direction::Pack>; \
  extern template struct TraversalLaunch<Space, Direction::Unpack>;
KOKKOSDDT_ETI_SPACES(KOKKOSDDT_EXTERN_TRAVERSAL)
#undef KOKKOSDDT_EXTERN_TRAVERSAL

}  // namespace KokkosDDT::Impl

#if KOKKOSDDT_HEADER_DEFINITIONS
#include "KokkosDDT_Launch_impl.hpp"
#endif
