// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_Normalize.hpp"

#include <algorithm>
#include <numeric>

#include "KokkosDDT_Error.hpp"

namespace KokkosDDT::Impl {

namespace {

constexpr const char* kWhere = "KokkosDDT::Datatype::commit";

// Checked arithmetic for values the normalized layout keeps (offsets, sizes, counts): Overflow if one does not fit.
std::int64_t add(std::int64_t a, std::int64_t b) { return checked_add(a, b, kWhere, "type"); }
std::int64_t mul(std::int64_t a, std::int64_t b) { return checked_mul(a, b, kWhere, "type"); }

// a + b * c == target, for a rewrite's precondition: false when the left side does not fit 64 bits (then the
// rewrite does not apply; the type may still be valid).
bool fma_equals(std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t target) {
  std::int64_t p, r;
  return !__builtin_mul_overflow(b, c, &p) && !__builtin_add_overflow(a, p, &r) && r == target;
}

bool has_single_child(const LayoutNode& n) {
  return n.kind == LayoutKind::Strided || n.kind == LayoutKind::IndexedBlock || n.kind == LayoutKind::Indexed;
}

// Replaces n by `replacement`, which takes over n's entry offset and the extent n's parent steps by.
void replace(LayoutPtr& n, LayoutPtr replacement, std::int64_t extra_disp) {
  replacement->disp = add(replacement->disp, add(n->disp, extra_disp));
  replacement->extent = n->extent;
  n = std::move(replacement);
}

LayoutPtr make_strided(std::int64_t count, std::int64_t stride, LayoutPtr child) {
  auto s = std::make_unique<LayoutNode>();
  s->kind = LayoutKind::Strided;
  s->count = count;
  s->stride = stride;
  s->size = mul(count, child->size);
  s->extent = mul(count, child->extent);
  s->elem = child->size;
  s->child = std::move(child);
  return s;
}

}  // namespace

bool hoist_child_disp(LayoutPtr& n) {
  bool changed = false;
  if (n->child && n->child->disp != 0) {
    n->disp = add(n->disp, n->child->disp);
    n->child->disp = 0;
    changed = true;
  }
  for (auto& f : n->fields)
    if (f.child && f.child->disp != 0) {
      f.disp = add(f.disp, f.child->disp);
      f.child->disp = 0;
      changed = true;
    }
  return changed;
}

bool fold_contig_child(LayoutPtr& n) {
  // A Contig child at offset 0 is a run of bytes. Its extent matters only where elements of one block step by it,
  // so it folds when it is dense or when every block holds a single element.
  auto foldable = [](const LayoutPtr& c, bool single_element) {
    return c && c->kind == LayoutKind::Contig && c->disp == 0 && c->size > 0 &&
           (c->extent == c->size || single_element);
  };
  bool changed = false;
  if (has_single_child(*n)) {
    bool single = n->blocklength == 1;
    if (n->kind == LayoutKind::Indexed)
      single = std::all_of(n->lens.begin(), n->lens.end(), [](std::int64_t l) { return l <= 1; });
    if (foldable(n->child, single)) {
      n->elem = n->child->size;
      n->child.reset();
      changed = true;
    }
  }
  for (auto& f : n->fields)
    if (foldable(f.child, f.len == 1)) {
      f.elem = f.child->size;
      f.child.reset();
      changed = true;
    }
  return changed;
}

bool split_blocklength(LayoutPtr& n) {
  bool changed = false;
  if ((n->kind == LayoutKind::Strided || n->kind == LayoutKind::IndexedBlock) && n->blocklength > 1) {
    if (n->terminal()) {
      n->elem = mul(n->elem, n->blocklength);  // a terminal block is one run
    } else {
      const std::int64_t child_extent = n->child->extent;  // read before the move below
      n->child = make_strided(n->blocklength, child_extent, std::move(n->child));
      normalize(n->child);
      n->elem = n->child->size;
    }
    n->blocklength = 1;
    changed = true;
  }
  if (n->kind == LayoutKind::Indexed && n->terminal() && n->elem != 1) {
    for (auto& l : n->lens) l = mul(l, n->elem);  // lengths in bytes
    n->elem = 1;
    changed = true;
  }
  for (auto& f : n->fields)
    if (!f.child && f.elem != 1) {
      f.len = mul(f.len, f.elem);
      f.elem = 1;
      changed = true;
    }
  return changed;
}

namespace {

// Makes n a run of its own size in place, entered `extra_disp` bytes further; the extent its parent steps by stays.
// (In place: most of a short type's commit was allocating and freeing layout nodes.)
void become_contig(LayoutNode& n, std::int64_t extra_disp) {
  n.kind = LayoutKind::Contig;
  n.disp = add(n.disp, extra_disp);
  n.child.reset();
  n.elem = 0;
  n.count = 0;
  n.blocklength = 1;
  n.stride = 0;
  n.lens.clear();
  n.disps.clear();
  n.fields.clear();
}

}  // namespace

bool terminal_to_contig(LayoutPtr& n) {
  if (n->kind == LayoutKind::Contig || n->size == 0) return false;
  if (n->kind == LayoutKind::Struct) {
    if (n->fields.size() != 1 || n->fields[0].child) return false;
    become_contig(*n, n->fields[0].disp);
    return true;
  }
  if (!n->terminal() || n->blocklength != 1) return false;
  std::int64_t disp = 0;
  switch (n->kind) {
    case LayoutKind::Strided:
      if (n->count != 1 && n->stride != n->elem) return false;
      break;
    case LayoutKind::IndexedBlock:
    case LayoutKind::Indexed:
      if (n->count != 1) return false;
      disp = n->disps[0];
      break;
    default:
      return false;
  }
  become_contig(*n, disp);
  return true;
}

bool drop_count_one(LayoutPtr& n) {
  if (n->size == 0) return false;
  if (n->kind == LayoutKind::Struct) {
    if (n->fields.size() != 1 || !n->fields[0].child) return false;
    LayoutField f = std::move(n->fields[0]);
    const std::int64_t child_extent = f.child->extent;
    LayoutPtr c = f.len == 1 ? std::move(f.child) : make_strided(f.len, child_extent, std::move(f.child));
    replace(n, std::move(c), f.disp);
    return true;
  }
  if (!has_single_child(*n) || n->terminal() || n->count != 1 || n->blocklength != 1) return false;
  const std::int64_t disp = n->kind == LayoutKind::Strided ? 0 : n->disps[0];
  const std::int64_t len = n->kind == LayoutKind::Indexed ? n->lens[0] : 1;
  const std::int64_t child_extent = n->child->extent;
  LayoutPtr c = len == 1 ? std::move(n->child) : make_strided(len, child_extent, std::move(n->child));
  replace(n, std::move(c), disp);
  return true;
}

bool merge_nested_strided(LayoutPtr& n) {
  if (n->kind != LayoutKind::Strided || n->blocklength != 1 || !n->child) return false;
  LayoutNode& c = *n->child;
  if (c.kind != LayoutKind::Strided || c.blocklength != 1 || c.disp != 0) return false;
  if (!fma_equals(0, c.count, c.stride, n->stride)) return false;
  n->count = mul(n->count, c.count);
  n->stride = c.stride;
  n->elem = c.elem;
  n->child = std::move(c.child);  // c dies here
  return true;
}

bool uniform_indexed_to_block(LayoutPtr& n) {
  if (n->kind != LayoutKind::Indexed || n->lens.empty()) return false;
  const std::int64_t len = n->lens[0];
  if (!std::all_of(n->lens.begin(), n->lens.end(), [len](std::int64_t l) { return l == len; })) return false;
  n->kind = LayoutKind::IndexedBlock;
  n->blocklength = len;
  n->lens.clear();
  return true;
}

bool even_block_to_strided(LayoutPtr& n) {
  if (n->kind != LayoutKind::IndexedBlock || n->disps.size() < 2) return false;
  const std::int64_t first = n->disps[0];
  std::int64_t step;
  if (__builtin_sub_overflow(n->disps[1], first, &step)) return false;
  for (std::size_t i = 2; i < n->disps.size(); ++i)
    if (!fma_equals(n->disps[i - 1], 1, step, n->disps[i])) return false;
  n->kind = LayoutKind::Strided;
  n->disp = add(n->disp, first);
  n->stride = step;
  n->disps.clear();
  return true;
}

bool struct_to_indexed(LayoutPtr& n) {
  if (n->kind != LayoutKind::Struct || n->fields.empty()) return false;
  const bool all_terminal =
      std::all_of(n->fields.begin(), n->fields.end(), [](const LayoutField& f) { return !f.child; });
  if (!all_terminal) {
    for (const auto& f : n->fields)
      if (!f.child || !n->fields[0].child || !same_layout(*f.child, *n->fields[0].child)) return false;
  }
  auto x = std::make_unique<LayoutNode>();
  x->kind = LayoutKind::Indexed;
  x->disp = n->disp;
  x->size = n->size;
  x->extent = n->extent;
  x->count = static_cast<std::int64_t>(n->fields.size());
  x->lens.reserve(n->fields.size());
  x->disps.reserve(n->fields.size());
  for (auto& f : n->fields) {
    x->lens.push_back(all_terminal ? mul(f.len, f.elem) : f.len);
    x->disps.push_back(f.disp);
  }
  if (all_terminal) {
    x->elem = 1;
  } else {
    x->child = std::move(n->fields[0].child);
    x->elem = x->child->size;
  }
  n = std::move(x);
  return true;
}

// Compacts in place: the passes run until nothing changes, so this runs at least twice per node, and building new
// block lists each time was most of a long index list's commit.
bool merge_adjacent_blocks(LayoutPtr& n) {
  std::size_t kept = 0;  // blocks (fields) kept so far, compacted to the front
  if (n->kind == LayoutKind::Indexed) {
    const std::int64_t step = n->elem_extent();
    auto& lens = n->lens;
    auto& disps = n->disps;
    for (std::size_t i = 0; i < lens.size(); ++i) {
      if (lens[i] == 0) continue;
      if (kept > 0 && fma_equals(disps[kept - 1], lens[kept - 1], step, disps[i])) {
        lens[kept - 1] = add(lens[kept - 1], lens[i]);
        continue;
      }
      lens[kept] = lens[i];
      disps[kept] = disps[i];
      ++kept;
    }
    if (kept == lens.size()) return false;
    lens.resize(kept);
    disps.resize(kept);
  } else if (n->kind == LayoutKind::Struct) {
    auto& fields = n->fields;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      LayoutField& f = fields[i];
      if (f.len == 0) continue;
      if (kept > 0) {
        LayoutField& last = fields[kept - 1];
        if (!last.child && !f.child && fma_equals(last.disp, last.len, last.elem, f.disp)) {
          last.len = add(mul(last.len, last.elem), mul(f.len, f.elem));
          last.elem = 1;
          continue;
        }
      }
      if (kept != i) fields[kept] = std::move(f);
      ++kept;
    }
    if (kept == fields.size()) return false;
    fields.erase(fields.begin() + static_cast<std::ptrdiff_t>(kept), fields.end());
  } else {
    return false;
  }
  n->count = static_cast<std::int64_t>(kept);
  return true;
}

