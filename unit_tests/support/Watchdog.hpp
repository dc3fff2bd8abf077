// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A hang becomes a failure: a Watchdog that is not destroyed within `seconds` prints what hung and ends the process
// (mpiexec then ends the other ranks), so a deadlock in a multi-rank test fails in seconds, naming the case, instead
// of at ctest's timeout. It works even while the test is blocked inside an MPI call.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

namespace KokkosDDT::Test {

class Watchdog {
 public:
  explicit Watchdog(std::string what, double seconds = 60) : what_(std::move(what)) {
    thread_ = std::thread([this, seconds] {
      std::unique_lock<std::mutex> lock(mutex_);
      if (cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; })) return;
      std::fprintf(stderr, "WATCHDOG: '%s' did not finish within %g s: a hang (failing the test)\n", what_.c_str(),
                   seconds);
      std::fflush(stderr);
      std::_Exit(124);
    });
  }
  ~Watchdog() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::string what_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace KokkosDDT::Test
