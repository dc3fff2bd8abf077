// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A fixed set of pack, unpack and typed-to-typed copy requests, recorded once and run as one fused launch as often as
// needed (a halo plan's step). The fusion queue checks, orders and copies records on every enqueue. A batch does all of
// that once, when it is built, so a launch costs one parallel_for (or, on synchronous hosts, one walk per request on
// the calling thread) and a completion poll.
//
//   FusedBatch<Kokkos::Cuda> sends(instance);
//   sends.add_pack(bottom, 1, face_x, buf, bytes_x);   // checked now, as pack() would check it
//   sends.add_pack(bottom, 1, face_y, buf + bytes_x, bytes_y);
//   for (step ...) { sends.launch(); ...; sends.wait(); }
//
// The requests of a batch run concurrently: none may write bytes another reads or writes (the caller's guarantee,
// not checked: a struct of several arrays has bounds that overlap other requests' without its bytes doing so), unless
// they are in different phases (phase(p)): a launch runs its phases one after the other, in one launch.
// Buffers and types are fixed at build time; their contents may change between launches.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include "KokkosDDT_BlockPool.hpp"
#include "KokkosDDT_Config.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_FusedLaunch.hpp"
#include "KokkosDDT_FusedRecordOf.hpp"
#include "KokkosDDT_Launch_impl.hpp"
#include "KokkosDDT_Op.hpp"
#include "KokkosDDT_Transfer.hpp"
#include "KokkosDDT_UnpackOp.hpp"
#include "KokkosDDT_Wait.hpp"

namespace KokkosDDT::Impl {

// What a batch's launches read (its records and counters: the arena) and write (its completion flags), on loan from
// the pools (KokkosDDT_BlockPool.hpp): a plan made in every run of a time loop allocates its batches' memory once.
// Given back when the last copy of the batch goes, after a fence of each instance the batch launched on (a kernel of
// it may still be running there; a pooled block is not freed, so no free synchronizes the device for it). Whoever
// destroys a batch keeps those instances alive until then (the exchange engine destroys its batches before the
// step's streams).
template <class ExecSpace>
struct BatchMemory {
  PooledBlock arena, flags;
  std::vector<ExecSpace> launched_on;
  BatchMemory() = default;
  BatchMemory(const BatchMemory&) = delete;
  BatchMemory& operator=(const BatchMemory&) = delete;
  void launched(const ExecSpace& space) {
    if (std::find(launched_on.begin(), launched_on.end(), space) == launched_on.end()) launched_on.push_back(space);
  }
  ~BatchMemory() {
    for (const ExecSpace& space : launched_on) space.fence("KokkosDDT::FusedBatch: its memory back to the pool");
  }
};

// Members longer than a line are defined after the class (not inline), so that the library's explicit instantiation
// (below) is the only place that compiles them for its backends.
template <class ExecSpace>
class FusedBatch {
  using MemSpace = typename ExecSpace::memory_space;
  using Backend = BackendTraits<ExecSpace>;
  static constexpr bool host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
  using HostVisible = std::conditional_t<host_memory, MemSpace, Kokkos::SharedHostPinnedSpace>;

 public:
  FusedBatch() = default;
  explicit FusedBatch(const ExecSpace& space) : space_(space) {}

  // `src` (or KokkosDDT::bottom: absolute addresses) -> `dst_bytes` at `dst`; checked as pack() checks.
  void add_pack(const void* src, std::int64_t count, const Datatype& type, void* dst, std::int64_t dst_bytes);
  void add_pack(Bottom, std::int64_t count, const Datatype& type, void* dst, std::int64_t dst_bytes);
  void add_unpack(const void* src, std::int64_t src_bytes, Bottom, std::int64_t count, const Datatype& type);
  void add_unpack(const void* src, std::int64_t src_bytes, void* dst, std::int64_t count, const Datatype& type);
  // Unpacks with an operation (a combining record: every element of `type` has one primitive type, for which `op`
  // applies; checked as FusionQueue::unpack checks it). A batch's combining records run in launches of their own: a
  // batch holds them alone, and none may write bytes another writes (their order within a launch is none).
  void add_unpack(const void* src, std::int64_t src_bytes, Bottom, std::int64_t count, const Datatype& type, Op op);
  void add_unpack(const void* src, std::int64_t src_bytes, void* dst, std::int64_t count, const Datatype& type, Op op);
  // The operation of every combining record from the next launch on (after the last launch completed: waits for it);
  // once launched, a change copies the records to the execution space again and fences it. Checked against each
  // record's element type (InvalidArgument naming `op`, nothing changed).
  void set_op(Op op);

