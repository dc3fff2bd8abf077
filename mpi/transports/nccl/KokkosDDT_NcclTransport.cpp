// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_NcclTransport.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_Wait.hpp"
#include "KokkosDDT_Communicators.hpp"
#include "KokkosDDT_MPIAgreement.hpp"
#include "KokkosDDT_SetupClock.hpp"
#include "KokkosDDT_MPIError.hpp"
#include "KokkosDDT_MpiTransport.hpp"
#include "KokkosDDT_StreamDeadlines.hpp"
#include "KokkosDDT_Watchdog.hpp"

namespace KokkosDDT::Impl {
namespace {

void nccl_check(ncclResult_t rc, const char* where, const char* call) {
  if (rc == ncclSuccess) return;
  throw_error(ErrorCode::Transport, where, "transport",
              std::string(call) + " failed: " + ncclGetErrorString(rc) + " (NCCL error " + std::to_string(rc) + ")");
}

void cuda_check(cudaError_t rc, const char* where, const char* call) {
  if (rc == cudaSuccess) return;
  cudaGetLastError();  // (clear it: the error is reported here)
  throw_error(ErrorCode::Transport, where, "transport", std::string(call) + " failed: " + cudaGetErrorString(rc));
}

// ncclCommAbort's first act stops this process's NCCL kernels (the communicator's abort flag); then it reclaims the
// communicator's resources, which recent NCCL does together with the communicator's other processes on the node
// (NVIDIA/nccl#863): a process that aborts while a neighbour is elsewhere (in its own wait, in a barrier) waits there
// until that neighbour aborts too. So the abort runs on a thread of its own, and the caller goes on at once (its
// streams free); the thread ends when the others have aborted (a plan's destroy makes them: ExchangeEngine::settle).
// MPI's finalize waits a little for such threads (free_nccl_cache).
std::atomic<int> aborting{0};
void abort_detached(ncclComm_t comm) {
  ++aborting;
  std::thread([comm] {
    SetupClock clock("NCCL communicator");
    ncclCommAbort(comm);
    clock.mark("ncclCommAbort");
    --aborting;
  }).detach();
}

// One NCCL communicator and the stream its groups run on: every set over it shares the stream, so that the
// communicator's operations run one after another in the order they were enqueued (NCCL's rule). The library's own
// communicators are destroyed with this; a user's is not.
class NcclCommunicator {
 public:
  NcclCommunicator(ncclComm_t comm, bool owned, const char* where) : comm_(comm), owned_(owned) {
    try {
      cuda_check(cudaGetDevice(&device_), where, "cudaGetDevice");
      int least = 0, greatest = 0;
      cuda_check(cudaDeviceGetStreamPriorityRange(&least, &greatest), where, "cudaDeviceGetStreamPriorityRange");
      cuda_check(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest), where,
                 "cudaStreamCreateWithPriority");
    } catch (...) {
      if (owned_) ncclCommDestroy(comm_);
      throw;
    }
  }
  ~NcclCommunicator() {
    SetupClock clock("NCCL communicator destroy");
    cudaStreamSynchronize(stream_);  // (groups still running)
    clock.mark("synchronize");
    if (owned_ && !aborted_) ncclCommDestroy(comm_);
    clock.mark("ncclCommDestroy");
    cudaStreamDestroy(stream_);
  }
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  ncclComm_t comm() const { return comm_; }
  cudaStream_t stream() const { return stream_; }
  bool aborted() const { return aborted_; }

  // A timeout: the library's communicator is aborted, so that its operations in flight end (ncclCommDestroy would
  // wait for them); the cache makes a new one for later plans. A user's is left to the user. From the watchdog's
  // thread too (a step's deadline): the library's calls on the communicator (calls()) and the abort's start take turns,
  // and none starts once it is aborted.
  void abort() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (owned_ && !aborted_.exchange(true)) abort_detached(comm_);
  }

