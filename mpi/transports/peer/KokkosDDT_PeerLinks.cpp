// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_PeerLinks.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>

#include "KokkosDDT_Communicators.hpp"
#include "KokkosDDT_PeerCuda.hpp"
#include "KokkosDDT_PeerLiveness.hpp"
#include "KokkosDDT_SetupClock.hpp"
#include "KokkosDDT_Settings.hpp"
#include "KokkosDDT_Wait.hpp"

namespace KokkosDDT::Impl {

namespace {

// Rising counters: a terminal value meets every wait of a step (GEQ, compared as (int64)(counter - step) >= 0).
constexpr cuuint64_t kTerminal = cuuint64_t{1} << 62;
// Replayable counters: an 8-byte word whose low half is raised (1) and reset (0) and whose high half is "ended"
// (1): a wait for the word >= 1 is met by either (its values are 0, 1, 2^32 and 2^32 + 1).
constexpr CUdeviceptr kEndedHalf = 4;
constexpr std::size_t kBatch = 256;  // (a batch holds at most 256 operations)
constexpr const char* kStep = "KokkosDDT::mpi: a plan's step";

CUstreamBatchMemOpParams write_op(CUdeviceptr at, cuuint64_t value, bool wide) {
  CUstreamBatchMemOpParams op{};
  op.writeValue.operation = wide ? CU_STREAM_MEM_OP_WRITE_VALUE_64 : CU_STREAM_MEM_OP_WRITE_VALUE_32;
  op.writeValue.address = at;
  if (wide)
    op.writeValue.value64 = value;
  else
    op.writeValue.value = static_cast<cuuint32_t>(value);
  op.writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;  // (after the writes before it)
  return op;
}

}  // namespace

PeerLinks::~PeerLinks() {
  // This process's writes into peers' cells are done before it unmaps them. A process whose peers' counters never
  // come (a timeout: waited for `timeout_` seconds) ends its own waits itself.
  SetupClock clock("peer links destroy");
  watch_.stop();  // (before anything its tick reads goes)
  bool idle = true;
  if (own_.stream) {
    if (!wait_until([&] { return cudaStreamQuery(own_.stream) != cudaErrorNotReady; }, Deadline(timeout_))) {
      const SideStream side;
      Ops ops;
      end_own_waits(ops);
      if (side.stream) enqueue_quietly(ops, side.stream);
    }
    idle = cudaStreamSynchronize(own_.stream) == cudaSuccess;
  }
  clock.mark("drain");
  for (const auto& [owner, base] : mapped_) unmap_peer(owner, base);
  // No process gives back what its peers mapped before every process unmapped (destroying a plan is collective). A
  // process that does not come within the deadline may still write here: the counters and the landing buffer are then
  // left to the process, never handed to another plan.
  const bool left = leave(timeout_);
  clock.mark("barrier");
  if (left) {
    give_back_counters(counters);
    give_back_landing(landing);
  }
  if (idle) give_back_stream(own_);  // (else left as it is)
  (void)cudaGetLastError();
}

bool PeerLinks::leave(double timeout) {
  if (mpi_finalized()) return false;
  MPI_Request barrier = MPI_REQUEST_NULL;
  if (MPI_Ibarrier(control_->comm(), &barrier) != MPI_SUCCESS) return false;
  // (not met: the request stays pending; MPI frees no request of a nonblocking collective) A process that ended never
  // comes, deadline or not.
  bool gone = false;
  auto next = std::chrono::steady_clock::now();
  const bool met = wait_until(
      [&] {
        int done = 0;
        MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
        if (done != 0) return true;
        if (std::chrono::steady_clock::now() < next) return false;
        next += std::chrono::milliseconds(50);
        gone = !ended_peers().empty();
        return gone;
      },
      Deadline(timeout));
  return met && !gone;
}

char* PeerLinks::map(std::int64_t owner, std::int64_t base, const cudaIpcMemHandle_t& handle, const char* where) {
  char* at = map_peer(owner, base, handle, where);
  if (at) mapped_.emplace_back(owner, base);
  return at;
}

void PeerLinks::make_stream(const char* where) { own_ = take_stream(where); }

void PeerLinks::fork(StreamRef caller) {
  cuda_check(cudaEventRecord(own_.forked, static_cast<cudaStream_t>(caller.native)), kStep, "cudaEventRecord");
  cuda_check(cudaStreamWaitEvent(own_.stream, own_.forked, 0), kStep, "cudaStreamWaitEvent");
}

void PeerLinks::join(StreamRef caller) {
  cuda_check(cudaEventRecord(own_.joined, own_.stream), kStep, "cudaEventRecord");
  cuda_check(cudaStreamWaitEvent(static_cast<cudaStream_t>(caller.native), own_.joined, 0), kStep,
             "cudaStreamWaitEvent");
}

// Each call enqueues its counters' operations as one batch (one driver call, not one per peer: the host's share of a
// step). Every wait of a batch comes before its resets: a late peer is then the one whose counter is still 0.
const PeerLinks::Ops& PeerLinks::ops(Phase phase) {
  Ops& ops = ops_[phase];
  if (replayable_ && built_[phase]) return ops;  // (the same every step)
  ops.clear();
  auto reset = [&](CUdeviceptr at) { ops.push_back(write_op(at, 0, false)); };
  if (phase == kBegin) {
    for (const UpstreamPeer& p : upstream) raise(ops, p.free);     // "my cells are free for this step"
    for (const DownstreamPeer& p : downstream) wait(ops, p.free);  // "... theirs are"
    if (replayable_)
      for (const DownstreamPeer& p : downstream) reset(p.free);
  } else if (phase == kWritten) {
    for (const DownstreamPeer& p : downstream) raise(ops, p.written);  // (after the kernel: fenced stores)
  } else {
    for (const UpstreamPeer& p : upstream) wait(ops, p.written);
    if (replayable_)
      for (const UpstreamPeer& p : upstream) reset(p.written);
  }
  built_[phase] = true;
  return ops;
}

void PeerLinks::begin(StreamRef writing) {
  writing_ = writing;
  ++step_;
  if (!device_begin_) enqueue(ops(kBegin), writing);
}

void PeerLinks::written(StreamRef writing) { enqueue(ops(kWritten), writing); }

void PeerLinks::arrived(StreamRef stream) { enqueue(ops(kArrived), stream); }

std::vector<std::uint64_t*> PeerLinks::written_counters() const {
  std::vector<std::uint64_t*> at;
  for (const DownstreamPeer& p : downstream) at.push_back(reinterpret_cast<std::uint64_t*>(p.written));
  return at;
}

std::vector<std::uint64_t*> PeerLinks::begin_raises() const {
  std::vector<std::uint64_t*> at;
  for (const UpstreamPeer& p : upstream) at.push_back(reinterpret_cast<std::uint64_t*>(p.free));
  return at;
}

// Offered by default where the counters are replayable: there the kernel also takes the resets off the streams (one
// memory operation per peer and wait). Rising counters lose by it: the wait only moves into the kernel, whose polling
// teams then share the GPU with the caller's work. KOKKOSDDT_DEVICE_BEGIN: 0 never, 1 also rising counters, always also
// where a downstream peer shares this GPU (to test the protocol on one GPU, under MPS).
std::vector<std::uint64_t*> PeerLinks::gates() const {
  using Begin = Settings::DeviceBegin;
  const Begin choice = settings().device_begin;
  if (choice == Begin::Never || (!replayable_ && choice == Begin::Rule)) return {};
  std::vector<std::uint64_t*> at;
  for (const DownstreamPeer& p : downstream) {
    if (p.shares_gpu && choice != Begin::Always) return {};
    at.push_back(reinterpret_cast<std::uint64_t*>(p.free));
  }
  return at;
}

void PeerLinks::abandon(bool failed, double timeout, std::int64_t steps) {
  timeout_ = timeout;
  if (upstream.empty() && downstream.empty()) return;
  std::lock_guard<std::mutex> lock(mutex_);  // (the watchdog's thread may end this process's waits meanwhile)
  if (abandoned_) {
    if (failed) end_own_waits_now();
    return;
  }
  abandoned_ = true;
  board.post(steps);  // (before the terminal values below: a peer that sees them land reads this)
  const SideStream side;
  if (!side.stream) return;
  Ops ops;
  for (const UpstreamPeer& p : upstream) end(ops, p.free);
  if (failed) end_own_waits(ops);
  enqueue_quietly(ops, side.stream);
  ops.clear();
  for (const DownstreamPeer& p : downstream) end(ops, p.written);
  enqueue_quietly(ops, writing_.native ? static_cast<cudaStream_t>(writing_.native) : side.stream);
}

void PeerLinks::end_own_waits_now() {
  const SideStream side;
  if (!side.stream) return;
  Ops ops;
  end_own_waits(ops);
  enqueue_quietly(ops, side.stream);
}

void PeerLinks::watch(StreamRef stream, double seconds, const char* where) {
  if (upstream.empty() && downstream.empty()) return;
  deadlines_.add(static_cast<cudaStream_t>(stream.native), seconds, where);
}

StepFailure PeerLinks::failure(std::int64_t step) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!failure_.what.empty()) return failure_;
  }
  for (std::size_t slot = 0; slot < board_peers.size(); ++slot) {
    const std::int64_t steps = board.read(static_cast<int>(slot));
    if (steps < step)
      return {"rank " + std::to_string(board_peers[slot]) + " gave the plan up after step " + std::to_string(steps) +
                  " (its destroy or its timeout): its part of the later steps never comes",
              {board_peers[slot]},
              false,
              std::min(step, steps + 1)};
  }
  return {};
}