  // `scount` of `stype` at `src` -> `dcount` of `dtype` at `dst`, typed to typed (KokkosDDT::bottom: nullptr with
  // the *_absolute flag); checked as copy() checks.
  void add_copy(const void* src, bool src_absolute, std::int64_t scount, const Datatype& stype, void* dst,
                bool dst_absolute, std::int64_t dcount, const Datatype& dtype);
  // The same, combining each element into the destination's with `op` (a combining record, as add_unpack with an
  // operation adds: `stype`'s elements of one primitive type, `op` meaning something for it; set_op changes it): one
  // pass where a pack and a combining unpack would be two.
  void add_copy(const void* src, bool src_absolute, std::int64_t scount, const Datatype& stype, void* dst,
                bool dst_absolute, std::int64_t dcount, const Datatype& dtype, Op op);

  // A copy into memory another process owns, mapped here (a direct transport's route): `dcount` of `dtype` at `dst`,
  // where `dtype` is the receiver's committed type as it sent it (its displacements relative to `dst`). The source side
  // is checked as add_copy checks it; the receiver checked its side, and the plan matched both signatures.
  void add_mapped_copy(const void* src, bool src_absolute, std::int64_t scount, const Datatype& stype, char* dst,
                       std::int64_t dcount, std::shared_ptr<const CommittedType> dtype);

  // Device completion, for devices only (Backend::synchronous is false): once every request of a launch is done, the
  // kernel itself stores the launch's signal value (set_signal) into each of `counters` (in any memory the device
  // writes: peers' counters, mapped), at system scope, after all its writes. Before the first launch.
  // `low_half`: the counters are raised in their low 32 bits (their high half is another's).
  void signal_after(std::vector<std::uint64_t*> counters, bool low_half = false);
  void set_signal(std::uint64_t value) { signal_ = value; }

  // Device begin, with signal_after: the launch's first team stores the signal value into each of `raise` as it starts,
  // and the teams of a record added while gate(k) held wait, before they write, until `waits[k]` reaches the signal
  // value (compared as a stream's wait compares them). `low_half` (signal_after's): the last team sets each of `waits`
  // back to 0 after every team's wait. Before the first launch; the counters stay the caller's.
  void gate_on(std::vector<std::uint64_t*> raise, std::vector<std::uint64_t*> waits);
  void gate(int k) { gate_ = k; }  // the gate of the records added from now on (-1: none)

  // The phase of the records added from now on (0 at first; never less than the last, at most kMaxPhase): each
  // phase's records run after every record of the phases before has finished, within the one launch (a device's
  // teams wait in the kernel, taking their work by ticket: FusedCompletion), so that requests of different phases may
  // reach the same bytes, in phase order. (Combining unpacks into overlapping cells, in a fixed order.)
  static constexpr int kMaxPhase = 127;
  void phase(int p);

  // A chain: the records added between begin_chain and end_chain run in the same teams, one after another over each
  // tile (a barrier between them), so that requests reaching the same cells (combining unpacks and copies into one
  // destination) combine into them in the order added, with no phase and no team waiting for another. Each must move
  // as many stream bytes as the first (InvalidArgument naming `count` otherwise) and reach, at each stream position,
  // the cells the first reaches there (the caller's guarantee: the same destination type, or one of the same shape).
  // At most kMaxChain records; a chain is within one phase and one gate.
  static constexpr int kMaxChain = 128;
  void begin_chain();
  void end_chain();

  // Builds the launch now (else at the first launch): its records copied to the execution space, its counters zeroed
  // (allocations and a fence, which a launch captured in a CUDA graph must not meet). Fixes the batch.
  void prepare() {
    if (!built_ && !records_.empty()) build();
  }

  int size() const { return static_cast<int>(records_.size()); }
  std::int64_t launches() const { return launches_; }
  // Chains of two records or more that its launch combines in one pass (FusedTile::chain_in_one_pass; devices only),
  // once built (prepare).
  std::int64_t one_pass_chains() const { return one_pass_chains_; }

  // Runs every request (after the previous launch completed: waits for it first). Returns at once on devices.
  void launch() { launch(space_); }
  void launch(const ExecSpace& space);

  // Stream-ordered: the launch runs after the work enqueued on `space` so far, and work enqueued on it later runs after
  // the launch; the host neither waits for the previous launch nor learns of this one's completion (no flags are
  // written: test() is true at once). For transports that complete messages on the stream. Hosts: launch().
  void launch_ordered(const ExecSpace& space);

  // Whether the last launch is complete (host loads of the flags the kernel writes; no stream synchronization).
  bool test();
  void wait();

