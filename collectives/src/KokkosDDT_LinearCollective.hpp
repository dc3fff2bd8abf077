// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The linear (direct) schedule of a gather or scatter: every process sends its block straight to the root (scatter:
// receives it from the root), and the root moves each block between the wire and its buffer in one typed operation,
// all posted at once. One dependent message step; the root handles p - 1 messages.
//
// The processes have agreed beforehand that the arguments are consistent (KokkosDDT_ScheduledCollective.hpp): the root
// is valid, no process found a bad argument, and the root's counts hash as the processes' bytes do. So a pair with no
// bytes exchanges no message. Should a message still have another size than its receiver's counts (counts that
// collide in the 64-bit hash), that receive alone fails (short, or MPI_ERR_TRUNCATE), and the receiver throws once
// everything is done.
//
// Blocks that are one contiguous run MPI can reach (host memory, or device memory with a GPU-aware MPI) travel as they
// are, all in one message set (one MPI_Test per sweep, which stops at the first message in flight); the others are
// typed messages (packed or unpacked through staging). Both are made once: a persistent collective, or a cached
// schedule, starts them again in every round.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
#include <KokkosDDT_MPI.hpp>

#include "KokkosDDT_CollectiveArgs.hpp"
#include "KokkosDDT_CollectiveComm.hpp"
#include "KokkosDDT_MPISendOrder.hpp"

namespace KokkosDDT::Impl {

template <class ExecSpace, bool Gather>
class LinearCollective final : public Operation {
 public:
  // check_arrivals (the call is unchecked): the root compares each receive's size with its counts, which nothing else
  // checks. Agreed calls (checked, persistent) skip it: their agreement compared every process's bytes with the root's
  // counts already, and reading every receive's size (MPI_Get_elements_x) costs a round more than posting the
  // receives.
  LinearCollective(const char* where, const ExecSpace& space, CollectiveArgs args, std::int64_t own_bytes,
                   std::shared_ptr<MpiTransport> transport, CollectiveTags tags, bool check_arrivals)
      : where_(where),
        space_(space),
        a_(std::move(args)),
        own_bytes_(own_bytes),
        check_arrivals_(check_arrivals),
        transport_(std::move(transport)),
        tag_(tags(CollectiveTag::Data)) {
    const int p = transport_->size(), me = transport_->rank();
    if (me != a_.root) {
      if (own_bytes_ > 0) add(!Gather, a_.own_buf, a_.own_count, a_.own_type, a_.root);
    } else {
      root_block_ = RootBlock<ExecSpace, Gather>(a_, own_bytes_, where_);
      const std::int64_t extent = a_.root_type.extent(), size = a_.root_type.size();
      const char* base = static_cast<const char*>(a_.root_buf);
      for (int j = 0; j < p; ++j)  // (a block of no bytes: no message, as its process sends none)
        if (j != a_.root && a_.counts[j] * size > 0)
          add(Gather, base + a_.displs[j] * extent, a_.counts[j], a_.root_type, j);
    }
    // (Reposted each round rather than persistent: starting prepared requests with MPI_Start makes a round of small
    // blocks slower than posting them afresh.)
    if (!sends_.empty() || !receives_.empty()) direct_ = transport_->make_set(sends_, receives_, false, where_);
  }

  void start() override {
    done_ = false;
    enqueued_ = false;
    direct_done_ = !direct_;
    if (direct_) direct_->post_receives();
    pending_.clear();  // (its capacity stays: no allocation in later rounds)
    for (auto& op : ops_) op->start(), pending_.push_back(op.get());
    if (direct_) direct_->post_sends();
    if (transport_->rank() != a_.root) return;
    enqueued_ = root_block_.copy(space_, a_);
  }

  bool progress() override {
    if (done_) return true;
    bool all = direct_complete();
    for (auto& op : pending_) {
      if (!op) continue;
      try {
        if (!op->progress()) {
          all = false;
          continue;
        }
      } catch (const Error& e) {  // a message of another size (counts that collide in the hash)
        note_error(e.what());
      }
      op = nullptr;
    }
    if (!all) return false;
    done_ = true;
    static const std::string label = "KokkosDDT::collective (the root's own block)";  // (made once, not per round)
    if (enqueued_) space_.fence(label);
    if (!error_.empty()) throw_error(ErrorCode::MPI, where_, "comm", std::exchange(error_, {}));
    return true;
  }

