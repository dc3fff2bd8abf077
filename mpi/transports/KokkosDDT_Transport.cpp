// SPDX-License-Identifier: BSD-3-Clause
// The seam's own code: the route() of a transport of messages (every route Staged, one message per peer and step).
#include "KokkosDDT_Transport.hpp"

#include <algorithm>
#include <mutex>
#include <utility>

namespace KokkosDDT::Impl {

void keep_until_exit(std::shared_ptr<void> buffer) {
  static std::mutex mutex;
  static auto* kept = new std::vector<std::shared_ptr<void>>;  // (never destroyed: buffers outlive static teardown)
  const std::lock_guard<std::mutex> lock(mutex);
  kept->push_back(std::move(buffer));
}

namespace {

// Where messages lie in a staging buffer: one region per peer, in ascending peer order, its messages one after the
// other in (tag, posting) order, each at a multiple of the kernels' widest word (16 bytes). The peer lays out its side
// of the same messages alike (the k-th send with tag t is the k-th receive with tag t there), so that one message per
// peer carries them all. `at[i]`: message i's offset.
struct Layout {
  std::vector<std::int64_t> at;
  std::vector<ByteMessage> wire;  // (data: an offset until placed)
  std::int64_t total = 0;
  std::vector<ByteMessage> placed(char* base) const {
    std::vector<ByteMessage> m = wire;
    for (ByteMessage& w : m) w.data = base + reinterpret_cast<std::intptr_t>(w.data);
    return m;
  }
};

Layout lay_out(const std::vector<CommittedMessage>& ends) {
  std::vector<std::size_t> order(ends.size());
  for (std::size_t i = 0; i < ends.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ends[a].peer != ends[b].peer ? ends[a].peer < ends[b].peer : ends[a].tag < ends[b].tag;
  });
  Layout l;
  l.at.assign(ends.size(), 0);
  for (std::size_t i : order) {
    if (l.wire.empty() || l.wire.back().peer != ends[i].peer)  // (a peer's first message names the message's tag)
      l.wire.push_back({reinterpret_cast<char*>(static_cast<std::intptr_t>(l.total)), 0, ends[i].peer, ends[i].tag});
    l.at[i] = l.total;
    const std::int64_t padded = (ends[i].bytes() + 15) / 16 * 16;
    l.total += padded;
    l.wire.back().bytes += padded;
  }
  return l;
}

// The step of a persistent MessageSet.
class MessageStep final : public Step {
 public:
  MessageStep(std::unique_ptr<MessageSet> set, Staging out, Staging in, bool host, int messages)
      : set_(std::move(set)), out_(std::move(out)), in_(std::move(in)), host_(host), messages_(messages) {}
  ~MessageStep() override {
    if (sent_) keep_until_exit(out_.owner);  // (sends in flight finish after the set is gone: their bytes stay)
  }
  bool host_sends() const override { return host_; }
  int messages() const override { return messages_; }
  bool replayable() const override { return !host_ || messages_ == 0; }
  StreamRef begin(StreamRef stream) override {
    if (host_) set_->post_receives();
    return stream;
  }
  void send(StreamRef stream) override {
    if (host_) {
      set_->post_sends();
      sent_ = true;
    } else {
      set_->enqueue(stream);
    }
  }
  bool test() override { return set_->test(); }
  void wait(StreamRef stream) override {
    if (host_) {
      set_->wait();
      sent_ = false;
      return;
    }
    (void)set_->test();  // an error the transport has seen so far throws here, before anything is unpacked
    set_->join(stream);
  }
  std::vector<int> late_peers() override { return set_->late_peers(); }
  void abandon(bool failed, double timeout, std::int64_t) override { set_->abandon(failed, timeout); }
  void watch(StreamRef stream, double seconds) override {
    if (!host_) set_->watch(stream, seconds);
  }
  StepFailure failure(std::int64_t) override { return set_->failure(); }

 private:
  std::unique_ptr<MessageSet> set_;
  Staging out_, in_;
  bool host_;
  int messages_;
  bool sent_ = false;  // host sends posted and not yet waited for
};

}  // namespace

Deliveries Transport::route(const std::vector<CommittedMessage>& sends, const std::vector<CommittedMessage>& receives,
                            const StagingSource& staging, bool, const char* where) {
  const Layout out = lay_out(sends), in = lay_out(receives);
  const bool device = capabilities().device_memory;
  Staging send_buffer = staging(out.total, device), recv_buffer = staging(in.total, device);
  Deliveries r;
  for (std::size_t i = 0; i < sends.size(); ++i)
    r.sends.push_back({DeliveryKind::Staged, send_buffer.data + out.at[i], 0, nullptr, name(), ""});
  for (std::size_t j = 0; j < receives.size(); ++j)
    r.receives.push_back({DeliveryKind::Staged, recv_buffer.data + in.at[j], 0, nullptr, name(), ""});
  auto set = make_set(out.placed(send_buffer.data), in.placed(recv_buffer.data), true, where);
  r.step =
      std::make_unique<MessageStep>(std::move(set), std::move(send_buffer), std::move(recv_buffer),
                                    capabilities().completion == Completion::Host, static_cast<int>(out.wire.size()));
  return r;
}

}  // namespace KokkosDDT::Impl
