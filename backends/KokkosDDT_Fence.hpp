#pragma once
// The fence that publishes a fused launch's writes before its host-visible completion flag. desul's fences are
// sequentially consistent (CUDA: __threadfence / __threadfence_system, MEMBAR.SC), stronger than the release the flag
// needs; CUDA's acquire-release fence (MEMBAR.ALL) does it for less. Measured on the H100 (fusion-2026-11-21-h100-
// kernel.txt): the fused kernel with no fences at all ran ~2 us shorter than with desul's; this fence, one per request
// instead of an SC fence per team, went in with the cheaper request lookup, the two together 10.2 -> 8.7-9.7 us.
// Other backends: desul's.

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
