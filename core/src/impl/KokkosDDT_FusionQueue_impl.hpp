#pragma once
// FusionQueue's member functions (included by KokkosDDT_FusionQueue.hpp).

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <thread>
#include <utility>

namespace KokkosDDT {

namespace Impl {

// Calls done() until it returns true: back to back for the first 20 us (a small fused launch completes within that, and
// a yield is a system call that can delay noticing the flag by a microsecond), then yielding the core between calls.
template <class Done>
void poll(const Done& done) {
  const auto start = std::chrono::steady_clock::now();
  bool late = false;
  for (int i = 1; !done(); ++i) {
    if (late)
      std::this_thread::yield();
    else if (i % 64 == 0)
      late = std::chrono::steady_clock::now() - start > std::chrono::microseconds(20);
  }
}

// The threshold model (chu-fusion21 leaves this "model-based prediction" as future work), from one launch's cost and
// the time of a probe moving `probe_bytes` (its launch included). A device launch is asynchronous: the device moves
// one batch while the host enqueues the next, so a launch is worth issuing once its data would take as long to move as
// the launch costs (threshold = launch cost x throughput). A synchronous host launch overlaps nothing and each one is
// pure overhead (fork/join, per-team setup), so there the queue batches until a launch costs at most 5 % of its data's
// time (threshold = 20 x launch cost x throughput). When noise hides the probe's copy time (a busy host) the estimate
// would run off to "never launch": it stays within [4 KiB, 16 x the probe].
inline std::int64_t fusion_threshold(double launch_us, std::int64_t probe_bytes, double probe_us, bool synchronous) {
  const double copy_us = std::max(probe_us - launch_us, launch_us / 16);
  const double bytes_per_us = static_cast<double>(probe_bytes) / copy_us;
  const double launch_share = synchronous ? 0.05 : 1.0;  // of the batch's copy time
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(launch_us * bytes_per_us / launch_share), 4096,
                                  16 * probe_bytes);
}

}  // namespace Impl

template <class ExecSpace>
FusionQueue<ExecSpace>::FusionQueue(const ExecSpace& space, FusionOptions options)
    : space_(space), capacity_(options.capacity), threshold_(options.threshold_bytes) {
  const char* where = "KokkosDDT::FusionQueue";
  if (capacity_ < 1)
    Impl::throw_error(ErrorCode::InvalidArgument, where, "options.capacity",
                      "is " + std::to_string(capacity_) + "; must be >= 1");
  if (threshold_ < -1)
    Impl::throw_error(ErrorCode::InvalidArgument, where, "options.threshold_bytes",
                      "is " + std::to_string(threshold_) + "; must be >= 0, or -1 to derive it from measurements");
  slots_.resize(capacity_);
  staging_ = decltype(staging_)(Kokkos::view_alloc("KokkosDDT::FusionQueue::staging"), capacity_);
  if constexpr (std::is_same_v<HostVisible, MemSpace>)
    items_ = staging_;  // the kernel reads the host's records in place
  else
    items_ = decltype(items_)(Kokkos::view_alloc("KokkosDDT::FusionQueue::items"), capacity_);
  done_ = decltype(done_)(Kokkos::view_alloc("KokkosDDT::FusionQueue::done"), capacity_);
  flags_ = decltype(flags_)(Kokkos::view_alloc("KokkosDDT::FusionQueue::flags"), capacity_);
  Kokkos::fence("KokkosDDT::FusionQueue: zeroed counters and flags");
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
  threshold_ = 0;  // measure with every request launched at once
  const std::int64_t big = std::int64_t(4) << 20;
  Kokkos::View<char*, MemSpace> a(Kokkos::view_alloc("KokkosDDT::FusionQueue::probe_a"), big);
  Kokkos::View<char*, MemSpace> b(Kokkos::view_alloc("KokkosDDT::FusionQueue::probe_b"), big);
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
  threshold_ = Impl::fusion_threshold(launch_us, big, time_us(big), Impl::synchronous_host<ExecSpace>());
}

template <class ExecSpace>
FusionRequest FusionQueue<ExecSpace>::pack(const void* src, std::int64_t count, const Datatype& type, void* dst,
                                           std::int64_t dst_bytes, PackRange range) {
  return enqueue<Impl::Direction::Pack>("KokkosDDT::FusionQueue::pack", type, count,
                                        const_cast<char*>(static_cast<const char*>(src)), static_cast<char*>(dst),
                                        dst_bytes, "dst_bytes", range);
}

template <class ExecSpace>
FusionRequest FusionQueue<ExecSpace>::unpack(const void* src, std::int64_t src_bytes, void* dst, std::int64_t count,
                                             const Datatype& type, PackRange range) {
  return enqueue<Impl::Direction::Unpack>("KokkosDDT::FusionQueue::unpack", type, count, static_cast<char*>(dst),
                                          const_cast<char*>(static_cast<const char*>(src)), src_bytes, "src_bytes",
                                          range);
}

