// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// pack / unpack: move `count` instances of a committed type between a typed buffer and a contiguous packed buffer, in
// one kernel launch on an execution-space instance. All arguments are checked before anything is launched, so an
// exception (KokkosDDT::Error) means nothing was written.
//
//   pack(space, src, count, type, dst, dst_bytes [, range])       -> bytes written to dst
//   unpack(space, src, src_bytes, dst, count, type [, range])     -> bytes read from src
//
// Partial transfers: `range` selects bytes [offset, offset + max_bytes) of the packed stream (clipped to its end);
// pack writes them to dst[0..n), unpack reads them from src[0..n). Any split of a stream into ranges, in any order,
// gives the same result as one call, so large messages can be pipelined.
//
// The instance-first forms only enqueue work on `space`; the forms without an instance use the default execution
// space and fence before returning. Where completes_on_return<ExecSpace> (Serial, OpenMP), the instance-first forms
// return with every byte moved, as MPI_Pack does, and need no fence after them. Views are accepted wherever a pointer
// is; with Views the memory space is checked against the execution space, and the typed View must contain every byte
// the type touches.

#include <cstdint>
#include <cstring>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Datatype.hpp"
#include "KokkosDDT_Launch.hpp"
#include "KokkosDDT_Transfer.hpp"
#include "KokkosDDT_ViewDatatype.hpp"

