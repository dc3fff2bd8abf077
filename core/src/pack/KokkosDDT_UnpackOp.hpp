// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// unpack with an operation: each element of the packed stream combined into the element of the typed buffer it
// unpacks to, as MPI_Unpack into a copy of those elements followed by MPI_Reduce_local(packed, copy, op) per primitive
// element and an unpack of the result would leave them (see Op for the operations and what they apply to).
//
//   unpack(space, src, src_bytes, dst, count, type, op [, range])   -> bytes read from src
//
// Op::Replace is the plain unpack. Any other operation runs the reference engine, three steps on `space`: the
// destination's elements packed into a scratch buffer, the incoming stream combined into it element by element (one
// kernel where every element has one primitive type; on the host, along the type's constructor tree, where it has
// several, staged through host memory from a device), and the result unpacked back. Where a type reaches one element
// twice, the result is that of the steps above, as MPI's would be. A range must begin and end on element boundaries.
//
// Every argument (the operation against every primitive the type holds included) is checked before anything is
// written, so an exception means the destination is untouched. The instance-first forms return after the work is
// done (their scratch buffer is released then); the others fence as unpack's do.

#include <algorithm>
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Combine.hpp"
#include "KokkosDDT_Op.hpp"
#include "KokkosDDT_Pack.hpp"
#include "KokkosDDT_TypeNode.hpp"

