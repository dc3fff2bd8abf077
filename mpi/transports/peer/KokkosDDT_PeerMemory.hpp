// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the peer transport keeps per process, across plans, so that a plan re-made over the same fields allocates and
// maps nothing (MPICH and MVAPICH keep such an IPC cache):
//
//   mappings  peers' allocations mapped into this process (CUDA opens an exported allocation once per process), keyed
//             by their owner (its pid: only processes of one node map each other) and base address, shared by the
//             plans that write them. A mapping no plan uses stays open (idle), up to KOKKOSDDT_PEER_IDLE_MAPPINGS
//             (default 64; 0: closed as soon as no plan uses it), the least recently used closed first. An IPC handle
//             names one allocation (CUDA gives a reallocation at the same address a new one), so an offer whose
//             handle differs from an open mapping's says that the owner freed that allocation: an idle mapping is then
//             closed and the new allocation mapped; one that a live plan uses is an error (that plan would write the
//             freed memory).
//   counters  this process's step counters: a block of 8-byte counters per plan, allocated and exported once; a plan
//             gives its block back, zeroed, at its destroy once every process has left the plan (no peer writes it
//             any longer), and the next plan that needs as many takes it. Peers map a block once.
//   landing   the landed receives' buffers: a destroyed plan's buffer stays allocated (a few of them) for the next plan
//             that needs as many bytes or fewer, so peers' mappings of it stay valid.
//   exports   this process's allocations' IPC handles, keyed by CUDA's buffer id (unique per allocation ever made).
//   streams   the steps' own streams (with their two events), handed back idle at a plan's destroy and never
//             destroyed: an engine keeps a Kokkos instance on one (Step::own_stream), found again by the next plan.

#include <cuda_runtime.h>

#include <cstdint>

namespace KokkosDDT::Impl {

// A peer's allocation mapped here (users: the plans that write it); unmap_peer when a plan no longer does. nullptr
// where CUDA says its memory is mapped in this process already by a mapping this transport cannot close: another
// library's IPC cache (a CUDA-aware MPI keeps its mappings of buffers their owner has freed, and the owner's next
// allocation may reuse that memory), or a live plan's mapping of a field its owner freed. The caller then takes
// another route; every other failure throws.
char* map_peer(std::int64_t owner, std::int64_t base, const cudaIpcMemHandle_t& handle, const char* where);
void unmap_peer(std::int64_t owner, std::int64_t base);

// A run of this process's step counters: `slots` zeroed 8-byte counters at `at` (byte `offset` into the exported
// allocation `base`, whose IPC handle is `handle`).
struct CounterRun {
  char* base = nullptr;
  cudaIpcMemHandle_t handle{};
  std::int64_t offset = 0;
  std::int64_t slots = 0;
  char* at() const { return base + offset; }
};
CounterRun take_counters(std::int64_t slots, const char* where);
void give_back_counters(const CounterRun& run);  // (zeroes them: the next plan's steps count from 1)

// A landed receives' buffer of at least `bytes`, exported.
struct LandingBuffer {
  char* base = nullptr;
  std::int64_t bytes = 0;
  cudaIpcMemHandle_t handle{};
};
LandingBuffer take_landing(std::int64_t bytes, const char* where);
void give_back_landing(const LandingBuffer& buffer);

// A step's own stream, of the device's highest priority, and the events that fork it from and join it to a caller's.
struct StepStream {
  cudaStream_t stream = nullptr;
  cudaEvent_t forked = nullptr, joined = nullptr;
};
StepStream take_stream(const char* where);
void give_back_stream(const StepStream& s);  // (idle: nothing left on it)

// The allocation of GPU `device`'s memory that holds bytes [lo, hi), exported (its handle and base); false if there is
// none (host or managed memory, several allocations, memory that legacy IPC cannot export: pools, VMM).
bool export_range(int device, char* lo, char* hi, cudaIpcMemHandle_t& handle, char*& base);

// Whether bytes [lo, hi) begin and end in GPU `device`'s memory, in one allocation or several (a landed receive: this
// process's own kernel unpacks it into its cells, which need no export).
bool device_range(int device, char* lo, char* hi);

// What a process holds (tests: a re-made plan maps nothing new; a loop of plans keeps the open mappings flat).
struct PeerMemoryStats {
  std::int64_t opened = 0;           // cudaIpcOpenMemHandle calls so far
  std::int64_t open = 0;             // mappings open now
  std::int64_t used = 0;             // of which a live plan uses
  std::int64_t counter_blocks = 0;   // allocated (in use or idle)
  std::int64_t landing_buffers = 0;  // allocated (in use or idle)
};
PeerMemoryStats peer_memory_stats();

}  // namespace KokkosDDT::Impl
