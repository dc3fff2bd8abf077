// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_PeerTransport.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "KokkosDDT_CommittedWire.hpp"
#include "KokkosDDT_Communicators.hpp"
#include "KokkosDDT_Descriptor.hpp"
#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_MPIAgreement.hpp"
#include "KokkosDDT_MPIError.hpp"
#include "KokkosDDT_Routes.hpp"
#include "KokkosDDT_Wait.hpp"

namespace KokkosDDT::Impl {

namespace {

constexpr int kHandleWords = sizeof(cudaIpcMemHandle_t) / sizeof(std::int64_t);
static_assert(sizeof(cudaIpcMemHandle_t) % sizeof(std::int64_t) == 0, "an IPC handle is whole 64-bit words");

[[noreturn]] void cuda_failed(const char* where, const char* call, const std::string& what) {
  throw_error(ErrorCode::Transport, where, "transport",
              std::string("the peer transport's ") + call + " failed: " + what);
}
void cuda_check(cudaError_t e, const char* where, const char* call) {
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();  // (a failed call leaves its error for the next one otherwise)
  cuda_failed(where, call, cudaGetErrorString(e));
}
void driver_check(CUresult r, const char* where, const char* call) {
  if (r == CUDA_SUCCESS) return;
  const char* text = nullptr;
  cuGetErrorString(r, &text);
  cuda_failed(where, call, text ? text : "unknown driver error");
}

// ---------------------------------------------------------------------------------------------------- IPC mappings
// Each exported allocation is opened once per process (CUDA's rule) and closed when its last user goes, so that no
// mapping outlives the plans that need it (a cache that never unmaps holds peers' memory forever).
struct Mapping {
  cudaIpcMemHandle_t handle;
  char* base = nullptr;
  int users = 0;
};
struct Mappings {
  std::mutex mutex;
  std::map<std::pair<std::int64_t, std::int64_t>, Mapping> open;  // (exporter's pid and node, its base address)
};
Mappings& mappings() {
  static Mappings* m = new Mappings;  // (never destroyed: plans may outlive static destruction order)
  return *m;
}
using MappingKey = std::pair<std::int64_t, std::int64_t>;

char* map_peer(const MappingKey& key, const cudaIpcMemHandle_t& handle, const char* where) {
  Mappings& m = mappings();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.open.find(key);
  if (it != m.open.end()) {
    if (std::memcmp(&it->second.handle, &handle, sizeof handle) != 0)
      throw_error(ErrorCode::Transport, where, "transport",
                  "a peer freed and reallocated memory that a live plan still maps (fields must stay allocated while "
                  "plans over the peer transport use them)");
    ++it->second.users;
    return it->second.base;
  }
  void* base = nullptr;
  cuda_check(cudaIpcOpenMemHandle(&base, handle, cudaIpcMemLazyEnablePeerAccess), where, "cudaIpcOpenMemHandle");
  m.open[key] = Mapping{handle, static_cast<char*>(base), 1};
  return static_cast<char*>(base);
}

void unmap_peer(const MappingKey& key) {
  Mappings& m = mappings();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.open.find(key);
  if (it == m.open.end() || --it->second.users > 0) return;
  (void)cudaIpcCloseMemHandle(it->second.base);
  (void)cudaGetLastError();
  m.open.erase(it);
}

// ---------------------------------------------------------------------------------------------------- this device
struct Device {
  int ordinal = 0;
  std::int64_t uuid[2] = {0, 0};
  bool memops = false;  // 64-bit stream wait/write (the step's counters)
  bool flush = false;   // waits may flush remote writes
};

Device this_device(const char* where) {
  Device d;
  cuda_check(cudaGetDevice(&d.ordinal), where, "cudaGetDevice");
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, d.ordinal), where, "cudaGetDeviceProperties");
  std::memcpy(d.uuid, &prop.uuid, sizeof d.uuid);
  CUdevice dev = 0;
  int memops = 0, flush = 0;
  if (cuDeviceGet(&dev, d.ordinal) == CUDA_SUCCESS) {
    (void)cuDeviceGetAttribute(&memops, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, dev);
    (void)cuDeviceGetAttribute(&flush, CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES, dev);
  }
  d.memops = memops != 0;
  d.flush = flush != 0;
  return d;
}

// Whether this process's GPU writes the GPU with `uuid` (the same one, or a peer).
bool reaches(const Device& me, const std::int64_t* uuid) {
  if (uuid[0] == me.uuid[0] && uuid[1] == me.uuid[1]) return true;
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return false;
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    if (std::memcmp(&prop.uuid, uuid, 16) != 0) continue;
    int can = 0;
    return cudaDeviceCanAccessPeer(&can, me.ordinal, i) == cudaSuccess && can;
  }
  (void)cudaGetLastError();
  return false;  // (not visible to this process)
}

