// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The checks every entry point runs before anything is launched (pack, unpack and the fusion queue's enqueue share
// them), so that an exception means nothing was written: the committed type, counts, ranges, buffer sizes, null
// pointers, where raw pointers live, and for Views their memory spaces and the type's footprint inside them.

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Backend.hpp"
#include "KokkosDDT_Committed.hpp"
#include "KokkosDDT_Datatype.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_Words.hpp"

namespace KokkosDDT {

struct PackRange {
  std::int64_t offset = 0;
  std::int64_t max_bytes = -1;  // -1: to the end of the stream
};

// Stand-in for MPI_BOTTOM: displacements are absolute addresses (hindexed/struct built from object addresses).
struct Bottom {};
inline constexpr Bottom bottom{};

namespace Impl {

template <class ExecSpace>
using enable_if_exec = std::enable_if_t<Kokkos::is_execution_space_v<ExecSpace>, int>;
template <class V>
using enable_if_view = std::enable_if_t<Kokkos::is_view_v<V>, int>;

inline std::int64_t low_bit(std::uint64_t v) { return v == 0 ? 16 : static_cast<std::int64_t>(v & (~v + 1)); }

// A checked transfer, ready to launch: stream bytes [begin, end) of `count` instances of `type` between `typed` and
// `packed`, in `word`-byte words. Single packs launch it at once; the fusion queue batches several.
struct Transfer {
  const CommittedType* type = nullptr;
  std::int64_t count = 0;
  char* typed = nullptr;
  char* packed = nullptr;
  std::int64_t begin = 0, end = 0;
  int word = 1;
};

// [lo, hi): the typed-buffer bytes `count` >= 1 instances of a non-empty type move, relative to the typed origin.
inline std::pair<std::int64_t, std::int64_t> typed_footprint(const CommittedType& c, std::int64_t count,
                                                             const char* where) {
  const std::int64_t reach = checked_mul(count - 1, c.extent, where, "count");
  return {checked_add(c.data_lb, std::min<std::int64_t>(0, reach), where, "count"),
          checked_add(c.data_ub, std::max<std::int64_t>(0, reach), where, "count")};
}

// Refuses memory this execution space cannot reach, where the build's device runtime can tell. `p` is the first byte
// the transfer touches in that buffer (inside its allocation even when the type's origin is not).
template <class ExecSpace>
void check_pointer(const void* p, const char* where, const char* argument) {
  if (p == nullptr) return;
  if constexpr (Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible) {
    if (is_device_pointer(p))
      throw_error(ErrorCode::Inaccessible, where, argument,
                  std::string("is device memory, which ") + ExecSpace::name() + " cannot access");
  } else {
    if (pointer_kind(p) == PointerKind::Pageable && !device_reads_pageable_memory())
      throw_error(ErrorCode::Inaccessible, where, argument,
                  std::string("is pageable host memory, which ") + ExecSpace::name() +
                      " cannot access; use pinned memory (Kokkos::SharedHostPinnedSpace): the kernel then writes "
                      "it directly (zero-copy)");
  }
}

// The checks shared by every entry point, and the word. `typed_null_ok`: MPI_BOTTOM-style absolute addressing.
template <class ExecSpace, Direction Dir>
Transfer prepare_transfer(const char* where, const Datatype& type, std::int64_t count, char* typed, bool typed_null_ok,
                          char* packed, std::int64_t packed_bytes, const char* packed_name, PackRange range) {
  const CommittedType& committed = type.impl_committed(where);
  require_nonnegative(count, where, "count");
  require_nonnegative(packed_bytes, where, packed_name);
  const std::int64_t total = checked_mul(count, committed.size, where, "count");
  if (range.offset < 0 || range.offset > total)
    throw_error(ErrorCode::InvalidArgument, where, "range.offset",
                "is " + std::to_string(range.offset) + "; the packed stream has " + std::to_string(total) + " bytes");
  if (range.max_bytes < -1)
    throw_error(ErrorCode::InvalidArgument, where, "range.max_bytes",
                "is " + std::to_string(range.max_bytes) + "; must be >= 0, or -1 for the rest of the stream");
  const std::int64_t left = total - range.offset;
  const std::int64_t n = range.max_bytes < 0 ? left : std::min(left, range.max_bytes);
  if (packed_bytes < n)
    throw_error(ErrorCode::BufferTooSmall, where, packed_name,
                "holds " + std::to_string(packed_bytes) + " bytes but " + std::to_string(n) + " are needed");
  Transfer t{&committed, count, typed, packed, range.offset, range.offset + n, 1};
  if (n == 0) return t;
  const char* typed_name = Dir == Direction::Pack ? "src" : "dst";
  if (packed == nullptr)
    throw_error(ErrorCode::NullPointer, where, packed_name, "is null but " + std::to_string(n) + " bytes move");
  if (typed == nullptr && !typed_null_ok)
    throw_error(ErrorCode::NullPointer, where, typed_name,
                "is null but " + std::to_string(n) + " bytes move (use KokkosDDT::bottom for absolute addresses)");
  if (typed) check_pointer<ExecSpace>(typed + committed.data_lb, where, typed_name);
  check_pointer<ExecSpace>(packed, where, packed_name);
  // The widest word that keeps every copy aligned and inside one run.
  std::int64_t word = count > 1 ? committed.word_repeated : committed.word_single;
  for (std::uint64_t v : {reinterpret_cast<std::uint64_t>(typed), reinterpret_cast<std::uint64_t>(packed),
                          static_cast<std::uint64_t>(range.offset), static_cast<std::uint64_t>(n)})
    word = std::min(word, low_bit(v));
  t.word = static_cast<int>(word);
  return t;
}

// ------------------------------------------------------------------------------------------- Views

template <class ExecSpace, class MemSpace>
void require_accessible(const char* where, const char* argument) {
  if constexpr (!Kokkos::SpaceAccessibility<ExecSpace, MemSpace>::accessible)
    throw_error(ErrorCode::Inaccessible, where, argument,
                std::string("lives in ") + MemSpace::name() + ", which " + ExecSpace::name() + " cannot access");
}

template <class View>
char* bytes_of(const View& v) {
  return reinterpret_cast<char*>(const_cast<typename View::non_const_value_type*>(v.data()));
}

// Bytes from v.data() to one past the View's last element: 1 + sum((extent_i - 1) * stride_i) elements. Not span():
// for strided layouts and subviews Kokkos' span runs past the last element.
template <class View>
std::int64_t view_footprint_bytes(const View& v) {
  if (v.size() == 0) return 0;
  std::int64_t last = 0;
  for (int r = 0; r < static_cast<int>(View::rank()); ++r)
    last += (static_cast<std::int64_t>(v.extent(r)) - 1) * static_cast<std::int64_t>(v.stride(r));
  return (last + 1) * static_cast<std::int64_t>(sizeof(typename View::value_type));
}

// The typed and packed sides of a View call, checked: both Views accessible from ExecSpace, the packed View
// contiguous, and every byte `count` instances of `type` touch inside the typed View.
struct ViewSides {
  char* typed;
  char* packed;
  std::int64_t packed_bytes;
};

// The typed side alone: accessible from ExecSpace, and every byte `count` instances of `type` touch inside the View.
template <class ExecSpace, class TypedView>
char* check_typed_view(const char* where, const TypedView& typed, const char* typed_name, const Datatype& type,
                       std::int64_t count) {
  require_accessible<ExecSpace, typename TypedView::memory_space>(where, typed_name);
  const CommittedType& c = type.impl_committed(where);
  require_nonnegative(count, where, "count");
  if (count > 0 && c.size > 0) {
    const auto [lo, hi] = typed_footprint(c, count, where);
    const std::int64_t bytes = view_footprint_bytes(typed);
    if (lo < 0 || hi > bytes)
      throw_error(ErrorCode::BufferTooSmall, where, typed_name,
                  "holds bytes [0, " + std::to_string(bytes) + ") of its elements but the type touches [" +
                      std::to_string(lo) + ", " + std::to_string(hi) + ")");
  }
  return bytes_of(typed);
}

template <class ExecSpace, class TypedView, class PackedView>
ViewSides check_views(const char* where, const TypedView& typed, const char* typed_name, const PackedView& packed,
                      const char* packed_name, const Datatype& type, std::int64_t count) {
  require_accessible<ExecSpace, typename PackedView::memory_space>(where, packed_name);
  if (!packed.span_is_contiguous())
    throw_error(ErrorCode::InvalidArgument, where, packed_name, "is not contiguous; a packed buffer must be");
  return {check_typed_view<ExecSpace>(where, typed, typed_name, type, count), bytes_of(packed),
          static_cast<std::int64_t>(packed.span() * sizeof(typename PackedView::value_type))};
}

}  // namespace Impl
}  // namespace KokkosDDT
