#pragma once
// Sequential walks over the traversal: a thread that copies consecutive packed positions (the host layout, see
// LaunchTraits) locates its first position once, remembering the levels it passed, and from then on finds the next
// terminal node by advancing the innermost level with elements left, like an odometer, instead of descending from
// the root for every terminal node. The positions it yields are exactly locate()'s.

#include <cstdint>

#include <Kokkos_Macros.hpp>

#include "impl/KokkosDDT_Traversal.hpp"

namespace KokkosDDT::Impl {

class Cursor {
 public:
  KOKKOS_FUNCTION Cursor(const Node* nodes, const std::int64_t* la) : nodes_(nodes), la_(la) {}

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

  // The common case of next(): the parent is strided and has elements left, so the next terminal block is the same
  // node one parent stride further (a hand-written loop nest's inner loop restarting). False otherwise.
  KOKKOS_FUNCTION bool next_strided(Hit& hit) {
    if (depth_ == 0 || hit.node->kind == kStruct) return false;  // (a struct's field 0 may be derived)
    Level& parent = levels_[depth_ - 1];
    const Node* n = parent.node;
    if (n->kind != kStrided || parent.block + 1 >= n->count) return false;
    ++parent.block;
    hit.base += n->stride;
    hit.block = 0;
    hit.inner = 0;
    return true;
  }

 private:
  static constexpr int kMaxDepth = 16;

  KOKKOS_FUNCTION const std::int64_t* look(const Node* n) const { return la_ + n->lookaside; }

  // Struct field b's child node (nullptr: a terminal field).
  KOKKOS_FUNCTION const Node* field_child(const Node* n, std::int64_t b) const {
    const std::int64_t c = look(n)[2 * n->count + 1 + b];
    return c < 0 ? nullptr : nodes_ + c;
  }

  // Moves l to its next element; false when l has none left.
  KOKKOS_FUNCTION bool step(Level& l) const {
    const Node* n = l.node;
    if (n->kind == kStrided || n->kind == kIndexedBlock) {
      if (l.block + 1 >= n->count) return false;
      ++l.block;
      return true;
    }
    const std::int64_t* prefix = look(n);
    const std::int64_t bytes = prefix[l.block + 1] - prefix[l.block];
    const std::int64_t elems =
        n->kind == kIndexed ? n->div_elem.divide(bytes) : field_child(n, l.block)->div_size.divide(bytes);
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
    const Node* n = l.node;
    const std::int64_t* lk = look(n);
    switch (n->kind) {
      case kStrided:
        return l.origin + l.block * n->stride;
      case kIndexedBlock:
        return l.origin + lk[l.block];
      case kIndexed:
        return l.origin + lk[n->count + 1 + l.block] + l.elem * n->elem_extent;
      default:
        return l.origin + lk[n->count + 1 + l.block] + l.elem * field_child(n, l.block)->extent;
    }
  }

  // From level `from`'s current element, down along first elements to a terminal block, recording the levels.
  // False when the way down is too deep to remember.
  KOKKOS_FUNCTION bool first_terminal(const Level& from, Hit& hit) {
    const Node* n = from.node;
    if (n->kind == kStruct && field_child(n, from.block) == nullptr) {  // a terminal field of this struct
      --depth_;
      hit = {n, from.block, from.origin, 0};
      return true;
    }
    const Node* c = n->kind == kStruct ? field_child(n, from.block) : nodes_ + n->child;
    std::int64_t origin = element_offset(from) + c->disp;
    while (true) {
      const std::int64_t* lk = look(c);
      const bool terminal = c->kind == kContig || (c->kind == kStruct ? lk[2 * c->count + 1] < 0 : c->child < 0);
      if (terminal) {
        hit = {c, 0, origin, 0};
        return true;
      }
      if (depth_ >= kMaxDepth) return complete_ = false;
      const Level l{c, 0, 0, origin};
      levels_[depth_++] = l;
      const Node* next = c->kind == kStruct ? field_child(c, 0) : nodes_ + c->child;
      origin = element_offset(l) + next->disp;
      c = next;
    }
  }

  const Node* nodes_;
  const std::int64_t* la_;
  Level levels_[kMaxDepth];
  int depth_ = 0;
  bool complete_ = true;
};

}  // namespace KokkosDDT::Impl