// The allocation holding bytes [lo, hi) of this process's GPU memory, exported; false if there is none (host or
// managed memory, several allocations, a pool allocation that legacy IPC cannot export).
bool export_range(const Device& me, char* lo, char* hi, cudaIpcMemHandle_t& handle, char*& base) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, lo) != cudaSuccess || attr.type != cudaMemoryTypeDevice ||
      attr.device != me.ordinal) {
    (void)cudaGetLastError();
    return false;
  }
  CUdeviceptr b = 0;
  size_t bytes = 0;
  if (cuMemGetAddressRange(&b, &bytes, reinterpret_cast<CUdeviceptr>(lo)) != CUDA_SUCCESS) return false;
  base = reinterpret_cast<char*>(b);
  if (hi > base + bytes) return false;
  if (cudaIpcGetMemHandle(&handle, base) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return true;
}

// Bytes [lo, hi) that `count` instances of a type touch at `buf` (null: absolute addresses).
std::pair<char*, char*> span(const TypedEnd& e) {
  const std::int64_t last = (e.count - 1) * e.type->extent;
  const std::int64_t lo = std::min<std::int64_t>(e.type->data_lb, last + e.type->data_lb);
  const std::int64_t hi = std::max<std::int64_t>(e.type->data_ub, last + e.type->data_ub);
  const auto at = reinterpret_cast<std::uintptr_t>(e.buf);
  return {reinterpret_cast<char*>(at + static_cast<std::uintptr_t>(lo)),
          reinterpret_cast<char*>(at + static_cast<std::uintptr_t>(hi))};
}

// ---------------------------------------------------------------------------------------------------- landing
// The rule for cells in short runs. A remote store writes one run: a receive of many isolated cells (a face of 8-byte
// cells a row apart) costs one small NVLink write per cell when the sender writes it typed. Landed instead, the sender
// packs it into a buffer of the receiver's in whole coalesced lines and the receiver unpacks it from its own memory, at
// the price of one more launch there. Measured on 2 and 4 H100 (perf_tests/results/peer-2026-11-27.md): landing
// lost 5-8 us per step on halo_bench's faces of up to 16 384 cells and won 2.7 us on heat3d's face of 40 000; so a
// receive is landed when its shortest run is under kShortRun bytes and it holds at least kManyRuns runs.
// KOKKOSDDT_PEER_LANDING=always|never overrides the rule (tests use "always" to run the landed path on small fields).
constexpr std::int64_t kShortRun = 64;
constexpr std::int64_t kManyRuns = 32768;

enum class Landing { Rule, Always, Never };
Landing landing_mode() {
  static const Landing mode = [] {
    const char* env = std::getenv("KOKKOSDDT_PEER_LANDING");
    const std::string v = env ? env : "";
    return v == "always" ? Landing::Always : v == "never" ? Landing::Never : Landing::Rule;
  }();
  return mode;
}

// The shortest run of contiguous bytes one instance of `t` holds: over its terminal nodes, a Contig node's bytes, a
// block's (Strided, IndexedBlock) or a mean block's (Indexed), a terminal field's (Struct).
std::int64_t shortest_run(const CommittedType& t) {
  std::int64_t shortest = t.size;
  for (const DescriptorNode& n : t.nodes) {
    if (n.count <= 0 || n.size <= 0) continue;
    if (n.kind == LayoutKind::Struct) {
      const std::int64_t* prefix = Lookaside::prefix(&n, t.lookaside.data());
      const std::int64_t* children = Lookaside::children(&n, t.lookaside.data());
      for (std::int64_t b = 0; b < n.count; ++b)
        if (children[b] < 0 && prefix[b + 1] > prefix[b]) shortest = std::min(shortest, prefix[b + 1] - prefix[b]);
    } else if (n.child < 0) {
      shortest = std::min(shortest, n.kind == LayoutKind::Contig ? n.size : n.size / n.count);
    }
  }
  return std::max<std::int64_t>(shortest, 1);
}

// Whether the rule above lands receive `r`.
bool landed_by_rule(const TypedEnd& r) {
  if (landing_mode() != Landing::Rule) return landing_mode() == Landing::Always;
  const std::int64_t run = shortest_run(*r.type);
  return run < kShortRun && r.count * r.type->size / run >= kManyRuns;
}