template <class ExecSpace>
template <class SrcView, class DstView, Impl::enable_if_view<SrcView>, Impl::enable_if_view<DstView>>
FusionRequest FusionQueue<ExecSpace>::pack(const SrcView& src, std::int64_t count, const Datatype& type,
                                           const DstView& dst, PackRange range) {
  const char* where = "KokkosDDT::FusionQueue::pack";
  Impl::require_accessible<ExecSpace, typename SrcView::memory_space>(where, "src");
  Impl::require_accessible<ExecSpace, typename DstView::memory_space>(where, "dst");
  Impl::require_inside(src, type, count, where, "src");
  return pack(static_cast<const void*>(src.data()), count, type, Impl::bytes_of(dst),
              Impl::contiguous_bytes(dst, where, "dst"), range);
}

template <class ExecSpace>
template <class SrcView, class DstView, Impl::enable_if_view<SrcView>, Impl::enable_if_view<DstView>>
FusionRequest FusionQueue<ExecSpace>::unpack(const SrcView& src, const DstView& dst, std::int64_t count,
                                             const Datatype& type, PackRange range) {
  const char* where = "KokkosDDT::FusionQueue::unpack";
  Impl::require_accessible<ExecSpace, typename SrcView::memory_space>(where, "src");
  Impl::require_accessible<ExecSpace, typename DstView::memory_space>(where, "dst");
  Impl::require_inside(dst, type, count, where, "dst");
  return unpack(static_cast<const void*>(src.data()), Impl::contiguous_bytes(src, where, "src"), Impl::bytes_of(dst),
                count, type, range);
}

template <class ExecSpace>
template <Impl::Direction Dir>
FusionRequest FusionQueue<ExecSpace>::enqueue(const char* where, const Datatype& type, std::int64_t count, char* user,
                                              char* packed, std::int64_t packed_bytes, const char* packed_name,
                                              PackRange range) {
  const Impl::Transfer t =
      Impl::prepare_transfer<ExecSpace, Dir>(where, type, count, user, false, packed, packed_bytes, packed_name, range);
  if (t.end == t.begin) return FusionRequest(id_, -1, 0);  // nothing moves: complete already
  const std::int64_t bytes = t.end - t.begin;
  const std::int64_t tile = Impl::LaunchTraits<ExecSpace>::tile_bytes(space_, bytes, t.word);
  const std::int64_t teams = (bytes + tile - 1) / tile;
  constexpr std::int64_t max_teams = std::numeric_limits<int>::max();  // a launch's league size is an int
  if (teams > max_teams)
    Impl::throw_error(ErrorCode::Overflow, where, "count",
                      "makes a request of " + std::to_string(bytes) + " bytes, " + std::to_string(teams) +
                          " teams: more than one launch can hold (2^31 - 1); split it with PackRange");
  // The bytes it touches: the packed range, and the typed side's footprint (all instances' data bounds).
  const Impl::CommittedType& c = *t.type;
  const std::int64_t reach = (t.count - 1) * c.extent;
  const auto typed_lo = reinterpret_cast<std::uintptr_t>(t.user + c.data_lb + std::min<std::int64_t>(0, reach));
  const auto typed_hi = reinterpret_cast<std::uintptr_t>(t.user + c.data_ub + std::max<std::int64_t>(0, reach));
  const auto packed_lo = reinterpret_cast<std::uintptr_t>(t.packed);
  const auto packed_hi = packed_lo + static_cast<std::uintptr_t>(t.end - t.begin);
  Slot candidate;
  candidate.read_lo = Dir == Impl::Direction::Pack ? typed_lo : packed_lo;
  candidate.read_hi = Dir == Impl::Direction::Pack ? typed_hi : packed_hi;
  candidate.write_lo = Dir == Impl::Direction::Pack ? packed_lo : typed_lo;
  candidate.write_hi = Dir == Impl::Direction::Pack ? packed_hi : typed_hi;
  candidate.writes_typed = Dir == Impl::Direction::Unpack;
  candidate.type_id = c.id;
  candidate.count = t.count;
  // Keep an earlier request's effect ordered before this one, and every launch within an int's teams.
  if (conflicts(candidate) || pending_teams_ + teams > max_teams) flush();
  take_slot();
  const int slot = (head_ + used_) % capacity_;
  ++used_;
  Slot& s = slots_[slot];
  s = candidate;
  s.state = State::Pending;
  s.ticket = next_ticket_++;
  s.type = type;
  const auto d = Impl::descriptor<MemSpace>(c);
  Impl::FusedItem& it = staging_(slot);
  it.nodes = d.nodes.data();
  it.lookaside = d.lookaside.data();
  it.node_count = static_cast<std::int32_t>(d.nodes.extent(0));  // (a committed descriptor has a few dozen nodes)
  it.lookaside_count = static_cast<std::int64_t>(d.lookaside.extent(0));
  it.user = t.user;
  it.packed = t.packed;
  it.begin = t.begin;
  it.end = t.end;
  it.tile = tile;
  it.teams = static_cast<std::int32_t>(teams);
  it.ticket = s.ticket;
  it.word = static_cast<std::int8_t>(t.word);
  it.direction = static_cast<std::int8_t>(Dir);
  it.slot = slot;
  it.cache = static_cast<std::int64_t>(c.nodes.size() * sizeof(Impl::Node)) <=
             Impl::LaunchTraits<ExecSpace>::max_scratch_descriptor;
  if (pending_count_ == 0) pending_begin_ = slot;
  ++pending_count_;
  reads_.insert(s.read_lo, s.read_hi);
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
  if (!s.writes_typed) return writes_.overlaps(s.write_lo, s.write_hi);
  // Typed writes: against packed writes by bytes, against typed writes only when identical (see the header).
  return packed_writes_.overlaps(s.write_lo, s.write_hi) ||
         std::binary_search(typed_writes_.begin(), typed_writes_.end(),
                            std::make_tuple(s.write_lo, s.type_id, s.count));
}