void PeerLinks::start_watching() {
  if (upstream.empty() && downstream.empty()) return;
  watch_.start([this] { tick(); });
}

// The watchdog's: a deadline passed with the step's waits pending, or a linked peer's process ended without giving
// the plan up. Either fails the plan (failure() says so at the next call) and ends this process's own waits, so that
// its streams, and a fence on them, go on.
void PeerLinks::tick() {
  StepFailure found;
  if (deadlines_.expired()) {
    (void)cudaSetDevice(device);  // (only now: a tick that finds nothing makes no CUDA call)
    found = {"its waits for its peers did not end", late_peers(), true};
  } else if (const auto now = std::chrono::steady_clock::now(); now >= next_liveness_) {
    next_liveness_ = now + std::chrono::milliseconds(50);
    if (std::vector<int> gone = departed_without_post(ended_peers()); !gone.empty())
      found = {"a linked peer's process ended", gone, false};
  }
  if (found.what.empty()) return;
  (void)cudaSetDevice(device);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!failure_.what.empty()) return;
  failure_ = found;
  end_own_waits_now();
}

// The ranks of `ended` that posted no departure (a process that gave the plan up and then exited is no failure).
std::vector<int> PeerLinks::departed_without_post(const std::vector<int>& ended) const {
  std::vector<int> gone;
  for (int rank : ended) {
    const auto slot = std::find(board_peers.begin(), board_peers.end(), rank) - board_peers.begin();
    if (board.read(static_cast<int>(slot)) == DepartureBoard::kStaying) gone.push_back(rank);
  }
  return gone;
}