 private:
  void run_kernel(const ExecSpace& space, FusedKernel<ExecSpace> kernel);
  template <Direction Dir>
  void add(const char* where, const Datatype& type, std::int64_t count, char* typed, char* packed,
           std::int64_t packed_bytes, const char* packed_name, bool typed_null_ok, Op op = Op::Replace);
  void add_copy_record(const void* src, bool src_absolute, std::int64_t scount, const Datatype& stype, void* dst,
                       bool dst_absolute, std::int64_t dcount, const Datatype& dtype, const Op* op);
  // The one primitive type of a combining record's `type`, `op` checked against it.
  static Primitive combining_element(Op op, const Datatype& type, const char* where, const char* argument = "type") {
    require_op_applies(op, type, where);
    const SinglePrimitive single = single_primitive(type);
    if (!single.single)
      throw_error(ErrorCode::Unsupported, where, argument,
                  "has elements of several primitive types: a batch combines one (the reference engine, unpack() "
                  "with an operation, combines any)");
    return single.primitive;
  }
  void copy_records();   // records_ into the execution space's memory again (set_op), and into the parameters
  void carry_records();  // records_ into the kernel's parameters where carried, else their chains' heads
  void mark_one_pass_chains();
  // A checked record's place in the launch: its first team and its completion slot.
  void place(FusedRecord& r, std::int64_t bytes, const char* where);
  // The kernel's records (as parameters when few, else copied to the execution space once), counters and flags.
  void build();
  void retile();
  void check_open(const char* where) const {
    if (built_) throw_error(ErrorCode::InvalidArgument, where, "this", "the batch has been launched: it is fixed");
  }

