// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// FusionQueue's member functions: compiled once per backend in the library (core/src/eti/), and included by
// KokkosDDT_FusionQueue.hpp only where some enabled backend is not (KOKKOSDDT_HEADER_DEFINITIONS).

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_FusedLaunch.hpp"
#include "KokkosDDT_FusedRecordOf.hpp"
#include "KokkosDDT_FusionQueue.hpp"
#include "KokkosDDT_Launch_impl.hpp"
#include "KokkosDDT_UnpackOp.hpp"
#include "KokkosDDT_Wait.hpp"

namespace KokkosDDT {

template <class ExecSpace>
FusionQueue<ExecSpace>::FusionQueue(const ExecSpace& space, FusionOptions options)
    : space_(space),
      capacity_(options.capacity),
      threshold_(options.threshold_bytes),
      run_ready_at_once_(options.run_ready_at_once) {
  const char* where = "KokkosDDT::FusionQueue";
  if (capacity_ < 1)
    Impl::throw_error(ErrorCode::InvalidArgument, where, "options.capacity",
                      "is " + std::to_string(capacity_) + "; must be >= 1");
  if (threshold_ < -1)
    Impl::throw_error(ErrorCode::InvalidArgument, where, "options.threshold_bytes",
                      "is " + std::to_string(threshold_) + "; must be >= 0, or -1 to derive it from measurements");
  slots_.resize(capacity_);
  // Allocated and zeroed on the queue's instance (which can reach host-visible memory too), and only that instance is
  // fenced: instance first means no global synchronization.
  staging_ = decltype(staging_)(Kokkos::view_alloc(space_, "KokkosDDT::FusionQueue::staging"), capacity_);
  if constexpr (std::is_same_v<HostVisible, MemSpace>)
    records_ = staging_;  // the kernel reads the host's records in place
  else
    records_ = decltype(records_)(Kokkos::view_alloc(space_, "KokkosDDT::FusionQueue::records"), capacity_);
  done_ = decltype(done_)(Kokkos::view_alloc(space_, "KokkosDDT::FusionQueue::done"), capacity_);
  flags_ = decltype(flags_)(Kokkos::view_alloc(space_, "KokkosDDT::FusionQueue::flags"), capacity_);
  space_.fence("KokkosDDT::FusionQueue: zeroed counters and flags");
  threshold_ = Impl::chosen_threshold(threshold_, Impl::settings().fusion_threshold_bytes);
  if (threshold_ < 0) measure_threshold();
}

template <class ExecSpace>
FusionQueue<ExecSpace>::~FusionQueue() {
  try {
    wait_all();
  } catch (...) {
  }
  // Every request is done, but a kernel may still be finishing (its last team past the flag): never free memory it
  // could still touch.
  space_.fence("KokkosDDT::FusionQueue::~FusionQueue");
}

// Measures this instance's launch cost and throughput (median of a few runs; a few milliseconds once per queue) and
// sets the threshold from them (Impl::fusion_threshold).
template <class ExecSpace>
void FusionQueue<ExecSpace>::measure_threshold() {
  threshold_ = 0;  // measure with every request launched at once, as a launch (not run at enqueue)
  const bool ready_at_once = std::exchange(run_ready_at_once_, false);
  const std::int64_t big = std::int64_t(4) << 20;
  Kokkos::View<char*, MemSpace> a(Kokkos::view_alloc(space_, "KokkosDDT::FusionQueue::probe_a"), big);
  Kokkos::View<char*, MemSpace> b(Kokkos::view_alloc(space_, "KokkosDDT::FusionQueue::probe_b"), big);
  Datatype byte_type = KokkosDDT::byte();
  byte_type.commit();
  auto time_us = [&](std::int64_t n) {
    std::vector<double> t;
    for (int i = 0; i < 7; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      wait(pack(a.data(), n, byte_type, b.data(), n));
      t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  const double launch_us = time_us(8);
  threshold_ = Impl::fusion_threshold(launch_us, big, time_us(big), Impl::BackendTraits<ExecSpace>::synchronous);
  run_ready_at_once_ = ready_at_once;
}

template <class ExecSpace>
FusionRequest FusionQueue<ExecSpace>::pack(const void* src, std::int64_t count, const Datatype& type, void* dst,
                                           std::int64_t dst_bytes, PackRange range) {
  return enqueue<Impl::Direction::Pack>("KokkosDDT::FusionQueue::pack", type, count,
                                        const_cast<char*>(static_cast<const char*>(src)), false,
                                        static_cast<char*>(dst), dst_bytes, "dst_bytes", range);
}

template <class ExecSpace>
FusionRequest FusionQueue<ExecSpace>::pack(Bottom, std::int64_t count, const Datatype& type, void* dst,
                                           std::int64_t dst_bytes, PackRange range) {
  return enqueue<Impl::Direction::Pack>("KokkosDDT::FusionQueue::pack", type, count, nullptr, true,
                                        static_cast<char*>(dst), dst_bytes, "dst_bytes", range);
}

template <class ExecSpace>
FusionRequest FusionQueue<ExecSpace>::unpack(const void* src, std::int64_t src_bytes, Bottom, std::int64_t count,
                                             const Datatype& type, PackRange range) {
  return enqueue<Impl::Direction::Unpack>("KokkosDDT::FusionQueue::unpack", type, count, nullptr, true,
                                          const_cast<char*>(static_cast<const char*>(src)), src_bytes, "src_bytes",
                                          range);
}

template <class ExecSpace>
FusionRequest FusionQueue<ExecSpace>::unpack(const void* src, std::int64_t src_bytes, void* dst, std::int64_t count,
                                             const Datatype& type, PackRange range) {
  return enqueue<Impl::Direction::Unpack>("KokkosDDT::FusionQueue::unpack", type, count, static_cast<char*>(dst), false,
                                          const_cast<char*>(static_cast<const char*>(src)), src_bytes, "src_bytes",
                                          range);
}

template <class ExecSpace>
FusionRequest FusionQueue<ExecSpace>::unpack(const void* src, std::int64_t src_bytes, void* dst, std::int64_t count,
                                             const Datatype& type, Op op, PackRange range) {
  return enqueue_combine(static_cast<const char*>(src), src_bytes, static_cast<char*>(dst), false, count, type, op,
                         range);
}

template <class ExecSpace>
FusionRequest FusionQueue<ExecSpace>::unpack(const void* src, std::int64_t src_bytes, Bottom, std::int64_t count,
                                             const Datatype& type, Op op, PackRange range) {
  return enqueue_combine(static_cast<const char*>(src), src_bytes, nullptr, true, count, type, op, range);
}

// An unpack with an operation: Replace is the plain unpack; one primitive type, a combining request (words of whole
// elements: at least the element's size, whatever the buffers' alignment); several, the reference engine at once.
template <class ExecSpace>
FusionRequest FusionQueue<ExecSpace>::enqueue_combine(const char* src, std::int64_t src_bytes, char* typed,
                                                      bool absolute, std::int64_t count, const Datatype& type, Op op,
                                                      PackRange range) {
  const char* where = "KokkosDDT::FusionQueue::unpack";
  char* packed = const_cast<char*>(src);
  if (op == Op::Replace)
    return enqueue<Impl::Direction::Unpack>(where, type, count, typed, absolute, packed, src_bytes, "src_bytes", range);
  if (type.is_null() || !type.is_committed() || Impl::single_primitive(type).single)  // (enqueue checks it all)
    return enqueue<Impl::Direction::Combine>(where, type, count, typed, absolute, packed, src_bytes, "src_bytes", range,
                                             op);
  // Several primitive types: the reference engine, at once (its arguments checked before the queue is flushed).
  Impl::prepare_transfer<ExecSpace, Impl::Direction::Unpack>(where, type, count, typed, absolute, packed, src_bytes,
                                                             "src_bytes", range);
  Impl::require_op_applies(op, type, where);
  flush();  // (the space runs the reference engine's kernels after the pending ones; it waits for them all)
  Impl::unpack_with_op(space_, src, src_bytes, typed, absolute, count, type, op, range);
  return FusionRequest(id_, -1, 0);
}

template <class ExecSpace>
FusionRequest FusionQueue<ExecSpace>::copy(const void* src, std::int64_t scount, const Datatype& stype, void* dst,
                                           std::int64_t dcount, const Datatype& dtype, PackRange range) {
  return enqueue_copy(Impl::bytes(src), false, scount, stype, Impl::bytes(dst), false, dcount, dtype, range);
}

template <class ExecSpace>
FusionRequest FusionQueue<ExecSpace>::copy(Bottom, std::int64_t scount, const Datatype& stype, void* dst,
                                           std::int64_t dcount, const Datatype& dtype, PackRange range) {
  return enqueue_copy(nullptr, true, scount, stype, Impl::bytes(dst), false, dcount, dtype, range);
}

template <class ExecSpace>
FusionRequest FusionQueue<ExecSpace>::copy(const void* src, std::int64_t scount, const Datatype& stype, Bottom,
                                           std::int64_t dcount, const Datatype& dtype, PackRange range) {
  return enqueue_copy(Impl::bytes(src), false, scount, stype, nullptr, true, dcount, dtype, range);
}

// A copy request: checked as copy() checks it; it reads its source's footprint and writes its destination's, as an
// unpack writes a typed side.
template <class ExecSpace>
FusionRequest FusionQueue<ExecSpace>::enqueue_copy(char* src, bool src_absolute, std::int64_t scount,
                                                   const Datatype& stype, char* dst, bool dst_absolute,
                                                   std::int64_t dcount, const Datatype& dtype, PackRange range) {
  const char* where = "KokkosDDT::FusionQueue::copy";
  const Impl::CopyTransfer t =
      Impl::prepare_copy(where, src, src_absolute, scount, stype, dst, dst_absolute, dcount, dtype, range);
  Impl::check_copy_memory<ExecSpace>(t, where);
  if (t.end == t.begin) return FusionRequest(id_, -1, 0);  // nothing moves: complete already
  const std::int64_t bytes = t.end - t.begin;
  const std::int64_t tile =
      std::max<std::int64_t>(Impl::LaunchShape<ExecSpace>::tile_bytes(space_, bytes, t.word) / t.word * t.word, t.word);
  const std::int64_t teams = (bytes + tile - 1) / tile;
  if (teams > std::numeric_limits<int>::max())
    Impl::throw_error(ErrorCode::Overflow, where, "scount",
                      "makes a request of " + std::to_string(teams) +
                          " teams: more than one launch can hold (2^31 - "
                          "1); split it with PackRange");
  auto footprint = [&](const Impl::CommittedType& c, std::int64_t count, const char* base) {
    const auto [lo, hi] = Impl::typed_footprint(c, count, where);
    return std::make_pair(reinterpret_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(lo),
                          reinterpret_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(hi));
  };
  Slot candidate;
  std::tie(candidate.read_lo, candidate.read_hi) = footprint(*t.src_type, scount, t.src);
  std::tie(candidate.write_lo, candidate.write_hi) = footprint(*t.dst_type, dcount, t.dst);
  candidate.writes_typed = true;
  candidate.type_id = t.dst_type->id;
  candidate.count = dcount;
  candidate.type = stype;
  candidate.dst_type = dtype;
  const Impl::FusedRecord record = Impl::record_of_copy(t, space_, tile, where);
  return place(std::move(candidate), record, bytes, teams);
}

template <class ExecSpace>
template <Impl::Direction Dir>
FusionRequest FusionQueue<ExecSpace>::enqueue(const char* where, const Datatype& type, std::int64_t count, char* typed,
                                              bool absolute, char* packed, std::int64_t packed_bytes,
                                              const char* packed_name, PackRange range, Op op) {
  Impl::Transfer t = Impl::prepare_transfer<ExecSpace, Dir>(where, type, count, typed, absolute, packed, packed_bytes,
                                                            packed_name, range);
  if constexpr (Dir == Impl::Direction::Combine) Impl::require_op_applies(op, type, where);  // (after the buffers')
  if (t.end == t.begin) return FusionRequest(id_, -1, 0);  // nothing moves: complete already
  const Primitive element =
      Dir == Impl::Direction::Combine ? Impl::single_primitive(type).primitive : Primitive::Byte;  // (combining only)
  if constexpr (Dir == Impl::Direction::Combine) t.word = Impl::combining_word(t, element, where);
  const std::int64_t bytes = t.end - t.begin;
  const std::int64_t tile = Impl::LaunchShape<ExecSpace>::tile_bytes(space_, bytes, t.word);
  const std::int64_t teams = (bytes + tile - 1) / tile;
  constexpr std::int64_t max_teams = std::numeric_limits<int>::max();  // a launch's league size is an int
  if (teams > max_teams)
    Impl::throw_error(ErrorCode::Overflow, where, "count",
                      "makes a request of " + std::to_string(bytes) + " bytes, " + std::to_string(teams) +
                          " teams: more than one launch can hold (2^31 - 1); split it with PackRange");
  // The bytes it touches: the packed range, and the typed side's footprint (all instances' data bounds).
  const Impl::CommittedType& c = *t.type;
  const auto [lo, hi] = Impl::typed_footprint(c, t.count, where);  // (a request that moves bytes has count >= 1)
  auto record = [&] {
    Impl::FusedRecord r = Impl::record_of<ExecSpace>(t, Impl::descriptor<MemSpace>(c, space_), tile, Dir, where);
    r.op = static_cast<std::int8_t>(op);
    r.element = static_cast<std::int8_t>(element);
    return r;
  };
  if constexpr (Impl::BackendTraits<ExecSpace>::synchronous && Impl::BackendTraits<ExecSpace>::walks_runs) {
    // A synchronous host with nothing pending runs a one-tile request at once, on the calling thread, as pack() would:
    // everything enqueued before it is complete, so there is nothing to order it after, and holding it back would
    // only add the bookkeeping a batch needs (the queue must not be slower than the same packs issued one by one).
    if (run_ready_at_once_ && teams == 1 && pending_count_ == 0) {
      const Impl::FusedRecord it = record();
      const bool tools = Kokkos::Tools::profileLibraryLoaded();
      if (tools) Kokkos::Profiling::pushRegion(where);  // tools still see the operation
      Impl::FusedLaunch<ExecSpace>::run_on_calling_thread(it);
      if (tools) Kokkos::Profiling::popRegion();
      return FusionRequest(id_, -1, 0);  // complete
    }
  }
  const auto typed_lo = reinterpret_cast<std::uintptr_t>(t.typed) + static_cast<std::uintptr_t>(lo);
  const auto typed_hi = reinterpret_cast<std::uintptr_t>(t.typed) + static_cast<std::uintptr_t>(hi);
  const auto packed_lo = reinterpret_cast<std::uintptr_t>(t.packed);
  const auto packed_hi = packed_lo + static_cast<std::uintptr_t>(t.end - t.begin);
  Slot candidate;
  candidate.read_lo = Dir == Impl::Direction::Pack ? typed_lo : packed_lo;
  candidate.read_hi = Dir == Impl::Direction::Pack ? typed_hi : packed_hi;
  candidate.write_lo = Dir == Impl::Direction::Pack ? packed_lo : typed_lo;
  candidate.write_hi = Dir == Impl::Direction::Pack ? packed_hi : typed_hi;
  candidate.writes_typed = Dir != Impl::Direction::Pack;
  candidate.combines = Dir == Impl::Direction::Combine;
  candidate.type_id = c.id;
  candidate.count = t.count;
  candidate.type = type;
  return place(std::move(candidate), record(), bytes, teams);
}

template <class ExecSpace>
FusionRequest FusionQueue<ExecSpace>::place(Slot candidate, Impl::FusedRecord record, std::int64_t bytes,
                                            std::int64_t teams) {
  constexpr std::int64_t max_teams = std::numeric_limits<int>::max();
  // Keep an earlier request's effect ordered before this one, combining requests in launches of their own, and every
  // launch within an int's teams.
  if (conflicts(candidate) || (pending_count_ > 0 && candidate.combines != pending_combine_) ||
      pending_teams_ + teams > max_teams)
    flush();
  take_slot();
  const int slot = (head_ + used_) % capacity_;
  ++used_;
  Slot& s = slots_[slot];
  s = std::move(candidate);
  s.state = State::Pending;
  s.ticket = next_ticket_++;
  Impl::FusedRecord& it = staging_(slot);
  it = record;
  it.ticket = s.ticket;
  it.slot = slot;
  if (pending_count_ == 0) pending_begin_ = slot, pending_combine_ = s.combines;
  ++pending_count_;
  reads_.insert(s.read_lo, s.read_hi);
  if (s.combines) reads_.insert(s.write_lo, s.write_hi);
  writes_.insert(s.write_lo, s.write_hi);
  if (s.writes_typed) {
    const std::tuple<std::uintptr_t, std::uint64_t, std::int64_t> key{s.write_lo, s.type_id, s.count};
    typed_writes_.insert(std::lower_bound(typed_writes_.begin(), typed_writes_.end(), key), key);
  } else {
    packed_writes_.insert(s.write_lo, s.write_hi);
  }
  pending_bytes_ += bytes;
  pending_teams_ += teams;
  const FusionRequest request(id_, slot, s.ticket);
  if (pending_bytes_ >= threshold_) flush();
  return request;
}

template <class ExecSpace>
bool FusionQueue<ExecSpace>::conflicts(const Slot& s) const {
  if (reads_.overlaps(s.write_lo, s.write_hi) || writes_.overlaps(s.read_lo, s.read_hi)) return true;
  // A combining unpack reads the elements it writes: after every pending write that may reach them, by bounds (so
  // that requests reaching the same elements combine in the order they were enqueued).
  if (s.combines && writes_.overlaps(s.write_lo, s.write_hi)) return true;
  if (!s.writes_typed) return writes_.overlaps(s.write_lo, s.write_hi);
  // Typed writes: against packed writes by bytes, against typed writes only when identical (see the header).
  return packed_writes_.overlaps(s.write_lo, s.write_hi) ||
         std::binary_search(typed_writes_.begin(), typed_writes_.end(),
                            std::make_tuple(s.write_lo, s.type_id, s.count));
}

template <class ExecSpace>
void FusionQueue<ExecSpace>::flush() {
  if (pending_count_ == 0) return;
  std::int64_t teams = 0, scratch = 0, per_thread = 1;
  if constexpr (!Impl::BackendTraits<ExecSpace>::walks_runs) {  // (devices: one wave, Impl::launch_words_per_thread)
    std::int64_t words = 0;
    for (int i = 0; i < pending_count_; ++i) {
      const Impl::FusedRecord& it = staging_((pending_begin_ + i) % capacity_);
      words += (it.end - it.begin + it.word - 1) / it.word;
    }
    per_thread = Impl::launch_words_per_thread(words, Impl::BackendTraits<ExecSpace>::fused_threads(space_));
  }
  Impl::LaunchKind kind;
  for (int i = 0; i < pending_count_; ++i) {
    Impl::FusedRecord& it = staging_((pending_begin_ + i) % capacity_);
    it.first_team = static_cast<std::int32_t>(teams);
    teams += Impl::widen_tile(it, per_thread, Impl::BackendTraits<ExecSpace>::team_size);
    scratch = std::max(scratch, Impl::FusedTile<ExecSpace>::scratch_bytes(it));
    kind.add(it);
  }
  // (enqueue keeps `teams` within an int: it flushes before a request that would overflow it)
  if constexpr (Impl::BackendTraits<ExecSpace>::synchronous && Impl::BackendTraits<ExecSpace>::walks_runs) {
    // A synchronous host runs a batch of one-tile requests on the calling thread, as it runs a single pack of one
    // tile: forking the pool for them costs more than it saves, and the queue must not be slower than the same
    // packs issued one by one.
    if (teams == pending_count_) return run_inline();
  }
  Impl::FusedKernel<ExecSpace> kernel{};
  kernel.records.ring = records_;
  kernel.records.start = pending_begin_;
  kernel.records.n = pending_count_;
  kernel.records.capacity = capacity_;
  kernel.completion.done = done_;
  kernel.completion.flags = flags_.data();
  if (pending_count_ <= kernel.records.kCarried) {  // small launches carry their records as kernel parameters
    for (int i = 0; i < pending_count_; ++i) kernel.records.carry(i, staging_((pending_begin_ + i) % capacity_));
  } else if constexpr (!std::is_same_v<HostVisible, MemSpace>) {
    // The pending records sit at ring positions [pending_begin_, + pending_count_), possibly wrapping around.
    const int first = std::min(pending_count_, capacity_ - pending_begin_);
    const std::pair<int, int> a{pending_begin_, pending_begin_ + first}, b{0, pending_count_ - first};
    Kokkos::deep_copy(space_, Kokkos::subview(records_, a), Kokkos::subview(staging_, a));
    if (b.second > 0) Kokkos::deep_copy(space_, Kokkos::subview(records_, b), Kokkos::subview(staging_, b));
  }
  static const std::string label = "KokkosDDT::FusionQueue::fused";  // parallel_for takes a std::string: made once
  Impl::FusedLaunch<ExecSpace>::launch(space_, kernel, kind, teams, scratch, label);
  launched();
}

// Runs every pending request on the calling thread (synchronous hosts) and writes their flags, as the fused kernel
// would.
template <class ExecSpace>
void FusionQueue<ExecSpace>::run_inline() {
  static const std::string label = "KokkosDDT::FusionQueue::inline";
  const bool tools = Kokkos::Tools::profileLibraryLoaded();
  if (tools) Kokkos::Profiling::pushRegion(label);  // tools still see the operation
  for (int i = 0; i < pending_count_; ++i) {
    const Impl::FusedRecord& r = staging_((pending_begin_ + i) % capacity_);
    Impl::FusedLaunch<ExecSpace>::run_on_calling_thread(r);
    desul::atomic_store(&flags_(r.slot), r.ticket, desul::MemoryOrderRelease(), desul::MemoryScopeNode());
  }
  if (tools) Kokkos::Profiling::popRegion();
  launched();
}

// The pending requests went out: only now are they in flight (had the launch thrown, they would still be pending, to
// be launched again by the next flush or wait, rather than waited for forever).
template <class ExecSpace>
void FusionQueue<ExecSpace>::launched() {
  for (int i = 0; i < pending_count_; ++i) slots_[(pending_begin_ + i) % capacity_].state = State::InFlight;
  pending_count_ = 0;
  pending_bytes_ = 0;
  pending_teams_ = 0;
  reads_.clear();
  writes_.clear();
  packed_writes_.clear();
  typed_writes_.clear();
  ++launches_;
}

template <class ExecSpace>
bool FusionQueue<ExecSpace>::complete(int slot, std::uint64_t ticket) const {
  return desul::atomic_load(&flags_(slot), desul::MemoryOrderAcquire(), desul::MemoryScopeNode()) == ticket;
}

template <class ExecSpace>
void FusionQueue<ExecSpace>::reclaim() {
  while (used_ > 0) {
    Slot& s = slots_[head_];
    if (s.state != State::InFlight || !complete(head_, s.ticket)) return;
    s.state = State::Free;
    s.type = Datatype();
    s.dst_type = Datatype();
    head_ = (head_ + 1) % capacity_;
    --used_;
  }
}

template <class ExecSpace>
void FusionQueue<ExecSpace>::take_slot() {
  reclaim();
  if (used_ < capacity_) return;
  // A full ring: launch what is pending, then wait until half the ring is free (waiting for one slot at a time would
  // make every later request a launch of its own).
  flush();
  Impl::wait_until([&] {
    reclaim();
    return used_ <= capacity_ / 2;
  });
}

template <class ExecSpace>
void FusionQueue<ExecSpace>::check(const FusionRequest& r, const char* where) const {
  if (r.empty()) Impl::throw_error(ErrorCode::InvalidArgument, where, "request", "is empty (default-constructed)");
  if (r.queue_ != id_) Impl::throw_error(ErrorCode::InvalidArgument, where, "request", "belongs to another queue");
}

template <class ExecSpace>
bool FusionQueue<ExecSpace>::test(const FusionRequest& r) {
  check(r, "KokkosDDT::FusionQueue::test");
  if (r.slot_ < 0) return true;
  const Slot& s = slots_[r.slot_];
  if (s.ticket != r.ticket_ || s.state == State::Free) return true;  // completed, and its slot reused or freed
  if (s.state == State::Pending) flush();
  if (!complete(r.slot_, r.ticket_)) return false;
  reclaim();
  return true;
}

template <class ExecSpace>
bool FusionQueue<ExecSpace>::done(const FusionRequest& r) const {
  check(r, "KokkosDDT::FusionQueue::done");
  if (r.slot_ < 0) return true;
  const Slot& s = slots_[r.slot_];
  if (s.ticket != r.ticket_ || s.state == State::Free) return true;
  return s.state != State::Pending && complete(r.slot_, r.ticket_);
}

template <class ExecSpace>
void FusionQueue<ExecSpace>::wait(const FusionRequest& r) {
  Impl::wait_until([&] { return test(r); });
}

// Polls the flags like wait() (a stream synchronization would cost more than the packing of a small batch).
template <class ExecSpace>
void FusionQueue<ExecSpace>::wait_all() {
  flush();
  Impl::wait_until([&] {
    reclaim();
    return used_ == 0;
  });
}

}  // namespace KokkosDDT
