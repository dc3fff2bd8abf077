#pragma once
// Writes a normalized layout tree in preorder into the fixed-length node array and the lookaside array.

#include <cstdint>
#include <vector>

#include "impl/KokkosDDT_Descriptor.hpp"
#include "impl/KokkosDDT_Layout.hpp"

namespace KokkosDDT::Impl {

struct SerializedType {
  std::vector<Node> nodes;  // nodes[0] is the root
  std::vector<std::int64_t> lookaside;
};

SerializedType serialize(const LayoutNode& root);

}  // namespace KokkosDDT::Impl
