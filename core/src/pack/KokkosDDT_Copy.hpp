// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// copy: `scount` instances of `stype` at `src` into `dcount` instances of `dtype` at `dst`, typed to typed, in one
// launch and without a packed buffer: what pack into a buffer and unpack from it would do. The two sides' type
// signatures must match (the same primitives in the same order: MPI's rule for a send and its receive), so that they
// move the same number of bytes; their layouts may differ in every other way, and the buffers may live in any memory
// the execution space reaches.
//
//   copy(space, src, scount, stype, dst, dcount, dtype [, range])   -> bytes moved
//
// `range` selects bytes [offset, offset + max_bytes) of the packed stream both sides describe (clipped to its end), as
// for pack and unpack: any split of a copy into ranges gives the same result as one call. KokkosDDT::bottom on either
// side means its displacements are addresses. Every argument is checked before anything is launched, so an exception
// (KokkosDDT::Error) means nothing was written. The source and destination bytes must not overlap (not checked: the
// bounds of two regions of one array overlap without their bytes doing so); if they do, the result is undefined.
//
// The instance-first forms only enqueue work on `space`; the others use the default execution space (pointers) or the
// destination View's, and fence it before returning.

#include <algorithm>
#include <cstdint>
#include <string>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Backend.hpp"
#include "KokkosDDT_Committed.hpp"
#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_Datatype.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_Pack.hpp"
#include "KokkosDDT_Transfer.hpp"

