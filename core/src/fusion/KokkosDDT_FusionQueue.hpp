// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The fusion queue (chu-fusion21, Sec. IV): pack, unpack and typed-to-typed copy requests collected on one
// execution-space instance and run as one fused launch, with completion reported through host-readable flags written
// by the kernel itself.
//
//   KokkosDDT::FusionQueue<Kokkos::Cuda> q(instance);       // or any execution space (instance)
//   auto r1 = q.pack(field, 1, face_x, buf_x, bytes_x);     // returns at once; nothing launched yet
//   auto r2 = q.unpack(recv_y, bytes_y, field, 1, face_y);  // types, directions and memory spaces mix freely
//   q.wait(r1);                                              // launches what is pending, then polls r1's flag
//
// On synchronous hosts (Serial, OpenMP) a batch whose requests all fit one tile runs on the calling thread instead, as
// a single pack of one tile does; a one-tile request enqueued while nothing is pending runs at once. A request may
// thus run at any time between its enqueue and its completion: its buffers must be ready when it is enqueued.
// A fused launch happens when the pending bytes reach threshold_bytes(), when a pending request is tested or waited
// on, on flush(), and when the ring of request slots is full.
//
// Ordering: a request goes into the next launch, after the pending ones, when it reads bytes a pending request writes,
// writes bytes a pending request reads, writes a packed (contiguous) buffer range a pending request writes, or writes
// the same typed buffer with the same type and count as a pending request (typed sides are compared by their
// [lowest, highest) byte bounds, which is conservative). Two pending requests that write overlapping bytes of a typed
// buffer through *different* types are not detected (deciding it exactly would cost a walk of both types; MPI makes
// concurrent receives into overlapping buffers erroneous too): call flush() between them. Buffers must stay
// untouched until the request tests complete; the queue keeps the types alive.

#include <atomic>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_ByteRanges.hpp"
#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_Copy.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_FusedRecord.hpp"
#include "KokkosDDT_FusionModel.hpp"
#include "KokkosDDT_Op.hpp"
#include "KokkosDDT_Transfer.hpp"
#include "KokkosDDT_ViewDatatype.hpp"

namespace KokkosDDT {

struct FusionOptions {
  int capacity = 1024;                // request slots in the ring (one fused launch holds at most this many)
  std::int64_t threshold_bytes = -1;  // launch when pending bytes reach this; -1: derived from measurements
  // Synchronous hosts (Serial, OpenMP): a one-tile request enqueued while nothing is pending runs at once, on the
  // calling thread, as pack() would (batching it would only add bookkeeping). false: such requests batch too.
  bool run_ready_at_once = true;
};

// A handle to one enqueued request. Default-constructed handles are empty; a handle is valid only with its queue
// (queues are numbered for the process's lifetime, so a handle of a destroyed queue is recognized as foreign).
class FusionRequest {
 public:
  FusionRequest() = default;
  bool empty() const { return queue_ == 0; }

 private:
  template <class>
  friend class FusionQueue;
  FusionRequest(std::uint64_t queue, int slot, std::uint64_t ticket) : queue_(queue), slot_(slot), ticket_(ticket) {}
  std::uint64_t queue_ = 0;
  int slot_ = -1;  // -1: nothing to move (complete at once)
  std::uint64_t ticket_ = 0;
};

template <class ExecSpace = Kokkos::DefaultExecutionSpace>
class FusionQueue {
  using MemSpace = typename ExecSpace::memory_space;
  static constexpr bool host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
  // Request records are written by the host and read by the kernel; completion flags the other way round.
  using HostVisible = std::conditional_t<host_memory, MemSpace, Kokkos::SharedHostPinnedSpace>;

 public:
  explicit FusionQueue(const ExecSpace& space = ExecSpace(), FusionOptions options = {});
  ~FusionQueue();
  FusionQueue(const FusionQueue&) = delete;
  FusionQueue& operator=(const FusionQueue&) = delete;

