// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Writes a normalized layout tree in preorder into the fixed-length node array and the lookaside array.

#include <cstdint>
#include <vector>

#include "KokkosDDT_Descriptor.hpp"
#include "KokkosDDT_Layout.hpp"

namespace KokkosDDT::Impl {

struct SerializedType {
  std::vector<DescriptorNode> nodes;  // nodes[0] is the root
  std::vector<std::int64_t> lookaside;
};

// Throws Error(Internal) on a tree that normalize() did not produce (blocks of several elements left), and
// Error(Overflow) when a prefix sum of block bytes does not fit 64 bits.
SerializedType serialize(const LayoutNode& root);

}  // namespace KokkosDDT::Impl
