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
// space and fence before returning. Views are accepted wherever a pointer is; with Views the memory space is checked
// against the execution space, and the typed View must contain every byte the type touches.

#include <cstdint>
#include <limits>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_Datatype.hpp"
#include "KokkosDDT_PointerCheck.hpp"
#include "KokkosDDT_ViewDatatype.hpp"
#include "impl/KokkosDDT_PackKernel.hpp"

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

// A checked transfer, ready to launch: stream bytes [begin, end) of `count` instances of `type` between `user` and
// `packed`, in `word`-byte words. Single packs launch it at once; the fusion queue batches several.
struct Transfer {
  const CommittedType* type = nullptr;
  std::int64_t count = 0;
  char* user = nullptr;
  char* packed = nullptr;
  std::int64_t begin = 0, end = 0;
  int word = 1;
};

// The checks shared by every entry point (nothing is launched or written if one fails), and the word.
// `user_null_ok`: MPI_BOTTOM-style absolute addressing.
template <class ExecSpace, Direction Dir>
Transfer prepare_transfer(const char* where, const Datatype& type, std::int64_t count, char* user, bool user_null_ok,
                          char* packed, std::int64_t packed_bytes, const char* packed_name, PackRange range) {
  const Impl::CommittedType& committed = type.committed(where);
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
  Transfer t{&committed, count, user, packed, range.offset, range.offset + n, 1};
  if (n == 0) return t;
  if (packed == nullptr)
    throw_error(ErrorCode::NullPointer, where, packed_name, "is null but " + std::to_string(n) + " bytes move");
  if (user == nullptr && !user_null_ok)
    throw_error(ErrorCode::NullPointer, where, Dir == Direction::Pack ? "src" : "dst",
                "is null but " + std::to_string(n) + " bytes move (use KokkosDDT::bottom for absolute addresses)");
  // Raw pointers: refuse memory this execution space cannot reach, where the backend can tell (checked at the first
  // byte each side touches, inside its allocation even when the type's origin is not).
  if (user) check_pointer<ExecSpace>(user + committed.data_lb, where, Dir == Direction::Pack ? "src" : "dst");
  check_pointer<ExecSpace>(packed, where, packed_name);
  // The widest word that keeps every copy aligned and inside one run.
  std::int64_t word = count > 1 ? committed.word_repeated : committed.word_single;
  for (std::uint64_t v : {reinterpret_cast<std::uint64_t>(user), reinterpret_cast<std::uint64_t>(packed),
                          static_cast<std::uint64_t>(range.offset), static_cast<std::uint64_t>(n)})
    word = std::min(word, low_bit(v));
  t.word = static_cast<int>(word);
  return t;
}

template <class ExecSpace, Direction Dir>
std::int64_t transfer(const ExecSpace& space, const char* where, const Datatype& type, std::int64_t count, char* user,
                      bool user_null_ok, char* packed, std::int64_t packed_bytes, const char* packed_name,
                      PackRange range) {
  const Transfer t = prepare_transfer<ExecSpace, Dir>(where, type, count, user, user_null_ok, packed, packed_bytes,
                                                      packed_name, range);
  launch_traversal<ExecSpace, Dir>(space, *t.type, t.user, t.packed, t.begin, t.end, t.word);
  return t.end - t.begin;
}

template <class ExecSpace, class MemSpace>
void require_accessible(const char* where, const char* argument) {
  if constexpr (!Kokkos::SpaceAccessibility<ExecSpace, MemSpace>::accessible)
    throw_error(ErrorCode::Inaccessible, where, argument,
                std::string("lives in ") + MemSpace::name() + ", which " + ExecSpace::name() + " cannot access");
}

template <class View>
std::int64_t contiguous_bytes(const View& v, const char* where, const char* argument) {
  if (!v.span_is_contiguous())
    throw_error(ErrorCode::InvalidArgument, where, argument, "is not contiguous; a packed buffer must be");
  return static_cast<std::int64_t>(v.span() * sizeof(typename View::value_type));
}

// Every byte `count` instances of `type` move must lie inside the View's allocation.
template <class View>
void require_inside(const View& v, const Datatype& type, std::int64_t count, const char* where, const char* argument) {
  if (count == 0 || type.size() == 0) return;
  const CommittedType& c = type.committed(where);
  const std::int64_t reach = checked_mul(count - 1, c.extent, where, "count");
  const std::int64_t lo = c.data_lb + std::min<std::int64_t>(0, reach);
  const std::int64_t hi = c.data_ub + std::max<std::int64_t>(0, reach);
  const std::int64_t bytes = static_cast<std::int64_t>(v.span() * sizeof(typename View::value_type));
  if (lo < 0 || hi > bytes)
    throw_error(ErrorCode::BufferTooSmall, where, argument,
                "spans bytes [0, " + std::to_string(bytes) + ") but the type touches [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + ")");
}

template <class View>
char* bytes_of(const View& v) {
  return reinterpret_cast<char*>(const_cast<typename View::non_const_value_type*>(v.data()));
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
  const char* where = "KokkosDDT::pack";
  Impl::require_accessible<ExecSpace, typename SrcView::memory_space>(where, "src");
  Impl::require_accessible<ExecSpace, typename DstView::memory_space>(where, "dst");
  Impl::require_inside(src, type, count, where, "src");
  return pack(space, static_cast<const void*>(src.data()), count, type, Impl::bytes_of(dst),
              Impl::contiguous_bytes(dst, where, "dst"), range);
}

template <class ExecSpace, class SrcView, class DstView, Impl::enable_if_exec<ExecSpace> = 0,
          Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
std::int64_t unpack(const ExecSpace& space, const SrcView& src, const DstView& dst, std::int64_t count,
                    const Datatype& type, PackRange range = {}) {
  const char* where = "KokkosDDT::unpack";
  Impl::require_accessible<ExecSpace, typename SrcView::memory_space>(where, "src");
  Impl::require_accessible<ExecSpace, typename DstView::memory_space>(where, "dst");
  Impl::require_inside(dst, type, count, where, "dst");
  return unpack(space, static_cast<const void*>(src.data()), Impl::contiguous_bytes(src, where, "src"),
                static_cast<void*>(Impl::bytes_of(dst)), count, type, range);
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
