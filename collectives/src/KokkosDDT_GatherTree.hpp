// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Träff's ordered gather tree (traff-gatherv19, Lemmas 2-3), built in ceil(log2 p) rounds of constant-size exchanges
// from each process's own block size alone. Level-k cubes are consecutive rank ranges [lo, lo + 2^k); at each level
// two adjacent cubes merge, and the gather root of the cube holding less data (never the MPI root's cube) sends all of
// it to the other's gather root. Every message is therefore a run of consecutive ranks, in rank order, and no process
// ever reorders blocks. Scatter runs the same tree backwards.
//
// Additions to the paper, all carried in the same constant-size records:
//  - degradation (paper section 3): a losing cube whose data reaches the direct threshold sends it straight to the
//    root instead of to the winner (never when the winner is the root's cube); records count such subtrees, so the
//    root knows how many headers to expect;
//  - a hash of every rank's byte count (sum of bytes_i * h(i)), so that the root can check its counts against what
//    the processes contribute without receiving them one by one;
//  - an error flag, so that a process with a bad argument still takes part (no hang) and the root learns of it.
//
// The builder is a state machine advanced by progress(): a process learns its parent in the round its cube loses and
// then knows all of its children, so the data phase of a subtree can start while the rounds above it still run.
//
// Where every process knows every block's size (the processes agreed that all blocks have one size: regular
// gather/scatter, or a gatherv of equal counts), each computes its place alone (local_gather_tree): the same merges,
// cube by cube, in O(p) operations and no message, the paper's remark on regular collectives.

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <memory>

#include "KokkosDDT_CollectiveComm.hpp"
#include "KokkosDDT_CollectiveSchedule.hpp"
#include "KokkosDDT_RankHash.hpp"