// ---------------------------------------------------------------------------------------------------- handshake
// The receiver's offer for one receive, then the sender's answer, as 64-bit words on the transport's duplicate with
// the message's own tag (MPI's order per source and tag pairs them as the messages pair).
enum Offer : int {
  kFacts,  // the receiver's PeerFacts: bit 0 its counters, bit 1 its cells (exported)
  kNode,
  kPid,
  kUuid,
  kCells = kUuid + 2,
  kCellsBase = kCells + kHandleWords,
  kOrigin,  // the receive's origin minus the allocation's base (wrapping: absolute receives have origin 0)
  kLanded,  // the cells are the receiver's landing buffer: pack kCount bytes there (no type follows)
  kFlags,
  kFlagsBase = kFlags + kHandleWords,
  kSlot,  // byte offset of the sender's "written" counter in the receiver's flags
  kCount,
  kType  // the committed type's words
};
enum Answer : int { aRefusal, aNode, aPid, aFlags, aFlagsBase = aFlags + kHandleWords, aSlot, aWords };

struct Pair {              // one peer's counters: the step this process waits for, and the peer's it writes
  CUdeviceptr local = 0;   // in this process's flags (the peer writes it)
  CUdeviceptr remote = 0;  // in the peer's flags, mapped (this process writes it)
  int peer = 0;            // (its rank in the control plane: a timeout names it)
};

// A counter's terminal value: every wait of a step (GEQ, compared as (int64)(counter - step) >= 0) is satisfied by it.
constexpr cuuint64_t kTerminal = cuuint64_t{1} << 62;

// A stream of its own for teardown's and a timeout's operations (this process's streams may be the ones waiting),
// synchronized and destroyed with this; null when CUDA refuses one (nothing throws there).
struct SideStream {
  cudaStream_t stream = nullptr;
  SideStream() {
    if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) stream = nullptr;
    (void)cudaGetLastError();
  }
  ~SideStream() {
    if (stream) {
      (void)cudaStreamSynchronize(stream);
      (void)cudaStreamDestroy(stream);
    }
    (void)cudaGetLastError();
  }
  SideStream(const SideStream&) = delete;
  SideStream& operator=(const SideStream&) = delete;
};

