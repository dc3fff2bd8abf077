// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The host reference: flattens the *constructor tree* (not the committed form) straight from the MPI definitions
// into (offset, length) runs in packed order, and packs/unpacks with memcpy. It shares nothing with commit or the
// traversal, so it checks them independently of MPICH.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "KokkosDDT.hpp"
#include "KokkosDDT_TypeNode.hpp"

namespace KokkosDDT::Test {

struct Run {
  std::int64_t offset;
  std::int64_t length;
};

// One primitive element in packed order: its primitive and size (an Opaque one: its whole size).
struct Element {
  Primitive primitive;
  std::int64_t size;
};

class Flattener {
 public:
  std::vector<Run> runs;
  std::vector<Element> elements;  // (the operations' oracle: which primitive each packed element is)

  void type(const Impl::TypeNode& n, std::int64_t base) {
    using C = Combiner;
    const std::int64_t e = n.combiner == C::Named || n.combiner == C::Struct ? 0 : n.child().extent();
    switch (n.combiner) {
      case C::Named:
        emit(base, n.size);
        if (n.primitive == Primitive::Opaque)
          elements.push_back({n.primitive, n.size});
        else
          for (std::int64_t at = 0; at < n.size; at += Impl::primitive_size(n.primitive))
            elements.push_back({n.primitive, Impl::primitive_size(n.primitive)});
        return;
      case C::Dup:
      case C::Resized:
        type(n.child(), base);
        return;
      case C::Contiguous:
        for (std::int64_t i = 0; i < n.count; ++i) type(n.child(), base + i * e);
        return;
      case C::Vector:
      case C::Hvector: {
        const std::int64_t stride = n.combiner == C::Vector ? n.stride * e : n.stride;
        for (std::int64_t i = 0; i < n.count; ++i)
          for (std::int64_t j = 0; j < n.blocklength; ++j) type(n.child(), base + i * stride + j * e);
        return;
      }
      case C::Indexed:
      case C::Hindexed:
      case C::IndexedBlock:
      case C::HindexedBlock: {
        const bool in_extents = n.combiner == C::Indexed || n.combiner == C::IndexedBlock;
        const bool uniform = n.combiner == C::IndexedBlock || n.combiner == C::HindexedBlock;
        for (std::int64_t i = 0; i < n.count; ++i) {
          const std::int64_t d = n.displacements[i] * (in_extents ? e : 1);
          const std::int64_t bl = uniform ? n.blocklength : n.blocklengths[i];
          for (std::int64_t j = 0; j < bl; ++j) type(n.child(), base + d + j * e);
        }
        return;
      }
      case C::Subarray:
        subarray(n, base, e);
        return;
      case C::Struct:
        for (std::size_t i = 0; i < n.children.size(); ++i)
          for (std::int64_t j = 0; j < n.blocklengths[i]; ++j)
            type(n.child(i), base + n.displacements[i] + j * n.child(i).extent());
        return;
    }
  }

 private:
  void emit(std::int64_t offset, std::int64_t length) {
    if (length == 0) return;
    if (!runs.empty() && runs.back().offset + runs.back().length == offset)
      runs.back().length += length;
    else
      runs.push_back({offset, length});
  }

  // Element (i_0, ..., i_{d-1}) of the subarray sits at sum_k (starts[k] + i_k) * pitch[k]; packed in storage order.
  void subarray(const Impl::TypeNode& n, std::int64_t base, std::int64_t e) {
    const int nd = static_cast<int>(n.sizes.size());
    std::vector<std::int64_t> pitch(nd), index(nd, 0);
    std::int64_t p = e;
    for (int k = 0; k < nd; ++k) {
      const int d = n.order == Order::C ? nd - 1 - k : k;
      pitch[d] = p;
      p *= n.sizes[d];
    }
    while (true) {
      std::int64_t off = base;
      for (int d = 0; d < nd; ++d) off += (n.starts[d] + index[d]) * pitch[d];
      type(n.child(), off);
      int k = 0;  // odometer, fastest dimension first
      for (; k < nd; ++k) {
        const int d = n.order == Order::C ? nd - 1 - k : k;
        if (++index[d] < n.subsizes[d]) break;
        index[d] = 0;
      }
      if (k == nd) return;
    }
  }
};

inline std::vector<Run> flatten(const Datatype& type, std::int64_t count) {
  Flattener f;
  for (std::int64_t i = 0; i < count; ++i) f.type(type.impl_node(), i * type.extent());
  return f.runs;
}

// The primitive elements of `count` instances of `type`, in packed order.
inline std::vector<Element> flatten_elements(const Datatype& type, std::int64_t count) {
  Flattener f;
  for (std::int64_t i = 0; i < count; ++i) f.type(type.impl_node(), i * type.extent());
  return f.elements;
}

inline void reference_pack(const std::vector<Run>& runs, const char* user, char* packed) {
  for (const Run& r : runs) {
    std::memcpy(packed, user + r.offset, r.length);
    packed += r.length;
  }
}

inline void reference_unpack(const std::vector<Run>& runs, const char* packed, char* user) {
  for (const Run& r : runs) {
    std::memcpy(user + r.offset, packed, r.length);
    packed += r.length;
  }
}

// True when no byte is written twice by an unpack (MPI makes overlapping receive types erroneous).
inline bool runs_disjoint(std::vector<Run> runs) {
  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.offset < b.offset; });
  for (std::size_t i = 1; i < runs.size(); ++i)
    if (runs[i - 1].offset + runs[i - 1].length > runs[i].offset) return false;
  return true;
}

// [lo, hi) of all bytes the runs touch (0, 0 if none).
inline std::pair<std::int64_t, std::int64_t> footprint(const std::vector<Run>& runs) {
  if (runs.empty()) return {0, 0};
  std::int64_t lo = runs[0].offset, hi = runs[0].offset + runs[0].length;
  for (const Run& r : runs) {
    lo = std::min(lo, r.offset);
    hi = std::max(hi, r.offset + r.length);
  }
  return {lo, hi};
}

}  // namespace KokkosDDT::Test
