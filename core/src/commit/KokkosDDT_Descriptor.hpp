// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The committed, serialized form of a type (jenkins-tpds14, Table 1): the normalized layout tree in preorder as an
// array of fixed-length DescriptorNodes, which each team caches in scratch, plus one variable-length lookaside array of
// 64-bit integers for per-block data. The accessors below are the only code that knows the lookaside's layout
// (Serialize writes it through them; the traversal and the cursor read it through them).

#include <cstdint>

#include <Kokkos_Macros.hpp>

#include "KokkosDDT_Divisor.hpp"
#include "KokkosDDT_LayoutKind.hpp"

namespace KokkosDDT::Impl {

struct alignas(16) DescriptorNode {
  LayoutKind kind;
  std::int32_t child;         // node index of the element type; -1: terminal, elements are dense bytes
  std::int64_t disp;          // bytes added on entering the node
  std::int64_t size;          // packed bytes of one instance
  std::int64_t extent;        // step between instances when a Struct parent repeats this node
  std::int64_t count;         // blocks (Struct: fields; Contig: 1)
  std::int64_t stride;        // Strided: bytes between blocks
  std::int64_t elem;          // packed bytes of one element (Indexed terminal: 1)
  std::int64_t elem_extent;   // Indexed: step between elements of one block
  std::int64_t lookaside;     // offset of this node's entries in the lookaside array
  Divisor div_elem;           // divides by elem
  Divisor div_size;           // divides by size (used by a Struct parent and for count > 1)
  std::int32_t bucket_shift;  // Indexed, Struct: log2 of the bucket table's bytes per bucket; -1: no table
  std::int32_t reserved;
};

static_assert(sizeof(DescriptorNode) % 16 == 0, "DescriptorNode must tile 16-byte words for the scratch copy");

// A node's lookaside entries, by kind:
//   IndexedBlock  disps[count]
//   Indexed       prefix[count + 1] (packed bytes before each block), disps[count] [, buckets]
//   Struct        prefix[count + 1], disps[count], children[count] (node index, or -1 for a terminal field) [, buckets]
// buckets (nodes with bucket_shift >= 0): for k in [0, nb), the block holding packed byte k << bucket_shift, then
// count - 1; nb = ceil(prefix[count] / 2^bucket_shift). A position's block is then found between two neighbouring
// entries instead of by a search over all blocks (see find_block).
struct Lookaside {
  // Packed bytes before block b (Indexed, Struct): prefix(n, la)[b], b in [0, count].
  KOKKOS_FORCEINLINE_FUNCTION static const std::int64_t* prefix(const DescriptorNode* n, const std::int64_t* la) {
    return la + n->lookaside;
  }
  // Displacement of block b: IndexedBlock.
  KOKKOS_FORCEINLINE_FUNCTION static const std::int64_t* block_disps(const DescriptorNode* n, const std::int64_t* la) {
    return la + n->lookaside;
  }
  // Displacement of block b: Indexed, Struct.
  KOKKOS_FORCEINLINE_FUNCTION static const std::int64_t* disps(const DescriptorNode* n, const std::int64_t* la) {
    return la + n->lookaside + n->count + 1;
  }
  // Node index of field b's child, -1 for a terminal field (Struct).
  KOKKOS_FORCEINLINE_FUNCTION static const std::int64_t* children(const DescriptorNode* n, const std::int64_t* la) {
    return la + n->lookaside + 2 * n->count + 1;
  }
  // The bucket table (Indexed, Struct with bucket_shift >= 0).
  KOKKOS_FORCEINLINE_FUNCTION static const std::int64_t* buckets(const DescriptorNode* n, const std::int64_t* la) {
    return la + n->lookaside + (n->kind == LayoutKind::Struct ? 3 : 2) * n->count + 1;
  }
};

}  // namespace KokkosDDT::Impl
