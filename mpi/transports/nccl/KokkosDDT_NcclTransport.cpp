// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_NcclTransport.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_MPIError.hpp"

namespace KokkosDDT::Impl {
namespace {

void nccl_check(ncclResult_t rc, const char* where, const char* call) {
  if (rc == ncclSuccess) return;
  throw_error(ErrorCode::Transport, where, "transport",
              std::string(call) + " failed: " + ncclGetErrorString(rc) + " (NCCL error " + std::to_string(rc) + ")");
}

class NcclComm final : public Transport {
 public:
  NcclComm(MPI_Comm comm, const char* where) {
    mpi_check(MPI_Comm_rank(comm, &rank_), where, "MPI_Comm_rank");
    mpi_check(MPI_Comm_size(comm, &size_), where, "MPI_Comm_size");
    require_one_gpu_each(comm, where);
    ncclUniqueId id{};
    if (rank_ == 0) nccl_check(ncclGetUniqueId(&id), where, "ncclGetUniqueId");
    mpi_check(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm), where, "MPI_Bcast (NCCL unique id)");
    nccl_check(ncclCommInitRank(&comm_, size_, id, rank_), where, "ncclCommInitRank");
  }
  ~NcclComm() override {
    if (aborted_) return;
    // The sets' groups have been enqueued on streams that may still run them: let them finish first.
    cudaDeviceSynchronize();
    ncclCommDestroy(comm_);
  }

  ncclComm_t comm() const { return comm_; }

  // NCCL refuses two processes on one GPU ("invalid usage"): every process compares the GPUs' PCI bus ids first and
  // throws the same clear error, before NCCL is asked.
  void require_one_gpu_each(MPI_Comm comm, const char* where) const {
    constexpr int kId = 32;
    char mine[kId] = {};
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetPCIBusId(mine, kId, device) != cudaSuccess) {
      cudaGetLastError();
      std::snprintf(mine, kId, "unknown-%d", rank_);  // (no id: assume distinct)
    }
    std::vector<char> all(static_cast<std::size_t>(kId) * size_);
    mpi_check(MPI_Allgather(mine, kId, MPI_CHAR, all.data(), kId, MPI_CHAR, comm), where, "MPI_Allgather (GPU ids)");
    for (int a = 0; a < size_; ++a)
      for (int b = a + 1; b < size_; ++b)
        if (std::strncmp(&all[a * kId], &all[b * kId], kId) == 0)
          throw_error(ErrorCode::InvalidArgument, where, "transport",
                      "is NCCL, but ranks " + std::to_string(a) + " and " + std::to_string(b) + " share the GPU " +
                          std::string(&all[a * kId], strnlen(&all[a * kId], kId)) +
                          ": NCCL needs one GPU per process (use the MPI transport, or one GPU per rank)");
  }
  // An error NCCL found asynchronously: abort the communicator (so that nothing waits on it) and throw.
  void check_async(const char* where) {
    if (aborted_)
      throw_error(ErrorCode::Transport, where, "transport", "the NCCL communicator was aborted after an earlier error");
    ncclResult_t state = ncclSuccess;
    nccl_check(ncclCommGetAsyncError(comm_, &state), where, "ncclCommGetAsyncError");
    if (state == ncclSuccess || state == ncclInProgress) return;
    ncclCommAbort(comm_);
    aborted_ = true;
    nccl_check(state, where, "an NCCL operation (reported asynchronously; the communicator is aborted)");
  }

