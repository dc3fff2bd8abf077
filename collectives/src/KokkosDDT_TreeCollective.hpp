// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One gather or scatter in progress on Träff's ordered tree: the tree is built (KokkosDDT_GatherTree.hpp) and the data
// moves along it, both advanced by progress() so that the operation is nonblocking. Gather and scatter are one
// schedule run in opposite directions:
//
//   non-root, gather:  parent known -> receive the children's runs into one buffer around the own block -> send it up
//   non-root, scatter: parent known -> receive the cube's run from the parent -> send each child its run, keep own
//   root:              every child's run (and every direct subtree's) moves straight between the wire and the user's
//                      buffer in one typed operation (KokkosDDT_RankRuns.hpp)
//
// A leaf moves its block straight from (gather) or into (scatter) the user's buffer; only intermediate processes
// stage, in buffers MPI and the execution space both reach. A process learns all its children in the round its cube
// loses, so its data phase starts while the rounds above still run.
//
// The processes have agreed, before this runs, that the root is valid, that no process found a bad argument and that
// the root's counts hash as the processes' bytes do (KokkosDDT_ScheduledCollective.hpp). Where every block has one
// size, every process computes its place in the tree alone (local_gather_tree: no construction messages). The root
// still checks each child's byte count and hash against its counts before moving that child's data (counts that
// collide in the agreement's hash); on a mismatch a gather root receives the child's data into scratch, a scatter root
// sends the child's subtree empty messages, which every process below reads as "the root found an error" and passes
// on. Each process that knows of an error throws Error at the end of the operation, after its part of the protocol is
// done.
//
// Persistent use: build() completes the construction once; each start() runs the data phase again on the same tree,
// restarting the root's and the leaves' typed messages (built in the first round) and reusing the staging buffers.

#include <mpi.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
#include <KokkosDDT_MPI.hpp>

#include "KokkosDDT_ByteMessages.hpp"
#include "KokkosDDT_CollectiveArgs.hpp"
#include "KokkosDDT_CollectiveComm.hpp"
#include "KokkosDDT_GatherTree.hpp"
#include "KokkosDDT_RankRuns.hpp"

namespace KokkosDDT::Impl {

template <class ExecSpace, bool Gather>
class TreeCollective final : public Operation {
  static constexpr Direction kRootDir = Gather ? Direction::Unpack : Direction::Pack;
  static constexpr Direction kLeafDir = Gather ? Direction::Pack : Direction::Unpack;

 public:
  // `own_bytes`: this process's block (checked); `transport` and `tags`: the operation's messages on the
  // communicator's duplicate (KokkosDDT_CollectiveComm.hpp). The construction starts at once, unless `equal_blocks`:
  // every process's block has own_bytes (agreed), so the tree is computed here.
  TreeCollective(const char* where, const ExecSpace& space, CollectiveArgs args, std::int64_t own_bytes,
                 std::shared_ptr<MpiTransport> transport, CollectiveTags tags, bool equal_blocks = false)
      : where_(where), space_(space), a_(std::move(args)), transport_(std::move(transport)), tags_(tags) {
    comm_ = transport_->comm();
    p_ = transport_->size();
    me_ = transport_->rank();
    own_bytes_ = own_bytes;
    if (me_ == a_.root) root_block_ = RootBlock<ExecSpace, Gather>(a_, own_bytes_, where_);
    if (equal_blocks)
      builder_ = std::make_unique<TreeBuilder>(*transport_, a_.root,
                                               local_gather_tree(p_, me_, a_.root, own_bytes_, a_.threshold));
    else
      builder_ = std::make_unique<TreeBuilder>(*transport_, a_.root, own_bytes_, false, a_.threshold, tags_, where_);
  }

  // The construction alone (a persistent collective completes it once, before its first start).
  bool build() { return builder_->progress(); }

  // One round of the data phase: the first begins as soon as the tree allows; a replay runs on the same tree.
  void start() override {
    if (rounds_++ > 0) reset_data_phase();
    done_ = false;
    enqueued_ = false;
    if (me_ == a_.root) {
      headers_.reserve(static_cast<std::size_t>(p_));  // receives land in it: it must never move
      enqueued_ = root_block_.copy(space_, a_);
    }
  }
  Arrival status() const override { return {}; }