namespace KokkosDDT {
namespace Impl {

// Calls f(primitive, position, bytes) for every primitive element of stream bytes [lo, hi) of `copies` consecutive
// instances of `n` whose stream starts at `at` (hosts: the mixed-primitive combine; the elements come in stream
// order).
template <class F>
void for_each_element(const TypeNode& n, std::int64_t copies, std::int64_t at, std::int64_t lo, std::int64_t hi, F& f);

template <class F>
void for_each_element_once(const TypeNode& n, std::int64_t at, std::int64_t lo, std::int64_t hi, F& f) {
  switch (n.combiner) {
    case Combiner::Named:
      if (n.primitive == Primitive::Opaque) return f(n.primitive, at, n.size);
      for (std::int64_t e = primitive_size(n.primitive), p = at; p < at + n.size; p += e)
        if (p + e > lo && p < hi) f(n.primitive, p, e);
      return;
    case Combiner::Dup:
    case Combiner::Resized:
      return for_each_element_once(n.child(), at, lo, hi, f);
    case Combiner::Contiguous:
      return for_each_element(n.child(), n.count, at, lo, hi, f);
    case Combiner::Vector:
    case Combiner::Hvector:
    case Combiner::IndexedBlock:
    case Combiner::HindexedBlock:
      return for_each_element(n.child(), n.count * n.blocklength, at, lo, hi, f);
    case Combiner::Subarray: {
      std::int64_t cells = 1;
      for (const std::int64_t s : n.subsizes) cells *= s;
      return for_each_element(n.child(), cells, at, lo, hi, f);
    }
    case Combiner::Indexed:
    case Combiner::Hindexed:
    case Combiner::Struct:
      for (std::size_t i = 0; i < n.blocklengths.size() && at < hi; ++i) {
        const TypeNode& c = n.child(n.combiner == Combiner::Struct ? i : 0);
        for_each_element(c, n.blocklengths[i], at, lo, hi, f);
        at += n.blocklengths[i] * c.size;
      }
      return;
  }
}

template <class F>
void for_each_element(const TypeNode& n, std::int64_t copies, std::int64_t at, std::int64_t lo, std::int64_t hi, F& f) {
  if (n.size == 0 || copies <= 0) return;
  const std::int64_t first = lo > at ? (lo - at) / n.size : 0;
  const std::int64_t last = std::min(copies, hi > at ? (hi - at + n.size - 1) / n.size : 0);
  for (std::int64_t c = first; c < last; ++c) for_each_element_once(n, at + c * n.size, lo, hi, f);
}

// Hosts: packed stream bytes [begin, end) of `count` instances of `type`, `incoming` combined into `existing` (both
// holding those bytes) element by element, each with its own primitive type. Throws InvalidArgument (`range`) where
// an element crosses either end.
inline void combine_stream(Op op, const Datatype& type, std::int64_t count, std::int64_t begin, std::int64_t end,
                           char* existing, const char* incoming, const char* where) {
  auto combine = [&](Primitive p, std::int64_t at, std::int64_t bytes) {
    if (at < begin || at + bytes > end)
      throw_error(ErrorCode::InvalidArgument, where, "range",
                  "splits an element of the type (stream bytes [" + std::to_string(at) + ", " +
                      std::to_string(at + bytes) + ")); an operation combines whole elements");
    combine_bytes(op, p, existing + (at - begin), incoming + (at - begin), bytes);
  };
  for_each_element(type.impl_node(where), count, 0, begin, end, combine);
}

// Stream bytes [begin, end) of `incoming` combined into `existing` on `space`, every element of primitive p.
template <class ExecSpace>
void combine_single(const ExecSpace& space, Op op, Primitive p, char* existing, const char* incoming,
                    std::int64_t bytes) {
  const std::int64_t size = primitive_size(p);
  Kokkos::parallel_for(
      "KokkosDDT::unpack(op): combine", Kokkos::RangePolicy<ExecSpace>(space, 0, bytes / size),
      KOKKOS_LAMBDA(std::int64_t i) { combine_bytes(op, p, existing + i * size, incoming + i * size, size); });
}

// The word of a combining transfer of one primitive type `element` (checked by prepare_transfer): whole elements, so at
// least an element's size whatever the buffers' alignment (the combining copies take unaligned words). Throws
// InvalidArgument (`range`) where the transfer begins or ends inside an element.
inline int combining_word(const Transfer& t, Primitive element, const char* where) {
  const std::int64_t e = primitive_size(element);
  if (t.begin % e != 0 || t.end % e != 0)
    throw_error(ErrorCode::InvalidArgument, where, "range",
                "selects stream bytes [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                    "), which split an element of " + std::to_string(e) +
                    " bytes; an operation combines whole elements");
  return static_cast<int>(std::max<std::int64_t>(t.word, e));
}

// The reference engine (see the top of this file). `typed` null with `absolute`: MPI_BOTTOM.
template <class ExecSpace>
std::int64_t unpack_with_op(const ExecSpace& space, const char* src, std::int64_t src_bytes, char* typed, bool absolute,
                            std::int64_t count, const Datatype& type, Op op, PackRange range) {
  const char* where = "KokkosDDT::unpack";
  char* packed = const_cast<char*>(src);
  const Transfer t = prepare_transfer<ExecSpace, Direction::Unpack>(where, type, count, typed, absolute, packed,
                                                                    src_bytes, "src_bytes", range);
  require_op_applies(op, type, where);
  const std::int64_t n = t.end - t.begin;
  if (op == Op::Replace || n == 0)
    return transfer<ExecSpace, Direction::Unpack>(space, where, type, count, typed, absolute, packed, src_bytes,
                                                  "src_bytes", range);
  const SinglePrimitive single = single_primitive(type);
  if (single.single) combining_word(t, single.primitive, where);
  using MemSpace = typename ExecSpace::memory_space;
  Kokkos::View<char*, MemSpace> scratch(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string("KokkosDDT::unpack(op): scratch")), n);
  const PackRange whole{t.begin, n};
  transfer<ExecSpace, Direction::Pack>(space, where, type, count, typed, absolute, scratch.data(), n, "scratch", whole);
  if (single.single) {
    combine_single(space, op, single.primitive, scratch.data(), src, n);
  } else {  // several primitives: along the type's tree, on the host
    auto existing = Kokkos::create_mirror_view(Kokkos::WithoutInitializing, scratch);
    Kokkos::View<const char*, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> incoming(src, n);
    auto incoming_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), incoming);
    Kokkos::deep_copy(space, existing, scratch);
    space.fence("KokkosDDT::unpack(op): the destination's elements on the host");
    combine_stream(op, type, count, t.begin, t.end, existing.data(), incoming_host.data(), where);
    Kokkos::deep_copy(space, scratch, existing);
  }
  transfer<ExecSpace, Direction::Unpack>(space, where, type, count, typed, absolute, scratch.data(), n, "scratch",
                                         whole);
  if constexpr (!BackendTraits<ExecSpace>::synchronous) space.fence("KokkosDDT::unpack(op): scratch released");
  return n;
}

}  // namespace Impl

