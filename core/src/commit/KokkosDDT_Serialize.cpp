// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_Serialize.hpp"

#include "KokkosDDT_Error.hpp"

namespace KokkosDDT::Impl {

namespace {

constexpr const char* kWhere = "KokkosDDT::Datatype::commit";

DescriptorNode header(const LayoutNode& n, std::int64_t lookaside) {
  DescriptorNode node{};
  node.kind = n.kind;
  node.child = -1;
  node.disp = n.disp;
  node.size = n.size;
  node.extent = n.extent;
  node.count = n.kind == LayoutKind::Contig ? 1 : n.count;  // Contig: one block, the run itself
  node.stride = n.stride;
  node.elem = n.elem_size();
  node.elem_extent = n.elem_extent();
  node.lookaside = lookaside;
  node.div_elem = Divisor::make(node.elem);
  node.div_size = Divisor::make(n.size);
  return node;
}

// Writes a node's lookaside entries (Lookaside's layout): the prefix sums of `bytes`, then `disps`; children are
// filled in by the caller once their nodes exist.
void write_blocks(const std::vector<std::int64_t>& bytes, const std::vector<std::int64_t>& disps, SerializedType& out) {
  std::int64_t sum = 0;
  out.lookaside.push_back(0);
  for (std::int64_t b : bytes) out.lookaside.push_back(sum = checked_add(sum, b, kWhere, "type"));
  out.lookaside.insert(out.lookaside.end(), disps.begin(), disps.end());
}

std::int32_t emit(const LayoutNode& n, SerializedType& out) {
  const auto index = static_cast<std::int32_t>(out.nodes.size());
  const auto start = static_cast<std::int64_t>(out.lookaside.size());
  out.nodes.push_back(header(n, start));
  if (n.kind != LayoutKind::Contig && n.kind != LayoutKind::Struct && n.blocklength != 1)
    throw_error(ErrorCode::Internal, kWhere, "type",
                "serialize met blocks of " + std::to_string(n.blocklength) + " elements, which normalize() removes");
  switch (n.kind) {
    case LayoutKind::Contig:
    case LayoutKind::Strided:
      break;
    case LayoutKind::IndexedBlock:
      out.lookaside.insert(out.lookaside.end(), n.disps.begin(), n.disps.end());
      break;
    case LayoutKind::Indexed: {
      std::vector<std::int64_t> bytes;
      for (std::int64_t l : n.lens) bytes.push_back(checked_mul(l, n.elem_size(), kWhere, "type"));
      write_blocks(bytes, n.disps, out);
      break;
    }
    case LayoutKind::Struct: {
      std::vector<std::int64_t> bytes, disps;
      for (const auto& f : n.fields) {
        bytes.push_back(checked_mul(f.len, f.elem_size(), kWhere, "type"));
        disps.push_back(f.disp);
      }
      write_blocks(bytes, disps, out);
      const std::size_t children = out.lookaside.size();
      out.lookaside.resize(children + n.fields.size(), -1);
      for (std::size_t i = 0; i < n.fields.size(); ++i)
        if (n.fields[i].child) {
          const std::int32_t c = emit(*n.fields[i].child, out);
          out.lookaside[children + i] = c;
        }
      return index;
    }
  }
  if (n.kind != LayoutKind::Contig && n.child) {
    const std::int32_t c = emit(*n.child, out);
    out.nodes[index].child = c;
  }
  return index;
}

// The lookaside entries emit() writes for the tree under n (to allocate them at once: long index lists would
// otherwise be copied as the array grows).
std::size_t lookaside_entries(const LayoutNode& n) {
  switch (n.kind) {
    case LayoutKind::Contig:
      return 0;
    case LayoutKind::IndexedBlock:
      return n.disps.size() + (n.child ? lookaside_entries(*n.child) : 0);
    case LayoutKind::Indexed:
      return 2 * n.disps.size() + 1 + (n.child ? lookaside_entries(*n.child) : 0);
    case LayoutKind::Struct: {
      std::size_t total = 3 * n.fields.size() + 1;
      for (const auto& f : n.fields)
        if (f.child) total += lookaside_entries(*f.child);
      return total;
    }
    default:
      return n.child ? lookaside_entries(*n.child) : 0;
  }
}

}  // namespace

SerializedType serialize(const LayoutNode& root) {
  SerializedType out;
  out.nodes.reserve(static_cast<std::size_t>(node_count(root)));
  out.lookaside.reserve(lookaside_entries(root));
  emit(root, out);
  return out;
}

}  // namespace KokkosDDT::Impl
