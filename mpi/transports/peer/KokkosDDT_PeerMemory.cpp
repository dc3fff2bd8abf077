// SPDX-License-Identifier: BSD-3-Clause
#include "KokkosDDT_PeerMemory.hpp"

#include <cuda.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "KokkosDDT_Error.hpp"
#include "KokkosDDT_PeerCuda.hpp"
#include "KokkosDDT_Settings.hpp"

namespace KokkosDDT::Impl {

namespace {

// ---------------------------------------------------------------------------------------------------- mappings
struct Mapping {
  cudaIpcMemHandle_t handle{};
  char* at = nullptr;
  int users = 0;
  std::list<std::pair<std::int64_t, std::int64_t>>::iterator idle;  // its place among the idle ones (users == 0)
};

std::size_t idle_limit() { return static_cast<std::size_t>(settings().peer_idle_mappings); }

// A block of this process's step counters: one allocation per plan's run (runs of several plans in one allocation slow
// their steps), kept when the plan goes for the next plan that needs as many counters or a few more, so that its peers'
// mappings of it stay valid.
struct CounterBlock {
  int device = 0;
  char* base = nullptr;
  cudaIpcMemHandle_t handle{};
  std::int64_t slots = 0;
  bool used = false;
};
constexpr std::int64_t kLine = 16;       // (slots per 128-byte line: a block is whole lines)
constexpr std::size_t kIdleBlocks = 64;  // (more idle blocks are freed, the oldest first)

struct Export {
  cudaIpcMemHandle_t handle{};
  char* base = nullptr;
};

// Everything above, per process, behind one lock (never destroyed: plans may outlive static destruction).
struct PeerMemory {
  std::mutex mutex;
  std::map<std::pair<std::int64_t, std::int64_t>, Mapping> mappings;  // (owner, base)
  std::list<std::pair<std::int64_t, std::int64_t>> idle;              // least recently used first
  std::int64_t opened = 0;
  std::vector<CounterBlock> blocks;                         // (idle ones in the order they became idle)
  std::vector<std::pair<int, LandingBuffer>> idle_landing;  // (device, buffer)
  std::int64_t landing_buffers = 0;
  std::map<unsigned long long, Export> exports;     // by buffer id
  std::vector<std::pair<int, StepStream>> streams;  // idle, (device, stream)
};
PeerMemory& memory() {
  static PeerMemory* m = new PeerMemory;
  return *m;
}

void close_mapping(PeerMemory& m, std::map<std::pair<std::int64_t, std::int64_t>, Mapping>::iterator it) {
  (void)cudaIpcCloseMemHandle(it->second.at);
  (void)cudaGetLastError();
  m.mappings.erase(it);
}

int current_device(const char* where) {
  int device = 0;
  cuda_check(cudaGetDevice(&device), where, "cudaGetDevice");
  return device;
}

}  // namespace

char* map_peer(std::int64_t owner, std::int64_t base, const cudaIpcMemHandle_t& handle, const char* where) {
  PeerMemory& m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  const std::pair<std::int64_t, std::int64_t> key{owner, base};
  auto it = m.mappings.find(key);
  if (it != m.mappings.end() && std::memcmp(&it->second.handle, &handle, sizeof handle) != 0) {
    if (it->second.users > 0)
      throw_error(ErrorCode::Transport, where, "transport",
                  "a peer freed and reallocated memory that a live plan still maps (fields must stay allocated while "
                  "plans over the peer transport use them)");
    m.idle.erase(it->second.idle);  // (its owner freed it: the new allocation at that address is another)
    close_mapping(m, it);
    it = m.mappings.end();
  }
  if (it != m.mappings.end()) {
    if (it->second.users++ == 0) m.idle.erase(it->second.idle);
    return it->second.at;
  }
  void* at = nullptr;
  cudaError_t opened = cudaIpcOpenMemHandle(&at, handle, cudaIpcMemLazyEnablePeerAccess);
  if (opened == cudaErrorAlreadyMapped) {
    // The memory is open here under another key: an idle mapping of an allocation its owner has freed, whose memory
    // the owner's new allocation reuses at another address. The owner's idle mappings are closed, then it is mapped.
    (void)cudaGetLastError();
    for (auto i = m.idle.begin(); i != m.idle.end();) {
      if (i->first != owner) {
        ++i;
        continue;
      }
      close_mapping(m, m.mappings.find(*i));
      i = m.idle.erase(i);
    }
    opened = cudaIpcOpenMemHandle(&at, handle, cudaIpcMemLazyEnablePeerAccess);
    if (opened == cudaErrorAlreadyMapped) {  // (a mapping that is not ours to close, or one a live plan uses)
      (void)cudaGetLastError();
      return nullptr;
    }
  }
  cuda_check(opened, where, "cudaIpcOpenMemHandle");
  ++m.opened;
  Mapping& made = m.mappings[key];
  made.handle = handle;
  made.at = static_cast<char*>(at);
  made.users = 1;
  return made.at;
}

void unmap_peer(std::int64_t owner, std::int64_t base) {
  PeerMemory& m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.mappings.find({owner, base});
  if (it == m.mappings.end() || --it->second.users > 0) return;
  it->second.idle = m.idle.insert(m.idle.end(), it->first);
  while (m.idle.size() > idle_limit()) {  // (the least recently used first)
    auto oldest = m.mappings.find(m.idle.front());
    m.idle.pop_front();
    close_mapping(m, oldest);
  }
}

CounterRun take_counters(std::int64_t slots, const char* where) {
  PeerMemory& m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  const int device = current_device(where);
  const std::int64_t want = (slots + kLine - 1) / kLine * kLine;
  // An idle block of this device that fits (zeroed when it was given back), the most recently idle first: a plan made
  // again takes the block the last one gave back, which its peers still map (no new mapping for them).
  for (auto it = m.blocks.rbegin(); it != m.blocks.rend(); ++it)
    if (CounterBlock& b = *it; !b.used && b.device == device && b.slots >= want && b.slots <= 2 * want) {
      b.used = true;
      return {b.base, b.handle, 0, slots};
    }
  CounterBlock b;
  b.device = device;
  b.slots = want;
  void* base = nullptr;
  cuda_check(cudaMalloc(&base, 8 * want), where, "cudaMalloc (step counters)");
  b.base = static_cast<char*>(base);
  try {
    const SideStream side;  // (zeroed before a peer may write: synchronized when `side` goes)
    if (!side.stream) cuda_failed(where, "cudaStreamCreate", "no stream to zero the step counters on");
    cuda_check(cudaMemsetAsync(b.base, 0, 8 * want, side.stream), where, "cudaMemsetAsync (step counters)");
    cuda_check(cudaIpcGetMemHandle(&b.handle, b.base), where, "cudaIpcGetMemHandle (step counters)");
  } catch (...) {
    (void)cudaFree(b.base);
    throw;
  }
  b.used = true;
  m.blocks.push_back(b);
  return {b.base, b.handle, 0, slots};
}

void give_back_counters(const CounterRun& run) {
  if (!run.base || run.slots == 0) return;
  PeerMemory& m = memory();
  auto block = [&] {
    return std::find_if(m.blocks.begin(), m.blocks.end(), [&](const CounterBlock& b) { return b.base == run.base; });
  };
  std::int64_t slots = 0;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    if (auto it = block(); it != m.blocks.end()) slots = it->slots;
  }
  {
    const SideStream side;  // (zeroed before any plan takes it again: synchronized here)
    if (!side.stream || cudaMemsetAsync(run.base, 0, 8 * slots, side.stream) != cudaSuccess) {
      (void)cudaGetLastError();
      return;  // (left taken: never handed out unzeroed)
    }
  }
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = block();
  if (it == m.blocks.end()) return;
  CounterBlock b = *it;
  b.used = false;
  m.blocks.erase(it);
  m.blocks.push_back(b);  // (the most recently idle last)
  std::size_t idle = 0;
  for (const CounterBlock& c : m.blocks) idle += c.used ? 0 : 1;
  for (auto i = m.blocks.begin(); idle > kIdleBlocks && i != m.blocks.end();) {
    if (i->used) {
      ++i;
      continue;
    }
    (void)cudaFree(i->base);
    (void)cudaGetLastError();
    i = m.blocks.erase(i);
    --idle;
  }
}

