// SPDX-License-Identifier: BSD-3-Clause
// A timeline of a process's GPU work where Nsight Systems is not installed (the lent GPU machines have ncu, whose
// kernels are serialized, but no nsys): a Kokkos Tools library that records, through CUPTI's activity API, every
// kernel, memcpy and memset with its device, stream and start and end, on request every CUDA driver and runtime call
// with its host start and end, and Kokkos's profile regions, all in CUPTI's one timebase (comparable between the
// processes of one host).
//
//   KOKKOS_TOOLS_LIBS=$PWD/libkokkosddt_timeline.so KOKKOSDDT_TIMELINE=out/trace mpiexec -n 2 jacobi_bench ...
//
// (KOKKOSDDT_TIMELINE_API=1 adds the driver's and the runtime's calls, at a cost to the host: see below), and
// writes out/trace.<rank>.csv at Kokkos::finalize (the rank from Open MPI's or a PMI launcher's environment). Rows:
//   kernel,<demangled name>,device,stream,start_ns,end_ns,correlation,graph_node
//   memcpy|memset,<kind>,device,stream,start_ns,end_ns,correlation,bytes
//   api,<driver function>,thread,0,start_ns,end_ns,correlation,0
//   region,<name>,0,0,start_ns,end_ns,0,0
// Stream memory operations (cuStreamWaitValue, cuStreamWriteValue, batches of them) are not GPU activities in CUPTI:
// only their driver calls appear, and the time a stream waits shows as the gap before its next kernel.
// perf_tests/timeline/step_timeline.py reads the files.
#include <cuda.h>
#include <cupti.h>
#include <cxxabi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct Row {
  std::string what, name;
  std::uint64_t a = 0, b = 0, start = 0, end = 0, correlation = 0, extra = 0;
};

std::mutex rows_mutex;
std::vector<Row> rows;
std::vector<std::pair<std::string, std::uint64_t>> open_regions;  // (Kokkos calls regions on one thread)

void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  std::fprintf(stderr, "kokkosddt_timeline: %s: %s\n", what, text ? text : "?");
}

std::string demangled(const char* name) {
  if (name == nullptr) return "?";
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string s = status == 0 && d ? d : name;
  std::free(d);
  for (char& c : s)
    if (c == ',' || c == '\n') c = ';';  // (one CSV field)
  return s.size() > 300 ? s.substr(0, 300) : s;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 8 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void record(const CUpti_Activity* a) {
  Row r;
  switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(a);
      r = {"kernel", demangled(k->name), k->deviceId, k->streamId, k->start, k->end, k->correlationId, k->graphNodeId};
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(a);
      r = {"memcpy", std::to_string(m->copyKind), m->deviceId, m->streamId, m->start, m->end, m->correlationId,
           m->bytes};
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(a);
      r = {"memset", "memset", m->deviceId, m->streamId, m->start, m->end, m->correlationId, m->bytes};
      break;
    }
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_RUNTIME: {
      const auto* c = reinterpret_cast<const CUpti_ActivityAPI*>(a);
      const char* name = nullptr;
      cuptiGetCallbackName(
          a->kind == CUPTI_ACTIVITY_KIND_DRIVER ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, c->cbid,
          &name);
      r = {"api", name ? name : "?", c->threadId, 0, c->start, c->end, c->correlationId, 0};
      break;
    }
    default:
      return;
  }
  rows.push_back(std::move(r));
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* a = nullptr;
  {
    std::lock_guard<std::mutex> lock(rows_mutex);
    while (cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS) record(a);
  }
  std::free(buffer);
}

std::uint64_t now() {
  std::uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

std::string rank_text() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"})
    if (const char* r = std::getenv(v)) return r;
  return "0";
}

}  // namespace

extern "C" {

void kokkosp_init_library(int, uint64_t, uint32_t, void*) {
  check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "register");
  for (CUpti_ActivityKind k :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET})
    check(cuptiActivityEnable(k), "enable");
  // The API calls cost the host microseconds per launch under CUPTI (jacobi_bench's sweeps alone: 14.1 -> 20.3 us
  // per iteration on an H100 with them): only on request.
  const char* api = std::getenv("KOKKOSDDT_TIMELINE_API");
  if (api && std::string(api) == "1") {
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER), "enable driver");
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), "enable runtime");
  }
}

void kokkosp_push_profile_region(const char* name) { open_regions.emplace_back(name, now()); }

void kokkosp_pop_profile_region() {
  if (open_regions.empty()) return;
  const std::uint64_t end = now();
  std::lock_guard<std::mutex> lock(rows_mutex);
  rows.push_back({"region", open_regions.back().first, 0, 0, open_regions.back().second, end, 0, 0});
  open_regions.pop_back();
}

void kokkosp_finalize_library() {
  check(cuptiActivityFlushAll(1), "flush");
  const char* prefix = std::getenv("KOKKOSDDT_TIMELINE");
  const std::string path = std::string(prefix ? prefix : "timeline") + "." + rank_text() + ".csv";
  FILE* out = std::fopen(path.c_str(), "w");
  if (out == nullptr) {
    std::fprintf(stderr, "kokkosddt_timeline: cannot write %s\n", path.c_str());
    return;
  }
  std::fprintf(out, "what,name,a,b,start_ns,end_ns,correlation,extra\n");
  std::lock_guard<std::mutex> lock(rows_mutex);
  for (const Row& r : rows)
    std::fprintf(out, "%s,%s,%llu,%llu,%llu,%llu,%llu,%llu\n", r.what.c_str(), r.name.c_str(),
                 static_cast<unsigned long long>(r.a), static_cast<unsigned long long>(r.b),
                 static_cast<unsigned long long>(r.start), static_cast<unsigned long long>(r.end),
                 static_cast<unsigned long long>(r.correlation), static_cast<unsigned long long>(r.extra));
  std::fclose(out);
  std::fprintf(stderr, "kokkosddt_timeline: %zu rows in %s\n", rows.size(), path.c_str());
}

}  // extern "C"
