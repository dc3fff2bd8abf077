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
// Errors never hang the others: a process with a bad argument still takes part with no data and an error flag that the
// root sees; the root checks each child's byte-count hash against its counts before moving that child's data. On a
// mismatch a gather root receives the child's data into scratch; a scatter root sends the child's subtree empty
// messages, which every process below reads as "the root found an error" and passes on. Each process that knows of an
// error throws Error at the end of the operation, after its part of the protocol is done.

#include <mpi.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>
#include <KokkosDDT_MPI.hpp>

#include "KokkosDDT_CollectiveComm.hpp"
#include "KokkosDDT_MPIAgreement.hpp"
#include "KokkosDDT_GatherTree.hpp"
#include "KokkosDDT_RankRuns.hpp"

namespace KokkosDDT::Impl {

// Plain byte messages of the intermediate processes: one message of the transport each, of any size.
class ByteMessages {
 public:
  // `empty`: a send of no bytes in place of `bytes` (a scatter root's refusal, which the receiver sees as short).
  void post(Transport& transport, bool send, char* p, std::int64_t bytes, int peer, int tag, const char* where,
            bool empty = false) {
    std::vector<WireMessage> one{{empty ? nullptr : p, empty ? 0 : bytes, peer, tag}}, none;
    if (send) {
      sets_.push_back(transport.make_set(std::move(one), std::move(none), false, where));
      sets_.back()->post_sends();
    } else {
      sets_.push_back(transport.make_set(std::move(none), std::move(one), false, where));
      sets_.back()->post_receives();
    }
    expected_.push_back(send ? -1 : bytes);  // (a send's completion says nothing of its size)
  }
  // True when all are done; received_short() then says whether a receive got less than it asked for.
  bool test() {
    bool all = true;
    for (auto& set : sets_) all = set->test() && all;
    if (!all) return false;
    for (std::size_t i = 0; i < sets_.size(); ++i)
      short_ = short_ || (expected_[i] >= 0 && sets_[i]->arrival(0).bytes < expected_[i]);
    sets_.clear();
    expected_.clear();
    return true;
  }
  bool received_short() const { return short_; }

 private:
  std::vector<std::unique_ptr<MessageSet>> sets_;
  std::vector<std::int64_t> expected_;
  bool short_ = false;
};

// The arguments of one gather (Gather = true) or scatter, as MPI_Gatherv / MPI_Scatterv take them. "Own" is the
// block every process contributes (gather: send side) or receives (scatter: receive side); "root" is the root's
// counts, displacements and type, significant at the root only.
struct TreeCollectiveArgs {
  const void* own_buf = nullptr;
  std::int64_t own_count = 0;
  Datatype own_type;
  bool in_place = false;  // at the root: its own block is already in place in the root buffer
  const void* root_buf = nullptr;
  std::vector<std::int64_t> counts, displs;
  Datatype root_type;
  int root = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  std::int64_t threshold = 0;  // direct threshold, bytes
};

template <class ExecSpace, bool Gather>
class TreeCollective final : public Operation {
  static constexpr Direction kRootDir = Gather ? Direction::Unpack : Direction::Pack;
  static constexpr Direction kLeafDir = Gather ? Direction::Pack : Direction::Unpack;

 public:
  TreeCollective(const char* where, const ExecSpace& space, TreeCollectiveArgs args)
      : where_(where), space_(space), a_(std::move(args)) {
    CollectiveContext& ctx = collective_context(a_.comm, where_);
    transport_ = ctx.transport;
    comm_ = transport_->comm();
    tags_ = next_collective_tags(ctx);
    p_ = transport_->size();
    me_ = transport_->rank();
    // A root that differs on one process (or is out of range there) must make every process throw, and no process
    // can see that alone: the processes agree on the root while the tree is built. The construction stays
    // consistent whatever the roots (GatherTree.hpp), so it always completes; only the data phase, which writes,
    // waits for the verdict.
    roots_ = std::make_unique<Agreement>(comm_, false, std::vector<std::int64_t>{a_.root}, where_);
    check_arguments();
    const std::int64_t mine = !local_error_ ? own_bytes_ : 0;
    if (me_ == a_.root) headers_.reserve(static_cast<std::size_t>(p_));  // receives land in it: it must never move
    builder_ = std::make_unique<TreeBuilder>(*transport_, a_.root, mine, local_error_.has_value(), a_.threshold, tags_,
                                             where_);
  }

  void start() override {}
  Arrival status() const override { return {}; }

