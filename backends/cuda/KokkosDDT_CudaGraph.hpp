// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A CUDA graph of the work a function enqueues on an instance's stream (captured, not run), replayed as one launch:
// BackendTraits<Kokkos::Cuda>::Graph, what a plan's options.graph steps from. Errors come back as text (backends
// include no KokkosDDT core: the caller throws).

#include <Kokkos_Core.hpp>

#include <string>

namespace KokkosDDT::Impl {

class CudaGraph {
 public:
  CudaGraph() = default;
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;
  ~CudaGraph() {
    if (exec_) (void)cudaGraphExecDestroy(exec_);
    if (graph_) (void)cudaGraphDestroy(graph_);
  }

  bool captured() const { return exec_ != nullptr; }

  // Records what enqueue() puts on the instance's stream (and on the streams it forks from there). Capture is
  // thread-local: a call of this thread that CUDA cannot record (a synchronization, an allocation) fails the capture
  // instead of running. An exception from enqueue() ends the capture, recorded nothing, and goes on.
  template <class Enqueue>
  std::string capture(const Kokkos::Cuda& space, const Enqueue& enqueue) {
    const cudaStream_t stream = space.cuda_stream();
    if (const cudaError_t rc = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal); rc != cudaSuccess)
      return failed("cudaStreamBeginCapture", rc);
    try {
      enqueue();
    } catch (...) {
      cudaGraph_t partial = nullptr;
      (void)cudaStreamEndCapture(stream, &partial);
      if (partial) (void)cudaGraphDestroy(partial);
      (void)cudaGetLastError();
      throw;
    }
    if (const cudaError_t rc = cudaStreamEndCapture(stream, &graph_); rc != cudaSuccess)
      return failed("cudaStreamEndCapture", rc);
    if (const cudaError_t rc = cudaGraphInstantiate(&exec_, graph_, 0); rc != cudaSuccess) {
      (void)cudaGraphDestroy(graph_);  // (not captured: a later call records anew, leaking nothing)
      graph_ = nullptr;
      exec_ = nullptr;
      return failed("cudaGraphInstantiate", rc);
    }
    return "";
  }

  // The recorded work, once more, after the work enqueued on the instance so far.
  std::string launch(const Kokkos::Cuda& space) const {
    const cudaError_t rc = cudaGraphLaunch(exec_, space.cuda_stream());
    return rc == cudaSuccess ? "" : failed("cudaGraphLaunch", rc);
  }

 private:
  static std::string failed(const char* call, cudaError_t rc) {
    (void)cudaGetLastError();
    return std::string(call) + " failed: " + cudaGetErrorString(rc);
  }
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace KokkosDDT::Impl