namespace KokkosDDT {

namespace Impl {

// Both sides checked, ready to launch: stream bytes [begin, end), `word`-byte words.
struct CopyTransfer {
  const CommittedType* src_type = nullptr;
  const CommittedType* dst_type = nullptr;
  char* src = nullptr;
  char* dst = nullptr;
  std::int64_t begin = 0, end = 0;
  int word = 1;
};

// The widest word that keeps every copy of stream bytes [offset, offset + n) aligned and inside one run of both types.
inline int copy_word(const CommittedType& s, std::int64_t scount, const char* src, const CommittedType& d,
                     std::int64_t dcount, const char* dst, std::int64_t offset, std::int64_t n) {
  std::int64_t word =
      std::min(scount > 1 ? s.word_repeated : s.word_single, dcount > 1 ? d.word_repeated : d.word_single);
  for (std::uint64_t v : {reinterpret_cast<std::uint64_t>(src), reinterpret_cast<std::uint64_t>(dst),
                          static_cast<std::uint64_t>(offset), static_cast<std::uint64_t>(n)})
    word = std::min(word, low_bit(v));
  return static_cast<int>(word);
}

inline CopyTransfer prepare_copy(const char* where, char* src, bool src_absolute, std::int64_t scount,
                                 const Datatype& stype, char* dst, bool dst_absolute, std::int64_t dcount,
                                 const Datatype& dtype, PackRange range) {
  auto committed = [&](const Datatype& type, const char* name) -> const CommittedType& {
    if (type.is_null()) throw_error(ErrorCode::NullDatatype, where, name, "is a null Datatype");
    if (!type.is_committed())
      throw_error(ErrorCode::NotCommitted, where, name, "was not committed; call commit() on it before copying");
    return type.impl_committed(where);
  };
  const CommittedType& s = committed(stype, "stype");
  const CommittedType& d = committed(dtype, "dtype");
  require_nonnegative(scount, where, "scount");
  require_nonnegative(dcount, where, "dcount");
  const std::int64_t total = checked_mul(scount, s.size, where, "scount");
  const std::int64_t dtotal = checked_mul(dcount, d.size, where, "dcount");
  if (dtotal != total)
    throw_error(ErrorCode::InvalidArgument, where, "dcount",
                "makes the destination " + std::to_string(dtotal) + " bytes but the source is " +
                    std::to_string(total) + ": their type signatures must match");
  if (!signatures_match(stype, scount, dtype, dcount))
    throw_error(ErrorCode::InvalidArgument, where, "dtype",
                "has another type signature than the source (the same bytes, other primitives or another order): "
                "the signatures must match");
  if (range.offset < 0 || range.offset > total)
    throw_error(ErrorCode::InvalidArgument, where, "range.offset",
                "is " + std::to_string(range.offset) + "; the stream has " + std::to_string(total) + " bytes");
  if (range.max_bytes < -1)
    throw_error(ErrorCode::InvalidArgument, where, "range.max_bytes",
                "is " + std::to_string(range.max_bytes) + "; must be >= 0, or -1 for the rest of the stream");
  const std::int64_t left = total - range.offset;
  const std::int64_t n = range.max_bytes < 0 ? left : std::min(left, range.max_bytes);
  CopyTransfer t{&s, &d, src, dst, range.offset, range.offset + n, 1};
  if (n == 0) return t;
  auto require_buffer = [&](const char* p, bool absolute, const char* name) {
    if (p == nullptr && !absolute)
      throw_error(ErrorCode::NullPointer, where, name,
                  "is null but " + std::to_string(n) + " bytes move (use KokkosDDT::bottom for absolute addresses)");
  };
  require_buffer(src, src_absolute, "src");
  require_buffer(dst, dst_absolute, "dst");
  t.word = copy_word(s, scount, src, d, dcount, dst, range.offset, n);
  return t;
}

// The checks that need the execution space: where each side's first byte lives.
template <class ExecSpace>
void check_copy_memory(const CopyTransfer& t, const char* where) {
  if (t.end == t.begin) return;
  if (t.src) check_pointer<ExecSpace>(t.src + t.src_type->data_lb, where, "src");
  if (t.dst) check_pointer<ExecSpace>(t.dst + t.dst_type->data_lb, where, "dst");
}

// Launches a checked copy on `space` (asynchronously). A class, so that the library compiles it once per backend
// (explicit instantiation; its definition: KokkosDDT_Copy_impl.hpp).
template <class ExecSpace>
struct CopyLaunch {
  static void launch(const ExecSpace& space, const CopyTransfer& t);
};

// Compiled once per backend in the library (core/src/eti/KokkosDDT_ETI_Copy.cpp).
#define KOKKOSDDT_EXTERN_COPY(Space) extern template struct CopyLaunch<Space>;
KOKKOSDDT_ETI_SPACES(KOKKOSDDT_EXTERN_COPY)
#undef KOKKOSDDT_EXTERN_COPY

template <class ExecSpace>
std::int64_t copy_typed(const ExecSpace& space, char* src, bool src_absolute, std::int64_t scount,
                        const Datatype& stype, char* dst, bool dst_absolute, std::int64_t dcount, const Datatype& dtype,
                        PackRange range) {
  const char* where = "KokkosDDT::copy";
  const CopyTransfer t = prepare_copy(where, src, src_absolute, scount, stype, dst, dst_absolute, dcount, dtype, range);
  check_copy_memory<ExecSpace>(t, where);
  CopyLaunch<ExecSpace>::launch(space, t);
  return t.end - t.begin;
}

inline char* bytes(const void* p) { return const_cast<char*>(static_cast<const char*>(p)); }

}  // namespace Impl

// ------------------------------------------------------------------------------------------- pointers

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
std::int64_t copy(const ExecSpace& space, const void* src, std::int64_t scount, const Datatype& stype, void* dst,
                  std::int64_t dcount, const Datatype& dtype, PackRange range = {}) {
  return Impl::copy_typed(space, Impl::bytes(src), false, scount, stype, Impl::bytes(dst), false, dcount, dtype, range);
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
std::int64_t copy(const ExecSpace& space, Bottom, std::int64_t scount, const Datatype& stype, void* dst,
                  std::int64_t dcount, const Datatype& dtype, PackRange range = {}) {
  return Impl::copy_typed(space, nullptr, true, scount, stype, Impl::bytes(dst), false, dcount, dtype, range);
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
std::int64_t copy(const ExecSpace& space, const void* src, std::int64_t scount, const Datatype& stype, Bottom,
                  std::int64_t dcount, const Datatype& dtype, PackRange range = {}) {
  return Impl::copy_typed(space, Impl::bytes(src), false, scount, stype, nullptr, true, dcount, dtype, range);
}

template <class ExecSpace, Impl::enable_if_exec<ExecSpace> = 0>
std::int64_t copy(const ExecSpace& space, Bottom, std::int64_t scount, const Datatype& stype, Bottom,
                  std::int64_t dcount, const Datatype& dtype, PackRange range = {}) {
  return Impl::copy_typed(space, nullptr, true, scount, stype, nullptr, true, dcount, dtype, range);
}

// ------------------------------------------------------------------------------------------- Views
// Both Views accessible from the execution space, and every byte each side's type touches inside its View.

template <class ExecSpace, class SrcView, class DstView, Impl::enable_if_exec<ExecSpace> = 0,
          Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
std::int64_t copy(const ExecSpace& space, const SrcView& src, std::int64_t scount, const Datatype& stype,
                  const DstView& dst, std::int64_t dcount, const Datatype& dtype, PackRange range = {}) {
  char* s = Impl::check_typed_view<ExecSpace>("KokkosDDT::copy", src, "src", stype, scount);
  char* d = Impl::check_typed_view<ExecSpace>("KokkosDDT::copy", dst, "dst", dtype, dcount);
  return copy(space, s, scount, stype, d, dcount, dtype, range);
}

// ------------------------------------------------------------------------------------------- fencing forms

inline std::int64_t copy(const void* src, std::int64_t scount, const Datatype& stype, void* dst, std::int64_t dcount,
                         const Datatype& dtype, PackRange range = {}) {
  return Impl::fenced<Kokkos::DefaultExecutionSpace>(
      "KokkosDDT::copy", [&](const auto& s) { return copy(s, src, scount, stype, dst, dcount, dtype, range); });
}

template <class SrcView, class DstView, Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
std::int64_t copy(const SrcView& src, std::int64_t scount, const Datatype& stype, const DstView& dst,
                  std::int64_t dcount, const Datatype& dtype, PackRange range = {}) {
  return Impl::fenced<typename DstView::execution_space>(
      "KokkosDDT::copy", [&](const auto& s) { return copy(s, src, scount, stype, dst, dcount, dtype, range); });
}

}  // namespace KokkosDDT

#if KOKKOSDDT_HEADER_DEFINITIONS
#include "KokkosDDT_Copy_impl.hpp"
#endif
