// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The library's one way for the host to wait: every wait (a fused launch's completion flags, MPI and NCCL messages, a
// collective's rounds, queued sends) calls wait_until with its own test.

#include <chrono>
#include <thread>

namespace KokkosDDT::Impl {

// Calls done() until it returns true: back to back for the first 20 us (a small fused launch or a short message
// completes within that, and a yield is a system call that can delay noticing it by a microsecond), then yielding the
// core between calls, so that oversubscribed processes (more ranks than cores) let the ones they wait for run, as MPI's
// own waits do. done() may throw; the wait ends with it.
template <class Done>
void wait_until(const Done& done) {
  const auto start = std::chrono::steady_clock::now();
  bool late = false;
  for (int i = 1; !done(); ++i) {
    if (late)
      std::this_thread::yield();
    else if (i % 64 == 0)
      late = std::chrono::steady_clock::now() - start > std::chrono::microseconds(20);
  }
}

}  // namespace KokkosDDT::Impl
