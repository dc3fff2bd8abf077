#pragma once
// SPDX-License-Identifier: BSD-3-Clause
// The layout tree: a type lowered to the five kinds of node of KokkosDDT_LayoutKind.hpp, which say only where bytes
// are (no MPI combiners left); the normalization passes simplify it and the serializer writes it out.
//
// A block holds `blocklength` elements (Indexed: lens[i]) one element extent apart. An element is one instance of
// `child`, or, when `child` is null (a terminal node), `elem` dense bytes, so a terminal block is one contiguous run.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "KokkosDDT_LayoutKind.hpp"

namespace KokkosDDT::Impl {

struct TypeNode;

struct LayoutNode;
using LayoutPtr = std::unique_ptr<LayoutNode>;

struct LayoutField {
  std::int64_t len = 0;   // elements
  std::int64_t disp = 0;  // bytes
  LayoutPtr child;        // null: terminal, elements are `elem` dense bytes
  std::int64_t elem = 0;

  std::int64_t elem_size() const;
  std::int64_t elem_extent() const;
};

struct LayoutNode {
  LayoutKind kind = LayoutKind::Contig;
  std::int64_t disp = 0;    // bytes added on entering the node
  std::int64_t size = 0;    // packed bytes of one instance
  std::int64_t extent = 0;  // distance between consecutive instances when a parent repeats this node

  LayoutPtr child;  // Strided, IndexedBlock, Indexed; null: terminal
  std::int64_t elem = 0;
  std::int64_t count = 0;
  std::int64_t blocklength = 1;     // Strided, IndexedBlock
  std::int64_t stride = 0;          // Strided
  std::vector<std::int64_t> lens;   // Indexed
  std::vector<std::int64_t> disps;  // IndexedBlock, Indexed
  std::vector<LayoutField> fields;  // Struct

  bool terminal() const { return child == nullptr; }
  std::int64_t elem_size() const { return child ? child->size : elem; }
  std::int64_t elem_extent() const { return child ? child->extent : elem; }
  LayoutPtr clone() const;
};

inline std::int64_t LayoutField::elem_size() const { return child ? child->size : elem; }
inline std::int64_t LayoutField::elem_extent() const { return child ? child->extent : elem; }

LayoutPtr make_contig(std::int64_t disp, std::int64_t size, std::int64_t extent);

// A type's layout exactly as constructed (no simplification yet).
LayoutPtr lower(const TypeNode& type);

// The layout of consecutive instances of `type` one extent apart: a strided level over it, so that the traversal
// resolves the instance like any other level and walks from one instance into the next. Its count is the most
// instances a packed stream can hold (2^62 bytes), so counts multiplied by normalization cannot overflow.
LayoutPtr instances_of(LayoutPtr type);

// A compact one-line rendering for humans, e.g. "strided(x=104,n=4,s=24,8B)"; long lists are cut short.
std::string to_string(const LayoutNode& node);

// Structural equality: the same bytes in the same order, node for node.
bool same_layout(const LayoutNode& a, const LayoutNode& b);

// [lo, hi): the bytes one instance actually moves, relative to its origin (MPI's true bounds can be wider: zero-length
// blocks still count there). Meaningless for an empty layout.
std::pair<std::int64_t, std::int64_t> data_bounds(const LayoutNode& node);

// Number of nodes in the tree (what the serializer will emit).
std::int64_t node_count(const LayoutNode& node);

}  // namespace KokkosDDT::Impl