  // The caller's turn to call NCCL on the communicator (held while it does); throws if it was aborted.
  std::unique_lock<std::mutex> calls(const char* where) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (aborted_)
      throw_error(ErrorCode::Transport, where, "transport", "the NCCL communicator was aborted after an earlier error");
    return lock;
  }

  // An error NCCL found asynchronously: the library's communicator is aborted (so that nothing waits on it), then it
  // throws.
  void check_async(const char* where) {
    ncclResult_t state = ncclSuccess;
    {
      const auto turn = calls(where);
      nccl_check(ncclCommGetAsyncError(comm_, &state), where, "ncclCommGetAsyncError");
    }
    if (state == ncclSuccess || state == ncclInProgress) return;
    abort();
    nccl_check(state, where, "an NCCL operation (reported asynchronously)");
  }

 private:
  ncclComm_t comm_ = nullptr;
  bool owned_ = false;
  std::mutex mutex_;  // (calls() and abort(): the caller's thread and the watchdog's)
  std::atomic<bool> aborted_{false};
  int device_ = 0;
  cudaStream_t stream_ = nullptr;
};

// Stream completion, device memory only, no tags (each peer's messages match in order).
TransportCapabilities nccl_capabilities() {
  TransportCapabilities c;
  c.completion = Completion::Stream;
  c.host_memory = false;
  c.device_memory = true;
  c.tags = false;
  return c;
}

// The transport over the processes of one MPI communicator: its ranks, mapped to the NCCL communicator's.
class NcclTransport final : public Transport {
 public:
  NcclTransport(std::shared_ptr<NcclCommunicator> comm, std::vector<int> nccl_rank, int rank)
      : comm_(std::move(comm)), nccl_rank_(std::move(nccl_rank)), rank_(rank) {}

  NcclCommunicator& communicator() const { return *comm_; }
  int nccl_rank(int peer) const { return nccl_rank_[peer]; }

  const char* name() const override { return "NCCL"; }
  TransportCapabilities capabilities() const override { return nccl_capabilities(); }
  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(nccl_rank_.size()); }
  std::unique_ptr<MessageSet> make_set(std::vector<ByteMessage> sends, std::vector<ByteMessage> receives,
                                       bool persistent, const char* where) override;

 private:
  std::shared_ptr<NcclCommunicator> comm_;
  std::vector<int> nccl_rank_;  // per rank of the MPI communicator
  int rank_ = 0;
};

