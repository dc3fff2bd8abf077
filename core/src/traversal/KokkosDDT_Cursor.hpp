// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Sequential walks over the traversal: a thread that copies consecutive packed positions (the host layout, see
// LaunchTraits) locates its first position once, remembering the levels it passed, and from then on finds the next
// terminal node by advancing the innermost level with elements left, like an odometer, instead of descending from
// the root for every terminal node. The positions it yields are exactly locate()'s.

#include <cstdint>

#include <Kokkos_Macros.hpp>

#include "KokkosDDT_Traversal.hpp"

namespace KokkosDDT::Impl {

class Cursor {
 public:
  KOKKOS_FUNCTION Cursor(const DescriptorNode* nodes, const std::int64_t* la) : nodes_(nodes), la_(la) {}

  // locate(p), remembering the way down.
  KOKKOS_FUNCTION Hit seek(std::int64_t p) {
    depth_ = 0;
    complete_ = true;
    return locate(nodes_, la_, p, [this](const Level& l) {
      if (depth_ < kMaxDepth)
        levels_[depth_++] = l;
      else
        complete_ = false;
    });
  }

  // The first terminal block after every block of the current terminal node. False when the way down was too deep
  // to remember (the caller seeks instead).
  KOKKOS_FUNCTION bool next(Hit& hit) {
    if (!complete_) return false;
    if (next_strided(hit)) return true;
    for (int d = depth_ - 1; d >= 0; --d) {
      if (!step(levels_[d])) continue;
      depth_ = d + 1;
      return first_terminal(levels_[d], hit);
    }
    return false;  // past the last instance: never reached inside a stream
  }

  // The level above the current terminal node (nullptr when there is none, or the way down was too deep to
  // remember). The host walk may advance its block over whole instances of the node it has moved itself.
  KOKKOS_FUNCTION Level* parent_level() { return complete_ && depth_ > 0 ? &levels_[depth_ - 1] : nullptr; }

  // The common case of next(): the parent is strided and has elements left, so the next terminal block is the same
  // node one parent stride further (a hand-written loop nest's inner loop restarting). False otherwise.
  // Also false when the way down was too deep to remember: levels_ then holds the outermost levels, not the parent.
  KOKKOS_FUNCTION bool next_strided(Hit& hit) {
    if (!complete_ || depth_ == 0 || hit.node->kind == LayoutKind::Struct)
      return false;  // (a struct's field 0 may be derived)
    Level& parent = levels_[depth_ - 1];
    const DescriptorNode* n = parent.node;
    if (n->kind != LayoutKind::Strided || parent.block + 1 >= n->count) return false;
    ++parent.block;
    hit.base += n->stride;
    hit.block = 0;
    hit.inner = 0;
    return true;
  }

 private:
  static constexpr int kMaxDepth = 16;

  // Struct field b's child node (nullptr: a terminal field).
  KOKKOS_FUNCTION const DescriptorNode* field_child(const DescriptorNode* n, std::int64_t b) const {
    const std::int64_t c = Lookaside::children(n, la_)[b];
    return c < 0 ? nullptr : nodes_ + c;
  }

  // Moves l to its next element; false when l has none left.
  KOKKOS_FUNCTION bool step(Level& l) const {
    const DescriptorNode* n = l.node;
    if (n->kind == LayoutKind::Strided || n->kind == LayoutKind::IndexedBlock) {
      if (l.block + 1 >= n->count) return false;
      ++l.block;
      return true;
    }
    const std::int64_t* prefix = Lookaside::prefix(n, la_);
    const std::int64_t bytes = prefix[l.block + 1] - prefix[l.block];
    const std::int64_t elems =
        n->kind == LayoutKind::Indexed ? n->div_elem.divide(bytes) : field_child(n, l.block)->div_size.divide(bytes);
    if (l.elem + 1 < elems) {
      ++l.elem;
      return true;
    }
    if (l.block + 1 >= n->count) return false;
    ++l.block;
    l.elem = 0;
    return true;
  }

  // Offset of l's current element (before the child's own disp).
  KOKKOS_FUNCTION std::int64_t element_offset(const Level& l) const {
    const DescriptorNode* n = l.node;
    switch (n->kind) {
      case LayoutKind::Strided:
        return l.origin + l.block * n->stride;
      case LayoutKind::IndexedBlock:
        return l.origin + Lookaside::block_disps(n, la_)[l.block];
      case LayoutKind::Indexed:
        return l.origin + Lookaside::disps(n, la_)[l.block] + l.elem * n->elem_extent;
      default:
        return l.origin + Lookaside::disps(n, la_)[l.block] + l.elem * field_child(n, l.block)->extent;
    }
  }

  // From level `from`'s current element, down along first elements to a terminal block, recording the levels.
  // False when the way down is too deep to remember.
  KOKKOS_FUNCTION bool first_terminal(const Level& from, Hit& hit) {
    const DescriptorNode* n = from.node;
    if (n->kind == LayoutKind::Struct && field_child(n, from.block) == nullptr) {  // a terminal field of this struct
      --depth_;
      hit = {n, from.block, from.origin, 0};
      return true;
    }
    const DescriptorNode* c = n->kind == LayoutKind::Struct ? field_child(n, from.block) : nodes_ + n->child;
    std::int64_t origin = element_offset(from) + c->disp;
    while (true) {
      const bool terminal = c->kind == LayoutKind::Contig ||
                            (c->kind == LayoutKind::Struct ? Lookaside::children(c, la_)[0] < 0 : c->child < 0);
      if (terminal) {
        hit = {c, 0, origin, 0};
        return true;
      }
      if (depth_ >= kMaxDepth) return complete_ = false;
      const Level l{c, 0, 0, origin};
      levels_[depth_++] = l;
      const DescriptorNode* next = c->kind == LayoutKind::Struct ? field_child(c, 0) : nodes_ + c->child;
      origin = element_offset(l) + next->disp;
      c = next;
    }
  }

  const DescriptorNode* nodes_;
  const std::int64_t* la_;
  Level levels_[kMaxDepth];
  int depth_ = 0;
  bool complete_ = true;
};

}  // namespace KokkosDDT::Impl
