// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The one thread that waits in the background. A stream-ordered step waits on the device (a peer's counters, NCCL's
// kernels), and the caller's thread may then be blocked where the library cannot run (in a fence): whatever must end
// such a wait in time (a deadline that passed, a peer's process that ended) runs here. An owner registers a Watch with
// its tick; the watchdog's thread calls every tick about every 10 ms while its Watch lives.
//
// A tick runs on the watchdog's thread, beside the owner's own calls: it touches only what its owner made safe for
// that (atomics, a mutex of the owner's), sets the CUDA device it uses itself, never throws (an exception ends that
// tick), and never waits for the owner's thread.

#include <cstdint>
#include <functional>

namespace KokkosDDT::Impl {

class Watch {
 public:
  Watch() = default;
  ~Watch() { stop(); }
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;
  // Registers `tick` (once; the thread starts with the first Watch started).
  void start(std::function<void()> tick);
  // Unregisters it: on return its tick runs no more (a running tick is waited for). Not from inside a tick.
  void stop();

 private:
  std::uint64_t id_ = 0;  // (0: none)
};

}  // namespace KokkosDDT::Impl