// The step's links: per pair of processes, a rising step count in each direction (the sender's "written" in the
// receiver's memory, the receiver's "free" in the sender's). begin(): this process's receive cells may be written
// again (every upstream peer's "free" = step), and the stream waits until every downstream peer said the same of its
// cells; written(): every downstream peer's "written" = step (or the writing kernel stores it: written_counters());
// arrived(): the stream waits until every upstream peer wrote this step.
class PeerLinks final {
 public:
  PeerLinks(std::shared_ptr<MpiTransport> control, bool flush) : control_(std::move(control)), flush_(flush) {}
  ~PeerLinks() {
    // This process's writes into peers' cells are done before it unmaps them. A process whose peers' counters never
    // come (a timeout: waited for `timeout_` seconds) ends its own waits itself.
    if (stream_) {
      if (!wait_until([&] { return cudaStreamQuery(stream_) != cudaErrorNotReady; }, Deadline(timeout_)))
        end_own_waits();
      (void)cudaStreamSynchronize(stream_);
    }
    for (const MappingKey& k : mapped_) unmap_peer(k);
    // No peer frees what this process mapped before every process unmapped (destroying a plan is collective). After a
    // timeout the barrier waits as long: a process that does not come may still write here, so the counters and
    // landing buffers are then left allocated.
    bool met = true;
    if (!mpi_finalized()) {
      MPI_Request barrier = MPI_REQUEST_NULL;
      if (MPI_Ibarrier(control_->comm(), &barrier) == MPI_SUCCESS)
        met = wait_until(
            [&] {
              int done = 0;
              MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
              return done != 0;
            },
            Deadline(timeout_));
    }
    if (!met) {  // (the barrier's request stays pending: MPI frees no request of a nonblocking collective)
      flags_ = landing_ = nullptr;  // (left to the process: a late peer may still write them)
      (void)cudaGetLastError();
    }
    if (flags_) (void)cudaFree(flags_);
    if (landing_) (void)cudaFree(landing_);
    if (forked_) (void)cudaEventDestroy(forked_);
    if (joined_) (void)cudaEventDestroy(joined_);
    if (stream_) (void)cudaStreamDestroy(stream_);
    (void)cudaGetLastError();
  }
  // The step's own stream, of the device's highest priority: the writing kernel runs beside the caller's work between
  // start and wait (jacobi3d's interior sweep), as NCCL's messages do on theirs.
  void make_stream(const char* where) {
    int least = 0, greatest = 0;
    cuda_check(cudaDeviceGetStreamPriorityRange(&least, &greatest), where, "cudaDeviceGetStreamPriorityRange");
    cuda_check(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest), where, "cudaStreamCreate");
    cuda_check(cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming), where, "cudaEventCreate");
    cuda_check(cudaEventCreateWithFlags(&joined_, cudaEventDisableTiming), where, "cudaEventCreate");
  }
  StreamRef own_stream() const { return StreamRef{stream_}; }
  void fork(StreamRef stream) {
    const auto caller = static_cast<cudaStream_t>(stream.native);
    cuda_check(cudaEventRecord(forked_, caller), "KokkosDDT::mpi: a plan's step", "cudaEventRecord");
    cuda_check(cudaStreamWaitEvent(stream_, forked_, 0), "KokkosDDT::mpi: a plan's step", "cudaStreamWaitEvent");
  }
  void join(StreamRef stream) {
    const auto caller = static_cast<cudaStream_t>(stream.native);
    cuda_check(cudaEventRecord(joined_, stream_), "KokkosDDT::mpi: a plan's step", "cudaEventRecord");
    cuda_check(cudaStreamWaitEvent(caller, joined_, 0), "KokkosDDT::mpi: a plan's step", "cudaStreamWaitEvent");
  }
  // Each call enqueues its counters' operations as one batch (one driver call, not one per peer: the host's share of a
  // step).
  void begin(StreamRef stream) {
    writing_ = stream;
    ++step_;
    ops_.clear();
    for (const Pair& p : upstream_) write(p.remote);  // "my cells are free for this step"
    for (const Pair& p : downstream_) wait(p.local);  // "... theirs are"
    enqueue(stream);
  }
  void written(StreamRef stream) {
    ops_.clear();
    for (const Pair& p : downstream_) write(p.remote);  // (after the kernel: the write fences its stores first)
    enqueue(stream);
  }
  void arrived(StreamRef stream) {
    ops_.clear();
    for (const Pair& p : upstream_) wait(p.local);
    enqueue(stream);
  }
  std::vector<std::uint64_t*> written_counters() const {
    std::vector<std::uint64_t*> at;
    for (const Pair& p : downstream_) at.push_back(reinterpret_cast<std::uint64_t*>(p.remote));
    return at;
  }
  std::uint64_t step() const { return step_; }

  // Step::abandon: the peers' waits on this process end (their "free" at once, from a stream of its own; their
  // "written" after this process's writes, on the stream they ran on); `failed`: this process's own waits too.
  void abandon(bool failed, double timeout) {
    timeout_ = timeout;
    if (abandoned_ || (upstream_.empty() && downstream_.empty())) return;
    abandoned_ = true;
    const SideStream side;
    if (!side.stream) return;
    ops_.clear();
    for (const Pair& p : upstream_) terminal(p.remote);
    if (failed) end_own_waits_ops();
    enqueue_quietly(side.stream);
    ops_.clear();
    for (const Pair& p : downstream_) terminal(p.remote);
    enqueue_quietly(writing_.native ? static_cast<cudaStream_t>(writing_.native) : side.stream);
  }

  // The upstream peers whose "written" counter is below the current step (read from a stream of its own).
  std::vector<int> late_peers() {
    std::vector<int> late;
    std::vector<std::uint64_t> seen(upstream_.size(), 0);
    {
      const SideStream side;
      if (!side.stream) return late;
      for (std::size_t i = 0; i < upstream_.size(); ++i)
        (void)cudaMemcpyAsync(&seen[i], reinterpret_cast<void*>(upstream_[i].local), 8, cudaMemcpyDeviceToHost,
                              side.stream);
    }  // (synchronized)
    for (std::size_t i = 0; i < upstream_.size(); ++i)
      if (seen[i] < step_) late.push_back(upstream_[i].peer);
    return late;
  }

  std::shared_ptr<MpiTransport> control_;  // (the teardown's barrier)
  bool flush_;
  char* flags_ = nullptr;
  char* landing_ = nullptr;                  // the landed receives' buffers (the transport's own memory)
  std::vector<Pair> upstream_, downstream_;  // peers that write this process's cells; peers whose cells it writes
  std::vector<MappingKey> mapped_;

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t forked_ = nullptr, joined_ = nullptr;
  void write(CUdeviceptr at, cuuint64_t value) {
    CUstreamBatchMemOpParams op{};
    op.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
    op.writeValue.address = at;
    op.writeValue.value64 = value;
    op.writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
    ops_.push_back(op);
  }
  void write(CUdeviceptr at) { write(at, step_); }
  void terminal(CUdeviceptr at) { write(at, kTerminal); }
  void wait(CUdeviceptr at) {
    CUstreamBatchMemOpParams op{};
    op.waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_64;
    op.waitValue.address = at;
    op.waitValue.value64 = step_;
    op.waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ | (flush_ ? CU_STREAM_WAIT_VALUE_FLUSH : 0);
    ops_.push_back(op);
  }
  void enqueue(StreamRef stream) {
    const auto s = static_cast<CUstream>(stream.native);
    for (std::size_t at = 0; at < ops_.size(); at += kBatch) {  // (a batch holds at most 256 operations)
      const auto n = static_cast<unsigned>(std::min(kBatch, ops_.size() - at));
      driver_check(cuStreamBatchMemOp(s, n, ops_.data() + at, 0), "KokkosDDT::mpi: a plan's step",
                   "cuStreamBatchMemOp");
    }
  }
  void end_own_waits_ops() {
    for (const Pair& p : upstream_) terminal(p.local);
    for (const Pair& p : downstream_) terminal(p.local);
  }
  void end_own_waits() {  // (from a stream of its own: this process's streams may be the ones waiting)
    const SideStream side;
    if (!side.stream) return;
    ops_.clear();
    end_own_waits_ops();
    enqueue_quietly(side.stream);
  }
  void enqueue_quietly(cudaStream_t s) {  // (teardown: nothing throws)
    for (std::size_t at = 0; at < ops_.size(); at += kBatch)
      (void)cuStreamBatchMemOp(reinterpret_cast<CUstream>(s), static_cast<unsigned>(std::min(kBatch, ops_.size() - at)),
                               ops_.data() + at, 0);
  }
  static constexpr std::size_t kBatch = 256;
  std::vector<CUstreamBatchMemOpParams> ops_;
  cuuint64_t step_ = 0;
  StreamRef writing_{};  // the stream the last step's writes ran on
  double timeout_ = 0;   // how long the destroy waits for the other processes (0: as long as it takes)
  bool abandoned_ = false;
};