// ------------------------------------------------------------------------------------------- pointers

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
std::int64_t unpack(const ExecSpace& space, const void* src, std::int64_t src_bytes, void* dst, std::int64_t count,
                    const Datatype& type, Op op, PackRange range = {}) {
  return Impl::unpack_with_op(space, static_cast<const char*>(src), src_bytes, static_cast<char*>(dst), false, count,
                              type, op, range);
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
std::int64_t unpack(const ExecSpace& space, const void* src, std::int64_t src_bytes, Bottom, std::int64_t count,
                    const Datatype& type, Op op, PackRange range = {}) {
  return Impl::unpack_with_op(space, static_cast<const char*>(src), src_bytes, nullptr, true, count, type, op, range);
}

// ------------------------------------------------------------------------------------------- Views

template <class ExecSpace, class SrcView, class DstView, Impl::enable_if_exec<ExecSpace> = 0,
          Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
std::int64_t unpack(const ExecSpace& space, const SrcView& src, const DstView& dst, std::int64_t count,
                    const Datatype& type, Op op, PackRange range = {}) {
  const auto sides = Impl::check_views<ExecSpace>("KokkosDDT::unpack", dst, "dst", src, "src", type, count);
  return unpack(space, sides.packed, sides.packed_bytes, sides.typed, count, type, op, range);
}

template <class ExecSpace, class SrcView, class DstView, Impl::enable_if_exec<ExecSpace> = 0,
          Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
std::int64_t unpack(const ExecSpace& space, const SrcView& src, const DstView& dst, Op op, PackRange range = {}) {
  Datatype type = datatype_of(dst);
  type.commit();
  return unpack(space, src, dst, 1, type, op, range);
}

// ------------------------------------------------------------------------------------------- fencing forms

inline std::int64_t unpack(const void* src, std::int64_t src_bytes, void* dst, std::int64_t count, const Datatype& type,
                           Op op, PackRange range = {}) {
  return Impl::fenced<Kokkos::DefaultExecutionSpace>(
      "KokkosDDT::unpack", [&](const auto& s) { return unpack(s, src, src_bytes, dst, count, type, op, range); });
}

inline std::int64_t unpack(const void* src, std::int64_t src_bytes, Bottom, std::int64_t count, const Datatype& type,
                           Op op, PackRange range = {}) {
  return Impl::fenced<Kokkos::DefaultExecutionSpace>(
      "KokkosDDT::unpack", [&](const auto& s) { return unpack(s, src, src_bytes, bottom, count, type, op, range); });
}

template <class SrcView, class DstView, Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
std::int64_t unpack(const SrcView& src, const DstView& dst, std::int64_t count, const Datatype& type, Op op,
                    PackRange range = {}) {
  return Impl::fenced<typename DstView::execution_space>(
      "KokkosDDT::unpack", [&](const auto& s) { return unpack(s, src, dst, count, type, op, range); });
}

template <class SrcView, class DstView, Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
std::int64_t unpack(const SrcView& src, const DstView& dst, Op op, PackRange range = {}) {
  return Impl::fenced<typename DstView::execution_space>("KokkosDDT::unpack",
                                                         [&](const auto& s) { return unpack(s, src, dst, op, range); });
}

}  // namespace KokkosDDT
