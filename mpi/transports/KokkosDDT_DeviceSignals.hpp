// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Device signals: a capability a Step may offer (Step::device_signals), beside what every step does. A transport whose
// steps wait on 64-bit counters in memory the device writes (the peer transport's counters over CUDA IPC; an
// NVSHMEM-like transport's symmetric memory) offers it, so that a client whose kernels write the step's cells (the
// fused kernel) also raises those counters itself: the step's begin and its "written" signals then cost no stream
// operation. A transport without it (message transports) leaves its step's begin and written() to the host and the
// streams.

#include <cstdint>
#include <vector>

namespace KokkosDDT::Impl {

class DeviceSignals {
 public:
  virtual ~DeviceSignals() = default;
  // Device completion: a client whose writing kernel stores signal() into each of written_counters(), at system scope
  // after its last write, skips Step::written. None: no counters.
  virtual std::vector<std::uint64_t*> written_counters() const = 0;
  virtual std::uint64_t signal() const = 0;  // what a writing kernel stores for the step begun
  // Device begin: a client whose writing kernel, as it starts, itself stores signal() into each of begin_raises(), and
  // holds the writes of a route with a gate until gates()[gate] reaches signal() (as a stream's wait compares them),
  // calls begin_on_device() once before its first step; Step::begin then only orders the writing stream after its
  // `stream`. None offered: gates() empty.
  virtual std::vector<std::uint64_t*> begin_raises() const = 0;
  virtual std::vector<std::uint64_t*> gates() const = 0;
  virtual void begin_on_device() = 0;
  // These counters and the written ones are raised in their low 32 bits, and the kernel sets each gate back to 0 once
  // every write it held is past its wait.
  virtual bool low_half() const = 0;
};

}  // namespace KokkosDDT::Impl
