// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Kokkos::Cuda instances on streams that live as long as the process (BackendTraits<Kokkos::Cuda>::instance_on), one
// per stream, made on first use and dropped by Kokkos::finalize.

#include <Kokkos_Core.hpp>

#include <map>
#include <mutex>

namespace KokkosDDT::Impl {

inline Kokkos::Cuda cuda_instance_on(cudaStream_t stream) {
  struct Instances {
    std::mutex mutex;
    std::map<cudaStream_t, Kokkos::Cuda> on;
    bool hooked = false;
  };
  static Instances* all = new Instances;  // (never destroyed: emptied by Kokkos::finalize)
  std::lock_guard<std::mutex> lock(all->mutex);
  auto it = all->on.find(stream);
  if (it != all->on.end()) return it->second;
  if (!all->hooked) {
    Kokkos::push_finalize_hook([] {
      std::lock_guard<std::mutex> lock(all->mutex);
      all->on.clear();
      all->hooked = false;
    });
    all->hooked = true;
  }
  return all->on.emplace(stream, Kokkos::Cuda(stream)).first->second;
}

}  // namespace KokkosDDT::Impl