template <class ExecSpace>
void FusionQueue<ExecSpace>::flush() {
  if (pending_count_ == 0) return;
  std::int64_t teams = 0, scratch = 0;
  for (int i = 0; i < pending_count_; ++i) {
    Impl::FusedItem& it = staging_((pending_begin_ + i) % capacity_);
    it.first_team = static_cast<std::int32_t>(teams);
    teams += it.teams;
    if (it.cache) scratch = std::max<std::int64_t>(scratch, it.node_count * sizeof(Impl::Node) + alignof(Impl::Node));
  }
  // (enqueue keeps `teams` within an int: it flushes before a request that would overflow it)
  Impl::FusedKernel<ExecSpace> kernel{{}, {}, items_, pending_begin_, pending_count_, capacity_, done_, flags_.data()};
  if (pending_count_ <= kernel.kInline) {  // small launches carry their records as kernel parameters
    for (int i = 0; i < pending_count_; ++i) {
      kernel.inline_items[i] = staging_((pending_begin_ + i) % capacity_);
      kernel.inline_first[i] = kernel.inline_items[i].first_team;
    }
  } else if constexpr (!std::is_same_v<HostVisible, MemSpace>) {
    // The pending records sit at ring positions [pending_begin_, + pending_count_), possibly wrapping around.
    const int first = std::min(pending_count_, capacity_ - pending_begin_);
    const std::pair<int, int> a{pending_begin_, pending_begin_ + first}, b{0, pending_count_ - first};
    Kokkos::deep_copy(space_, Kokkos::subview(items_, a), Kokkos::subview(staging_, a));
    if (b.second > 0) Kokkos::deep_copy(space_, Kokkos::subview(items_, b), Kokkos::subview(staging_, b));
  }
  using Traits = Impl::LaunchTraits<ExecSpace>;
  // Light weight: Kokkos then passes the (3 KiB) functor as a kernel parameter instead of copying it to constant memory
  // first, which would cost a copy and an event per launch. Launch bounds: 4 teams of 256 per multiprocessor (at most
  // 64 registers), so that a halo's ~400 teams run in one wave on 132 multiprocessors (65 registers gave 3).
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<256, 4>>;
  auto policy = Kokkos::Experimental::require(Policy(space_, static_cast<int>(teams), Traits::team_size()),
                                              Kokkos::Experimental::WorkItemProperty::HintLightWeight);
  if (scratch > 0) policy.set_scratch_size(0, Kokkos::PerTeam(scratch));
  static const std::string label = "KokkosDDT::FusionQueue::fused";  // parallel_for takes a std::string: made once
  Kokkos::parallel_for(label, policy, kernel);
  // Launched: only now are the requests in flight (had the launch thrown, they would still be pending, to be launched
  // again by the next flush or wait, rather than waited for forever).
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
  Impl::poll([&] {
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
void FusionQueue<ExecSpace>::wait(const FusionRequest& r) {
  Impl::poll([&] { return test(r); });
}

// Polls the flags like wait() (a stream synchronization would cost more than the packing of a small batch).
template <class ExecSpace>
void FusionQueue<ExecSpace>::wait_all() {
  flush();
  Impl::poll([&] {
    reclaim();
    return used_ == 0;
  });
}

}  // namespace KokkosDDT
