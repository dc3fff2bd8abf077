// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_MPISendOrder.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "KokkosDDT_Wait.hpp"

namespace KokkosDDT::Impl {

namespace {

// The queued sends of one (communicator, destination), oldest first. Channels stay once made and keep their capacity,
// so that a time loop's sends queue without allocating (one channel per destination a process sends to).
using Channel = std::vector<OrderedSend*>;

struct Channels {
  std::mutex mutex;
  std::map<std::pair<MPI_Comm, int>, Channel> queued;
  std::atomic<long> count{0};  // queued sends in all channels: progress_sends returns at once at zero
};

Channels& channels() {
  static auto* c = new Channels;  // lives until exit: sends may be flushed from static destructors
  return *c;
}

// Posts the ready sends at the head of `channel`, in order.
void drain(Channels& c, Channel& channel) {
  std::size_t posted = 0;
  for (; posted < channel.size() && channel[posted]->ready(true); ++posted) channel[posted]->post();
  channel.erase(channel.begin(), channel.begin() + static_cast<std::ptrdiff_t>(posted));
  c.count.fetch_sub(static_cast<long>(posted), std::memory_order_relaxed);
}

}  // namespace

void start_send(MPI_Comm comm, int dest, OrderedSend& s) {
  Channels& c = channels();
  if (c.count.load(std::memory_order_relaxed) == 0 && s.ready(false)) return s.post();  // nothing queued anywhere
  const std::lock_guard<std::mutex> lock(c.mutex);
  Channel& channel = c.queued[{comm, dest}];
  if (channel.empty() && s.ready(false)) return s.post();
  channel.push_back(&s);
  c.count.fetch_add(1, std::memory_order_relaxed);
}

void progress_sends() {
  Channels& c = channels();
  if (c.count.load(std::memory_order_relaxed) == 0) return;
  const std::lock_guard<std::mutex> lock(c.mutex);
  for (auto& entry : c.queued) drain(c, entry.second);
}

bool sends_queued() { return channels().count.load(std::memory_order_relaxed) != 0; }

void flush_send(MPI_Comm comm, int dest, OrderedSend& s) {
  Channels& c = channels();
  const std::lock_guard<std::mutex> lock(c.mutex);
  Channel& channel = c.queued[{comm, dest}];
  const auto at = std::find(channel.begin(), channel.end(), &s);
  if (at == channel.end()) return;  // posted already
  const std::size_t through = static_cast<std::size_t>(at - channel.begin()) + 1;
  for (std::size_t i = 0; i < through; ++i) {
    wait_until([&] { return channel[i]->ready(true); });
    channel[i]->post();
  }
  channel.erase(channel.begin(), channel.begin() + static_cast<std::ptrdiff_t>(through));
  c.count.fetch_sub(static_cast<long>(through), std::memory_order_relaxed);
}

}  // namespace KokkosDDT::Impl