class NcclMessageSet final : public MessageSet {
 public:
  NcclMessageSet(const NcclTransport& transport, std::vector<ByteMessage> sends, std::vector<ByteMessage> receives,
                 bool persistent, const char* where)
      : comm_(transport.communicator()), where_(where), receives_(std::move(receives)) {
    for (const auto* list : {&sends, &receives_})
      for (const ByteMessage& m : *list) {
        if (m.peer < 0 || m.peer >= transport.size())
          throw_error(ErrorCode::InvalidArgument, where, "peer",
                      "is " + std::to_string(m.peer) + ": NCCL needs a rank in [0, " +
                          std::to_string(transport.size()) + ") (no MPI_ANY_SOURCE, no MPI_PROC_NULL)");
        if (m.bytes < 0) throw_error(ErrorCode::InvalidArgument, where, "bytes", "is negative");
        if (m.bytes > 0) check_device(m.data, where);
      }
    // No tags: each peer's messages in ascending tag order on both sides (the seam's rule), then to NCCL's ranks.
    auto by_peer_then_tag = [](const ByteMessage& a, const ByteMessage& b) {
      return a.peer != b.peer ? a.peer < b.peer : a.tag < b.tag;
    };
    std::stable_sort(sends.begin(), sends.end(), by_peer_then_tag);
    std::vector<std::size_t> order(receives_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return by_peer_then_tag(receives_[a], receives_[b]); });
    for (ByteMessage m : sends) {
      m.peer = transport.nccl_rank(m.peer);
      sends_.push_back(m);
    }
    for (std::size_t i : order) {
      ByteMessage m = receives_[i];
      m.peer = transport.nccl_rank(m.peer);
      posted_receives_.push_back(m);
    }
    cuda_check(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming), where, "cudaEventCreateWithFlags");
    cuda_check(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming), where, "cudaEventCreateWithFlags");
    if (persistent) connect(where);
  }
  ~NcclMessageSet() override {
    watch_.stop();                         // (before what its tick reads goes)
    if (ready_) cudaEventDestroy(ready_);  // (released once the work recorded on them completes)
    if (done_) cudaEventDestroy(done_);
  }

  void post_receives() override { refuse(); }
  void post_sends() override { refuse(); }

  bool test() override {
    comm_.check_async(where_);
    return true;
  }

  void enqueue(StreamRef stream) override {
    comm_.check_async(where_);
    if (sends_.empty() && posted_receives_.empty()) return;  // (nothing to order: no events, no group)
    // The communicator's stream starts after the caller's work so far.
    cuda_check(cudaEventRecord(ready_, static_cast<cudaStream_t>(stream.native)), where_, "cudaEventRecord");
    cuda_check(cudaStreamWaitEvent(comm_.stream(), ready_, 0), where_, "cudaStreamWaitEvent");
    group(comm_.stream(), where_);
    cuda_check(cudaEventRecord(done_, comm_.stream()), where_, "cudaEventRecord");
    enqueued_ = true;
  }

  void join(StreamRef stream) override {
    if (!enqueued_) return;
    cuda_check(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream.native), done_, 0), where_, "cudaStreamWaitEvent");
  }

  // A group of a step begun and never completed would hold the communicator's stream forever: `failed` (a timeout
  // here, or a step the processes did not all complete: ExchangeEngine::settle, on every process) aborts the
  // communicator. Without `failed` nothing is given up: NCCL's abort completes only once every process aborts.
  void abandon(bool failed, double) override {
    if (failed) comm_.abort();
  }

  // A deadline: an event after the group on the stream it ran on; past the deadline with the group pending, the
  // watchdog's thread aborts the library's communicator (its kernels end) and the step has failed.
  void watch(StreamRef, double seconds) override {  // (the group runs on the communicator's stream)
    if (!enqueued_) return;
    deadlines_.add(comm_.stream(), seconds, where_);
    watch_.start([this] {
      if (!deadlines_.expired()) return;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (failure_.what.empty()) failure_ = {"its NCCL messages did not complete", {}, true};
      }
      comm_.abort();
    });
  }
  StepFailure failure() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return failure_;
  }

  Arrival arrival(std::size_t receive) const override {
    const ByteMessage& m = receives_.at(receive);
    return {m.peer, m.tag, m.bytes};  // (NCCL delivers exactly the bytes asked for)
  }

 private:
  // Every message as one group on stream s.
  void group(cudaStream_t s, const char* where) const {
    const auto turn = comm_.calls(where);
    const ncclComm_t c = comm_.comm();
    nccl_check(ncclGroupStart(), where, "ncclGroupStart");
    for (const ByteMessage& m : sends_)
      nccl_check(ncclSend(m.data, static_cast<size_t>(m.bytes), ncclChar, m.peer, c, s), where, "ncclSend");
    for (const ByteMessage& m : posted_receives_)
      nccl_check(ncclRecv(m.data, static_cast<size_t>(m.bytes), ncclChar, m.peer, c, s), where, "ncclRecv");
    nccl_check(ncclGroupEnd(), where, "ncclGroupEnd");
  }
  // NCCL connects two processes at their first messages (its runtime connect: proxy threads exchange memory handles,
  // hundreds of milliseconds when they share a core with the caller, as under mpiexec's default binding): a persistent
  // set runs its messages once while it is made, on the communicator's stream, so that no step pays for it. Its
  // peers make theirs at the same point (plans are made collectively), so the groups match.
  void connect(const char* where) const {
    if (sends_.empty() && posted_receives_.empty()) return;
    group(comm_.stream(), where);
    cuda_check(cudaStreamSynchronize(comm_.stream()), where, "cudaStreamSynchronize (connecting NCCL's peers)");
    comm_.check_async(where);
  }
  [[noreturn]] void refuse() const {
    throw_error(ErrorCode::InvalidArgument, where_, "transport",
                "NCCL enqueues messages on an execution space's stream: the host cannot post them");
  }
  static void check_device(const void* p, const char* where) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess ||
        (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)) {
      cudaGetLastError();  // (clear a query's error)
      throw_error(ErrorCode::Inaccessible, where, "buf", "is not device memory: NCCL moves device memory only");
    }
  }

  NcclCommunicator& comm_;  // (the transport, which owns it, outlives its sets)
  const char* where_;
  std::vector<ByteMessage> receives_;                 // as given (arrival() reports them)
  std::vector<ByteMessage> sends_, posted_receives_;  // in posting order, peers as NCCL ranks
  cudaEvent_t ready_ = nullptr, done_ = nullptr;
  bool enqueued_ = false;
  std::mutex mutex_;  // (failure_, shared with the watchdog's thread)
  StepFailure failure_;
  StreamDeadlines deadlines_;
  Watch watch_;  // (last: stopped first)
};