  bool progress() override {
    if (done_) return true;
    const bool built = builder_->progress();
    const bool moved = me_ == a_.root ? root_progress(built) : member_progress();
    if (!built || !moved) return false;
    done_ = true;
    // Typed messages complete on their own (their kernels' flags); only the root's own-block copy and a scatter
    // member's own unpack are still on the instance. (A fence per round, unconditional, cost a Kokkos allocation.)
    static const std::string label = "KokkosDDT::collective";  // (made once, not per round)
    if (enqueued_) space_.fence(label);
    if (!remote_error_.empty()) throw_error(ErrorCode::MPI, where_, "comm", std::exchange(remote_error_, {}));
    return true;
  }

  const GatherTree& tree() const { return builder_->tree(); }
  bool finished() const { return done_; }

 private:
  // A persistent round after the first: the same tree, messages and buffers; only the progress state starts over.
  // The root's and the leaves' typed messages stay in ops_ and are started again.
  void reset_data_phase() {
    stage_ = Stage::Waiting;
    first_.reset();
    second_.reset();
    child_at_.clear();
    header_send_.reset();
    seen_children_ = 0;
    deferred_.clear();
    headers_.clear();
    header_sets_.clear();
    deferred_done_ = false;
    scratch_.clear();
    for (auto& op : kept_ops_) op->start();
    ops_ = kept_ops_;
    replaying_ = true;
  }

  // ---- non-root processes ----------------------------------------------------------------------------------------
  bool member_progress() {
    if (stage_ == Stage::Waiting) {
      if (!builder_->parent_known()) return false;
      begin_member();
      stage_ = Stage::First;
    }
    if (stage_ == Stage::First) {
      if (!first_.test() || !ops_done()) return false;
      second_half();
      stage_ = Stage::Second;
    }
    if (stage_ == Stage::Second) {
      if (!second_.test() || !ops_done()) return false;
      stage_ = Stage::Done;
    }
    return true;
  }

  // Parent known: the header of a direct subtree, then the first half (gather: the children's receives; scatter: the
  // receive from the parent).
  void begin_member() {
    const GatherTree& t = builder_->tree();
    if (t.direct && !replaying_) {  // (a replay: the root knows the tree's messages already)
      header_out_[0] = t.lo, header_out_[1] = t.hi, header_out_[2] = t.total;
      header_send_ = transport_->make_set(
          {{reinterpret_cast<char*>(header_out_), sizeof header_out_, a_.root, tags_(CollectiveTag::Header)}}, {},
          false, where_);
      header_send_->post_sends();
    }
    const int data = tags_(CollectiveTag::Data);
    if (t.children.empty()) {  // a leaf: its own block straight from or into the user's buffer
      if (own_bytes_ > 0 && !replaying_)
        start_op(MessageFactory<ExecSpace, kLeafDir>::make(where_, space_, a_.own_buf, a_.own_count, a_.own_type,
                                                           t.parent, data, comm_));
      return;
    }
    if (stage_buf_.bytes < t.total)
      stage_buf_ = take_staging<ExecSpace>(t.total, transport_->capabilities().device_memory);
    std::int64_t at = 0;
    bool own_placed = false;
    for (const GatherChild& c : t.children) {
      if (!own_placed && c.lo > me_) own_at_ = at, at += own_bytes_, own_placed = true;
      child_at_.push_back(at);
      at += c.record.eff;
    }
    if (!own_placed) own_at_ = at;
    if (Gather) {
      // The pack runs while the children's runs arrive; second_half fences before the buffer goes up.
      if (own_bytes_ > 0) pack(space_, a_.own_buf, a_.own_count, a_.own_type, stage_buf_.data + own_at_, own_bytes_);
      for (std::size_t i = 0; i < t.children.size(); ++i)
        if (t.children[i].record.eff > 0)
          first_.post(*transport_, false, stage_buf_.data + child_at_[i], t.children[i].record.eff, t.children[i].rank,
                      data, where_);
    } else if (t.total > 0) {
      first_.post(*transport_, false, stage_buf_.data, t.total, t.parent, data, where_);
    }
  }

