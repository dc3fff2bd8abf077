// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One gather or scatter: the processes agree on what nobody can check alone, then run the schedule the model picks
// (KokkosDDT_CollectiveSchedule.hpp) on the agreed sizes: Träff's tree (KokkosDDT_TreeCollective.hpp) or the linear
// schedule (KokkosDDT_LinearCollective.hpp).
//
// The agreement is the library's one reduction (KokkosDDT_MPIAgreement.hpp) on the communicator's duplicate: one
// dependent step of about log2 p messages, before anything moves; blocking calls use the blocking reduction, which is
// faster. It settles whether any process found a bad argument of its own or a root out of range, whether all pass the
// same root and options, whether the root's counts agree with what the processes contribute (a hash of every rank's
// byte count: sum of bytes_i * h(i), mod 2^64, against the root's; RankHash.hpp), and whether all blocks have one
// size (CollectiveVerdict below). Every process gets the same verdict, so every
// process throws, or none does, for a bad argument anywhere, a root that differs or is out of range, options that
// differ, or root counts that disagree with the processes'; nothing is sent or written then. So the schedules run only
// on consistent arguments: they send no message of no bytes, and where all blocks have one size every process knows
// every size, and the tree is computed locally, without construction messages (the paper's remark on regular
// gather/scatter).
//
// Persistent (gatherv_init ...): the agreement, the schedule, the tree's construction and every typed message are
// done once, at init, where every process throws or none does; each start() only moves data.
//
// Unchecked (CollectiveOptions::check = ArgumentCheck::Local, or KOKKOSDDT_CHECK_ARGUMENTS=0; nonpersistent calls):
// no agreement, as MPI's own collectives. Each process throws for its own bad arguments; the root checks what arrives
// (LinearCollective: a message of another size than its counts is an Error, nothing written past the buffer); what
// only the agreement caught (a root, counts or options that differ between processes) may hang instead.
//
// Nonpersistent calls keep their schedule on the communicator (KokkosDDT_CollectiveComm.hpp, one per gather and
// scatter): the next call whose arguments are the same on every process (buffers, counts, displacements, types, root,
// execution-space instance, options: a key per process) runs it again instead of making one, which the agreement
// settles (every process offers the same cached schedule, or a new one is made everywhere). Such a call pays the
// agreement and the data, as a persistent round pays the data alone.

#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
#include <KokkosDDT_MPI.hpp>

#include "KokkosDDT_CollectiveArgs.hpp"
#include "KokkosDDT_CollectiveComm.hpp"
#include "KokkosDDT_CollectiveSchedule.hpp"
#include "KokkosDDT_LinearCollective.hpp"
#include "KokkosDDT_MPIAgreement.hpp"
#include "KokkosDDT_RankHash.hpp"
#include "KokkosDDT_TreeCollective.hpp"

namespace KokkosDDT::Impl {

// What every process must pass alike: the schedule asked for, the model and the direct threshold.
inline std::int64_t options_fingerprint(CollectiveSchedule requested, const CollectiveModel& m,
                                        std::int64_t threshold) {
  std::int64_t bits[3];
  std::memcpy(&bits[0], &m.alpha_us, 8);
  std::memcpy(&bits[1], &m.gap_us, 8);
  std::memcpy(&bits[2], &m.beta_ns, 8);
  return Fingerprint()
      .add(static_cast<std::int64_t>(requested))
      .add(bits[0])
      .add(bits[1])
      .add(bits[2])
      .add(threshold)
      .value();
}

// Blocking calls agree with MPI's blocking reduction, and wait for the linear schedule's messages in MPI's blocking
// wait (both faster where every process has a core), unless KOKKOSDDT_COLLECTIVE_BLOCKING_REDUCTION=0: with more
// processes than cores, MPICH's blocking reduction spins without yielding, and the library's own waits (which yield)
// are much faster there.
inline bool blocking_reductions() { return settings().collective_blocking_reduction; }

// What a gather or scatter settles: the agreement's values and sums, in this order.
enum CollectiveValue : std::size_t { kRootOutOfRange, kRoot, kOptions, kCachedOffer, kBlockBytes };
enum CollectiveSum : std::size_t { kBytesHash, kRootCountsHash };

// How the operation is called: nonblocking (igatherv: a request), blocking (gatherv: waits at once), or persistent
// (gatherv_init: made once, started many times).
enum class CollectiveMode { Nonblocking, Blocking, Persistent };

template <class ExecSpace, bool Gather>
class ScheduledCollective final : public Operation {
 public:
  ScheduledCollective(const char* where, const ExecSpace& space, CollectiveArgs args, const CollectiveOptions& options,
                      CollectiveMode mode)
      : where_(where),
        space_(space),
        a_(std::move(args)),
        persistent_(mode == CollectiveMode::Persistent),
        blocking_(mode == CollectiveMode::Blocking && blocking_reductions()) {
    CollectiveContext& ctx = collective_context(a_.comm, where_);
    transport_ = ctx.transport;
    p_ = transport_->size();
    me_ = transport_->rank();
    requested_ = requested_schedule(options);
    model_ = model(options);
    options_fp_ = options_fingerprint(requested_, model_, a_.threshold);
    unchecked_ = !persistent_ && !agreed_arguments(options);
    if (!persistent_) ctx_ = &ctx;
    const CachedSchedule* slot = ctx_ ? &ctx.cached[Gather ? 1 : 0] : nullptr;
    repeated_ = slot && slot->schedule && slot->call.matches(space_, a_, options_fp_, unchecked_, me_);
    if (repeated_) {
      own_bytes_ = slot->call.own_bytes;  // (checked when the schedule was made)
    } else {
      local_error_ = check_collective_arguments<Gather>(a_, me_, p_, where_, own_bytes_);
      if (local_error_) own_bytes_ = 0;
    }
    if (unchecked_) {
      start_unchecked(ctx);
      return;
    }
    tags_ = next_collective_tags(ctx, persistent_);
    std::uint64_t offer = 0;
    if (repeated_) offer = offer_cached(ctx);
    const std::int64_t root_hash =
        me_ == a_.root && !local_error_ ? counts_hash(a_.counts, a_.root_type.size(), 0, p_ - 1) : 0;
    const bool root_ok = a_.root >= 0 && a_.root < p_;
    agreement_.emplace(
        transport_->comm(), local_error_.has_value(),
        std::vector<std::int64_t>{root_ok ? 0 : 1, a_.root, options_fp_, static_cast<std::int64_t>(offer), own_bytes_},
        std::vector<std::uint64_t>{static_cast<std::uint64_t>(bytes_hash(own_bytes_, me_)),
                                   static_cast<std::uint64_t>(root_hash)},
        mode != CollectiveMode::Nonblocking && blocking_reductions(), where_);
    if (persistent_)
      prepare_persistent();
    else
      in_round_ = true;
  }

