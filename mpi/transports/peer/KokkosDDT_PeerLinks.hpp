// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A peer plan's links: per pair of processes whose step writes one's cells from the other's kernel, two counters in
// GPU memory, each raised by one process and waited for by the other with stream memory operations (no host call
// waits):
//
//   "free"     in the sender's counters, raised by the receiver: its cells may be written for this step;
//   "written"  in the receiver's counters, raised by the sender (or by its writing kernel: written_counters()): its
//              writes of this step are done.
//
// begin(): this process raises "free" at every upstream peer and its stream waits for its own "free" of every
// downstream peer (device begin: its writing kernel does both itself, launched with no wait before it); written(): it
// raises "written" at every downstream peer; arrived(): its stream waits for every upstream peer's "written". Two ways
// to raise, chosen per plan:
//
//   rising     (the default) a counter is raised to the step's number, and a wait is for that number: nothing is
//              reset, but every step's operations carry its own values;
//   replayable a counter's low half is raised to 1, and the waiting process resets it to 0 right after its wait (a
//              counter is raised again only after its reset: the next raise follows, through the other counter, the
//              wait before it). Every step enqueues the same operations, so that a step captured in a CUDA graph
//              replays as it ran. The resets, one more memory operation per peer and wait, slow every eager step,
//              the more so the more peers: hence not the default.
//
// abandon() ends every wait that may never be met, for good (teardown, timeouts): a terminal value (rising), the
// counter's high half, which no reset touches (replayable). A terminal value meets a wait as a peer's writes do, so
// abandon() first posts on the peers' departure boards how many steps this process began (KokkosDDT_PeerBoard.hpp):
// failure() reads this process's board, and a step later than a departed peer's last fails instead of completing.
// Destroying the links is the plan's collective end: this process's writes finish, it unmaps its peers' memory, meets
// the other processes (a barrier within the deadline, or until a peer's process is seen to have ended) and gives its
// counters and landing buffer back (KokkosDDT_PeerMemory.hpp).
//
// In the background (the watchdog's thread, KokkosDDT_Watchdog.hpp), with or without a deadline: a linked peer's
// process that ended without giving the plan up fails the plan, and this process's own waits end (its streams go on);
// with a deadline (watch()), a step whose waits are still pending at its deadline fails likewise.

#include <cuda.h>
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "KokkosDDT_MpiTransport.hpp"
#include "KokkosDDT_PeerBoard.hpp"
#include "KokkosDDT_PeerMemory.hpp"
#include "KokkosDDT_StreamDeadlines.hpp"
#include "KokkosDDT_Transport.hpp"
#include "KokkosDDT_Watchdog.hpp"

namespace KokkosDDT::Impl {

struct UpstreamPeer {       // a peer that writes this process's cells
  CUdeviceptr written = 0;  // here: the peer's "written"
  CUdeviceptr free = 0;     // there (mapped): this process's "free"
  int peer = 0;             // its rank in the control plane (a timeout names it)
  std::int64_t pid = 0;     // its process, where checkable (KokkosDDT_PeerLiveness.hpp; 0: not)
};
struct DownstreamPeer {     // a peer whose cells this process writes
  CUdeviceptr free = 0;     // here: the peer's "free"
  CUdeviceptr written = 0;  // there (mapped): this process's "written"
  int peer = 0;
  std::int64_t pid = 0;
  bool shares_gpu = false;  // its process runs on this process's GPU
};

class PeerLinks final {
 public:
  PeerLinks(std::shared_ptr<MpiTransport> control, bool flush, bool replayable)
      : control_(std::move(control)), flush_(flush), replayable_(replayable) {}
  ~PeerLinks();
  PeerLinks(const PeerLinks&) = delete;
  PeerLinks& operator=(const PeerLinks&) = delete;

  // What the handshake gives the links (they own it from then on).
  CounterRun counters;                 // this process's: one per upstream peer, then one per downstream peer
  LandingBuffer landing;               // the landed receives' buffer (none: base null)
  std::vector<UpstreamPeer> upstream;  // (in the handshake's order)
  std::vector<DownstreamPeer> downstream;
  DepartureBoard board;          // this process's (a word per slot) and the linked peers' words it posts in
  std::vector<int> board_peers;  // the rank of each slot of this process's board
  int device = 0;                // this process's GPU (the watchdog's thread sets it)
  // Maps a peer's allocation for the links' lifetime (nullptr: map_peer's, memory another library keeps mapped).
  char* map(std::int64_t owner, std::int64_t base, const cudaIpcMemHandle_t& handle, const char* where);