  Arrival status() const override { return {}; }

  // A blocking call's round: its contiguous messages complete in the transport's own blocking wait (MPI_Wait per
  // message, the receives in rank order, as MPI's own gatherv receives), not by polling through progress(), when that
  // is all the round has left: no typed message, and no send of this process queued behind its pack (which only
  // polling posts, and which a peer may need first). progress() then finds them done, and checks their sizes.
  void block() {
    if (!direct_ || direct_done_ || !ops_.empty() || sends_queued()) return;
    try {
      direct_->wait();
      direct_done_ = true;
    } catch (const Error& e) {  // a longer message (MPI_ERR_TRUNCATE): it alone failed; progress() tests the rest
      note_error(e.what());
    }
  }

 private:
  // One message with process `peer`: `count` x `type` at `buf`; `receive` on this side.
  void add(bool receive, const void* buf, std::int64_t count, const Datatype& type, int peer) {
    const CommittedType& c = type.impl_committed(where_);
    const std::int64_t bytes = checked_mul(count, c.size, where_, "count");
    std::int64_t offset = 0;
    char* run = nullptr;
    if (bytes > 0 && contiguous_run(c, count, offset)) run = static_cast<char*>(const_cast<void*>(buf)) + offset;
    if (bytes > 0 && (!run || !transport_reaches<ExecSpace>(run, *transport_))) {
      const MPI_Comm comm = transport_->comm();
      if (receive)
        ops_.push_back(
            MessageFactory<ExecSpace, Direction::Unpack>::make(where_, space_, buf, count, type, peer, tag_, comm));
      else
        ops_.push_back(
            MessageFactory<ExecSpace, Direction::Pack>::make(where_, space_, buf, count, type, peer, tag_, comm));
      return;
    }
    if (bytes > 0) check_pointer<ExecSpace>(run, where_, "buf");
    (receive ? receives_ : sends_).push_back({run, bytes, peer, tag_});
  }

  // The contiguous messages: complete, and every receive of the size its counts say.
  bool direct_complete() {
    while (!direct_done_) {
      try {
        if (!direct_->test()) return false;
        direct_done_ = true;
      } catch (const Error& e) {  // a longer message (MPI_ERR_TRUNCATE): it alone failed, and is gone
        note_error(e.what());
      }
    }
    if (!check_arrivals_) return true;
    for (std::size_t i = 0; i < receives_.size(); ++i)
      if (direct_->arrival(i).bytes != receives_[i].bytes)
        note_error("received " + std::to_string(direct_->arrival(i).bytes) + " bytes from rank " +
                   std::to_string(receives_[i].peer) + " where the counts make " + std::to_string(receives_[i].bytes));
    return true;
  }

  void note_error(const std::string& what) {
    if (error_.empty()) error_ = "a message had another size than the counts say (" + what + ")";
  }

  const char* where_;
  ExecSpace space_;
  CollectiveArgs a_;
  std::int64_t own_bytes_;
  bool check_arrivals_;
  std::shared_ptr<MpiTransport> transport_;  // on the communicator's duplicate (KokkosDDT_CollectiveComm.hpp)
  int tag_;
  std::string error_;
  std::vector<ByteMessage> sends_, receives_;  // the contiguous blocks, as they are
  std::unique_ptr<MessageSet> direct_;         // ... in one set
  bool direct_done_ = true;
  std::vector<std::shared_ptr<Operation>> ops_;  // every typed message
  std::vector<Operation*> pending_;              // those of this round not yet done
  RootBlock<ExecSpace, Gather> root_block_;      // (the root's)
  bool done_ = false;
  bool enqueued_ = false;  // the root's own block is copied on the execution space
};

}  // namespace KokkosDDT::Impl
