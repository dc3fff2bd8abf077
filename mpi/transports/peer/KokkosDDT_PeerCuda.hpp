// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The peer transport's CUDA calls: errors as KokkosDDT::Error(Transport) naming the call, and a stream of its own for
// the operations of teardown and timeouts (the process's streams may be the ones waiting).

#include <cuda.h>
#include <cuda_runtime.h>

#include <string>

#include "KokkosDDT_Error.hpp"

namespace KokkosDDT::Impl {

[[noreturn]] inline void cuda_failed(const char* where, const char* call, const std::string& what) {
  throw_error(ErrorCode::Transport, where, "transport",
              std::string("the peer transport's ") + call + " failed: " + what);
}
inline void cuda_check(cudaError_t e, const char* where, const char* call) {
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();  // (a failed call leaves its error for the next one otherwise)
  cuda_failed(where, call, cudaGetErrorString(e));
}
inline void driver_check(CUresult r, const char* where, const char* call) {
  if (r == CUDA_SUCCESS) return;
  const char* text = nullptr;
  cuGetErrorString(r, &text);
  cuda_failed(where, call, text ? text : "unknown driver error");
}

// A non-blocking stream, synchronized and destroyed with this; null when CUDA refuses one (nothing throws here).
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

}  // namespace KokkosDDT::Impl
