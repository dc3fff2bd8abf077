#pragma once
// The fence that publishes a fused launch's writes before its host-visible completion flag. desul's fences are
// sequentially consistent (CUDA: __threadfence_system, MEMBAR.SC), stronger than the release the flag needs; on CUDA
// the acquire-release fence does it for less (the fused kernel's completion measured ~2 us shorter on the H100 without
// the SC fences, perf_tests/results/fusion-2026-11-21.md). Other backends: desul's.

#include <Kokkos_Core.hpp>
#include <desul/atomics.hpp>

namespace KokkosDDT::Impl {

// Orders this thread's earlier reads and writes, and those it has acquired, before its later writes, for observers
// anywhere in the node (the host included).
KOKKOS_FORCEINLINE_FUNCTION void fence_acq_rel_node() {
#if defined(__CUDA_ARCH__)
  asm volatile("fence.acq_rel.sys;" ::: "memory");
#else
  desul::atomic_thread_fence(desul::MemoryOrderAcqRel(), desul::MemoryScopeNode());
#endif
}

}  // namespace KokkosDDT::Impl