  // First half done: gather sends the cube's run up; scatter passes each child its run and unpacks its own block.
  void second_half() {
    const GatherTree& t = builder_->tree();
    const int data = tags_(CollectiveTag::Data);
    if (t.children.empty()) return;
    if (Gather) {
      static const std::string label = "KokkosDDT::gatherv (own block packed)";
      if (own_bytes_ > 0) space_.fence(label);
      if (t.total > 0) second_.post(*transport_, true, stage_buf_.data, t.total, t.parent, data, where_);
      return;
    }
    const bool poisoned = first_.received_short();
    if (poisoned && remote_error_.empty())
      remote_error_ = "the root found an error in its arguments or in another process's and sent this subtree no data";
    for (std::size_t i = 0; i < t.children.size(); ++i)
      if (t.children[i].record.eff > 0)
        second_.post(*transport_, true, stage_buf_.data + child_at_[i], t.children[i].record.eff, t.children[i].rank,
                     data, where_, poisoned);
    if (!poisoned && own_bytes_ > 0) {
      unpack(space_, stage_buf_.data + own_at_, own_bytes_, const_cast<void*>(a_.own_buf), a_.own_count, a_.own_type);
      enqueued_ = true;
    }
  }

  // ---- the root ----------------------------------------------------------------------------------------------------
  bool root_progress(bool built) {
    if (replaying_) return second_.test() && first_.test() && ops_done();  // its typed messages restarted
    const GatherTree& t = builder_->tree();
    for (; seen_children_ < t.children.size(); ++seen_children_) root_child(t.children[seen_children_]);
    while (headers_.size() < static_cast<std::size_t>(t.direct_total)) {  // a header per direct subtree known so far
      headers_.emplace_back();
      header_sets_.push_back(transport_->make_set(
          {}, {{reinterpret_cast<char*>(headers_.back().data()), 24, MPI_ANY_SOURCE, tags_(CollectiveTag::Header)}},
          false, where_));
      header_sets_.back()->post_receives();
    }
    if (built && !deferred_done_) {
      if (!test_headers()) return false;
      root_deferred();
      deferred_done_ = true;
    }
    return built && deferred_done_ && second_.test() && first_.test() && ops_done();
  }

  bool test_headers() {
    bool all = true;
    for (auto& h : header_sets_) all = h->test() && all;
    return all;
  }

  // A tree child of the root: check its record against the counts, then move its run (now, unless direct subtrees
  // are nested in it: their ranks are not in its message, so it waits for their headers).
  void root_child(const GatherChild& c) {
    std::string problem;
    const std::int64_t rsize = a_.root_type.impl_committed(where_).size;
    const std::int64_t expect = counts_bytes(a_.counts, rsize, c.lo, c.hi);
    if (expect != c.record.full)
      problem = std::string(Gather ? "recvcounts" : "sendcounts") + " of ranks " + range(c) + " make " +
                std::to_string(expect) + " bytes but those processes " + (Gather ? "send " : "receive ") +
                std::to_string(c.record.full);
    else if (counts_hash(a_.counts, rsize, c.lo, c.hi) != c.record.hash)
      problem = std::string(Gather ? "recvcounts" : "sendcounts") + " of ranks " + range(c) +
                " disagree with the counts those processes pass (same total, other distribution)";
    if (!problem.empty() && remote_error_.empty()) remote_error_ = problem;
    if (!problem.empty()) return root_refuse(c.rank, c.record.eff);
    if (c.record.direct > 0) return deferred_.push_back(c);
    std::vector<int> ranks;
    for (int j = c.lo; j <= c.hi; ++j) ranks.push_back(j);
    root_move(c.rank, c.record.eff, ranks);
  }

  // Every header is in: the deferred children and the direct subtrees, each with its ranks (its cube minus the cubes
  // nested in it that travel in other messages).
  void root_deferred() {
    std::vector<RankRange> ranges;
    std::vector<std::pair<int, std::int64_t>> peers;  // sender, bytes
    for (const GatherChild& c : deferred_) ranges.push_back({c.lo, c.hi}), peers.emplace_back(c.rank, c.record.eff);
    for (std::size_t h = 0; h < headers_.size(); ++h) {
      ranges.push_back({static_cast<int>(headers_[h][0]), static_cast<int>(headers_[h][1])});
      peers.emplace_back(header_sets_[h]->arrival(0).source, headers_[h][2]);
    }
    const std::vector<int> owner = range_owners(p_, ranges);
    std::vector<std::vector<int>> ranks(ranges.size());
    for (int j = 0; j < p_; ++j)
      if (owner[j] >= 0) ranks[owner[j]].push_back(j);
    for (std::size_t r = 0; r < ranges.size(); ++r) root_move(peers[r].first, peers[r].second, ranks[r]);
  }

