// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_MpiGpuAware.hpp"

#include <mpi.h>
#if defined(OPEN_MPI) && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif

#include <atomic>
#include <optional>

#include "KokkosDDT_Settings.hpp"

namespace KokkosDDT::mpi {

namespace {

std::atomic<int> forced{-1};  // set_gpu_aware: -1 none, else 0/1

bool detect() {
  if (const std::optional<bool> set = Impl::settings().mpi_gpu_aware) return *set;
#if defined(OPEN_MPI) && defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#elif defined(MPICH_NUMVERSION) && MPICH_NUMVERSION >= 40000000
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

}  // namespace

bool gpu_aware() {
  const int f = forced.load(std::memory_order_relaxed);
  if (f >= 0) return f == 1;
  static const bool detected = detect();  // (after MPI_Init: the queries need an initialized MPI)
  return detected;
}

void set_gpu_aware(bool aware) { forced.store(aware ? 1 : 0, std::memory_order_relaxed); }

}  // namespace KokkosDDT::mpi