  const char* name() const override { return "NCCL"; }
  Completion completion() const override { return Completion::Stream; }
  bool reaches_host_memory() const override { return false; }
  bool reaches_device_memory() const override { return true; }
  bool matches_tags() const override { return false; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::unique_ptr<MessageSet> make_set(std::vector<WireMessage> sends, std::vector<WireMessage> receives,
                                       bool persistent, const char* where) override;

 private:
  ncclComm_t comm_ = nullptr;
  int rank_ = 0, size_ = 1;
  bool aborted_ = false;
};

class NcclMessageSet final : public MessageSet {
 public:
  NcclMessageSet(NcclComm& comm, std::vector<WireMessage> sends, std::vector<WireMessage> receives, const char* where)
      : comm_(comm), where_(where), sends_(std::move(sends)), receives_(std::move(receives)) {
    for (const auto* list : {&sends_, &receives_})
      for (const WireMessage& m : *list) {
        if (m.peer < 0 || m.peer >= comm.size())
          throw_error(ErrorCode::InvalidArgument, where, "peer",
                      "is " + std::to_string(m.peer) + ": NCCL needs a rank in [0, " + std::to_string(comm.size()) +
                          ") (no MPI_ANY_SOURCE, no MPI_PROC_NULL)");
        if (m.bytes < 0) throw_error(ErrorCode::InvalidArgument, where, "bytes", "is negative");
        if (m.bytes > 0) check_device(m.data, where);
      }
    // No tags: each peer's messages in ascending tag order on both sides (the seam's rule).
    auto by_peer_then_tag = [](const WireMessage& a, const WireMessage& b) {
      return a.peer != b.peer ? a.peer < b.peer : a.tag < b.tag;
    };
    std::stable_sort(sends_.begin(), sends_.end(), by_peer_then_tag);
    order_.resize(receives_.size());
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::size_t a, std::size_t b) { return by_peer_then_tag(receives_[a], receives_[b]); });
  }

  void post_receives() override { refuse(); }
  void post_sends() override { refuse(); }

  bool test() override {
    comm_.check_async(where_);
    return true;
  }

  void enqueue(StreamRef stream) override {
    comm_.check_async(where_);
    auto s = static_cast<cudaStream_t>(stream.native);
    nccl_check(ncclGroupStart(), where_, "ncclGroupStart");
    for (const WireMessage& m : sends_)
      nccl_check(ncclSend(m.data, static_cast<size_t>(m.bytes), ncclChar, m.peer, comm_.comm(), s), where_, "ncclSend");
    for (std::size_t i : order_) {
      const WireMessage& m = receives_[i];
      nccl_check(ncclRecv(m.data, static_cast<size_t>(m.bytes), ncclChar, m.peer, comm_.comm(), s), where_, "ncclRecv");
    }
    nccl_check(ncclGroupEnd(), where_, "ncclGroupEnd");
  }

  Arrival arrival(std::size_t receive) const override {
    const WireMessage& m = receives_.at(receive);
    return {m.peer, m.tag, m.bytes};  // (NCCL delivers exactly the bytes asked for)
  }

 private:
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

  NcclComm& comm_;
  const char* where_;
  std::vector<WireMessage> sends_, receives_;
  std::vector<std::size_t> order_;  // receives in posting order
};

std::unique_ptr<MessageSet> NcclComm::make_set(std::vector<WireMessage> sends, std::vector<WireMessage> receives, bool,
                                               const char* where) {
  return std::make_unique<NcclMessageSet>(*this, std::move(sends), std::move(receives), where);
}

// The cache: a shared_ptr per MPI communicator, as an attribute (deleted with the communicator).
int nccl_keyval() {
  static int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    auto del = [](MPI_Comm, int, void* value, void*) -> int {
      delete static_cast<std::shared_ptr<NcclComm>*>(value);
      return MPI_SUCCESS;
    };
    mpi_check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &k, nullptr), "KokkosDDT NCCL transport",
              "MPI_Comm_create_keyval");
    return k;
  }();
  return keyval;
}

}  // namespace

std::shared_ptr<Transport> nccl_transport(MPI_Comm comm, const char* where) {
  void* value = nullptr;
  int found = 0;
  mpi_check(MPI_Comm_get_attr(comm, nccl_keyval(), &value, &found), where, "MPI_Comm_get_attr");
  if (found) return *static_cast<std::shared_ptr<NcclComm>*>(value);
  auto made = std::make_shared<NcclComm>(comm, where);
  mpi_check(MPI_Comm_set_attr(comm, nccl_keyval(), new std::shared_ptr<NcclComm>(made)), where, "MPI_Comm_set_attr");
  return made;
}

}  // namespace KokkosDDT::Impl
