// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The five kinds of layout node, shared by the layout tree (commit) and the serialized descriptor (traversal):
//
//   Contig        `size` contiguous bytes
//   Strided       `count` blocks, block i at disp + i * stride
//   IndexedBlock  `count` blocks, block i at disp + disps[i]
//   Indexed       `count` blocks, block i at disp + disps[i], holding lens[i] elements
//   Struct        fields: field i at disp + disps[i], holding lens[i] elements of its own child

#include <cstdint>

namespace KokkosDDT::Impl {

enum class LayoutKind : std::int32_t { Contig = 0, Strided = 1, IndexedBlock = 2, Indexed = 3, Struct = 4 };

}  // namespace KokkosDDT::Impl
