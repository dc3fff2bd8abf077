// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_Layout.hpp"

#include <algorithm>
#include <sstream>

#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_Extremes.hpp"
#include "KokkosDDT_Format.hpp"
#include "KokkosDDT_TypeNode.hpp"

namespace KokkosDDT::Impl {

namespace {
constexpr const char* kWhere = "KokkosDDT::Datatype::commit";
}

LayoutPtr make_contig(std::int64_t disp, std::int64_t size, std::int64_t extent) {
  auto n = std::make_unique<LayoutNode>();
  n->kind = LayoutKind::Contig;
  n->disp = disp;
  n->size = size;
  n->extent = extent;
  return n;
}

LayoutPtr LayoutNode::clone() const {
  auto n = std::make_unique<LayoutNode>();
  n->kind = kind;
  n->disp = disp;
  n->size = size;
  n->extent = extent;
  n->child = child ? child->clone() : nullptr;
  n->elem = elem;
  n->count = count;
  n->blocklength = blocklength;
  n->stride = stride;
  n->lens = lens;
  n->disps = disps;
  n->fields.reserve(fields.size());
  for (const auto& f : fields) n->fields.push_back({f.len, f.disp, f.child ? f.child->clone() : nullptr, f.elem});
  return n;
}

namespace {

// A dense primitive (a run of its own size) lowers to no node at all where it is an element: its parent takes it as
// terminal elements of that many bytes, as fold_contig_child would make of a Contig node (which lowering would only
// allocate for normalization to free: most of a short type's commit time).
bool is_run(const TypeNode& t) { return t.combiner == Combiner::Named && t.size > 0 && t.size == t.extent(); }

LayoutPtr make_node(LayoutKind kind, const TypeNode& type) {
  auto n = std::make_unique<LayoutNode>();
  n->kind = kind;
  n->size = type.size;
  n->extent = type.extent();
  if (is_run(type.child())) {
    n->elem = type.child().size;
  } else {
    n->child = lower(type.child());
    n->elem = n->child->size;
  }
  return n;
}

// MPI_Type_create_subarray as nested strided levels, fastest dimension innermost, corner in the top level's disp.
LayoutPtr lower_subarray(const TypeNode& type) {
  const TypeNode& old = type.child();
  const int ndims = static_cast<int>(type.sizes.size());
  LayoutPtr level = lower(old);
  std::int64_t pitch = old.extent(), corner = 0;
  for (int k = 0; k < ndims; ++k) {
    const int d = type.order == Order::C ? ndims - 1 - k : k;
    auto n = std::make_unique<LayoutNode>();
    n->kind = LayoutKind::Strided;
    n->count = type.subsizes[d];
    n->stride = pitch;
    n->size = level->size * n->count;
    n->extent = pitch * type.sizes[d];  // the enclosing (sub)array; never used to step a bl = 1 level
    n->elem = level->size;
    n->child = std::move(level);
    level = std::move(n);
    corner += type.starts[d] * pitch;
    pitch *= type.sizes[d];
  }
  level->disp = corner;
  level->extent = type.extent();
  return level;
}

}  // namespace

LayoutPtr lower(const TypeNode& type) {
  if (type.size == 0) return make_contig(0, 0, type.extent());
  switch (type.combiner) {
    case Combiner::Named:
      return make_contig(0, type.size, type.extent());
    case Combiner::Dup:
      return lower(type.child());
    case Combiner::Resized: {
      LayoutPtr n = lower(type.child());
      n->extent = type.extent();
      return n;
    }
    case Combiner::Contiguous:
    case Combiner::Vector:
    case Combiner::Hvector: {
      auto n = make_node(LayoutKind::Strided, type);
      const std::int64_t child_extent = type.child().extent();
      n->count = type.count;
      n->blocklength = type.combiner == Combiner::Contiguous ? 1 : type.blocklength;
      n->stride = type.combiner == Combiner::Contiguous ? child_extent
                  : type.combiner == Combiner::Vector   ? type.stride * child_extent
                                                        : type.stride;
      return n;
    }
    case Combiner::IndexedBlock:
    case Combiner::HindexedBlock:
    case Combiner::Indexed:
    case Combiner::Hindexed: {
      const bool block = type.combiner == Combiner::IndexedBlock || type.combiner == Combiner::HindexedBlock;
      const bool in_extents = type.combiner == Combiner::IndexedBlock || type.combiner == Combiner::Indexed;
      auto n = make_node(block ? LayoutKind::IndexedBlock : LayoutKind::Indexed, type);
      const std::int64_t unit = in_extents ? type.child().extent() : 1;
      n->count = type.count;
      n->blocklength = block ? type.blocklength : 1;
      if (!block) n->lens = type.blocklengths;
      if (block) {
        // Equal blocks (long index lists): the constructor checked that the extreme displacements times the unit fit
        // 64 bits, so every product does; one branch-free pass (commit time on long lists).
        n->disps = type.displacements;
        if (unit != 1)
          for (std::int64_t& d : n->disps) d *= unit;
        return n;
      }
      n->disps.reserve(type.displacements.size());
      for (std::size_t i = 0; i < type.displacements.size(); ++i) {
        // A zero-length block moves nothing and may sit anywhere (its displacement times the unit need not fit 64
        // bits): place it at 0; normalization drops it.
        const bool empty = !block && type.blocklengths[i] == 0;
        n->disps.push_back(empty ? 0 : checked_mul(type.displacements[i], unit, kWhere, "type"));
      }
      return n;
    }
    case Combiner::Subarray:
      return lower_subarray(type);
    case Combiner::Struct: {
      auto n = std::make_unique<LayoutNode>();
      n->kind = LayoutKind::Struct;
      n->size = type.size;
      n->extent = type.extent();
      n->fields.reserve(type.children.size());
      for (std::size_t i = 0; i < type.children.size(); ++i) {
        if (type.blocklengths[i] == 0 || type.child(i).size == 0) continue;  // moves no bytes
        const TypeNode& c = type.child(i);
        if (is_run(c))
          n->fields.push_back({type.blocklengths[i], type.displacements[i], nullptr, c.size});
        else
          n->fields.push_back({type.blocklengths[i], type.displacements[i], lower(c), c.size});
      }
      n->count = static_cast<std::int64_t>(n->fields.size());
      return n;
    }
  }
  return make_contig(0, type.size, type.extent());
}

LayoutPtr instances_of(LayoutPtr type) {
  auto n = std::make_unique<LayoutNode>();
  n->kind = LayoutKind::Strided;
  n->count = type->size > 0 ? std::max<std::int64_t>(1, (std::int64_t(1) << 62) / type->size) : 1;
  n->stride = type->extent;
  n->size = n->count * type->size;
  n->extent = 0;  // never stepped
  n->elem = type->size;
  n->child = std::move(type);
  return n;
}

namespace {

const char* kind_name(LayoutKind k) {
  switch (k) {
    case LayoutKind::Contig:
      return "contig";
    case LayoutKind::Strided:
      return "strided";
    case LayoutKind::IndexedBlock:
      return "indexed_block";
    case LayoutKind::Indexed:
      return "indexed";
    case LayoutKind::Struct:
      return "struct";
  }
  return "?";
}

void list(std::ostream& os, const char* name, const std::vector<std::int64_t>& v) {
  os << "," << name << "=";
  write_list(os, v, ",");
}

void render(std::ostream& os, const LayoutNode& n) {
  os << kind_name(n.kind) << "(";
  if (n.disp) os << "d=" << n.disp << ",";
  os << "x=" << n.extent;
  switch (n.kind) {
    case LayoutKind::Contig:
      os << ",n=" << n.size << "B";
      break;
    case LayoutKind::Strided:
      os << ",n=" << n.count << ",s=" << n.stride;
      if (n.blocklength != 1) os << ",bl=" << n.blocklength;
      break;
    case LayoutKind::IndexedBlock:
      os << ",n=" << n.count;
      if (n.blocklength != 1) os << ",bl=" << n.blocklength;
      list(os, "d", n.disps);
      break;
    case LayoutKind::Indexed:
      os << ",n=" << n.count;
      list(os, "l", n.lens);
      list(os, "d", n.disps);
      break;
    case LayoutKind::Struct:
      for (const auto& f : n.fields) {
        os << ",{" << f.len << "@" << f.disp << ":";
        if (f.child)
          render(os, *f.child);
        else
          os << f.elem << "B";
        os << "}";
      }
      os << ")";
      return;
  }
  if (n.kind != LayoutKind::Contig) {
    os << ",";
    if (n.child)
      render(os, *n.child);
    else
      os << n.elem << "B";
  }
  os << ")";
}

}  // namespace

std::string to_string(const LayoutNode& node) {
  std::ostringstream os;
  render(os, node);
  return os.str();
}

namespace {
// The span of `count` elements starting at `first`, `step` apart, each covering [lo, hi) of itself.
std::pair<std::int64_t, std::int64_t> repeat_span(std::int64_t first, std::int64_t count, std::int64_t step,
                                                  std::pair<std::int64_t, std::int64_t> one) {
  const std::int64_t last = checked_add(first, checked_mul(count - 1, step, kWhere, "type"), kWhere, "type");
  return {checked_add(std::min(first, last), one.first, kWhere, "type"),
          checked_add(std::max(first, last), one.second, kWhere, "type")};
}

void widen(std::pair<std::int64_t, std::int64_t>& acc, std::pair<std::int64_t, std::int64_t> b, bool& any) {
  acc = any ? std::make_pair(std::min(acc.first, b.first), std::max(acc.second, b.second)) : b;
  any = true;
}
}  // namespace

std::pair<std::int64_t, std::int64_t> data_bounds(const LayoutNode& n) {
  using Span = std::pair<std::int64_t, std::int64_t>;
  const Span elem = n.child ? data_bounds(*n.child) : Span{0, n.elem};
  Span out{0, 0};
  bool any = false;
  switch (n.kind) {
    case LayoutKind::Contig:
      out = {0, n.size};
      break;
    case LayoutKind::Strided: {
      const Span block = repeat_span(0, n.blocklength, n.elem_extent(), elem);
      out = repeat_span(0, n.count, n.stride, block);
      break;
    }
    case LayoutKind::IndexedBlock: {  // every block spans the same bytes: only the extreme displacements matter
      if (n.disps.empty()) break;
      const auto [lo, hi] = extremes(n.disps.data(), n.disps.size());
      const Span block = repeat_span(0, n.blocklength, n.elem_extent(), elem);
      out = {checked_add(lo, block.first, kWhere, "type"), checked_add(hi, block.second, kWhere, "type")};
      break;
    }
    case LayoutKind::Indexed:
      for (std::size_t i = 0; i < n.disps.size(); ++i)
        if (n.lens[i] > 0) widen(out, repeat_span(n.disps[i], n.lens[i], n.elem_extent(), elem), any);
      break;
    case LayoutKind::Struct:
      for (const auto& f : n.fields) {
        const Span e = f.child ? data_bounds(*f.child) : Span{0, f.elem};
        widen(out, repeat_span(f.disp, f.len, f.elem_extent(), e), any);
      }
      break;
  }
  return {checked_add(out.first, n.disp, kWhere, "type"), checked_add(out.second, n.disp, kWhere, "type")};
}

bool same_layout(const LayoutNode& a, const LayoutNode& b) {
  if (a.kind != b.kind || a.disp != b.disp || a.size != b.size || a.extent != b.extent || a.elem != b.elem ||
      a.count != b.count || a.blocklength != b.blocklength || a.stride != b.stride || a.lens != b.lens ||
      a.disps != b.disps || a.fields.size() != b.fields.size() || !a.child != !b.child)
    return false;
  if (a.child && !same_layout(*a.child, *b.child)) return false;
  for (std::size_t i = 0; i < a.fields.size(); ++i) {
    const LayoutField &f = a.fields[i], &g = b.fields[i];
    if (f.len != g.len || f.disp != g.disp || f.elem != g.elem || !f.child != !g.child) return false;
    if (f.child && !same_layout(*f.child, *g.child)) return false;
  }
  return true;
}

std::int64_t node_count(const LayoutNode& node) {
  std::int64_t n = 1;
  if (node.child) n += node_count(*node.child);
  for (const auto& f : node.fields)
    if (f.child) n += node_count(*f.child);
  return n;
}

}  // namespace KokkosDDT::Impl