LandingBuffer take_landing(std::int64_t bytes, const char* where) {
  PeerMemory& m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  const int device = current_device(where);
  auto best = m.idle_landing.end();  // the smallest idle buffer that is large enough
  for (auto it = m.idle_landing.begin(); it != m.idle_landing.end(); ++it)
    if (it->first == device && it->second.bytes >= bytes &&
        (best == m.idle_landing.end() || it->second.bytes < best->second.bytes))
      best = it;
  if (best != m.idle_landing.end()) {
    const LandingBuffer b = best->second;
    m.idle_landing.erase(best);
    return b;
  }
  LandingBuffer b;
  void* base = nullptr;
  cuda_check(cudaMalloc(&base, bytes), where, "cudaMalloc (landing buffers)");
  b.base = static_cast<char*>(base);
  b.bytes = bytes;
  if (cudaIpcGetMemHandle(&b.handle, b.base) != cudaSuccess) {
    (void)cudaGetLastError();
    (void)cudaFree(b.base);
    cuda_failed(where, "cudaIpcGetMemHandle (landing buffers)", "the buffer cannot be exported");
  }
  ++m.landing_buffers;
  return b;
}

void give_back_landing(const LandingBuffer& buffer) {
  if (!buffer.base) return;
  constexpr std::size_t kIdleLanding = 4;
  PeerMemory& m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  int device = 0;
  (void)cudaGetDevice(&device);
  m.idle_landing.emplace_back(device, buffer);
  if (m.idle_landing.size() > kIdleLanding) {  // (the oldest goes)
    (void)cudaFree(m.idle_landing.front().second.base);
    (void)cudaGetLastError();
    m.idle_landing.erase(m.idle_landing.begin());
    --m.landing_buffers;
  }
}