std::vector<int> PeerLinks::late_peers() {
  std::vector<int> late;
  const std::uint64_t step = step_.load();
  std::vector<std::uint64_t> seen(upstream.size(), 0);
  {
    const SideStream side;  // (read from a stream of its own: the process's streams may be the ones waiting)
    if (!side.stream) return late;
    for (std::size_t i = 0; i < upstream.size(); ++i)
      (void)cudaMemcpyAsync(&seen[i], reinterpret_cast<void*>(upstream[i].written), 8, cudaMemcpyDeviceToHost,
                            side.stream);
  }  // (synchronized)
  for (std::size_t i = 0; i < upstream.size(); ++i)
    if (replayable_ ? step > 0 && seen[i] == 0 : seen[i] < step) late.push_back(upstream[i].peer);
  return late;
}

std::vector<int> PeerLinks::ended_peers() const {
  std::vector<int> ended;
  auto check = [&](int peer, std::int64_t pid) {
    if (std::find(ended.begin(), ended.end(), peer) == ended.end() && process_ended(pid)) ended.push_back(peer);
  };
  for (const UpstreamPeer& p : upstream) check(p.peer, p.pid);
  for (const DownstreamPeer& p : downstream) check(p.peer, p.pid);
  return ended;
}

void PeerLinks::raise(Ops& ops, CUdeviceptr at) const {
  ops.push_back(replayable_ ? write_op(at, 1, false) : write_op(at, step_.load(), true));
}

void PeerLinks::wait(Ops& ops, CUdeviceptr at) const {
  CUstreamBatchMemOpParams op{};
  op.waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_64;
  op.waitValue.address = at;
  op.waitValue.value64 = replayable_ ? 1 : step_.load();
  op.waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ | (flush_ ? CU_STREAM_WAIT_VALUE_FLUSH : 0);
  ops.push_back(op);
}

void PeerLinks::end(Ops& ops, CUdeviceptr at) const {
  ops.push_back(replayable_ ? write_op(at + kEndedHalf, 1, false) : write_op(at, kTerminal, true));
}

void PeerLinks::end_own_waits(Ops& ops) const {
  for (const UpstreamPeer& p : upstream) end(ops, p.written);
  for (const DownstreamPeer& p : downstream) end(ops, p.free);
}

void PeerLinks::enqueue(const Ops& ops, StreamRef stream) {
  const auto s = static_cast<CUstream>(stream.native);
  for (std::size_t at = 0; at < ops.size(); at += kBatch) {
    const auto n = static_cast<unsigned>(std::min(kBatch, ops.size() - at));
    driver_check(cuStreamBatchMemOp(s, n, const_cast<CUstreamBatchMemOpParams*>(ops.data() + at), 0), kStep,
                 "cuStreamBatchMemOp");
  }
}

void PeerLinks::enqueue_quietly(const Ops& ops, cudaStream_t stream) {
  for (std::size_t at = 0; at < ops.size(); at += kBatch)
    (void)cuStreamBatchMemOp(reinterpret_cast<CUstream>(stream),
                             static_cast<unsigned>(std::min(kBatch, ops.size() - at)),
                             const_cast<CUstreamBatchMemOpParams*>(ops.data() + at), 0);
}

}  // namespace KokkosDDT::Impl