  ExecSpace space_;
  std::vector<FusedRecord> records_;
  std::vector<Datatype> types_, dst_types_;   // per record: its type (a copy's source), a copy's destination type
  std::vector<const CommittedType*> dst_of_;  // per record: a copy's destination type, committed (else null)
  std::vector<std::shared_ptr<const CommittedType>> mapped_types_;  // mapped copies' destination types
  std::int64_t teams_ = 0, scratch_ = 0, launches_ = 0, bytes_ = 0;
  LaunchKind kind_;  // what the records share (FusedLaunch: uniform launches)
  bool built_ = false, inline_ = false, in_flight_ = false;
  FusedKernel<ExecSpace> kernel_{};
  std::shared_ptr<BatchMemory<ExecSpace>> memory_;  // the blocks below are views of (build)
  Kokkos::View<std::uint64_t*, HostVisible> flags_;
  std::vector<std::uint64_t*> signal_counters_;  // device completion (signal_after)
  std::vector<std::uint64_t*> raise_, waits_;    // device begin (gate_on)
  std::uint64_t signal_ = 0;
  bool low_half_ = false;
  int gate_ = -1;
  int phase_ = 0;
  std::vector<int> record_phases_;  // per record: its phase (phase(p))
  std::int64_t chain_first_ = -1;   // the open chain's first record (begin_chain), or -1
  std::int64_t one_pass_chains_ = 0;
  std::vector<bool> follows_;  // per record: it runs in the teams of the record after it (a chain's, not its last)
  std::vector<std::int64_t> arena_staging_;      // arena_'s first contents, kept while its copy may still read them
  Kokkos::View<std::int64_t*, MemSpace> arena_;  // what the kernel reads and counts in memory (build)
  Kokkos::View<FusedRecord*, MemSpace> records_view_;  // the records', in arena_
};

template <class ExecSpace>
void FusedBatch<ExecSpace>::add_pack(const void* src, std::int64_t count, const Datatype& type, void* dst,
                                     std::int64_t dst_bytes) {
  add<Direction::Pack>("KokkosDDT::FusedBatch::add_pack", type, count, const_cast<char*>(static_cast<const char*>(src)),
                       static_cast<char*>(dst), dst_bytes, "dst_bytes", false);
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::add_pack(Bottom, std::int64_t count, const Datatype& type, void* dst,
                                     std::int64_t dst_bytes) {
  add<Direction::Pack>("KokkosDDT::FusedBatch::add_pack", type, count, nullptr, static_cast<char*>(dst), dst_bytes,
                       "dst_bytes", true);
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::add_unpack(const void* src, std::int64_t src_bytes, Bottom, std::int64_t count,
                                       const Datatype& type) {
  add<Direction::Unpack>("KokkosDDT::FusedBatch::add_unpack", type, count, nullptr,
                         const_cast<char*>(static_cast<const char*>(src)), src_bytes, "src_bytes", true);
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::add_unpack(const void* src, std::int64_t src_bytes, void* dst, std::int64_t count,
                                       const Datatype& type) {
  add<Direction::Unpack>("KokkosDDT::FusedBatch::add_unpack", type, count, static_cast<char*>(dst),
                         const_cast<char*>(static_cast<const char*>(src)), src_bytes, "src_bytes", false);
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::add_unpack(const void* src, std::int64_t src_bytes, Bottom, std::int64_t count,
                                       const Datatype& type, Op op) {
  add<Direction::Combine>("KokkosDDT::FusedBatch::add_unpack", type, count, nullptr,
                          const_cast<char*>(static_cast<const char*>(src)), src_bytes, "src_bytes", true, op);
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::add_unpack(const void* src, std::int64_t src_bytes, void* dst, std::int64_t count,
                                       const Datatype& type, Op op) {
  add<Direction::Combine>("KokkosDDT::FusedBatch::add_unpack", type, count, static_cast<char*>(dst),
                          const_cast<char*>(static_cast<const char*>(src)), src_bytes, "src_bytes", false, op);
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::set_op(Op op) {
  const char* where = "KokkosDDT::FusedBatch::set_op";
  for (std::size_t i = 0; i < records_.size(); ++i)
    if (records_[i].direction == static_cast<std::int8_t>(Direction::Combine)) require_op_applies(op, types_[i], where);
  bool changed = false;
  for (FusedRecord& r : records_)
    if (r.direction == static_cast<std::int8_t>(Direction::Combine) && r.op != static_cast<std::int8_t>(op)) {
      r.op = static_cast<std::int8_t>(op);
      changed = true;
    }
  if (!changed || !built_) return;
  wait();  // (the records of a launch in flight stay as they are)
  copy_records();
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::add_copy(const void* src, bool src_absolute, std::int64_t scount, const Datatype& stype,
                                     void* dst, bool dst_absolute, std::int64_t dcount, const Datatype& dtype) {
  add_copy_record(src, src_absolute, scount, stype, dst, dst_absolute, dcount, dtype, nullptr);
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::add_copy(const void* src, bool src_absolute, std::int64_t scount, const Datatype& stype,
                                     void* dst, bool dst_absolute, std::int64_t dcount, const Datatype& dtype, Op op) {
  add_copy_record(src, src_absolute, scount, stype, dst, dst_absolute, dcount, dtype, &op);
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::add_copy_record(const void* src, bool src_absolute, std::int64_t scount,
                                            const Datatype& stype, void* dst, bool dst_absolute, std::int64_t dcount,
                                            const Datatype& dtype, const Op* op) {
  const char* where = "KokkosDDT::FusedBatch::add_copy";
  check_open(where);
  CopyTransfer t = prepare_copy(where, const_cast<char*>(static_cast<const char*>(src)), src_absolute, scount, stype,
                                static_cast<char*>(dst), dst_absolute, dcount, dtype, {});
  check_copy_memory<ExecSpace>(t, where);
  Primitive element = Primitive::Byte;
  if (op) {  // (checked as a combining unpack's type is; its words hold whole elements, as that unpack's do)
    element = combining_element(*op, stype, where, "stype");
    if (t.end > t.begin) t.word = static_cast<int>(std::max<std::int64_t>(t.word, primitive_size(element)));
  }
  if (t.end == t.begin) return;  // nothing moves
  const std::int64_t tile = LaunchShape<ExecSpace>::tile_bytes(space_, t.end - t.begin, t.word) / t.word * t.word;
  FusedRecord r = record_of_copy(t, space_, std::max<std::int64_t>(tile, t.word), where);
  if (op) {
    r.direction = static_cast<std::int8_t>(Direction::Combine);  // (a combining copy: FusedTile::typed_to_typed)
    r.op = static_cast<std::int8_t>(*op);
    r.element = static_cast<std::int8_t>(element);
  }
  place(r, t.end - t.begin, where);
  types_.push_back(stype);  // keeps the descriptors alive
  dst_of_.push_back(t.dst_type);
  dst_types_.push_back(dtype);
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::add_mapped_copy(const void* src, bool src_absolute, std::int64_t scount,
                                            const Datatype& stype, char* dst, std::int64_t dcount,
                                            std::shared_ptr<const CommittedType> dtype) {
  const char* where = "KokkosDDT::FusedBatch::add_mapped_copy";
  check_open(where);
  if (stype.is_null() || !stype.is_committed() || !dtype)
    throw_error(ErrorCode::NotCommitted, where, "stype", "must be a committed type");
  const CommittedType& s = stype.impl_committed(where);
  char* from = const_cast<char*>(static_cast<const char*>(src));
  const std::int64_t total = checked_mul(scount, s.size, where, "scount");
  if (checked_mul(dcount, dtype->size, where, "dcount") != total)
    throw_error(ErrorCode::InvalidArgument, where, "dcount", "makes the destination another size than the source");
  if (total == 0) return;
  if (!from && !src_absolute) throw_error(ErrorCode::NullPointer, where, "src", "is null");
  CopyTransfer t{&s, dtype.get(), from, dst, 0, total, 1};
  t.word = copy_word(s, scount, from, *dtype, dcount, dst, 0, total);
  if (from) check_pointer<ExecSpace>(from + s.data_lb, where, "src");
  const std::int64_t tile = LaunchShape<ExecSpace>::tile_bytes(space_, total, t.word) / t.word * t.word;
  FusedRecord r = record_of_copy(t, space_, std::max<std::int64_t>(tile, t.word), where);
  place(r, total, where);
  types_.push_back(stype);
  dst_of_.push_back(dtype.get());
  dst_types_.emplace_back();
  mapped_types_.push_back(std::move(dtype));  // keeps the descriptor alive
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::phase(int p) {
  const char* where = "KokkosDDT::FusedBatch::phase";
  check_open(where);
  if (chain_first_ >= 0) throw_error(ErrorCode::InvalidArgument, where, "this", "a chain is open (end_chain first)");
  if (p < phase_ || p > kMaxPhase)
    throw_error(ErrorCode::InvalidArgument, where, "p",
                "is " + std::to_string(p) + "; phases are added in order, from " + std::to_string(phase_) + " to " +
                    std::to_string(kMaxPhase));
  phase_ = p;
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::begin_chain() {
  const char* where = "KokkosDDT::FusedBatch::begin_chain";
  check_open(where);
  if (chain_first_ >= 0) throw_error(ErrorCode::InvalidArgument, where, "this", "a chain is open already");
  chain_first_ = static_cast<std::int64_t>(records_.size());
}

// The chain's records get one tile (the widest word's, so that it holds whole words of each) and the same teams (its
// teams find the chain by its records' first team: FusedKernel::execute).
template <class ExecSpace>
void FusedBatch<ExecSpace>::end_chain() {
  const char* where = "KokkosDDT::FusedBatch::end_chain";
  if (chain_first_ < 0) throw_error(ErrorCode::InvalidArgument, where, "this", "no chain is open (begin_chain)");
  const auto first = static_cast<std::size_t>(chain_first_);
  chain_first_ = -1;
  if (first == records_.size()) return;  // (nothing moved)
  std::int64_t tile = 0, word = 1, scratch = 0;
  for (std::size_t i = first; i < records_.size(); ++i) {
    tile = std::max(tile, records_[i].tile);
    word = std::max<std::int64_t>(word, records_[i].word);
    scratch += FusedTile<ExecSpace>::scratch_bytes(records_[i]);  // (each member caches its own descriptor)
  }
  tile = (tile + word - 1) / word * word;
  const std::int64_t bytes = records_[first].end - records_[first].begin;
  const auto teams = static_cast<std::int32_t>((bytes + tile - 1) / tile);
  for (std::size_t i = first; i < records_.size(); ++i) {
    records_[i].tile = tile;
    records_[i].teams = teams;
    follows_[i] = i + 1 < records_.size();
  }
  teams_ = records_[first].first_team + teams;
  scratch_ = std::max(scratch_, scratch);
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::signal_after(std::vector<std::uint64_t*> counters, bool low_half) {
  const char* where = "KokkosDDT::FusedBatch::signal_after";
  check_open(where);
  if (Backend::synchronous) throw_error(ErrorCode::Unsupported, where, "this", "a host backend's batch has no kernel");
  signal_counters_ = std::move(counters);
  low_half_ = low_half;
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::gate_on(std::vector<std::uint64_t*> raise, std::vector<std::uint64_t*> waits) {
  const char* where = "KokkosDDT::FusedBatch::gate_on";
  check_open(where);
  if (signal_counters_.empty())
    throw_error(ErrorCode::InvalidArgument, where, "this", "gates need device completion (signal_after) first");
  if (waits.empty()) throw_error(ErrorCode::InvalidArgument, where, "waits", "is empty: no gate to wait for");
  raise_ = std::move(raise);
  waits_ = std::move(waits);
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::launch(const ExecSpace& space) {
  wait();
  if (records_.empty()) return;
  if (!built_) build();
  if (inline_) {  // synchronous host, one tile per request: the calling thread walks them
    for (const FusedRecord& r : records_) FusedLaunch<ExecSpace>::run_on_calling_thread(r);
    ++launches_;
    return;
  }
  if (Backend::synchronous && Backend::walks_runs && !kind_.combining()) {
    // Synchronous hosts gain nothing from one launch over large requests but a worse split of their tiles among
    // the threads: each request runs as its own pack would (a one-tile one on the calling thread).
    for (std::size_t i = 0; i < records_.size(); ++i) {
      const FusedRecord& r = records_[i];
      const CommittedType& c = types_[i].impl_committed("KokkosDDT::FusedBatch::launch");
      if (r.direction == static_cast<std::int8_t>(Direction::Copy)) {
        // (two types of one shape: r.packed is the destination moved into the source's layout, which describes it)
        const CommittedType* d = r.dst_nodes == r.nodes ? &c : dst_of_[i];
        const CopyTransfer t{&c, d, r.typed, r.packed, r.begin, r.end, r.word};
        CopyLaunch<ExecSpace>::launch(space, t);
      } else if (r.direction == static_cast<std::int8_t>(Direction::Pack))
        TraversalLaunch<ExecSpace, Direction::Pack>::launch(space, c, r.typed, r.packed, r.begin, r.end, r.word);
      else
        TraversalLaunch<ExecSpace, Direction::Unpack>::launch(space, c, r.typed, r.packed, r.begin, r.end, r.word);
    }
    ++launches_;
  } else {
    for (std::size_t i = 0; i < records_.size(); ++i) flags_(i) = 0;  // the kernel writes 1 into each when done
    run_kernel(space, kernel_);
    in_flight_ = true;
  }
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::launch_ordered(const ExecSpace& space) {
  if constexpr (Backend::synchronous) {
    launch(space);
  } else {
    wait();  // (a flagged launch before this one: its flags must not be reset under it)
    if (records_.empty()) return;
    if (!built_) build();
    FusedKernel<ExecSpace> unflagged = kernel_;
    unflagged.completion.flags = nullptr;
    run_kernel(space, unflagged);
  }
}

template <class ExecSpace>
bool FusedBatch<ExecSpace>::test() {
  if (!in_flight_) return true;
  for (std::size_t i = 0; i < records_.size(); ++i)
    if (static_cast<volatile const std::uint64_t*>(flags_.data())[i] != 1) return false;
  in_flight_ = false;
  return true;
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::wait() {
  wait_until([&] { return test(); });
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::run_kernel(const ExecSpace& space, FusedKernel<ExecSpace> kernel) {
  memory_->launched(space);  // (fenced before the arena and flags go back to their pools)
  kernel.completion.signal = signal_;
  static const std::string label = "KokkosDDT::FusedBatch::launch";
  FusedLaunch<ExecSpace>::launch(space, kernel, kind_, teams_, scratch_, label);
  ++launches_;
}

template <class ExecSpace>
template <Direction Dir>
void FusedBatch<ExecSpace>::add(const char* where, const Datatype& type, std::int64_t count, char* typed, char* packed,
                                std::int64_t packed_bytes, const char* packed_name, bool typed_null_ok, Op op) {
  check_open(where);
  Transfer t =
      prepare_transfer<ExecSpace, Dir>(where, type, count, typed, typed_null_ok, packed, packed_bytes, packed_name, {});
  Primitive element = Primitive::Byte;
  if constexpr (Dir == Direction::Combine) {
    element = combining_element(op, type, where);
    if (t.end > t.begin) t.word = combining_word(t, element, where);
  }
  if (t.end == t.begin) return;  // nothing moves
  const std::int64_t tile = LaunchShape<ExecSpace>::tile_bytes(space_, t.end - t.begin, t.word);
  FusedRecord r = record_of<ExecSpace>(t, descriptor<MemSpace>(*t.type, space_), tile, Dir, where);
  r.op = static_cast<std::int8_t>(op);
  r.element = static_cast<std::int8_t>(element);
  place(r, t.end - t.begin, where);
  types_.push_back(type);  // keeps the descriptor alive
  dst_of_.push_back(nullptr);
  dst_types_.emplace_back();
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::place(FusedRecord& r, std::int64_t bytes, const char* where) {
  std::int64_t teams = (bytes + r.tile - 1) / r.tile;  // (r.teams is 32-bit: checked here)
  if (chain_first_ >= 0 && chain_first_ < static_cast<std::int64_t>(records_.size())) {  // (in the chain's teams)
    const FusedRecord& first = records_[chain_first_];
    if (bytes != first.end - first.begin || r.begin != first.begin)
      throw_error(ErrorCode::InvalidArgument, where, "count",
                  "moves other stream bytes than the chain's first request (" + std::to_string(bytes) + ", not " +
                      std::to_string(first.end - first.begin) + ")");
    if (static_cast<std::int64_t>(records_.size()) - chain_first_ >= kMaxChain)
      throw_error(ErrorCode::Overflow, where, "this",
                  "a chain holds at most " + std::to_string(kMaxChain) + " requests");
    teams_ = first.first_team;  // (end_chain sets the chain's teams)
    teams = 0;
  }
  if (teams_ + teams > std::numeric_limits<int>::max())
    throw_error(ErrorCode::Overflow, where, "count", "makes the batch more than one launch can hold (2^31 - 1 teams)");
  if (gate_ > std::numeric_limits<std::int16_t>::max())
    throw_error(ErrorCode::Overflow, where, "gate", "is beyond a record's 2^15 gates");
  r.first_team = static_cast<std::int32_t>(teams_);
  r.gate = static_cast<std::int16_t>(gate_);
  record_phases_.push_back(phase_);
  follows_.push_back(false);
  r.ticket = 1;
  r.slot = static_cast<std::int32_t>(records_.size());
  scratch_ = std::max(scratch_, FusedTile<ExecSpace>::scratch_bytes(r));
  teams_ += teams;
  bytes_ += bytes;
  records_.push_back(r);
}

// Devices: where a phase's words outnumber the device's threads, several words per thread (launch_words_per_thread),
// counted per phase: phases run one after the other, each on the whole device, so each is one wave of its own. (Counted
// over the batch, a large scatter's seven phases each got a seventh of the device, its threads moving seven times the
// words while the teams of the later phases waited.) A chain's members all count, its tile narrower by their number
// (chain_words_per_thread): its team moves every member's words.
template <class ExecSpace>
void FusedBatch<ExecSpace>::retile() {
  if constexpr (!Backend::walks_runs) {
    const std::int64_t threads = Backend::fused_threads(space_);
    std::int64_t first = 0;
    for (std::size_t i = 0, end = 0; i < records_.size(); i = end) {
      std::int64_t words = 0;
      for (end = i; end < records_.size() && record_phases_[end] == record_phases_[i]; ++end)
        words += (records_[end].end - records_[end].begin + records_[end].word - 1) / records_[end].word;
      const std::int64_t per_thread = launch_words_per_thread(words, threads);
      for (std::size_t k = i, last = i; k < end; k = ++last) {
        std::size_t widest = k;  // (a chain: one tile, its widest word's, and its teams for every record)
        for (; follows_[last]; ++last)
          if (records_[last + 1].word > records_[widest].word) widest = last + 1;
        const auto members = static_cast<std::int64_t>(last - k + 1);
        const std::int64_t teams =
            widen_tile(records_[widest], chain_words_per_thread(per_thread, members), Backend::team_size);
        for (std::size_t j = k; j <= last; ++j) {
          records_[j].first_team = static_cast<std::int32_t>(first);
          records_[j].tile = records_[widest].tile;
          records_[j].teams = static_cast<std::int32_t>(teams);
        }
        first += teams;
      }
    }
    teams_ = first;
  }
}

// Devices: the chains the launch's kernel combines in one pass (FusedTile::chain_in_one_pass), their last records
// marked (the kernel reads a chain's last record first: FusedKernel::execute), their sources' scratch reserved.
template <class ExecSpace>
void FusedBatch<ExecSpace>::mark_one_pass_chains() {
  one_pass_chains_ = 0;
  for (std::size_t k = 0, last = 0; k < records_.size(); k = ++last) {
    while (follows_[last]) ++last;
    const auto members = static_cast<std::int64_t>(last - k + 1);
    records_[last].one_pass =
        members > 1 &&
        FusedTile<ExecSpace>::chain_in_one_pass(records_.data() + k, members,
                                                types_[k].impl_committed("KokkosDDT::FusedBatch::launch").shape, kind_);
    if (records_[last].one_pass) {
      scratch_ = std::max(scratch_, FusedTile<ExecSpace>::chain_scratch_bytes(members));
      ++one_pass_chains_;
    }
  }
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::build() {
  if (chain_first_ >= 0)
    throw_error(ErrorCode::InvalidArgument, "KokkosDDT::FusedBatch::launch", "this", "a chain is open (end_chain)");
  retile();
  kind_ = LaunchKind{};
  for (const FusedRecord& r : records_) kind_.add(r);
  mark_one_pass_chains();
  // The phases' first teams, dense (a phase without records would let the next one through early), and the end.
  std::vector<std::int64_t> phase_first;
  for (std::size_t i = 0; i < records_.size(); ++i)
    if (i == 0 || record_phases_[i] != record_phases_[i - 1]) phase_first.push_back(records_[i].first_team);
  phase_first.push_back(teams_);
  const auto n = static_cast<std::int64_t>(records_.size());
  inline_ = Backend::synchronous && Backend::walks_runs && teams_ == n &&
            (space_.concurrency() == 1 || bytes_ <= Config::host_inline_bytes);
  memory_ = std::make_shared<BatchMemory<ExecSpace>>();
  memory_->flags = BlockPool<HostVisible>::take(n * static_cast<std::int64_t>(sizeof(std::uint64_t)));
  flags_ = Kokkos::View<std::uint64_t*, HostVisible>(reinterpret_cast<std::uint64_t*>(memory_->flags.data), n);
  std::memset(flags_.data(), 0, static_cast<std::size_t>(n) * sizeof(std::uint64_t));  // (host-visible memory)
  std::vector<std::uint64_t*> signals = signal_counters_;  // the kernel's order: signals, raises, gates
  signals.insert(signals.end(), raise_.begin(), raise_.end());
  signals.insert(signals.end(), waits_.begin(), waits_.end());
  const auto k = signal_counters_.empty() ? std::int64_t{0} : static_cast<std::int64_t>(signals.size());
  const auto p = phase_first.size() > 2 ? static_cast<std::int64_t>(phase_first.size()) - 1 : 0;  // (one: no waits)
  // What the kernel reads and counts in the execution space's memory, in one allocation filled by one copy (a halo
  // plan makes a dozen batches, and each allocation or copy to a device costs microseconds): in 8-byte words, the
  // records, each record's done counter, then where there are signals their addresses and the launch's two counters,
  // then where there are phases their counters and first teams. Counters start at zero.
  constexpr std::int64_t record_words = sizeof(FusedRecord) / sizeof(std::int64_t);
  static_assert(sizeof(FusedRecord) % sizeof(std::int64_t) == 0 && alignof(FusedRecord) <= alignof(std::int64_t));
  const std::int64_t at_done = n * record_words, at_signals = at_done + n, at_launch = at_signals + k;
  const std::int64_t at_phases = at_launch + (k > 0 ? 2 : 0), at_first = at_phases + (p > 0 ? 2 + p : 0);
  const std::int64_t words = at_first + (p > 0 ? p + 1 : 0);
  std::vector<std::int64_t>& staged = arena_staging_;  // (the copy may read it after build returns: Kokkos's rule)
  staged.assign(static_cast<std::size_t>(words), 0);
  if (n > 0) std::memcpy(staged.data(), records_.data(), static_cast<std::size_t>(n) * sizeof(FusedRecord));
  for (std::int64_t i = 0; i < k; ++i)
    staged[at_signals + i] = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(signals[i]));
  for (std::int64_t i = 0; i < (p > 0 ? p + 1 : 0); ++i) staged[at_first + i] = phase_first[i];
  memory_->arena = BlockPool<MemSpace>::take(words * static_cast<std::int64_t>(sizeof(std::int64_t)));
  arena_ = Kokkos::View<std::int64_t*, MemSpace>(reinterpret_cast<std::int64_t*>(memory_->arena.data), words);
  Kokkos::deep_copy(space_, arena_,
                    Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                        staged.data(), staged.size()));
  std::int64_t* const base = arena_.data();
  records_view_ = Kokkos::View<FusedRecord*, MemSpace>(reinterpret_cast<FusedRecord*>(base), n);
  kernel_ = FusedKernel<ExecSpace>{};
  carry_records();
  kernel_.records.ring = records_view_;
  kernel_.records.n = kernel_.records.capacity = n;
  kernel_.completion.done = Kokkos::View<std::int64_t*, MemSpace>(base + at_done, n);
  kernel_.completion.flags = flags_.data();
  for (const FusedRecord& r : records_)
    if (!waits_.empty() && r.gate >= static_cast<std::int64_t>(waits_.size()))
      throw_error(ErrorCode::InvalidArgument, "KokkosDDT::FusedBatch::gate_on", "waits",
                  "has no counter for a record's gate");
  if (k > 0) {
    FusedCompletion<ExecSpace>& c = kernel_.completion;
    c.signals = reinterpret_cast<const std::uintptr_t*>(base + at_signals);
    c.signal_count = static_cast<std::int32_t>(signal_counters_.size());
    c.raise_count = static_cast<std::int32_t>(raise_.size());
    c.gate_count = static_cast<std::int32_t>(waits_.size());
    c.low_half = low_half_;
    c.launch_done = base + at_launch;
    c.launch_started = base + at_launch + 1;
    c.launch_teams = teams_;
  }
  if (p > 0) {
    FusedCompletion<ExecSpace>& c = kernel_.completion;
    c.phases = base + at_phases;
    c.phase_first = base + at_first;
    c.phase_count = static_cast<std::int32_t>(p);
    c.launch_teams = teams_;
  }
  space_.fence("KokkosDDT::FusedBatch: records copied, counters zeroed");
  built_ = true;
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::copy_records() {
  Kokkos::deep_copy(space_, records_view_,
                    Kokkos::View<const FusedRecord*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                        records_.data(), records_.size()));
  carry_records();
  space_.fence("KokkosDDT::FusedBatch: records copied");
}

template <class ExecSpace>
void FusedBatch<ExecSpace>::carry_records() {
  const auto n = static_cast<std::int64_t>(records_.size());
  if (n <= kernel_.records.kCarried)
    for (std::int64_t i = 0; i < n; ++i) kernel_.records.carry(i, records_[i]);
  else
    kernel_.records.carry_heads(records_.data(), n);
}

// Compiled once per backend in the library (core/src/eti/KokkosDDT_ETI_FusedBatch.cpp).
#define KOKKOSDDT_EXTERN_FUSED_BATCH(Space) extern template class FusedBatch<Space>;
KOKKOSDDT_ETI_SPACES(KOKKOSDDT_EXTERN_FUSED_BATCH)
#undef KOKKOSDDT_EXTERN_FUSED_BATCH

}  // namespace KokkosDDT::Impl