void normalize(LayoutPtr& n) {
  if (n->child) normalize(n->child);
  for (auto& f : n->fields)
    if (f.child) normalize(f.child);
  normalize_top(n);
}

void normalize_top(LayoutPtr& n) {
  using Pass = bool (*)(LayoutPtr&);
  static const Pass passes[] = {
      hoist_child_disp,      fold_contig_child, split_blocklength,  merge_adjacent_blocks, uniform_indexed_to_block,
      even_block_to_strided, struct_to_indexed, terminal_to_contig, drop_count_one,        merge_nested_strided};
  // Each pass strictly simplifies (fewer nodes, blocks or fields, or a disp moved up), so the loop ends.
  for (bool changed = true; changed;) {
    changed = false;
    for (Pass pass : passes) changed |= pass(n);
  }
}

namespace {

// Every run length and every offset the traversal adds, OR-ed together: the lowest set bit of the result is the
// largest power of two dividing all of them (the word size needs no more than that, and an OR per value costs a
// fraction of a gcd: commit time on long index lists).
void alignment_visit(const LayoutNode& n, std::uint64_t& g) {
  auto take = [&g](std::int64_t v) { g |= static_cast<std::uint64_t>(v); };  // (-v has v's lowest set bit)
  take(n.disp);
  switch (n.kind) {
    case LayoutKind::Contig:
      take(n.size);
      return;
    case LayoutKind::Strided:
      take(n.stride);
      break;
    case LayoutKind::IndexedBlock:
      break;
    case LayoutKind::Indexed:
      if (n.child) take(n.child->extent);  // elements of one block step by it
      for (std::int64_t l : n.lens) take(mul(l, n.elem_size()));
      break;
    case LayoutKind::Struct:
      for (const auto& f : n.fields) {
        take(f.disp);
        if (f.child) {
          if (f.len > 1) take(f.child->extent);
          alignment_visit(*f.child, g);
        } else {
          take(mul(f.len, f.elem));
        }
      }
      return;
  }
  std::uint64_t bits = 0;  // (a plain OR over the list vectorizes)
  for (std::int64_t d : n.disps) bits |= static_cast<std::uint64_t>(d);
  g |= bits;
  if (n.child) {  // elements of a block step by the child's extent
    if (n.blocklength > 1) take(n.elem_extent());
    alignment_visit(*n.child, g);
  } else if (n.kind != LayoutKind::Indexed) {
    // A terminal block is one dense run of blocklength elements: only its length matters, not the element size
    // (an Indexed node's runs, lens[b] * elem, are added above; its elem is 1 once normalized).
    take(mul(n.blocklength, n.elem));
  }
}

}  // namespace

WordSizes word_sizes(const LayoutNode& root) {
  std::uint64_t g = 0;
  alignment_visit(root, g);
  auto word = [](std::uint64_t bits) {
    if (bits == 0) return 16;
    return static_cast<int>(std::min<std::uint64_t>(16, bits & (~bits + 1)));
  };
  return {word(g), word(g | static_cast<std::uint64_t>(root.extent))};
}

int word_size(const LayoutNode& root, bool repeated) {
  const WordSizes w = word_sizes(root);
  return repeated ? w.repeated : w.single;
}

}  // namespace KokkosDDT::Impl
