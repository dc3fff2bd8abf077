#include "impl/KokkosDDT_Serialize.hpp"

#include <stdexcept>

namespace KokkosDDT::Impl {

namespace {

std::int32_t emit(const LayoutNode& n, SerializedType& out);

Node header(const LayoutNode& n) {
  Node node{};
  node.child = -1;
  node.disp = n.disp;
  node.size = n.size;
  node.extent = n.extent;
  node.count = n.count;
  node.stride = n.stride;
  node.elem = n.elem_size();
  node.elem_extent = n.elem_extent();
  node.div_elem = Divisor::make(node.elem);
  node.div_size = Divisor::make(n.size);
  return node;
}

// Packed bytes before each block, then the block displacements.
void emit_blocks(const std::vector<std::int64_t>& bytes, const std::vector<std::int64_t>& disps, SerializedType& out) {
  std::int64_t sum = 0;
  out.lookaside.push_back(0);
  for (std::int64_t b : bytes) out.lookaside.push_back(sum += b);
  out.lookaside.insert(out.lookaside.end(), disps.begin(), disps.end());
}

std::int32_t emit(const LayoutNode& n, SerializedType& out) {
  const auto index = static_cast<std::int32_t>(out.nodes.size());
  out.nodes.push_back(header(n));
  out.nodes[index].lookaside = static_cast<std::int64_t>(out.lookaside.size());
  switch (n.kind) {
    case LayoutKind::Contig:
      out.nodes[index].kind = kContig;
      out.nodes[index].count = 1;  // one block: the run itself
      break;
    case LayoutKind::Strided:
      out.nodes[index].kind = kStrided;
      break;
    case LayoutKind::IndexedBlock:
      out.nodes[index].kind = kIndexedBlock;
      out.lookaside.insert(out.lookaside.end(), n.disps.begin(), n.disps.end());
      break;
    case LayoutKind::Indexed: {
      out.nodes[index].kind = kIndexed;
      std::vector<std::int64_t> bytes;
      for (std::int64_t l : n.lens) bytes.push_back(l * n.elem_size());
      emit_blocks(bytes, n.disps, out);
      break;
    }
    case LayoutKind::Struct: {
      out.nodes[index].kind = kStruct;
      std::vector<std::int64_t> bytes, disps;
      for (const auto& f : n.fields) {
        bytes.push_back(f.len * f.elem_size());
        disps.push_back(f.disp);
      }
      emit_blocks(bytes, disps, out);
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
  if (n.kind != LayoutKind::Contig) {
    if (n.blocklength != 1) throw std::logic_error("KokkosDDT::Impl::serialize: blocklength left after normalize");
    if (n.child) {
      const std::int32_t c = emit(*n.child, out);
      out.nodes[index].child = c;
    }
  }
  return index;
}

}  // namespace

SerializedType serialize(const LayoutNode& root) {
  SerializedType out;
  emit(root, out);
  return out;
}

}  // namespace KokkosDDT::Impl