  // Persistent: one round of data. Nonpersistent: nothing (the operation began when it was made).
  void start() override {
    if (!persistent_) return;
    done_ = false;
    in_round_ = true;
    schedule_->start();
  }

  bool progress() override {
    if (done_) return true;
    if (!schedule_) {
      if (!agreement_->test()) return false;
      try {
        decide();
      } catch (...) {
        finish();
        throw;
      }
      schedule_->start();
    }
    try {
      if (blocking_) {  // (tried once: a round that cannot block then is polled to its end)
        blocking_ = false;
        if (auto* linear = dynamic_cast<LinearCollective<ExecSpace, Gather>*>(schedule_.get())) linear->block();
      }
      if (!schedule_->progress()) return false;
    } catch (...) {
      finish();
      throw;
    }
    finish();
    if (!persistent_) keep_schedule();
    return true;
  }

  Arrival status() const override { return {}; }
  // Nothing of it in flight: it may be freed (a persistent one between rounds, too).
  bool finished() const { return !in_round_; }

 private:
  void finish() {
    done_ = true;
    in_round_ = false;
  }

  // An unchecked call (ArgumentCheck::Local), as MPI's: this process's own bad arguments throw here, on this process
  // alone, and the schedule starts at once, without an agreement. The linear one runs on tags of its own
  // (unchecked_collective_tags), so each process may run its cached schedule again (its arguments are those of the
  // last such call) or make one, without asking the others; the tree (many processes) is made anew each call, and not
  // kept (its tags are the operation's: a process that made a new one and another that ran its old one would differ).
  void start_unchecked(CollectiveContext& ctx) {
    if (local_error_) throw *local_error_;
    if (a_.root < 0 || a_.root >= p_)
      throw_error(ErrorCode::InvalidArgument, where_, "root",
                  "is " + std::to_string(a_.root) + ", out of range for " + std::to_string(p_) + " processes");
    if (choose_schedule(requested_, model_, p_) == CollectiveSchedule::Linear) {
      tags_ = unchecked_collective_tags(Gather);
      if (repeated_)
        schedule_ = std::move(ctx.cached[Gather ? 1 : 0].schedule);
      else
        schedule_ = std::make_shared<LinearCollective<ExecSpace, Gather>>(where_, space_, a_, own_bytes_, transport_,
                                                                          tags_, unchecked_);
    } else {
      ctx_ = nullptr;
      tags_ = next_collective_tags(ctx, false);
      schedule_ =
          std::make_shared<TreeCollective<ExecSpace, Gather>>(where_, space_, a_, own_bytes_, transport_, tags_, false);
    }
    in_round_ = true;
    schedule_->start();
  }

  // Init of a persistent collective: everything but the data, blocking; every process throws here, or none does.
  void prepare_persistent() {
    agreement_->wait();
    throw_on_verdict();
    make_schedule();
    if (auto* tree = dynamic_cast<TreeCollective<ExecSpace, Gather>*>(schedule_.get()))
      wait_until([&] { return tree->build(); });
  }

  // The agreement is in: throw everywhere, or run the cached schedule again, or pick one and make it.
  void decide() {
    CachedSchedule& slot = ctx_ ? ctx_->cached[Gather ? 1 : 0] : unused_slot_;
    if (!reuse_cached() && reserved_ && !slot.schedule)
      slot.schedule = std::move(reserved_);  // (offered, not taken: back in its slot)
    throw_on_verdict();
    if (reuse_cached()) {
      schedule_ = std::move(reserved_);
      return;
    }
    reserved_.reset();
    made_ = tags_.sequence;
    make_schedule();
  }