// A send the handshake routed direct: write `count` of `type` at `origin` (the receiver's cells, mapped here); landed:
// pack the send's bytes at `origin` (type null).
struct DirectRoute {
  bool direct = false;
  bool landed = false;
  const char* why = "";  // why a send to another process did not go direct (KokkosDDT_Routes.hpp), "" if it did
  char* origin = nullptr;
  std::int64_t count = 0;
  std::shared_ptr<const CommittedType> type;
};

// A receive routed direct; landed: its bytes arrive packed at `landing` (this process's memory, the transport's own).
struct DirectReceive {
  bool direct = false;
  const char* why = "";
  char* landing = nullptr;
};

// The step of a peer plan: its links and the step of the messages that do not go direct.
class PeerStep final : public Step {
 public:
  PeerStep(std::unique_ptr<PeerLinks> links, std::unique_ptr<Step> messages)
      : links_(std::move(links)), messages_(std::move(messages)) {}
  ~PeerStep() override {
    messages_.reset();
    links_.reset();  // (synchronizes its stream, unmaps, meets the other processes)
  }
  bool host_sends() const override { return messages_->host_sends(); }
  int messages() const override { return messages_->messages(); }
  StreamRef own_stream() const override { return links_->own_stream(); }
  std::vector<std::uint64_t*> written_counters() const override { return links_->written_counters(); }
  std::uint64_t count() const override { return links_->step(); }
  StreamRef begin(StreamRef stream) override {
    (void)messages_->begin(stream);
    StreamRef writing = stream;
    if (links_->own_stream().native) {
      links_->fork(stream);
      writing = links_->own_stream();
    }
    links_->begin(writing);
    return writing;
  }
  void send(StreamRef stream) override { messages_->send(stream); }
  void written(StreamRef writing) override { links_->written(writing); }
  bool test() override { return messages_->test(); }
  void wait(StreamRef stream) override {
    messages_->wait(stream);
    if (links_->own_stream().native) links_->join(stream);  // (this process's writes)
    links_->arrived(stream);
  }
  std::vector<int> late_peers() override {
    std::vector<int> late = messages_->late_peers();
    for (int p : links_->late_peers())
      if (std::find(late.begin(), late.end(), p) == late.end()) late.push_back(p);
    return late;
  }
  void abandon(bool failed, double timeout) override {
    messages_->abandon(failed, timeout);
    links_->abandon(failed, timeout);
  }

 private:
  std::unique_ptr<PeerLinks> links_;
  std::unique_ptr<Step> messages_;
};

}  // namespace

PeerTransport::PeerTransport(std::shared_ptr<MpiTransport> control, MessageTransport messages, const char* where)
    : control_(std::move(control)),
      choose_(messages),
      messages_(control_),
      node_(node_leader(control_->comm(), where)) {}