std::unique_ptr<MessageSet> NcclTransport::make_set(std::vector<ByteMessage> sends, std::vector<ByteMessage> receives,
                                                    bool persistent, const char* where) {
  return std::make_unique<NcclMessageSet>(*this, std::move(sends), std::move(receives), persistent, where);
}

// Which processes of comm share a GPU ("ranks a and b share the GPU id"), or "" when none do: every process compares
// the GPUs' PCI bus ids. Collective over comm.
std::string gpu_sharing(MPI_Comm comm, int rank, int size, const char* where) {
  constexpr int kId = 32;
  char mine[kId] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetPCIBusId(mine, kId, device) != cudaSuccess) {
    cudaGetLastError();
    std::snprintf(mine, kId, "unknown-%d", rank);  // (no id: assume distinct)
  }
  std::vector<char> all(static_cast<std::size_t>(kId) * size);
  mpi_check(MPI_Allgather(mine, kId, MPI_CHAR, all.data(), kId, MPI_CHAR, comm), where, "MPI_Allgather (GPU ids)");
  for (int a = 0; a < size; ++a)
    for (int b = a + 1; b < size; ++b)
      if (std::strncmp(&all[a * kId], &all[b * kId], kId) == 0)
        return "ranks " + std::to_string(a) + " and " + std::to_string(b) + " share the GPU " +
               std::string(&all[a * kId], strnlen(&all[a * kId], kId));
  return "";
}

// NCCL refuses two processes on one GPU ("invalid usage"): every process compares the GPUs' PCI bus ids first and
// throws the same clear error, before NCCL is asked.
void require_one_gpu_each(MPI_Comm comm, int rank, int size, const char* where) {
  const std::string shared = gpu_sharing(comm, rank, size, where);
  if (!shared.empty())
    throw_error(
        ErrorCode::InvalidArgument, where, "transport",
        "is NCCL, but " + shared + ": NCCL needs one GPU per process (use the MPI transport, or one GPU per rank)");
}

}  // namespace

