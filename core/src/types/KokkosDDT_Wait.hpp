// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The library's one way for the host to wait: every wait (a fused launch's completion flags, MPI and NCCL messages, a
// collective's rounds, queued sends) calls wait_until with its own test.

#include <chrono>
#include <thread>

#include "KokkosDDT_Settings.hpp"

namespace KokkosDDT::Impl {

// A point in time a wait may not pass, or none (the default: wait as long as it takes).
class Deadline {
 public:
  Deadline() = default;
  explicit Deadline(double seconds) : none_(!(seconds > 0)), seconds_(seconds) {
    if (!none_)
      at_ = std::chrono::steady_clock::now() +
            std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  }
  bool none() const { return none_; }
  bool passed() const { return !none_ && std::chrono::steady_clock::now() >= at_; }
  double seconds() const { return seconds_; }

 private:
  bool none_ = true;
  double seconds_ = 0;
  std::chrono::steady_clock::time_point at_{};
};

// Calls done() until it returns true, or until `deadline` has passed (none: as long as it takes); whether done() came
// true. Back to back for the first 20 us (a small fused launch or a short message completes within that, and a yield
// is a system call that can delay noticing it by a microsecond), then yielding the core between calls, so that
// oversubscribed processes (more ranks than cores) let the ones they wait for run, as MPI's own waits do. done() may
// throw; the wait ends with it.
template <class Done>
bool wait_until(const Done& done, const Deadline& deadline) {
  const auto start = std::chrono::steady_clock::now();
  bool late = false;
  for (int i = 1; !done(); ++i) {
    if (late)
      std::this_thread::yield();
    else if (i % 64 == 0)
      late = std::chrono::steady_clock::now() - start > std::chrono::microseconds(20);
    if ((late || i % 64 == 0) && deadline.passed()) return false;
  }
  return true;
}

template <class Done>
void wait_until(const Done& done) {
  (void)wait_until(done, Deadline());
}

// The seconds a plan's waits may take: `option` when positive, else KOKKOSDDT_TIMEOUT_S (0: none).
inline double timeout_seconds(double option) { return option > 0 ? option : settings().timeout_s; }

}  // namespace KokkosDDT::Impl