  // Same arguments as KokkosDDT::pack / unpack without the execution space; every check happens here, at enqueue.
  FusionRequest pack(const void* src, std::int64_t count, const Datatype& type, void* dst, std::int64_t dst_bytes,
                     PackRange range = {});
  FusionRequest unpack(const void* src, std::int64_t src_bytes, void* dst, std::int64_t count, const Datatype& type,
                       PackRange range = {});
  // KokkosDDT::bottom: the type's displacements are absolute addresses.
  FusionRequest pack(Bottom, std::int64_t count, const Datatype& type, void* dst, std::int64_t dst_bytes,
                     PackRange range = {});
  FusionRequest unpack(const void* src, std::int64_t src_bytes, Bottom, std::int64_t count, const Datatype& type,
                       PackRange range = {});
  template <class SrcView, class DstView, Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
  FusionRequest pack(const SrcView& src, std::int64_t count, const Datatype& type, const DstView& dst,
                     PackRange range = {});
  template <class SrcView, class DstView, Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
  FusionRequest unpack(const SrcView& src, const DstView& dst, std::int64_t count, const Datatype& type,
                       PackRange range = {});
  // Unpacks with an operation (KokkosDDT_UnpackOp.hpp): each incoming element combined into the one there. Where every
  // element has one primitive type, one pass in the fused launch (a launch of combining requests alone); otherwise
  // KokkosDDT::unpack(space, ..., op) runs at once, after what is pending, and the request is complete on return.
  // A combining request whose destination's bounds overlap a pending request's writes goes into the next launch: where
  // several reach the same elements, they combine in the order they were enqueued, bit for bit.
  FusionRequest unpack(const void* src, std::int64_t src_bytes, void* dst, std::int64_t count, const Datatype& type,
                       Op op, PackRange range = {});
  FusionRequest unpack(const void* src, std::int64_t src_bytes, Bottom, std::int64_t count, const Datatype& type, Op op,
                       PackRange range = {});
  template <class SrcView, class DstView, Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
  FusionRequest unpack(const SrcView& src, const DstView& dst, std::int64_t count, const Datatype& type, Op op,
                       PackRange range = {});

  // Same arguments as KokkosDDT::copy without the execution space: typed to typed, in the same fused launch as the
  // queue's packs and unpacks (KokkosDDT::bottom on either side: absolute addresses). Checked here, at enqueue.
  FusionRequest copy(const void* src, std::int64_t scount, const Datatype& stype, void* dst, std::int64_t dcount,
                     const Datatype& dtype, PackRange range = {});
  FusionRequest copy(Bottom, std::int64_t scount, const Datatype& stype, void* dst, std::int64_t dcount,
                     const Datatype& dtype, PackRange range = {});
  FusionRequest copy(const void* src, std::int64_t scount, const Datatype& stype, Bottom, std::int64_t dcount,
                     const Datatype& dtype, PackRange range = {});
  template <class SrcView, class DstView, Impl::enable_if_view<SrcView> = 0, Impl::enable_if_view<DstView> = 0>
  FusionRequest copy(const SrcView& src, std::int64_t scount, const Datatype& stype, const DstView& dst,
                     std::int64_t dcount, const Datatype& dtype, PackRange range = {});

  void flush();                       // launch everything pending (returns at once)
  bool test(const FusionRequest& r);  // a host load; launches r first if it is still pending
  // Whether r has completed, launching nothing: true for a request that ran at once when it was enqueued (a one-tile
  // request on a synchronous host), false while it is pending. Lets a caller act on finished work without breaking
  // up the batch that is being collected.
  bool done(const FusionRequest& r) const;
  void wait(const FusionRequest& r);  // test until true; waiting twice is a no-op
  void wait_all();

  std::int64_t threshold_bytes() const { return threshold_; }
  std::int64_t pending_bytes() const { return pending_bytes_; }
  std::int64_t pending_requests() const { return pending_count_; }
  std::int64_t launches() const { return launches_; }  // batches issued (synchronous hosts run small ones inline)
  int capacity() const { return capacity_; }
  const ExecSpace& space() const { return space_; }

 private:
  enum class State { Free, Pending, InFlight };
  struct Slot {
    State state = State::Free;
    std::uint64_t ticket = 0;
    Datatype type, dst_type;                    // keep the descriptors alive while the kernel may read them
    std::uintptr_t read_lo = 0, read_hi = 0;    // bytes the request reads
    std::uintptr_t write_lo = 0, write_hi = 0;  // and writes
    bool writes_typed = false;                  // the written side is the typed buffer (an unpack)
    bool combines = false;                      // an unpack with an operation: it reads what it writes
    std::uint64_t type_id = 0;
    std::int64_t count = 0;
  };

  template <Impl::Direction Dir>
  FusionRequest enqueue(const char* where, const Datatype& type, std::int64_t count, char* typed, bool absolute,
                        char* packed, std::int64_t packed_bytes, const char* packed_name, PackRange range,
                        Op op = Op::Replace);
  FusionRequest enqueue_combine(const char* src, std::int64_t src_bytes, char* typed, bool absolute, std::int64_t count,
                                const Datatype& type, Op op, PackRange range);
  FusionRequest enqueue_copy(char* src, bool src_absolute, std::int64_t scount, const Datatype& stype, char* dst,
                             bool dst_absolute, std::int64_t dcount, const Datatype& dtype, PackRange range);
  // Takes a slot for a checked request (its hazards in `candidate`, its record in `record`) and returns its handle.
  FusionRequest place(Slot candidate, Impl::FusedRecord record, std::int64_t bytes, std::int64_t teams);
  bool conflicts(const Slot& s) const;
  void run_inline();  // synchronous hosts: a batch of one-tile requests on the calling thread
  void launched();    // the pending requests are in flight
  void take_slot();   // makes the slot at tail_ free, launching and waiting as needed
  bool complete(int slot, std::uint64_t ticket) const;
  void reclaim();  // frees completed slots from the oldest on
  void check(const FusionRequest& r, const char* where) const;
  void measure_threshold();