  // The cached schedule of this very call (repeated_) this process offers to run again (its number + 1), reserved for
  // this call; 0: none (its tags may still be in use).
  std::uint64_t offer_cached(CollectiveContext& ctx) {
    CachedSchedule& slot = ctx.cached[Gather ? 1 : 0];
    if (!tags_reusable(slot.sequence, tags_.sequence)) return 0;
    reserved_ = std::move(slot.schedule);
    made_ = slot.sequence;
    return slot.sequence + 1;
  }

  // A call that completed without error leaves its schedule, and what it was made for, for the next one with the same
  // arguments. (The slot may have been filled by another call meanwhile: its signature is then replaced.)
  void keep_schedule() {
    if (!ctx_) return;
    CachedSchedule& slot = ctx_->cached[Gather ? 1 : 0];
    if (!repeated_ || !slot.call.matches(space_, a_, options_fp_, unchecked_, me_))
      slot.call = CallSignature::of(space_, std::move(a_), options_fp_, unchecked_, own_bytes_);
    slot.sequence = made_, slot.schedule = std::move(schedule_);
  }

  // Every process offers the same cached schedule.
  bool reuse_cached() const { return agreement_->agreed(kCachedOffer) && agreement_->max(kCachedOffer) != 0; }

  void throw_on_verdict() {
    const Agreement& v = *agreement_;
    const bool same_root = v.agreed(kRoot);
    if (v.max(kRootOutOfRange) != 0 || !same_root)
      throw_error(ErrorCode::InvalidArgument, where_, "root",
                  !same_root ? "differs between the processes (this one passes " + std::to_string(a_.root) +
                                   "): every process must pass the same"
                             : "is out of range for " + std::to_string(p_) + " processes on at least one (this " +
                                   "one passes " + std::to_string(a_.root) + ")");
    if (v.errors() > 0) {
      if (local_error_) throw *local_error_;
      throw_error(ErrorCode::InvalidArgument, where_, "comm",
                  std::to_string(v.errors()) + " other process" + (v.errors() == 1 ? "" : "es") +
                      " passed a bad argument (its error names it); nothing was moved");
    }
    if (!v.agreed(kOptions))
      throw_error(ErrorCode::InvalidArgument, where_, "options",
                  "the schedule, the cost model or the direct threshold differs between the processes: every process "
                  "must pass the same");
    if (v.sum(kBytesHash) != v.sum(kRootCountsHash)) {  // (the root's counts hash as the processes' bytes do)
      const std::string moved = Gather ? "send" : "receive";
      throw_error(ErrorCode::InvalidArgument, where_, Gather ? "recvcounts" : "sendcounts",
                  me_ == a_.root ? "disagree with the counts the processes pass (the bytes they " + moved +
                                       ", in total or per rank); nothing was moved"
                                 : "(the root's) disagree with the bytes the processes " + moved +
                                       " (the root's error says how); nothing was moved");
    }
  }

  // Every block of one size: each process knows the tree without constructing it.
  void make_schedule() {
    const bool known = agreement_->agreed(kBlockBytes);
    if (choose_schedule(requested_, model_, p_, known) == CollectiveSchedule::Linear)
      schedule_ = std::make_shared<LinearCollective<ExecSpace, Gather>>(where_, space_, a_, own_bytes_, transport_,
                                                                        tags_, unchecked_);
    else
      schedule_ =
          std::make_shared<TreeCollective<ExecSpace, Gather>>(where_, space_, a_, own_bytes_, transport_, tags_, known);
  }

  const char* where_;
  ExecSpace space_;
  CollectiveArgs a_;
  bool persistent_;
  bool blocking_;  // gatherv, scatterv, ... (and blocking_reductions()): the linear round may block in MPI, until tried
  std::shared_ptr<MpiTransport> transport_;  // on the communicator's duplicate (KokkosDDT_CollectiveComm.hpp)
  CollectiveTags tags_;
  int p_ = 1, me_ = 0;
  CollectiveSchedule requested_ = CollectiveSchedule::Auto;
  CollectiveModel model_;
  std::int64_t own_bytes_ = 0;
  std::optional<Error> local_error_;
  std::optional<Agreement> agreement_;              // (in place)
  std::shared_ptr<Operation> schedule_, reserved_;  // the schedule running; a cached one offered to run again
  CollectiveContext* ctx_ = nullptr;                // nonpersistent calls: where their schedule is kept
  CachedSchedule unused_slot_;
  std::int64_t options_fp_ = 0;
  bool repeated_ = false;  // the call of the schedule kept on the communicator, exactly (CallSignature)
  std::uint64_t made_ = 0;
  bool done_ = false;
  bool in_round_ = false;   // started and not complete
  bool unchecked_ = false;  // ArgumentCheck::Local (nonpersistent calls)
};

}  // namespace KokkosDDT::Impl