namespace KokkosDDT::Impl {

// What the fixed root of a cube knows about it (exchanged between fixed roots, 8 integers).
struct CubeRecord {
  std::int64_t eff = 0;   // bytes that still flow through the tree (direct subtrees excluded)
  std::int64_t full = 0;  // bytes of all of the cube's ranks
  std::int64_t gather_root = 0;
  std::int64_t has_root = 0;   // the MPI root is in the cube
  std::int64_t hash = 0;       // sum of bytes_i * rank_hash(i) (mod 2^64)
  std::int64_t direct = 0;     // subtrees inside that send to the root directly
  std::int64_t error = 0;      // some process in the cube had a bad argument
  std::int64_t threshold = 0;  // the smallest direct threshold in the cube (bytes)
};
static_assert(sizeof(CubeRecord) == 8 * sizeof(std::int64_t));

struct GatherChild {
  int round;  // the level at which its cube merged into ours
  int rank;   // the child (the gather root of that cube)
  CubeRecord record;
  int lo, hi;  // its cube: ranks [lo, hi]
};

// One process's place in the tree.
struct GatherTree {
  int parent = -1;      // -1: not known yet, or the MPI root
  bool direct = false;  // the parent is the MPI root because this cube's data went direct
  int send_round = -1;
  int lo = 0, hi = 0;                 // the cube this process sends (once the parent is known)
  std::int64_t total = 0;             // bytes this process forwards: its own and its tree children's
  std::vector<GatherChild> children;  // in the order found; sorted by lo once the parent is known
  int rounds = 0;                     // ceil(log2 p)
  std::int64_t direct_total = 0;      // at the root: direct subtrees to expect in all
  std::int64_t error = 0;             // at the root: an error flag somewhere
};

inline int cube_lo(int i, int k) { return (i >> k) << k; }
inline int cube_hi(int i, int k, int p) { return std::min(cube_lo(i, k) + (1 << k) - 1, p - 1); }

// Two adjacent cubes merge: who wins (the cube of the MPI root; else the one with more data flowing through the tree;
// ties: the upper), whether the loser's data goes straight to the root, and the merged cube's record (the winner's
// gather root). Both fixed roots decide from the same two records, so they always agree: even when processes pass
// different roots and both cubes claim one (the lower wins then), the tree stays consistent and every message of the
// construction is matched, while the processes find out about the roots through the agreement.
struct CubeMerge {
  bool lower_wins = false;
  bool direct = false;
  CubeRecord merged;
};
inline CubeMerge merge_cubes(const CubeRecord& lower, const CubeRecord& upper) {
  CubeMerge m;
  m.lower_wins = lower.has_root || (!upper.has_root && lower.eff > upper.eff);
  const CubeRecord& winner = m.lower_wins ? lower : upper;
  const CubeRecord& loser = m.lower_wins ? upper : lower;
  const std::int64_t threshold = std::min(lower.threshold, upper.threshold);
  m.direct = !winner.has_root && loser.eff > 0 && loser.eff >= threshold;
  m.merged = winner;
  m.merged.eff = winner.eff + (m.direct ? 0 : loser.eff);
  m.merged.full = lower.full + upper.full;
  m.merged.has_root = lower.has_root || upper.has_root;
  m.merged.hash =
      static_cast<std::int64_t>(static_cast<std::uint64_t>(lower.hash) + static_cast<std::uint64_t>(upper.hash));
  m.merged.direct = lower.direct + upper.direct + (m.direct ? 1 : 0);
  m.merged.error = lower.error | upper.error;
  m.merged.threshold = threshold;
  return m;
}

// A gather root's side of a merge at level k: the other cube (`other`, whose gather root is other.gather_root) became
// its child, or a direct subtree, when `win`; else this process's parent is known.
inline void apply_merge(GatherTree& t, int me, int root, int p, int k, bool win, bool direct, const CubeRecord& other) {
  const int other_rank = static_cast<int>(other.gather_root);
  if (win) {
    if (!direct) {
      t.children.push_back({k, other_rank, other, cube_lo(other_rank, k), cube_hi(other_rank, k, p)});
      t.total += other.eff;
    }
    t.direct_total += other.direct + (direct ? 1 : 0);
    t.error |= other.error;
    return;
  }
  t.parent = direct ? root : other_rank;
  t.direct = direct;
  t.send_round = k;
  t.lo = cube_lo(me, k);
  t.hi = cube_hi(me, k, p);
  std::sort(t.children.begin(), t.children.end(), [](const auto& a, const auto& b) { return a.lo < b.lo; });
}

// The first record of process i: its own block.
inline CubeRecord leaf_record(int i, int root, std::int64_t bytes, std::int64_t threshold) {
  return {bytes, bytes, i, i == root, bytes_hash(bytes, i), 0, 0, threshold};
}

// Process me's place in the tree when every one of the p blocks has `bytes` bytes: every merge of every round, computed
// here (O(p)); the result is what the rounds of messages would give.
inline GatherTree local_gather_tree(int p, int me, int root, std::int64_t bytes, std::int64_t threshold) {
  GatherTree t;
  t.rounds = ceil_log2(p);
  t.total = bytes;
  std::vector<CubeRecord> cubes(static_cast<std::size_t>(p));  // level k: cube c holds ranks [c 2^k, (c + 1) 2^k)
  for (int i = 0; i < p; ++i) cubes[i] = leaf_record(i, root, bytes, threshold);
  for (int k = 0; k < t.rounds; ++k) {
    const std::size_t n = cubes.size();
    for (std::size_t c = 0; c < n; c += 2) {
      if (c + 1 == n) {
        cubes[c / 2] = cubes[c];
        continue;
      }
      const CubeRecord lower = cubes[c], upper = cubes[c + 1];
      const CubeMerge m = merge_cubes(lower, upper);
      if (lower.gather_root == me) apply_merge(t, me, root, p, k, m.lower_wins, m.direct, upper);
      if (upper.gather_root == me) apply_merge(t, me, root, p, k, !m.lower_wins, m.direct, lower);
      cubes[c / 2] = m.merged;
    }
    cubes.resize((n + 1) / 2);
  }
  return t;
}

class TreeBuilder {
 public:
  TreeBuilder(Transport& transport, int root, std::int64_t my_bytes, bool error, std::int64_t threshold,
              CollectiveTags tags, const char* where)
      : transport_(transport), root_(root), tags_(tags), where_(where) {
    p_ = transport.size();
    me_ = transport.rank();
    tree_.rounds = ceil_log2(p_);
    fixed_ = leaf_record(me_, root, my_bytes, threshold);
    fixed_.error = error ? 1 : 0;
    tree_.total = my_bytes;
    tree_.error = fixed_.error;
    post_round();
  }

  // A tree computed without messages (local_gather_tree): complete at once.
  TreeBuilder(Transport& transport, int root, GatherTree tree)
      : transport_(transport), root_(root), where_(""), tree_(std::move(tree)) {
    p_ = transport.size();
    me_ = transport.rank();
    round_ = tree_.rounds;
    alive_ = me_ == root_;
  }

  const GatherTree& tree() const { return tree_; }
  bool rounds_done() const { return round_ >= tree_.rounds; }
  // The parent, hence every child, is known: from the round this process's cube lost (the root: after the last round).
  bool parent_known() const { return me_ == root_ ? rounds_done() : !alive_; }

  // Advances through every round whose messages have arrived; true once the tree is complete here.
  bool progress() {
    while (round_ < tree_.rounds) {
      if (round_set_ && !round_set_->test()) return false;
      round_set_.reset();
      finish_round();
      ++round_;
      post_round();
    }
    return pending_sends_done();
  }

