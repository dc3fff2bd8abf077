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
  node.bucket_shift = -1;
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

// Nodes with at least this many blocks get a bucket table: below it, find_block's first guess and a few probes find
// the block as fast.
constexpr std::int64_t kBucketMinBlocks = 32;

// Appends node `index`'s bucket table (Lookaside::buckets) after its other entries, which start at `start`. Buckets are
// at most the mean block length, a power of two, so the table has at most 2 count + 1 entries, and a bucket holds few
// block starts unless block lengths vary wildly.
void write_buckets(std::int32_t index, std::int64_t start, SerializedType& out) {
  DescriptorNode& node = out.nodes[static_cast<std::size_t>(index)];
  const std::int64_t count = node.count;
  if (count < kBucketMinBlocks) return;
  const std::int64_t* prefix = out.lookaside.data() + start;
  const std::int64_t total = prefix[count];
  int shift = 0;
  while ((std::int64_t(2) << shift) <= total / count) ++shift;  // 2^shift <= mean block length < 2^(shift + 1)
  const std::int64_t nb = ((total - 1) >> shift) + 1;
  std::vector<std::int64_t> table(static_cast<std::size_t>(nb) + 1);
  std::int64_t b = 0;
  for (std::int64_t k = 0; k < nb; ++k) {
    const std::int64_t p = k << shift;
    while (prefix[b + 1] <= p) ++b;
    table[static_cast<std::size_t>(k)] = b;
  }
  table[static_cast<std::size_t>(nb)] = count - 1;
  node.bucket_shift = shift;
  out.lookaside.insert(out.lookaside.end(), table.begin(), table.end());
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
      bytes.reserve(n.lens.size());
      for (std::int64_t l : n.lens) bytes.push_back(checked_mul(l, n.elem_size(), kWhere, "type"));
      write_blocks(bytes, n.disps, out);
      write_buckets(index, start, out);
      break;
    }
    case LayoutKind::Struct: {
      std::vector<std::int64_t> bytes, disps;
      bytes.reserve(n.fields.size());
      disps.reserve(n.fields.size());
      for (const auto& f : n.fields) {
        bytes.push_back(checked_mul(f.len, f.elem_size(), kWhere, "type"));
        disps.push_back(f.disp);
      }
      write_blocks(bytes, disps, out);
      const std::size_t children = out.lookaside.size();
      out.lookaside.resize(children + n.fields.size(), -1);
      write_buckets(index, start, out);
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
      return 4 * n.disps.size() + 2 + (n.child ? lookaside_entries(*n.child) : 0);  // (bucket tables included)
    case LayoutKind::Struct: {
      std::size_t total = 5 * n.fields.size() + 2;
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
