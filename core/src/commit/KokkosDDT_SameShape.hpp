// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Two committed types of the same shape: one laid out as the other, `delta` bytes further (a halo's face and the ghost
// layer it fills, two subarrays of one array at different starts, structs of such subarrays of fields alike). A
// typed-to-typed copy between them then locates each position once, in the source's descriptor, and finds the
// destination's bytes `delta` further (address_at: the destination's buffer may be null): half the walk of locating it
// in both (TypedCopy, FusedKernel::run_copy).
//
// The rule: the same committed type (delta 0); or two descriptors node for node equal but for their displacements,
// with equal lookaside arrays (indexed blocks' and struct fields' displacements included), where every walk from the
// root to a terminal block adds the same difference of displacements. Lookaside arrays longer than
// kSameShapeMaxLookaside are not compared (the comparison runs on the host for each copy; such types keep both walks).

#include <cstdint>
#include <cstring>
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

// Whether `d` is `s` laid out `delta` bytes further (set then; see the rule above).
inline bool same_shape(const CommittedType& s, const CommittedType& d, std::int64_t& delta) {
  delta = 0;
  if (&s == &d) return true;
  const std::size_t n = s.nodes.size();
  if (d.nodes.size() != n || n == 0 || s.lookaside.size() != d.lookaside.size() ||
      s.lookaside.size() > kSameShapeMaxLookaside || s.size != d.size || s.extent != d.extent)
    return false;
  if (!s.lookaside.empty() &&
      std::memcmp(s.lookaside.data(), d.lookaside.data(), s.lookaside.size() * sizeof(std::int64_t)) != 0)
    return false;
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
    if (!same_but_disp(a, b) || __builtin_sub_overflow(b.disp, a.disp, &step) ||
        __builtin_add_overflow(parent, step, &sum))
      return false;
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
    const std::int64_t here = at[static_cast<std::size_t>(i)];
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