  // The step's own stream, of the device's highest priority: the writing kernel runs beside the caller's work between
  // start and wait (jacobi3d's interior sweep), as NCCL's messages do on theirs. It lives as long as the process (a
  // pool): the engine keeps a Kokkos instance on it.
  void make_stream(const char* where);
  StreamRef own_stream() const { return StreamRef{own_.stream}; }
  void fork(StreamRef caller);  // the own stream waits for the caller's work so far
  void join(StreamRef caller);  // the caller's stream waits for the own stream's
  void begin(StreamRef writing);
  void written(StreamRef writing);
  void arrived(StreamRef stream);
  bool replayable() const { return replayable_ || (upstream.empty() && downstream.empty()); }
  std::vector<std::uint64_t*> written_counters() const;
  std::uint64_t signal() const { return replayable_ ? 1 : step_.load(); }  // what a writing kernel stores there
  // Device begin (DeviceSignals::gates): the writing kernel raises the upstream peers' "free" and waits for its own.
  // Offered for replayable counters (KokkosDDT_PeerLinks.cpp says why), and only where no downstream peer shares this
  // GPU: a kernel polling for a process that needs this GPU's time to raise it would wait for the time slice.
  std::vector<std::uint64_t*> begin_raises() const;
  std::vector<std::uint64_t*> gates() const;
  void begin_on_device() { device_begin_ = true; }
  // Step::abandon: this process's departure is posted (`steps` begun), then the peers' waits on this process end
  // (their "free" at once, from a stream of its own; their "written" after this process's writes, on the stream they
  // ran on); `failed`: this process's own waits too.
  void abandon(bool failed, double timeout, std::int64_t steps);
  // Step::watch and Step::failure (the header's comment).
  void watch(StreamRef stream, double seconds, const char* where);
  StepFailure failure(std::int64_t step);
  // Starts the background checks (once the handshake linked the peers).
  void start_watching();
  // How long the destroy waits for the other processes (a setup that failed: its deadline; 0: as long as it takes).
  void leave_within(double seconds) { timeout_ = seconds; }
  // The upstream peers whose "written" is not raised for the current step.
  std::vector<int> late_peers();
  // The peers (either way) whose process has ended (KokkosDDT_PeerLiveness.hpp).
  std::vector<int> ended_peers() const;

 private:
  using Ops = std::vector<CUstreamBatchMemOpParams>;
  enum Phase { kBegin, kWritten, kArrived };
  const Ops& ops(Phase phase);  // a phase's operations for the current step
  void raise(Ops& ops, CUdeviceptr at) const;
  void wait(Ops& ops, CUdeviceptr at) const;  // until raised for this step, or ended
  void end(Ops& ops, CUdeviceptr at) const;   // for good
  void end_own_waits(Ops& ops) const;
  static void enqueue(const Ops& ops, StreamRef stream);
  static void enqueue_quietly(const Ops& ops, cudaStream_t stream);  // (teardown: nothing throws)
  bool leave(double timeout);  // the destroy's barrier, within the deadline: whether every process came
  void tick();                 // the watchdog's: deadlines passed, peers' processes ended
  void end_own_waits_now();    // (from a stream of its own)
  std::vector<int> departed_without_post(const std::vector<int>& ended) const;

  std::shared_ptr<MpiTransport> control_;
  bool flush_;  // waits flush remote writes (CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES)
  std::vector<std::pair<std::int64_t, std::int64_t>> mapped_;
  StepStream own_;  // (from the process's pool: KokkosDDT_PeerMemory.hpp)
  bool replayable_;
  Ops ops_[3];  // per phase (replayable: built once)
  bool built_[3] = {};
  std::atomic<std::uint64_t> step_{0};  // steps begun (read by the watchdog's thread too)
  StreamRef writing_{};                 // the stream the last step's writes ran on
  double timeout_ = 0;                  // how long the destroy waits for the other processes (0: as long as it takes)
  bool abandoned_ = false;
  // What the watchdog's thread shares with the caller's: the failure it found, the deadlines it watches.
  std::mutex mutex_;
  StepFailure failure_;
  StreamDeadlines deadlines_;
  std::chrono::steady_clock::time_point next_liveness_{};
  Watch watch_;                // (last: stopped first, before what its tick touches goes)
  bool device_begin_ = false;  // begin() enqueues nothing: the writing kernel raises and waits (begin_on_device)
};

}  // namespace KokkosDDT::Impl