  static std::uint64_t next_queue_id() {
    static std::atomic<std::uint64_t> last{0};
    return ++last;
  }

  const std::uint64_t id_ = next_queue_id();
  ExecSpace space_;
  int capacity_;
  std::int64_t threshold_;
  bool run_ready_at_once_;
  std::vector<Slot> slots_;
  int head_ = 0, used_ = 0;  // the ring: slots head_ .. head_ + used_ - 1 are taken, oldest first
  int pending_begin_ = 0, pending_count_ = 0;
  bool pending_combine_ = false;  // the pending requests combine (they launch apart from the others)
  // What the pending requests read and write (reset by flush): the hazard checks of an enqueue.
  Impl::ByteRanges reads_, writes_, packed_writes_;
  std::vector<std::tuple<std::uintptr_t, std::uint64_t, std::int64_t>>
      typed_writes_;  // sorted (lowest byte, type, count)
  std::int64_t pending_bytes_ = 0, pending_teams_ = 0, launches_ = 0;
  std::uint64_t next_ticket_ = 1;
  Kokkos::View<Impl::FusedRecord*, HostVisible> staging_;  // per slot
  Kokkos::View<Impl::FusedRecord*, MemSpace> records_;     // per slot, where the kernel reads it
  Kokkos::View<std::int64_t*, MemSpace> done_;
  Kokkos::View<std::uint64_t*, HostVisible> flags_;
};

// The View forms (member templates: every translation unit instantiates them; they check and forward).
template <class ExecSpace>
template <class SrcView, class DstView, Impl::enable_if_view<SrcView>, Impl::enable_if_view<DstView>>
FusionRequest FusionQueue<ExecSpace>::pack(const SrcView& src, std::int64_t count, const Datatype& type,
                                           const DstView& dst, PackRange range) {
  const auto sides = Impl::check_views<ExecSpace>("KokkosDDT::FusionQueue::pack", src, "src", dst, "dst", type, count);
  return pack(sides.typed, count, type, sides.packed, sides.packed_bytes, range);
}

template <class ExecSpace>
template <class SrcView, class DstView, Impl::enable_if_view<SrcView>, Impl::enable_if_view<DstView>>
FusionRequest FusionQueue<ExecSpace>::unpack(const SrcView& src, const DstView& dst, std::int64_t count,
                                             const Datatype& type, PackRange range) {
  const auto sides =
      Impl::check_views<ExecSpace>("KokkosDDT::FusionQueue::unpack", dst, "dst", src, "src", type, count);
  return unpack(sides.packed, sides.packed_bytes, sides.typed, count, type, range);
}

template <class ExecSpace>
template <class SrcView, class DstView, Impl::enable_if_view<SrcView>, Impl::enable_if_view<DstView>>
FusionRequest FusionQueue<ExecSpace>::unpack(const SrcView& src, const DstView& dst, std::int64_t count,
                                             const Datatype& type, Op op, PackRange range) {
  const auto sides =
      Impl::check_views<ExecSpace>("KokkosDDT::FusionQueue::unpack", dst, "dst", src, "src", type, count);
  return unpack(sides.packed, sides.packed_bytes, sides.typed, count, type, op, range);
}

template <class ExecSpace>
template <class SrcView, class DstView, Impl::enable_if_view<SrcView>, Impl::enable_if_view<DstView>>
FusionRequest FusionQueue<ExecSpace>::copy(const SrcView& src, std::int64_t scount, const Datatype& stype,
                                           const DstView& dst, std::int64_t dcount, const Datatype& dtype,
                                           PackRange range) {
  char* s = Impl::check_typed_view<ExecSpace>("KokkosDDT::FusionQueue::copy", src, "src", stype, scount);
  char* d = Impl::check_typed_view<ExecSpace>("KokkosDDT::FusionQueue::copy", dst, "dst", dtype, dcount);
  return copy(s, scount, stype, d, dcount, dtype, range);
}

// The rest is compiled once per backend in the library (core/src/eti/KokkosDDT_ETI_FusionQueue.cpp).
#define KOKKOSDDT_EXTERN_FUSION_QUEUE(Space) extern template class FusionQueue<Space>;
KOKKOSDDT_ETI_SPACES(KOKKOSDDT_EXTERN_FUSION_QUEUE)
#undef KOKKOSDDT_EXTERN_FUSION_QUEUE

}  // namespace KokkosDDT

#if KOKKOSDDT_HEADER_DEFINITIONS
#include "KokkosDDT_FusionQueue_impl.hpp"
#endif
