// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Two committed types of the same shape: one laid out as the other, `delta` bytes further (a halo's face and the ghost
// layer it fills, two subarrays of one array at different starts, structs of such subarrays of fields alike). A
// typed-to-typed copy between them then locates each position once, in the source's descriptor, and finds the
// destination's bytes `delta` further (address_at: the destination's buffer may be null): half the walk of locating it
// in both (TypedCopy, FusedKernel::run_copy).
//
// The rule: the same committed type (delta 0); or two descriptors node for node equal but for their displacements,
// with equal lookaside arrays but for the blocks' and fields' displacement lists, each of which may differ from the
// other type's by one amount for the whole list (a node's displacement, in effect: a struct of one layout at several
// addresses is an indexed block whose list holds the addresses plus the region's start), where every walk from the
// root to a terminal block adds the same difference of displacements. Lookaside arrays longer than
// kSameShapeMaxLookaside are not compared (the comparison runs on the host for each copy; such types keep both walks).

#include <cstdint>
#include <vector>

#include "KokkosDDT_Committed.hpp"

namespace KokkosDDT::Impl {

inline constexpr std::size_t kSameShapeMaxLookaside = 4096;

// Whether node a equals node b but for its displacement.
inline bool same_but_disp(const DescriptorNode& a, const DescriptorNode& b) {
  auto same_divisor = [](const Divisor& x, const Divisor& y) { return x.magic == y.magic && x.shift == y.shift; };
  return a.kind == b.kind && a.child == b.child && a.size == b.size && a.extent == b.extent && a.count == b.count &&
         a.stride == b.stride && a.elem == b.elem && a.elem_extent == b.elem_extent && a.lookaside == b.lookaside &&
         same_divisor(a.div_elem, b.div_elem) && same_divisor(a.div_size, b.div_size) &&
         a.bucket_shift == b.bucket_shift;
}

// The amount by which each node's displacement list in d's lookaside differs from s's (0 for nodes without one), if
// every list differs by one amount and every other lookaside entry is equal (node for node equal descriptors).
inline bool list_shifts(const CommittedType& s, const CommittedType& d, std::vector<std::int64_t>& shift) {
  const std::int64_t entries = static_cast<std::int64_t>(s.lookaside.size());
  std::vector<char> listed(s.lookaside.size(), 0);
  shift.assign(s.nodes.size(), 0);
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    const DescriptorNode& a = s.nodes[i];
    std::int64_t first = 0;  // the node's displacement list: [first, first + count)
    if (a.kind == LayoutKind::IndexedBlock)
      first = a.lookaside;
    else if (a.kind == LayoutKind::Indexed || a.kind == LayoutKind::Struct)
      first = a.lookaside + a.count + 1;
    else
      continue;
    if (a.count <= 0) continue;
    if (first < 0 || a.count > entries || first > entries - a.count) return false;  // (a malformed descriptor)
    const std::int64_t* x = s.lookaside.data() + first;
    const std::int64_t* y = d.lookaside.data() + first;
    if (__builtin_sub_overflow(y[0], x[0], &shift[i])) return false;
    for (std::int64_t k = 0; k < a.count; ++k) {
      std::int64_t by = 0;
      if (__builtin_sub_overflow(y[k], x[k], &by) || by != shift[i]) return false;
      listed[static_cast<std::size_t>(first + k)] = 1;
    }
  }
  for (std::size_t k = 0; k < s.lookaside.size(); ++k)
    if (!listed[k] && s.lookaside[k] != d.lookaside[k]) return false;
  return true;
}

// Whether `d` is `s` laid out `delta` bytes further (set then; see the rule above).
inline bool same_shape(const CommittedType& s, const CommittedType& d, std::int64_t& delta) {
  delta = 0;
  if (&s == &d) return true;
  const std::size_t n = s.nodes.size();
  if (d.nodes.size() != n || n == 0 || s.lookaside.size() != d.lookaside.size() ||
      s.lookaside.size() > kSameShapeMaxLookaside || s.size != d.size || s.extent != d.extent)
    return false;
  for (std::size_t i = 0; i < n; ++i)  // (the lookaside's layout follows the nodes: compared first)
    if (!same_but_disp(s.nodes[i], d.nodes[i])) return false;
  std::vector<std::int64_t> shift;
  if (!list_shifts(s, d, shift)) return false;
  // Depth first from the root: each node's difference (its walk's so far, its own disp included), once per node.
  std::vector<std::int64_t> at(n, 0);
  std::vector<char> seen(n, 0);
  std::vector<std::int64_t> todo;
  bool terminal_seen = false;
  std::int64_t common = 0;
  auto reach = [&](std::int64_t i, std::int64_t parent) {  // node i entered from a node whose difference is `parent`
    if (i < 0 || i >= static_cast<std::int64_t>(n)) return false;  // (a malformed descriptor from words)
    const DescriptorNode &a = s.nodes[static_cast<std::size_t>(i)], &b = d.nodes[static_cast<std::size_t>(i)];
    std::int64_t step = 0, sum = 0;
    if (__builtin_sub_overflow(b.disp, a.disp, &step) || __builtin_add_overflow(parent, step, &sum))
      return false;  // (the nodes are otherwise equal: compared above)
    if (seen[static_cast<std::size_t>(i)]) return at[static_cast<std::size_t>(i)] == sum;
    seen[static_cast<std::size_t>(i)] = 1;
    at[static_cast<std::size_t>(i)] = sum;
    todo.push_back(i);
    return true;
  };
  auto terminal = [&](std::int64_t value) {  // a terminal block reached with this difference
    if (terminal_seen && value != common) return false;
    terminal_seen = true;
    common = value;
    return true;
  };
  if (!reach(0, 0)) return false;
  while (!todo.empty()) {
    const std::int64_t i = todo.back();
    todo.pop_back();
    const DescriptorNode& a = s.nodes[static_cast<std::size_t>(i)];
    std::int64_t here = 0;  // (what its elements add: its own difference and its list's)
    if (__builtin_add_overflow(at[static_cast<std::size_t>(i)], shift[static_cast<std::size_t>(i)], &here))
      return false;
    if (a.kind == LayoutKind::Struct) {
      if (a.lookaside < 0 || a.lookaside + 3 * a.count + 1 > static_cast<std::int64_t>(s.lookaside.size()))
        return false;  // (a malformed descriptor from words)
      const std::int64_t* children = Lookaside::children(&a, s.lookaside.data());
      for (std::int64_t f = 0; f < a.count; ++f)
        if (!(children[f] < 0 ? terminal(here) : reach(children[f], here))) return false;
    } else if (a.kind == LayoutKind::Contig || a.child < 0) {
      if (!terminal(here)) return false;
    } else if (!reach(a.child, here)) {
      return false;
    }
  }
  if (!terminal_seen) return false;
  delta = common;
  return true;
}

}  // namespace KokkosDDT::Impl