  bool progress() override {
    if (done_) return true;
    const bool agreed = roots_->test();
    const bool built = builder_->progress();
    if (!agreed) return false;
    if (!root_error_ && !verdict_seen_) begin_data();
    if (root_error_) {  // nothing was moved or written; the construction completes, then every process throws
      if (!built) return false;
      done_ = true;
      throw *root_error_;
    }
    const bool moved = me_ == a_.root ? root_progress(built) : member_progress();
    if (!built || !moved) return false;
    done_ = true;
    space_.fence("KokkosDDT::collective");
    if (local_error_) throw *local_error_;
    if (!remote_error_.empty()) throw_error(ErrorCode::MPI, where_, "comm", remote_error_);
    return true;
  }

  const GatherTree& tree() const { return builder_->tree(); }
  bool finished() const { return done_; }

 private:
  // ---- arguments -------------------------------------------------------------------------------------------------
  // The roots are agreed: the data phase may start (the root's own block first), or every process will throw.
  void begin_data() {
    verdict_seen_ = true;
    const std::int64_t lo = roots_->min(0), hi = roots_->max(0);
    if (lo != hi || lo < 0 || hi >= p_) {
      root_error_ =
          Error(ErrorCode::InvalidArgument, where_, "root",
                lo != hi ? "differs between the processes (" + std::to_string(lo) + " to " + std::to_string(hi) +
                               "; this one passes " + std::to_string(a_.root) + "): every process must pass the same"
                         : "is " + std::to_string(a_.root) + " for " + std::to_string(p_) + " processes");
      return;
    }
    if (me_ == a_.root && !local_error_) copy_root_block();
  }

  void fail(const char* argument, const std::string& message) {
    if (!local_error_) local_error_ = Error(ErrorCode::InvalidArgument, where_, argument, message);
  }

  void check_arguments() {
    const char* own_count_name = Gather ? "sendcount" : "recvcount";
    try {
      if (a_.in_place && me_ != a_.root)
        fail(Gather ? "sendbuf" : "recvbuf", "is in_place on a process that is not the root");
      if (a_.own_count < 0) fail(own_count_name, "is " + std::to_string(a_.own_count) + " but must be non-negative");
      if (!a_.in_place && !local_error_) {
        own_bytes_ = checked_mul(a_.own_count, a_.own_type.impl_committed(where_).size, where_, own_count_name);
        if (own_bytes_ > 0 && !a_.own_buf) fail(Gather ? "sendbuf" : "recvbuf", "is null");
      }
      if (me_ != a_.root) return;
      const std::int64_t rsize = a_.root_type.impl_committed(where_).size;
      const char* counts_name = Gather ? "recvcounts" : "sendcounts";
      std::string problem = root_arguments_problem(p_, a_.counts, a_.displs, a_.root_type, counts_name);
      if (!problem.empty()) return fail(counts_name, problem);
      if (a_.in_place) own_bytes_ = a_.counts[a_.root] * rsize;
      if (own_bytes_ != a_.counts[a_.root] * rsize)
        return fail(counts_name, std::string(Gather ? "recvcounts" : "sendcounts") + "[root] makes " +
                                     std::to_string(a_.counts[a_.root] * rsize) +
                                     " bytes but the root's own block has " + std::to_string(own_bytes_));
      if (Gather) {
        problem = overlap_problem(a_.counts, a_.displs, a_.root_type);
        if (!problem.empty()) return fail("displs", problem);
      }
      if (!a_.root_buf && counts_bytes(a_.counts, rsize, 0, p_ - 1) > 0)
        fail(Gather ? "recvbuf" : "sendbuf", "is null");
    } catch (const Error& e) {  // an uncommitted or null type, an overflow: reported at the end like the rest
      if (!local_error_) local_error_ = e;
    }
  }

