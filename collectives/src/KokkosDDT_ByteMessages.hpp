// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Plain byte messages of a collective (the tree's intermediate processes, a root's refusal): one message of the
// transport each, of any size, posted as it is made.

#include <cstdint>
#include <memory>
#include <vector>

#include <KokkosDDT_MPI.hpp>

namespace KokkosDDT::Impl {

class ByteMessages {
 public:
  // `empty`: a send of no bytes in place of `bytes` (a scatter root's refusal, which the receiver sees as short).
  void post(Transport& transport, bool send, char* p, std::int64_t bytes, int peer, int tag, const char* where,
            bool empty = false) {
    std::vector<ByteMessage> one{{empty ? nullptr : p, empty ? 0 : bytes, peer, tag}}, none;
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
  // Forget the last round's short receive (a persistent collective's next round).
  void reset() { short_ = false; }

 private:
  std::vector<std::unique_ptr<MessageSet>> sets_;
  std::vector<std::int64_t> expected_;
  bool short_ = false;
};

}  // namespace KokkosDDT::Impl
