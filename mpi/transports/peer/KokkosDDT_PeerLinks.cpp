// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_PeerLinks.hpp"

#include <algorithm>

#include "KokkosDDT_Communicators.hpp"
#include "KokkosDDT_PeerCuda.hpp"
#include "KokkosDDT_PeerLiveness.hpp"
#include "KokkosDDT_SetupClock.hpp"
#include "KokkosDDT_Wait.hpp"

namespace KokkosDDT::Impl {

namespace {

// A counter is one 8-byte word of two halves (little-endian): the low half is raised (1) by the process that signals
// and reset (0) by the one that waits, right after its wait; the high half is "ended" (1: abandon()), which no reset
// touches. A wait is met by either half, so that an ended counter meets every later wait, however many steps a
// stream holds. Reset rather than raised, a step's operations are the same every step: a step captured in a CUDA
// graph replays as it ran.
constexpr cuuint64_t kEitherHalf = (cuuint64_t{1} << 32) | 1;
constexpr CUdeviceptr kEndedHalf = 4;
constexpr std::size_t kBatch = 256;  // (a batch holds at most 256 operations)
constexpr const char* kStep = "KokkosDDT::mpi: a plan's step";

}  // namespace

PeerLinks::~PeerLinks() {
  // This process's writes into peers' cells are done before it unmaps them. A process whose peers' counters never
  // come (a timeout: waited for `timeout_` seconds) ends its own waits itself.
  SetupClock clock("peer links destroy");
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
  // (not met: the request stays pending; MPI frees no request of a nonblocking collective)
  return wait_until(
      [&] {
        int done = 0;
        MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
        return done != 0;
      },
      Deadline(timeout));
}

char* PeerLinks::map(std::int64_t owner, std::int64_t base, const cudaIpcMemHandle_t& handle, const char* where) {
  char* at = map_peer(owner, base, handle, where);
  mapped_.emplace_back(owner, base);
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
// step), the same every step (built at the first). Every wait of a batch comes before its resets: a late peer is then
// the one whose counter is still 0.
void PeerLinks::build_ops() {
  for (const UpstreamPeer& p : upstream) raise(begin_ops_, p.free);     // "my cells are free for this step"
  for (const DownstreamPeer& p : downstream) wait(begin_ops_, p.free);  // "... theirs are"
  for (const DownstreamPeer& p : downstream) reset(begin_ops_, p.free);
  for (const DownstreamPeer& p : downstream) raise(written_ops_, p.written);  // (after the kernel: fenced stores)
  for (const UpstreamPeer& p : upstream) wait(arrived_ops_, p.written);
  for (const UpstreamPeer& p : upstream) reset(arrived_ops_, p.written);
  ops_built_ = true;
}

void PeerLinks::begin(StreamRef writing) {
  if (!ops_built_) build_ops();
  writing_ = writing;
  ++step_;
  enqueue(begin_ops_, writing);
}

void PeerLinks::written(StreamRef writing) { enqueue(written_ops_, writing); }

void PeerLinks::arrived(StreamRef stream) { enqueue(arrived_ops_, stream); }

std::vector<std::uint32_t*> PeerLinks::written_counters() const {
  std::vector<std::uint32_t*> at;  // (their low halves)
  for (const DownstreamPeer& p : downstream) at.push_back(reinterpret_cast<std::uint32_t*>(p.written));
  return at;
}

void PeerLinks::abandon(bool failed, double timeout) {
  timeout_ = timeout;
  if (abandoned_ || (upstream.empty() && downstream.empty())) return;
  abandoned_ = true;
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

std::vector<int> PeerLinks::late_peers() {
  std::vector<int> late;
  std::vector<std::uint64_t> seen(upstream.size(), 0);  // (0: neither raised nor ended)
  {
    const SideStream side;  // (read from a stream of its own: the process's streams may be the ones waiting)
    if (!side.stream) return late;
    for (std::size_t i = 0; i < upstream.size(); ++i)
      (void)cudaMemcpyAsync(&seen[i], reinterpret_cast<void*>(upstream[i].written), 8, cudaMemcpyDeviceToHost,
                            side.stream);
  }  // (synchronized)
  for (std::size_t i = 0; i < upstream.size(); ++i)
    if (step_ > 0 && seen[i] == 0) late.push_back(upstream[i].peer);
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

void PeerLinks::write(Ops& ops, CUdeviceptr at, cuuint32_t value) {
  CUstreamBatchMemOpParams op{};
  op.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
  op.writeValue.address = at;
  op.writeValue.value = value;
  op.writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;  // (after every write before it: a release)
  ops.push_back(op);
}

void PeerLinks::wait(Ops& ops, CUdeviceptr at) const {
  CUstreamBatchMemOpParams op{};
  op.waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_64;
  op.waitValue.address = at;
  op.waitValue.value64 = kEitherHalf;
  op.waitValue.flags = CU_STREAM_WAIT_VALUE_AND | (flush_ ? CU_STREAM_WAIT_VALUE_FLUSH : 0);
  ops.push_back(op);
}

void PeerLinks::end(Ops& ops, CUdeviceptr at) { write(ops, at + kEndedHalf, 1); }

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