 private:
  bool pending_sends_done() { return !verdict_send_ || verdict_send_->test(); }
  void wait_verdict_send() {
    if (verdict_send_) wait_until([&] { return verdict_send_->test(); });
  }
  // Records of the int64s at `p` on the transport (host memory, one message each).
  static ByteMessage record(void* p, int count, int peer, int tag) {
    return {static_cast<char*>(p), count * static_cast<std::int64_t>(sizeof(std::int64_t)), peer, tag};
  }

  bool pair_exists(int k) const { return ((me_ >> (k + 1)) << (k + 1)) + (1 << k) <= p_ - 1; }
  bool is_fixed_root(int k) const { return (me_ + 1) % (1 << k) == 0 || me_ == p_ - 1; }
  bool lower(int k) const { return ((me_ >> k) & 1) == 0; }

  void post_round() {
    role_ = Role::None;
    for (; round_ < tree_.rounds; ++round_) {
      const int k = round_;
      if (!pair_exists(k)) continue;
      if (is_fixed_root(k)) {
        role_ = Role::Exchange;
        const int partner = lower(k) ? std::min(me_ + (1 << k), p_ - 1) : cube_lo(me_, k) - 1;
        const int tag = tags_(CollectiveTag::Exchange);
        round_set_ =
            transport_.make_set({record(&fixed_, 8, partner, tag)}, {record(&other_, 8, partner, tag)}, false, where_);
        round_set_->post_receives();
        round_set_->post_sends();
        return;
      }
      if (alive_) {
        role_ = Role::Verdict;
        round_set_ = transport_.make_set(
            {}, {record(verdict_in_, 10, cube_hi(me_, k, p_), tags_(CollectiveTag::Verdict))}, false, where_);
        round_set_->post_receives();
        return;
      }
    }
  }

  void finish_round() {
    const int k = round_;
    if (role_ == Role::Verdict) {
      CubeRecord o;
      std::copy(verdict_in_ + 2, verdict_in_ + 10, reinterpret_cast<std::int64_t*>(&o));
      apply(k, verdict_in_[0] != 0, verdict_in_[1] != 0, o);
      return;
    }
    if (role_ != Role::Exchange) return;
    const CubeRecord& o = other_;
    const CubeMerge m = lower(k) ? merge_cubes(fixed_, o) : merge_cubes(o, fixed_);
    const bool win = lower(k) == m.lower_wins;
    if (fixed_.gather_root == me_) {
      if (alive_) apply(k, win, m.direct, o);
    } else {                // tell this cube's gather root
      wait_verdict_send();  // its buffer is reused (the last verdict has usually gone long ago)
      std::int64_t* v = verdict_out_;
      v[0] = win;
      v[1] = m.direct;
      std::copy(reinterpret_cast<const std::int64_t*>(&o), reinterpret_cast<const std::int64_t*>(&o) + 8, v + 2);
      verdict_send_ = transport_.make_set(
          {record(v, 10, static_cast<int>(fixed_.gather_root), tags_(CollectiveTag::Verdict))}, {}, false, where_);
      verdict_send_->post_sends();
    }
    if (!lower(k)) fixed_ = m.merged;  // the upper fixed root stays the fixed root of the merged cube
  }

  // The gather root's side of a merge.
  void apply(int k, bool win, bool direct, const CubeRecord& other) {
    apply_merge(tree_, me_, root_, p_, k, win, direct, other);
    if (!win) alive_ = false;
  }

  enum class Role { None, Exchange, Verdict };
  Transport& transport_;
  int root_, p_ = 1, me_ = 0;
  CollectiveTags tags_;
  const char* where_;
  GatherTree tree_;
  CubeRecord fixed_, other_;
  bool alive_ = true;
  int round_ = 0;
  Role role_ = Role::None;
  std::int64_t verdict_in_[10] = {};
  std::int64_t verdict_out_[10] = {};
  std::unique_ptr<MessageSet> round_set_, verdict_send_;
};

// Blocking construction (tests): the tree of this process once every round is done.
inline GatherTree build_gather_tree(MPI_Comm comm, int root, std::int64_t my_bytes, std::int64_t threshold,
                                    CollectiveTags tags) {
  const std::unique_ptr<Transport> transport = user_transport(comm);
  TreeBuilder b(*transport, root, my_bytes, false, threshold, tags, "KokkosDDT::Impl::build_gather_tree");
  wait_until([&] { return b.progress(); });
  GatherTree t = b.tree();
  std::sort(t.children.begin(), t.children.end(), [](const auto& a, const auto& b) { return a.lo < b.lo; });
  return t;
}

}  // namespace KokkosDDT::Impl