namespace KokkosDDT {

// True where pack, unpack and copy on an instance of ExecSpace return with every byte moved: on host backends whose
// launches run to completion before they return (Serial, OpenMP), so that a caller needs no fence after them. False
// on devices, whose launches only enqueue. (Fusion queue requests are not covered: a queue may hold them back.)
template <class ExecSpace>
inline constexpr bool completes_on_return = Impl::BackendTraits<ExecSpace>::synchronous;

namespace Impl {

// Hosts: contiguous transfers up to this many bytes are one memcpy in `transfer` (the host walk's smallest tile).
inline constexpr std::int64_t kInlineContigBytes = std::int64_t(64) << 10;

template <class ExecSpace, Direction Dir>
std::int64_t transfer(const ExecSpace& space, const char* where, const Datatype& type, std::int64_t count, char* typed,
                      bool typed_null_ok, char* packed, std::int64_t packed_bytes, const char* packed_name,
                      PackRange range) {
  const Transfer t = prepare_transfer<ExecSpace, Dir>(where, type, count, typed, typed_null_ok, packed, packed_bytes,
                                                      packed_name, range);
  if constexpr (BackendTraits<ExecSpace>::synchronous) {
    // Hosts: a contiguous transfer of one tile is one memcpy on the calling thread, here, without the launch's call
    // and dispatch (what the traversal's inline path would do): a call that moves a few hundred bytes costs about as
    // much as its checks and these calls. Profiling tools keep the launch, which shows them the operation.
    if (t.type->shape.kind == Shape::Kind::Contig && t.end - t.begin <= kInlineContigBytes &&
        !Kokkos::Tools::profileLibraryLoaded()) {
      char* run = address_at(t.typed, t.type->shape.disp + t.begin);
      if (t.end > t.begin)
        std::memcpy(Dir == Direction::Pack ? t.packed : run, Dir == Direction::Pack ? run : t.packed, t.end - t.begin);
      return t.end - t.begin;
    }
  }
  TraversalLaunch<ExecSpace, Dir>::launch(space, *t.type, t.typed, t.packed, t.begin, t.end, t.word);
  return t.end - t.begin;
}

}  // namespace Impl

// ------------------------------------------------------------------------------------------- pointers

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
std::int64_t pack(const ExecSpace& space, const void* src, std::int64_t count, const Datatype& type, void* dst,
                  std::int64_t dst_bytes, PackRange range = {}) {
  return Impl::transfer<ExecSpace, Impl::Direction::Pack>(space, "KokkosDDT::pack", type, count,
                                                          const_cast<char*>(static_cast<const char*>(src)), false,
                                                          static_cast<char*>(dst), dst_bytes, "dst_bytes", range);
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
std::int64_t pack(const ExecSpace& space, Bottom, std::int64_t count, const Datatype& type, void* dst,
                  std::int64_t dst_bytes, PackRange range = {}) {
  return Impl::transfer<ExecSpace, Impl::Direction::Pack>(space, "KokkosDDT::pack", type, count, nullptr, true,
                                                          static_cast<char*>(dst), dst_bytes, "dst_bytes", range);
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
std::int64_t unpack(const ExecSpace& space, const void* src, std::int64_t src_bytes, void* dst, std::int64_t count,
                    const Datatype& type, PackRange range = {}) {
  return Impl::transfer<ExecSpace, Impl::Direction::Unpack>(
      space, "KokkosDDT::unpack", type, count, static_cast<char*>(dst), false,
      const_cast<char*>(static_cast<const char*>(src)), src_bytes, "src_bytes", range);
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
std::int64_t unpack(const ExecSpace& space, const void* src, std::int64_t src_bytes, Bottom, std::int64_t count,
                    const Datatype& type, PackRange range = {}) {
  return Impl::transfer<ExecSpace, Impl::Direction::Unpack>(space, "KokkosDDT::unpack", type, count, nullptr, true,
                                                            const_cast<char*>(static_cast<const char*>(src)), src_bytes,
                                                            "src_bytes", range);
}

// ------------------------------------------------------------------------------------------- Views

template <class ExecSpace, class SrcView, class DstView, Impl::enable_if_exec<ExecSpace> = 0,
          Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
std::int64_t pack(const ExecSpace& space, const SrcView& src, std::int64_t count, const Datatype& type,
                  const DstView& dst, PackRange range = {}) {
  const auto sides = Impl::check_views<ExecSpace>("KokkosDDT::pack", src, "src", dst, "dst", type, count);
  return pack(space, sides.typed, count, type, sides.packed, sides.packed_bytes, range);
}

template <class ExecSpace, class SrcView, class DstView, Impl::enable_if_exec<ExecSpace> = 0,
          Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
std::int64_t unpack(const ExecSpace& space, const SrcView& src, const DstView& dst, std::int64_t count,
                    const Datatype& type, PackRange range = {}) {
  const auto sides = Impl::check_views<ExecSpace>("KokkosDDT::unpack", dst, "dst", src, "src", type, count);
  return unpack(space, sides.packed, sides.packed_bytes, sides.typed, count, type, range);
}

// A View or subview alone: its own datatype (see datatype_of), committed for the call.
template <class ExecSpace, class SrcView, class DstView, Impl::enable_if_exec<ExecSpace> = 0,
          Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
std::int64_t pack(const ExecSpace& space, const SrcView& src, const DstView& dst, PackRange range = {}) {
  Datatype type = datatype_of(src);
  type.commit();
  return pack(space, src, 1, type, dst, range);
}

template <class ExecSpace, class SrcView, class DstView, Impl::enable_if_exec<ExecSpace> = 0,
          Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
std::int64_t unpack(const ExecSpace& space, const SrcView& src, const DstView& dst, PackRange range = {}) {
  Datatype type = datatype_of(dst);
  type.commit();
  return unpack(space, src, dst, 1, type, range);
}

// ------------------------------------------------------------------------------------------- fencing forms
// Without an instance: pointers run on Kokkos::DefaultExecutionSpace, Views on the execution space of the typed View;
// the call fences that space before returning.

namespace Impl {
template <class ExecSpace, class F>
std::int64_t fenced(const char* label, F&& launch) {
  ExecSpace space;
  const std::int64_t n = launch(space);
  space.fence(label);
  return n;
}
}  // namespace Impl

inline std::int64_t pack(const void* src, std::int64_t count, const Datatype& type, void* dst, std::int64_t dst_bytes,
                         PackRange range = {}) {
  return Impl::fenced<Kokkos::DefaultExecutionSpace>(
      "KokkosDDT::pack", [&](const auto& s) { return pack(s, src, count, type, dst, dst_bytes, range); });
}

inline std::int64_t pack(Bottom, std::int64_t count, const Datatype& type, void* dst, std::int64_t dst_bytes,
                         PackRange range = {}) {
  return Impl::fenced<Kokkos::DefaultExecutionSpace>(
      "KokkosDDT::pack", [&](const auto& s) { return pack(s, bottom, count, type, dst, dst_bytes, range); });
}

inline std::int64_t unpack(const void* src, std::int64_t src_bytes, void* dst, std::int64_t count, const Datatype& type,
                           PackRange range = {}) {
  return Impl::fenced<Kokkos::DefaultExecutionSpace>(
      "KokkosDDT::unpack", [&](const auto& s) { return unpack(s, src, src_bytes, dst, count, type, range); });
}

inline std::int64_t unpack(const void* src, std::int64_t src_bytes, Bottom, std::int64_t count, const Datatype& type,
                           PackRange range = {}) {
  return Impl::fenced<Kokkos::DefaultExecutionSpace>(
      "KokkosDDT::unpack", [&](const auto& s) { return unpack(s, src, src_bytes, bottom, count, type, range); });
}

template <class SrcView, class DstView, Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
std::int64_t pack(const SrcView& src, std::int64_t count, const Datatype& type, const DstView& dst,
                  PackRange range = {}) {
  return Impl::fenced<typename SrcView::execution_space>(
      "KokkosDDT::pack", [&](const auto& s) { return pack(s, src, count, type, dst, range); });
}

template <class SrcView, class DstView, Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
std::int64_t pack(const SrcView& src, const DstView& dst, PackRange range = {}) {
  return Impl::fenced<typename SrcView::execution_space>("KokkosDDT::pack",
                                                         [&](const auto& s) { return pack(s, src, dst, range); });
}

template <class SrcView, class DstView, Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
std::int64_t unpack(const SrcView& src, const DstView& dst, std::int64_t count, const Datatype& type,
                    PackRange range = {}) {
  return Impl::fenced<typename DstView::execution_space>(
      "KokkosDDT::unpack", [&](const auto& s) { return unpack(s, src, dst, count, type, range); });
}

template <class SrcView, class DstView, Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
std::int64_t unpack(const SrcView& src, const DstView& dst, PackRange range = {}) {
  return Impl::fenced<typename DstView::execution_space>("KokkosDDT::unpack",
                                                         [&](const auto& s) { return unpack(s, src, dst, range); });
}

}  // namespace KokkosDDT