Routes PeerTransport::route(const std::vector<TypedEnd>& sends, const std::vector<TypedEnd>& receives,
                            const StagingSource& staging, const char* where) {
  std::vector<DirectRoute> routes(sends.size());
  std::vector<DirectReceive> direct_receives(receives.size());
  const MPI_Comm comm = control_->comm();
  const int me = rank();
  const Device dev = this_device(where);
  const std::int64_t pid = static_cast<std::int64_t>(getpid());
  auto links = std::make_unique<PeerLinks>(control_, dev.flush);
  std::string failure;  // this process's first failure (every process throws after the agreement below)

  // This process's counters: one per peer that may write its cells ("written"), then one per peer whose cells it may
  // write ("free"), zeroed (steps count from 1).
  std::map<int, std::int64_t> in_slot, out_slot;
  for (const TypedEnd& r : receives) in_slot.emplace(r.peer, 0);
  for (const TypedEnd& s : sends) out_slot.emplace(s.peer, 0);
  std::int64_t slots = 0;
  for (auto& [peer, slot] : in_slot) slot = 8 * slots++;
  for (auto& [peer, slot] : out_slot) slot = 8 * slots++;
  cudaIpcMemHandle_t flags_handle{};
  bool flags_ok = false;
  if (slots > 0 && dev.memops) {
    try {
      cuda_check(cudaMalloc(reinterpret_cast<void**>(&links->flags_), 8 * slots), where, "cudaMalloc (step counters)");
      cuda_check(cudaMemset(links->flags_, 0, 8 * slots), where, "cudaMemset (step counters)");
      cuda_check(cudaIpcGetMemHandle(&flags_handle, links->flags_), where, "cudaIpcGetMemHandle (step counters)");
      flags_ok = true;
    } catch (const Error& e) {
      failure = e.what();
    }
  }

  // The landed receives' buffers: one allocation, a 256-byte-aligned slice each (offset -1: typed or not direct).
  std::vector<std::int64_t> landed_at(receives.size(), -1);
  std::int64_t landed_bytes = 0;
  cudaIpcMemHandle_t landing_handle{};
  for (std::size_t j = 0; j < receives.size(); ++j) {
    const TypedEnd& r = receives[j];
    cudaIpcMemHandle_t cells{};
    char* base = nullptr;
    const auto [lo, hi] = span(r);
    if (!flags_ok || r.peer == me || !landed_by_rule(r) || !export_range(dev, lo, hi, cells, base)) continue;
    landed_at[j] = landed_bytes;
    landed_bytes += (r.count * r.type->size + 255) / 256 * 256;
  }
  if (landed_bytes > 0) {
    try {
      cuda_check(cudaMalloc(reinterpret_cast<void**>(&links->landing_), landed_bytes), where,
                 "cudaMalloc (landing buffers)");
      cuda_check(cudaIpcGetMemHandle(&landing_handle, links->landing_), where, "cudaIpcGetMemHandle (landing buffers)");
    } catch (const Error& e) {
      failure = e.what();
      landed_at.assign(receives.size(), -1);
    }
  }

  // 1. Each receive's offer to its sender.
  std::vector<std::vector<std::int64_t>> offers(receives.size());
  std::vector<MPI_Request> requests;
  requests.reserve(receives.size() + sends.size());
  for (std::size_t j = 0; j < receives.size(); ++j) {
    const TypedEnd& r = receives[j];
    std::vector<std::int64_t> w(kType, 0);
    cudaIpcMemHandle_t cells{};
    char* base = nullptr;
    const auto [lo, hi] = span(r);
    const bool landed = landed_at[j] >= 0;
    w[kLanded] = landed;
    bool exported = false;
    if (landed) {
      exported = true;
      cells = landing_handle;
      base = links->landing_;
      w[kOrigin] = landed_at[j];
      w[kCount] = r.count * r.type->size;
    } else {
      exported = flags_ok && r.peer != me && export_range(dev, lo, hi, cells, base);
      w[kOrigin] =
          static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(r.buf) - reinterpret_cast<std::uintptr_t>(base));
      w[kCount] = r.count;
    }
    w[kFacts] = (flags_ok ? 1 : 0) | (exported ? 2 : 0);
    w[kNode] = node_;
    w[kPid] = pid;
    std::memcpy(&w[kUuid], dev.uuid, 16);
    std::memcpy(&w[kCells], &cells, sizeof cells);
    w[kCellsBase] = reinterpret_cast<std::int64_t>(base);
    std::memcpy(&w[kFlags], &flags_handle, sizeof flags_handle);
    w[kFlagsBase] = reinterpret_cast<std::int64_t>(links->flags_);
    w[kSlot] = in_slot[r.peer];
    if (exported && !landed) {
      const std::vector<std::int64_t> type = committed_to_words(*r.type);
      w.insert(w.end(), type.begin(), type.end());
    }
    offers[j] = std::move(w);
    requests.emplace_back();
    mpi_check(MPI_Isend(offers[j].data(), static_cast<int>(offers[j].size()), MPI_INT64_T, r.peer, r.tag, comm,
                        &requests.back()),
              where, "MPI_Isend (peer offer)");
  }

  // 2. Each send takes its receiver's offer and answers whether it goes direct.
  std::vector<std::vector<std::int64_t>> answers(sends.size());
  std::map<int, bool> downstream;  // peers written directly
  for (std::size_t i = 0; i < sends.size(); ++i) {
    const TypedEnd& s = sends[i];
    MPI_Status status;
    mpi_check(MPI_Probe(s.peer, s.tag, comm, &status), where, "MPI_Probe (peer offer)");
    int n = 0;
    mpi_check(MPI_Get_count(&status, MPI_INT64_T, &n), where, "MPI_Get_count (peer offer)");
    std::vector<std::int64_t> w(static_cast<std::size_t>(n));
    mpi_check(MPI_Recv(w.data(), n, MPI_INT64_T, s.peer, s.tag, comm, MPI_STATUS_IGNORE), where,
              "MPI_Recv (peer offer)");
    std::vector<std::int64_t> a(aWords, 0);
    w.resize(std::max<std::size_t>(w.size(), kType), 0);  // (never shorter: then no counters, no route)
    const bool landed = w[kLanded] != 0;
    const PeerFacts sender{node_, pid, flags_ok, false};
    const PeerFacts receiver{w[kNode], w[kPid], (w[kFacts] & 1) != 0, (w[kFacts] & 2) != 0};
    const bool near = sender.node == receiver.node && sender.pid != receiver.pid;
    PeerRefusal refusal = peer_refusal(sender, receiver, near && reaches(dev, &w[kUuid]));
    if (refusal == PeerRefusal::None && !failure.empty()) refusal = PeerRefusal::Failed;
    if (refusal == PeerRefusal::None) {
      try {
        cudaIpcMemHandle_t cells, flags;
        std::memcpy(&cells, &w[kCells], sizeof cells);
        std::memcpy(&flags, &w[kFlags], sizeof flags);
        DirectRoute& route = routes[i];
        if (landed && w[kCount] != s.count * s.type->size)
          throw_error(ErrorCode::Transport, where, "transport", "a landed message's sizes differ between its ends");
        route.landed = landed;
        if (!landed) route.type = committed_from_words(w.data() + kType, w.size() - kType, where);
        const MappingKey cells_key{w[kPid] ^ (w[kNode] << 32), w[kCellsBase]};
        char* mapped = map_peer(cells_key, cells, where);
        links->mapped_.push_back(cells_key);
        route.origin =
            reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(mapped) + static_cast<std::uintptr_t>(w[kOrigin]));
        route.count = w[kCount];
        route.direct = true;
        if (!downstream.count(s.peer)) {  // the pair's counters: "written" there, "free" here
          const MappingKey flags_key{w[kPid] ^ (w[kNode] << 32), w[kFlagsBase]};
          char* theirs = map_peer(flags_key, flags, where);
          links->mapped_.push_back(flags_key);
          links->downstream_.push_back({reinterpret_cast<CUdeviceptr>(links->flags_ + out_slot[s.peer]),
                                        reinterpret_cast<CUdeviceptr>(theirs + w[kSlot]), s.peer});
          downstream[s.peer] = true;
        }
      } catch (const Error& e) {
        routes[i] = DirectRoute{};
        refusal = PeerRefusal::Failed;
        failure = e.what();
      }
    }
    routes[i].why = why(refusal);
    a[aRefusal] = static_cast<std::int64_t>(refusal);
    a[aNode] = node_;
    a[aPid] = pid;
    std::memcpy(&a[aFlags], &flags_handle, sizeof flags_handle);
    a[aFlagsBase] = reinterpret_cast<std::int64_t>(links->flags_);
    a[aSlot] = out_slot[s.peer];
    answers[i] = std::move(a);
    requests.emplace_back();
    mpi_check(MPI_Isend(answers[i].data(), aWords, MPI_INT64_T, s.peer, s.tag, comm, &requests.back()), where,
              "MPI_Isend (peer answer)");
  }

  // 3. Each receive learns its sender's answer; a direct one maps the sender's "free" counter.
  std::map<int, bool> upstream;
  for (std::size_t j = 0; j < receives.size(); ++j) {
    const TypedEnd& r = receives[j];
    std::vector<std::int64_t> a(aWords);
    mpi_check(MPI_Recv(a.data(), aWords, MPI_INT64_T, r.peer, r.tag, comm, MPI_STATUS_IGNORE), where,
              "MPI_Recv (peer answer)");
    direct_receives[j].direct = a[aRefusal] == static_cast<std::int64_t>(PeerRefusal::None);
    direct_receives[j].why = why(static_cast<PeerRefusal>(a[aRefusal]));
    if (direct_receives[j].direct && landed_at[j] >= 0) direct_receives[j].landing = links->landing_ + landed_at[j];
    if (!direct_receives[j].direct || upstream.count(r.peer)) continue;
    upstream[r.peer] = true;
    try {
      cudaIpcMemHandle_t flags;
      std::memcpy(&flags, &a[aFlags], sizeof flags);
      const MappingKey flags_key{a[aPid] ^ (a[aNode] << 32), a[aFlagsBase]};
      char* theirs = map_peer(flags_key, flags, where);
      links->mapped_.push_back(flags_key);
      links->upstream_.push_back({reinterpret_cast<CUdeviceptr>(links->flags_ + in_slot[r.peer]),
                                  reinterpret_cast<CUdeviceptr>(theirs + a[aSlot]), r.peer});
    } catch (const Error& e) {
      failure = e.what();
    }
  }
  mpi_check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), where,
            "MPI_Waitall (peer handshake)");
  const char* on = std::getenv("KOKKOSDDT_PEER_STREAM");  // "caller": the step on the caller's stream (to measure)
  if (failure.empty() && (!links->upstream_.empty() || !links->downstream_.empty()) &&
      !(on && std::string(on) == "caller")) {
    try {
      links->make_stream(where);
    } catch (const Error& e) {
      failure = e.what();
    }
  }
  // One failure anywhere fails the plan everywhere (a process alone would wait for steps its peer never writes). The
  // same agreement tells whether any process has messages left for the message transport.
  bool messages = false;
  for (const DirectRoute& r : routes) messages = messages || !r.direct;
  for (const DirectReceive& r : direct_receives) messages = messages || !r.direct;
  Agreement verdict(comm, !failure.empty(), {}, {messages ? 1u : 0u}, true, where);
  if (verdict.any_error())
    throw_error(ErrorCode::Transport, where, "transport",
                failure.empty() ? "failed to connect a peer process (that process's error says why)" : failure);
  messages_ = choose_(verdict.sum(0) > 0, control_, where);

  // The messages that do not go direct: the message transport's routes (the peer's side lays out the same ones).
  std::vector<TypedEnd> rest_sends, rest_receives;
  for (std::size_t i = 0; i < sends.size(); ++i)
    if (!routes[i].direct) rest_sends.push_back(sends[i]);
  for (std::size_t j = 0; j < receives.size(); ++j)
    if (!direct_receives[j].direct) rest_receives.push_back(receives[j]);
  Routes rest = messages_->route(rest_sends, rest_receives, staging, where);
  Routes out;
  std::size_t k = 0;
  for (const DirectRoute& r : routes) {
    if (!r.direct) {
      out.sends.push_back(std::move(rest.sends[k++]));
      out.sends.back().why = r.why;
    } else if (r.landed) {
      out.sends.push_back({RouteKind::Landed, r.origin, 0, nullptr, "peer (landed)", r.why});
    } else {
      out.sends.push_back({RouteKind::Typed, r.origin, r.count, r.type, "peer", r.why});
    }
  }
  k = 0;
  for (const DirectReceive& r : direct_receives) {
    if (!r.direct) {
      out.receives.push_back(std::move(rest.receives[k++]));
      out.receives.back().why = r.why;
    } else {
      out.receives.push_back({r.landing ? RouteKind::Landed : RouteKind::Typed, r.landing, 0, nullptr,
                              r.landing ? "peer (landed)" : "peer", r.why});
    }
  }
  // (The links also without pairs: destroying them is the plan's collective end on every process.)
  out.step = std::make_unique<PeerStep>(std::move(links), std::move(rest.step));
  return out;
}

}  // namespace KokkosDDT::Impl

namespace KokkosDDT::Impl {

TransportEntry peer_transport_entry() {
  return {"peer",
          {Completion::Host, true, false, true, true, true},
          [](const mpi::TransportChoice&, const std::shared_ptr<MpiTransport>& control,
             const char* where) -> std::shared_ptr<Transport> {
            auto on_control = [](bool, const std::shared_ptr<MpiTransport>& c,
                                 const char*) -> std::shared_ptr<Transport> { return c; };
            return std::make_shared<PeerTransport>(control, on_control, where);
          }};
}

TransportEntry auto_transport_entry() {
  return {"auto", peer_transport_entry().capabilities,
          [](const mpi::TransportChoice&, const std::shared_ptr<MpiTransport>& control,
             const char* where) -> std::shared_ptr<Transport> {
            return std::make_shared<PeerTransport>(control, &best_message_transport, where);
          }};
}

}  // namespace KokkosDDT::Impl
