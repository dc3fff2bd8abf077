// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_Watchdog.hpp"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

namespace KokkosDDT::Impl {
namespace {

class Watchdog {
 public:
  static Watchdog& get() {
    static Watchdog* dog = new Watchdog;  // (never destroyed: its detached thread may tick until the process exits)
    return *dog;
  }

  std::uint64_t add(std::function<void()> tick) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::uint64_t id = ++last_;
    ticks_.emplace(id, std::move(tick));
    if (!started_) {
      std::thread([this] { run(); }).detach();
      started_ = true;
    }
    work_.notify_all();
    return id;
  }

  void remove(std::uint64_t id) {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [&] { return running_ != id; });
    ticks_.erase(id);
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      // Each tick, one after another, outside the lock (a tick may take a while: a CUDA call, a /proc read).
      for (std::uint64_t next = 0;;) {
        const auto at = ticks_.upper_bound(next);
        if (at == ticks_.end()) break;
        next = running_ = at->first;
        std::function<void()> tick = at->second;  // (a copy: remove() may erase the entry meanwhile)
        lock.unlock();
        try {
          tick();
        } catch (...) {
        }
        lock.lock();
        running_ = 0;
        idle_.notify_all();
      }
      // Every 10 ms while any Watch lives; asleep while none does (a process without plans wakes nobody).
      if (ticks_.empty())
        work_.wait(lock, [&] { return !ticks_.empty(); });
      else
        work_.wait_for(lock, std::chrono::milliseconds(10));
    }
  }

  std::mutex mutex_;
  std::condition_variable idle_, work_;  // (a tick ended; a Watch started)
  std::map<std::uint64_t, std::function<void()>> ticks_;
  std::uint64_t last_ = 0, running_ = 0;
  bool started_ = false;
};

}  // namespace

void Watch::start(std::function<void()> tick) {
  if (id_ == 0) id_ = Watchdog::get().add(std::move(tick));
}

void Watch::stop() {
  if (id_ != 0) Watchdog::get().remove(std::exchange(id_, 0));
}

}  // namespace KokkosDDT::Impl
