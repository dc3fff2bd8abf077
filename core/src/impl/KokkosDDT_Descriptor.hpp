#pragma once
// The committed, serialized form of a type (jenkins-tpds14, Table 1): the normalized layout tree in preorder as an
// array of fixed-length nodes, which each team caches in scratch, plus one variable-length lookaside array of
// 64-bit integers for per-block data (displacements, prefix sums of block bytes, struct children).

#include <cstdint>

#include "impl/KokkosDDT_Divisor.hpp"

namespace KokkosDDT::Impl {

enum NodeKind : std::int32_t { kContig = 0, kStrided = 1, kIndexedBlock = 2, kIndexed = 3, kStruct = 4 };

// Lookaside layout per kind (offsets from `lookaside`):
//   IndexedBlock  disps[count]
//   Indexed       prefix[count + 1] (packed bytes before each block), disps[count]
//   Struct        prefix[count + 1], disps[count], child[count] (node index, or -1 for a terminal field)
struct alignas(16) Node {
  std::int32_t kind;
  std::int32_t child;        // node index of the element type; -1: terminal, elements are dense bytes
  std::int64_t disp;         // bytes added on entering the node
  std::int64_t size;         // packed bytes of one instance
  std::int64_t extent;       // step between instances when a Struct parent repeats this node
  std::int64_t count;        // blocks (Struct: fields; Contig: 1)
  std::int64_t stride;       // Strided: bytes between blocks
  std::int64_t elem;         // packed bytes of one element (Indexed terminal: 1)
  std::int64_t elem_extent;  // Indexed: step between elements of one block
  std::int64_t lookaside;    // offset of this node's entries in the lookaside array
  Divisor div_elem;          // divides by elem
  Divisor div_size;          // divides by size (used by a Struct parent and for count > 1)
};

static_assert(sizeof(Node) % 16 == 0, "Node must tile 16-byte words for the scratch copy");

}  // namespace KokkosDDT::Impl