bool device_range(int device, char* lo, char* hi) {
  auto on_device = [device](char* p) {
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    unsigned int type = 0;
    int ordinal = -1;
    void* values[] = {&type, &ordinal};
    return cuPointerGetAttributes(2, attrs, values, reinterpret_cast<CUdeviceptr>(p)) == CUDA_SUCCESS &&
           type == CU_MEMORYTYPE_DEVICE && ordinal == device;
  };
  return hi > lo && on_device(lo) && on_device(hi - 1);
}

bool export_range(int device, char* lo, char* hi, cudaIpcMemHandle_t& handle, char*& base) {
  // One driver call for every fact (it answers for any pointer: host memory reads as no device, no range).
  CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                 CU_POINTER_ATTRIBUTE_IS_MANAGED,  CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                 CU_POINTER_ATTRIBUTE_RANGE_SIZE,  CU_POINTER_ATTRIBUTE_BUFFER_ID};
  unsigned int type = 0;
  int ordinal = -1;
  int managed = 0;
  CUdeviceptr start = 0;
  size_t size = 0;
  unsigned long long id = 0;
  void* values[] = {&type, &ordinal, &managed, &start, &size, &id};
  if (cuPointerGetAttributes(6, attrs, values, reinterpret_cast<CUdeviceptr>(lo)) != CUDA_SUCCESS) return false;
  if (type != CU_MEMORYTYPE_DEVICE || ordinal != device || managed || start == 0) return false;
  base = reinterpret_cast<char*>(start);
  if (hi > base + size) return false;
  PeerMemory& m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.exports.find(id);
  if (it == m.exports.end() || it->second.base != base) {
    Export e;
    e.base = base;
    if (cudaIpcGetMemHandle(&e.handle, base) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    if (m.exports.size() >= 1024) m.exports.clear();  // (bounded: ids of freed allocations never come back)
    it = m.exports.insert_or_assign(id, e).first;
  }
  handle = it->second.handle;
  return true;
}

StepStream take_stream(const char* where) {
  PeerMemory& m = memory();
  const int device = current_device(where);
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    for (auto it = m.streams.begin(); it != m.streams.end(); ++it)
      if (it->first == device) {
        const StepStream s = it->second;
        m.streams.erase(it);
        return s;
      }
  }
  StepStream s;
  int least = 0, greatest = 0;
  cuda_check(cudaDeviceGetStreamPriorityRange(&least, &greatest), where, "cudaDeviceGetStreamPriorityRange");
  cuda_check(cudaStreamCreateWithPriority(&s.stream, cudaStreamNonBlocking, greatest), where, "cudaStreamCreate");
  if (cudaEventCreateWithFlags(&s.forked, cudaEventDisableTiming) != cudaSuccess ||
      cudaEventCreateWithFlags(&s.joined, cudaEventDisableTiming) != cudaSuccess) {
    (void)cudaGetLastError();
    if (s.forked) (void)cudaEventDestroy(s.forked);
    (void)cudaStreamDestroy(s.stream);
    cuda_failed(where, "cudaEventCreate", "no event for the step's stream");
  }
  return s;
}

void give_back_stream(const StepStream& s) {
  if (!s.stream) return;
  PeerMemory& m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  int device = 0;
  (void)cudaGetDevice(&device);
  m.streams.emplace_back(device, s);
}

PeerMemoryStats peer_memory_stats() {
  PeerMemory& m = memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  PeerMemoryStats s;
  s.opened = m.opened;
  s.open = static_cast<std::int64_t>(m.mappings.size());
  for (const auto& [key, mapping] : m.mappings) s.used += mapping.users > 0 ? 1 : 0;
  s.counter_blocks = static_cast<std::int64_t>(m.blocks.size());
  s.landing_buffers = m.landing_buffers;
  return s;
}

}  // namespace KokkosDDT::Impl