bool nccl_one_gpu_each(MPI_Comm comm, const char* where) {
  int rank = 0, size = 1;
  mpi_check(MPI_Comm_rank(comm, &rank), where, "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm, &size), where, "MPI_Comm_size");
  return gpu_sharing(comm, rank, size, where).empty();
}

namespace {

// The library's communicators, one per group of processes (their ranks in MPI_COMM_WORLD, sorted: NCCL rank i is the
// i-th) and GPU, kept until MPI_Finalize (an attribute of MPI_COMM_SELF, whose attributes MPI deletes first) or
// free_cached_communicators().
struct GroupKey {
  int device = 0;
  std::vector<int> world;
  bool operator<(const GroupKey& o) const { return device != o.device ? device < o.device : world < o.world; }
};

struct Cache {
  std::mutex mutex;
  std::map<GroupKey, std::shared_ptr<NcclCommunicator>> library;
  std::map<ncclComm_t, std::weak_ptr<NcclCommunicator>> users;  // the user's, while plans use them (one stream each)
  bool finalize_hook = false;
};

Cache& cache() {
  static Cache* c = new Cache;  // (never destroyed: at exit, CUDA may be gone before a static's destructor runs)
  return *c;
}

// Called with the cache's mutex held.
void hook_finalize(Cache& c, const char* where) {
  if (c.finalize_hook) return;
  at_mpi_finalize(&free_nccl_cache, where);
  c.finalize_hook = true;
}

// The ranks in MPI_COMM_WORLD of comm's processes (MPI_UNDEFINED for a process outside it: a spawned one).
std::vector<int> world_ranks(MPI_Comm comm, int size, const char* where) {
  MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  mpi_check(MPI_Comm_group(comm, &group), where, "MPI_Comm_group");
  mpi_check(MPI_Comm_group(MPI_COMM_WORLD, &world), where, "MPI_Comm_group (MPI_COMM_WORLD)");
  std::vector<int> ranks(size), out(size);
  std::iota(ranks.begin(), ranks.end(), 0);
  const int rc = MPI_Group_translate_ranks(group, size, ranks.data(), world, out.data());
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  mpi_check(rc, where, "MPI_Group_translate_ranks");
  return out;
}

std::atomic<long> communicators_made{0};

// A new NCCL communicator over comm's processes, NCCL rank nccl_rank[r] for rank r. Collective over comm.
ncclComm_t make_nccl(MPI_Comm comm, int rank, const std::vector<int>& nccl_rank, const char* where) {
  SetupClock clock("NCCL communicator");
  struct {
    ncclUniqueId id;
    int ok;
  } root_says{};
  const int root = static_cast<int>(std::find(nccl_rank.begin(), nccl_rank.end(), 0) - nccl_rank.begin());
  ncclResult_t got = ncclSuccess;
  if (rank == root) {
    got = ncclGetUniqueId(&root_says.id);
    root_says.ok = got == ncclSuccess;
  }
  mpi_check(MPI_Bcast(&root_says, sizeof root_says, MPI_BYTE, root, comm), where, "MPI_Bcast (NCCL unique id)");
  if (!root_says.ok)
    throw_error(ErrorCode::Transport, where, "transport",
                rank == root ? std::string("ncclGetUniqueId failed: ") + ncclGetErrorString(got)
                             : "ncclGetUniqueId failed on rank " + std::to_string(root));
  clock.mark("unique id");
  ncclComm_t made = nullptr;
  nccl_check(ncclCommInitRank(&made, static_cast<int>(nccl_rank.size()), root_says.id, nccl_rank[rank]), where,
             "ncclCommInitRank");
  clock.mark("ncclCommInitRank");
  ++communicators_made;
  return made;
}

}  // namespace

std::shared_ptr<Transport> nccl_transport(MPI_Comm comm, const char* where) {
  int rank = 0, size = 1, device = 0;
  mpi_check(MPI_Comm_rank(comm, &rank), where, "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm, &size), where, "MPI_Comm_size");
  cuda_check(cudaGetDevice(&device), where, "cudaGetDevice");
  const std::vector<int> world = world_ranks(comm, size, where);
  const bool cacheable = std::find(world.begin(), world.end(), MPI_UNDEFINED) == world.end();
  GroupKey key{device, world};
  std::sort(key.world.begin(), key.world.end());
  std::vector<int> nccl_rank(size);  // NCCL rank of each rank of comm: its place among the group's world ranks
  for (int r = 0; r < size; ++r)
    nccl_rank[r] =
        cacheable ? static_cast<int>(std::lower_bound(key.world.begin(), key.world.end(), world[r]) - key.world.begin())
                  : r;
  Cache& c = cache();
  std::shared_ptr<NcclCommunicator> found;
  bool aborted = false;  // (this process aborted its communicator of the group: a timeout)
  if (cacheable) {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto at = c.library.find(key);
    if (at != c.library.end()) {
      if (at->second->aborted())
        aborted = true;
      else
        found = at->second;
    }
  }
  // Every process reuses its communicator, or every process makes a new one (one had none: freed, or new). Where one
  // process aborted the group's communicator, the others abort theirs too: ncclCommDestroy may hang or fail on a
  // communicator a peer aborted, and it is of no use any longer.
  Agreement everyone(comm, false, {found ? 1 : 0, aborted ? 1 : 0}, where);
  everyone.wait();
  if (everyone.max(1) == 1 && found) {
    found->abort();
    found.reset();
  }
  if (everyone.min(0) == 1) return std::make_shared<NcclTransport>(found, nccl_rank, rank);
  require_one_gpu_each(comm, rank, size, where);
  auto made = std::make_shared<NcclCommunicator>(make_nccl(comm, rank, nccl_rank, where), true, where);
  if (cacheable) {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.library[key] = made;
    hook_finalize(c, where);
  }
  return std::make_shared<NcclTransport>(made, nccl_rank, rank);
}

std::shared_ptr<Transport> nccl_transport_on(ncclComm* nccl, MPI_Comm comm, const char* where) {
  int rank = 0, size = 1;
  mpi_check(MPI_Comm_rank(comm, &rank), where, "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm, &size), where, "MPI_Comm_size");
  std::string error;
  int count = 0, mine = -1, device = -1, current = -1;
  if (!nccl) {
    error = "is nccl_from_raw(nullptr): no NCCL communicator";
  } else if (ncclCommCount(nccl, &count) != ncclSuccess || ncclCommUserRank(nccl, &mine) != ncclSuccess ||
             ncclCommCuDevice(nccl, &device) != ncclSuccess) {
    error = "is an NCCL communicator that NCCL cannot describe (ncclCommCount, ncclCommUserRank, ncclCommCuDevice)";
  } else if (count != size) {
    error = "is an NCCL communicator of " + std::to_string(count) + " ranks, but the MPI communicator has " +
            std::to_string(size) + " processes: they must be the same processes";
  } else if (cudaGetDevice(&current) != cudaSuccess || current != device) {
    cudaGetLastError();
    error = "is an NCCL communicator on GPU " + std::to_string(device) + ", but the current GPU is " +
            std::to_string(current) + ": make the plan with its GPU current";
  }
  throw_unless_agreed(comm, error, where, "transport");
  std::vector<int> nccl_rank(size);
  mpi_check(MPI_Allgather(&mine, 1, MPI_INT, nccl_rank.data(), 1, MPI_INT, comm), where, "MPI_Allgather (NCCL ranks)");
  std::vector<int> sorted = nccl_rank;
  std::sort(sorted.begin(), sorted.end());
  for (int r = 0; r < size; ++r)
    if (sorted[r] != r)  // (every process sees the same ranks: all throw)
      throw_error(ErrorCode::InvalidArgument, where, "transport",
                  "is an NCCL communicator whose processes are not the MPI communicator's (their NCCL ranks are not "
                  "0 .. " +
                      std::to_string(size - 1) + " once each)");
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  std::shared_ptr<NcclCommunicator> wrapper = c.users[nccl].lock();  // (one stream per user communicator)
  if (!wrapper) {
    wrapper = std::make_shared<NcclCommunicator>(nccl, false, where);
    c.users[nccl] = wrapper;
  }
  return std::make_shared<NcclTransport>(wrapper, nccl_rank, rank);
}

void free_nccl_cache() {
  Cache& c = cache();
  std::map<GroupKey, std::shared_ptr<NcclCommunicator>> dropped;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    dropped.swap(c.library);
  }
  dropped.clear();  // (here, outside the lock: each waits for its stream)
  (void)wait_until([] { return aborting.load() == 0; }, Deadline(5.0));  // (aborts still reclaiming: a little while)
}

long nccl_communicators_made() { return communicators_made.load(); }

TransportEntry nccl_transport_entry() {
  return {"nccl", nccl_capabilities(),
          [](const mpi::TransportChoice& choice, const std::shared_ptr<MpiTransport>& control, const char* where) {
            const MPI_Comm comm = control->comm();  // (the plan's control plane: every setup message goes there)
            return choice.users_own() ? nccl_transport_on(static_cast<ncclComm*>(choice.handle()), comm, where)
                                      : nccl_transport(comm, where);
          },
          &free_nccl_cache,
          [](const std::shared_ptr<MpiTransport>& control, const char* where) {
            return nccl_one_gpu_each(control->comm(), where);  // (NCCL refuses two processes on one GPU)
          }};
}

}  // namespace KokkosDDT::Impl
