// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_MPISendOrder.hpp"

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <utility>

namespace KokkosDDT::Impl {

namespace {

using Channel = std::deque<OrderedSend*>;  // the queued sends of one (communicator, destination), oldest first

struct Channels {
  std::mutex mutex;
  std::map<std::pair<MPI_Comm, int>, Channel> queued;
  std::atomic<long> count{0};  // queued sends in all channels: progress_sends returns at once at zero
};

Channels& channels() {
  static auto* c = new Channels;  // lives until exit: sends may be flushed from static destructors
  return *c;
}

// Posts the ready sends at the head of `channel`; true when it is then empty.
bool drain(Channels& c, Channel& channel) {
  while (!channel.empty() && channel.front()->ready(true)) {
    OrderedSend* s = channel.front();
    channel.pop_front();
    c.count.fetch_sub(1, std::memory_order_relaxed);
    s->post();
  }
  return channel.empty();
}

}  // namespace

void start_send(MPI_Comm comm, int dest, OrderedSend& s) {
  Channels& c = channels();
  if (c.count.load(std::memory_order_relaxed) == 0 && s.ready(false)) return s.post();  // nothing queued anywhere
  const std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.queued.find({comm, dest});
  if (it == c.queued.end() && s.ready(false)) return s.post();
  if (it == c.queued.end()) it = c.queued.emplace(std::make_pair(comm, dest), Channel{}).first;
  it->second.push_back(&s);
  c.count.fetch_add(1, std::memory_order_relaxed);
}

void progress_sends() {
  Channels& c = channels();
  if (c.count.load(std::memory_order_relaxed) == 0) return;
  const std::lock_guard<std::mutex> lock(c.mutex);
  for (auto it = c.queued.begin(); it != c.queued.end();) it = drain(c, it->second) ? c.queued.erase(it) : ++it;
}

void flush_send(MPI_Comm comm, int dest, OrderedSend& s) {
  Channels& c = channels();
  const std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.queued.find({comm, dest});
  if (it == c.queued.end()) return;
  Channel& channel = it->second;
  if (std::find(channel.begin(), channel.end(), &s) == channel.end()) return;  // posted already
  for (bool reached = false; !reached;) {
    OrderedSend* head = channel.front();
    while (!head->ready(true)) {
    }
    channel.pop_front();
    c.count.fetch_sub(1, std::memory_order_relaxed);
    head->post();
    reached = head == &s;
  }
  if (channel.empty()) c.queued.erase(it);
}

}  // namespace KokkosDDT::Impl