  // The root's own block: copied within its memory (unless in place).
  void copy_root_block() {
    if (a_.in_place || own_bytes_ == 0) return;
    char* root_block = static_cast<char*>(const_cast<void*>(a_.root_buf)) + a_.displs[a_.root] * a_.root_type.extent();
    void* own = const_cast<void*>(a_.own_buf);
    // One pass where either side is one contiguous run (the common case), else through a staging buffer.
    std::int64_t at = 0;
    char *const own_run = static_cast<char*>(own), *const root_run = root_block;
    if (contiguous_run(a_.own_type.impl_committed(where_), a_.own_count, at)) {
      if (Gather)
        unpack(space_, own_run + at, own_bytes_, root_block, a_.counts[a_.root], a_.root_type);
      else
        pack(space_, root_block, a_.counts[a_.root], a_.root_type, own_run + at, own_bytes_);
      return;
    }
    if (contiguous_run(a_.root_type.impl_committed(where_), a_.counts[a_.root], at)) {
      if (Gather)
        pack(space_, own, a_.own_count, a_.own_type, root_run + at, own_bytes_);
      else
        unpack(space_, root_run + at, own_bytes_, own, a_.own_count, a_.own_type);
      return;
    }
    own_stage_ = take_staging<ExecSpace>(own_bytes_);
    if (Gather) {
      pack(space_, own, a_.own_count, a_.own_type, own_stage_.data, own_bytes_);
      unpack(space_, own_stage_.data, own_bytes_, root_block, a_.counts[a_.root], a_.root_type);
    } else {
      pack(space_, root_block, a_.counts[a_.root], a_.root_type, own_stage_.data, own_bytes_);
      unpack(space_, own_stage_.data, own_bytes_, own, a_.own_count, a_.own_type);
    }
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
    if (t.direct) {
      header_out_[0] = t.lo, header_out_[1] = t.hi, header_out_[2] = t.total;
      header_send_ = transport_->make_set(
          {{reinterpret_cast<char*>(header_out_), sizeof header_out_, a_.root, tags_(CollectiveTag::Header)}}, {},
          false, where_);
      header_send_->post_sends();
    }
    const int data = tags_(CollectiveTag::Data);
    if (t.children.empty()) {  // a leaf: its own block straight from or into the user's buffer
      if (own_bytes_ > 0 && !local_error_)
        start_op(make_message<ExecSpace, kLeafDir>(where_, space_, a_.own_buf, a_.own_count, a_.own_type, t.parent,
                                                   data, comm_));
      return;
    }
    stage_buf_ = take_staging<ExecSpace>(t.total);
    std::int64_t at = 0;
    bool own_placed = false;
    for (const GatherChild& c : t.children) {
      if (!own_placed && c.lo > me_) own_at_ = at, at += !local_error_ ? own_bytes_ : 0, own_placed = true;
      child_at_.push_back(at);
      at += c.record.eff;
    }
    if (!own_placed) own_at_ = at;
    if (Gather) {
      // The pack runs while the children's runs arrive; second_half fences before the buffer goes up.
      if (own_bytes_ > 0 && !local_error_)
        pack(space_, a_.own_buf, a_.own_count, a_.own_type, stage_buf_.data + own_at_, own_bytes_);
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
      if (own_bytes_ > 0 && !local_error_) space_.fence("KokkosDDT::gatherv (own block packed)");
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
    if (!poisoned && own_bytes_ > 0 && !local_error_)
      unpack(space_, stage_buf_.data + own_at_, own_bytes_, const_cast<void*>(a_.own_buf), a_.own_count, a_.own_type);
  }

  // ---- the root ----------------------------------------------------------------------------------------------------
  bool root_progress(bool built) {
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
    if (!local_error_) {
      const std::int64_t rsize = a_.root_type.impl_committed(where_).size;
      const std::int64_t expect = counts_bytes(a_.counts, rsize, c.lo, c.hi);
      if (c.record.error)
        problem = "a process among ranks " + range(c) + " passed a bad argument (it throws the details)";
      else if (expect != c.record.full)
        problem = std::string(Gather ? "recvcounts" : "sendcounts") + " of ranks " + range(c) + " make " +
                  std::to_string(expect) + " bytes but those processes " + (Gather ? "send " : "receive ") +
                  std::to_string(c.record.full);
      else if (counts_hash(a_.counts, rsize, c.lo, c.hi) != c.record.hash)
        problem = std::string(Gather ? "recvcounts" : "sendcounts") + " of ranks " + range(c) +
                  " disagree with the counts those processes pass (same total, other distribution)";
    }
    if (!problem.empty() && remote_error_.empty()) remote_error_ = problem;
    if (!problem.empty() || local_error_.has_value()) return root_refuse(c.rank, c.record.eff);
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
    if (local_error_.has_value()) {
      for (const auto& [peer, bytes] : peers) root_refuse(peer, bytes);
      return;
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
    start_op(make_message<ExecSpace, kRootDir>(where_, space_, base, where.count, where.type, peer,
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
  TreeCollectiveArgs a_;
  std::shared_ptr<MpiTransport> transport_;  // on the communicator's duplicate (KokkosDDT_CollectiveComm.hpp)
  MPI_Comm comm_ = MPI_COMM_NULL;            // that duplicate (the typed messages' communicator)
  CollectiveTags tags_;
  int p_ = 1, me_ = 0;
  std::int64_t own_bytes_ = 0;
  std::optional<Error> local_error_;  // this process's bad argument (it still takes part, with no data)
  std::string remote_error_;          // what this process learned of others' errors
  std::unique_ptr<Agreement> roots_;
  bool verdict_seen_ = false;
  std::optional<Error> root_error_;  // the roots differ or are out of range: every process throws this
  std::unique_ptr<TreeBuilder> builder_;
  Stage stage_ = Stage::Waiting;
  bool done_ = false;
  // intermediate processes
  Staging stage_buf_, own_stage_;
  std::int64_t own_at_ = 0;
  std::vector<std::int64_t> child_at_;
  ByteMessages first_, second_;
  std::vector<std::shared_ptr<Operation>> ops_;
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