  // One message between the root's buffer and a subtree: the blocks of `ranks`.
  void root_move(int peer, std::int64_t bytes, const std::vector<int>& ranks) {
    RootPlacement where = root_placement(a_.counts, a_.displs, ranks, a_.root_type, where_);
    if (where.bytes != bytes) {  // hashes agreed, so this is a bug, not bad input: still never hang
      if (remote_error_.empty()) remote_error_ = "internal: a message's size disagrees with the root's counts";
      return root_refuse(peer, bytes);
    }
    if (bytes == 0) return;
    char* base = static_cast<char*>(const_cast<void*>(a_.root_buf)) + where.offset;
    start_op(MessageFactory<ExecSpace, kRootDir>::make(where_, space_, base, where.count, where.type, peer,
                                                       tags_(CollectiveTag::Data), comm_));
  }

  // The root will not move this subtree's data: a gather drains it into scratch, a scatter sends empty messages.
  void root_refuse(int peer, std::int64_t bytes) {
    if (bytes == 0) return;
    if (Gather) {
      scratch_.emplace_back(static_cast<std::size_t>(bytes));
      first_.post(*transport_, false, scratch_.back().data(), bytes, peer, tags_(CollectiveTag::Data), where_);
    } else {
      second_.post(*transport_, true, nullptr, bytes, peer, tags_(CollectiveTag::Data), where_, true);
    }
  }

  // ---- typed operations --------------------------------------------------------------------------------------------
  void start_op(std::shared_ptr<Operation> op) {
    op->start();
    kept_ops_.push_back(op);  // (for a persistent collective's next rounds)
    ops_.push_back(std::move(op));
  }

  bool ops_done() {
    bool all = true;
    for (auto& op : ops_) {
      if (!op) continue;
      try {
        if (!op->progress()) {
          all = false;
          continue;
        }
      } catch (const Error& e) {  // a message of another size: in a scatter, the root's refusal (an empty message)
        if (remote_error_.empty())
          remote_error_ = std::string(Gather ? "a message had another size than the tree agreed ("
                                             : "the root found an error and sent this process no data (") +
                          e.what() + ")";
      }
      op.reset();
    }
    if (header_send_) all = header_send_->test() && all;
    return all;
  }

  static std::string range(const GatherChild& c) { return std::to_string(c.lo) + ".." + std::to_string(c.hi); }

  enum class Stage { Waiting, First, Second, Done };
  const char* where_;
  ExecSpace space_;
  CollectiveArgs a_;
  std::shared_ptr<MpiTransport> transport_;  // on the communicator's duplicate (KokkosDDT_CollectiveComm.hpp)
  MPI_Comm comm_ = MPI_COMM_NULL;            // that duplicate (the typed messages' communicator)
  CollectiveTags tags_;
  int p_ = 1, me_ = 0;
  std::int64_t own_bytes_ = 0;
  std::string remote_error_;  // what this process learned of others' errors
  int rounds_ = 0;            // data phases started
  bool replaying_ = false;    // a round after the first (persistent)
  std::unique_ptr<TreeBuilder> builder_;
  Stage stage_ = Stage::Waiting;
  bool done_ = false;
  bool enqueued_ = false;                    // work of this round on the execution space that nothing else waits for
  RootBlock<ExecSpace, Gather> root_block_;  // (the root's)
  // intermediate processes
  Staging stage_buf_;
  std::int64_t own_at_ = 0;
  std::vector<std::int64_t> child_at_;
  ByteMessages first_, second_;
  std::vector<std::shared_ptr<Operation>> ops_, kept_ops_;  // in progress; every one made (the root's, a leaf's)
  std::int64_t header_out_[3] = {};
  std::unique_ptr<MessageSet> header_send_;
  // the root
  std::size_t seen_children_ = 0;
  std::vector<GatherChild> deferred_;
  std::vector<std::array<std::int64_t, 3>> headers_;
  std::vector<std::unique_ptr<MessageSet>> header_sets_;
  bool deferred_done_ = false;
  std::vector<std::vector<char>> scratch_;
};

}  // namespace KokkosDDT::Impl
