// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Deadlines of work a CUDA transport enqueued on a stream (included by the CUDA transports' sources only). A step with
// a deadline adds one at its wait (Step::watch): an event recorded after the step's device-side waits, and when that
// work is due. The watchdog's tick (KokkosDDT_Watchdog.hpp) asks expired(): the entries whose work completed are
// dropped (their events reused); one whose work is still pending past its due time expires the step.

#include <cuda_runtime_api.h>

#include <chrono>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "KokkosDDT_Error.hpp"

namespace KokkosDDT::Impl {

class StreamDeadlines {
 public:
  StreamDeadlines() = default;
  StreamDeadlines(const StreamDeadlines&) = delete;
  StreamDeadlines& operator=(const StreamDeadlines&) = delete;
  ~StreamDeadlines() {
    for (const Entry& e : pending_) cudaEventDestroy(e.event);  // (released once its work completes)
    for (cudaEvent_t e : free_) cudaEventDestroy(e);
  }

  // The work enqueued on `stream` so far is due `seconds` from now. Throws Error(Transport) naming `where`.
  void add(cudaStream_t stream, double seconds, const char* where) {
    const auto due = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                            std::chrono::duration<double>(seconds));
    std::lock_guard<std::mutex> lock(mutex_);
    if (device_ < 0) check(cudaGetDevice(&device_), where, "cudaGetDevice");
    cudaEvent_t event = nullptr;
    if (free_.empty()) {
      check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), where, "cudaEventCreateWithFlags");
    } else {
      event = free_.back();
      free_.pop_back();
    }
    if (const cudaError_t rc = cudaEventRecord(event, stream); rc != cudaSuccess) {
      free_.push_back(event);
      check(rc, where, "cudaEventRecord");
    }
    pending_.push_back({event, due});
  }

  // Whether work is pending past its due time (the watchdog's thread). Entries whose work completed are dropped.
  bool expired() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pending_.empty()) return false;
    cudaSetDevice(device_);
    const auto now = std::chrono::steady_clock::now();
    bool late = false;
    for (auto e = pending_.begin(); e != pending_.end();) {
      const cudaError_t rc = cudaEventQuery(e->event);
      if (rc == cudaErrorNotReady) {
        late = late || now >= e->due;
        ++e;
        continue;
      }
      (void)cudaGetLastError();  // (an error of the work itself is the step's to report, not this check's)
      free_.push_back(e->event);
      e = pending_.erase(e);
    }
    return late;
  }

 private:
  struct Entry {
    cudaEvent_t event;
    std::chrono::steady_clock::time_point due;
  };
  static void check(cudaError_t rc, const char* where, const char* call) {
    if (rc == cudaSuccess) return;
    (void)cudaGetLastError();
    throw_error(ErrorCode::Transport, where, "transport", std::string(call) + " failed: " + cudaGetErrorString(rc));
  }

  std::mutex mutex_;
  std::deque<Entry> pending_;
  std::vector<cudaEvent_t> free_;
  int device_ = -1;
};

}  // namespace KokkosDDT::Impl
