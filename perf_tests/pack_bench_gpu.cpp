// SPDX-License-Identifier: BSD-3-Clause
// GPU pack benchmark (CUDA): KokkosDDT against what a CUDA/Kokkos user would pick instead, on the seed's
// microbenchmark types (jenkins-tpds14 Sec. 4.1), in one run so that ratios compare like with like:
//   hand-written type-specific kernels, cudaMemcpy2DAsync / iterative cudaMemcpy3DAsync / per-block cudaMemcpyAsync,
//   Kokkos::deep_copy of the equivalent subview, and MPICH's engine yaksa when it was found at build time.
// Device-to-device packs are timed with CUDA events on one stream (median of >= 20 repetitions after warm-up);
// comparisons with yaksa, whose pack is blocking, use host wall time including completion for both.
// Device-to-host packs write straight into pinned host memory (zero-copy) and are compared with the D2H memcpy
// bandwidth measured in the same run.
//
//   pack_bench_gpu [--quick] [--profile] [--csv FILE] [--only SECTION]
//
// SECTION: one table of limits, latency, contiguous, vector, subarray, indexed, struct, d2h, copy (default: all).
//
// Prints one table per section and writes every measurement as CSV (section,type,block_bytes,packed_bytes,
// contender,us). Every contender's output is compared with KokkosDDT's on the device; a mismatch is reported.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>
#include <KokkosDDT.hpp>

#include "support/Options.hpp"
#include "support/Timing.hpp"
// (the unit tests' random nested types and reference flattening, for the typed copies: unit_tests/support)
#include "RandomTypes.hpp"
#include "Reference.hpp"

#if defined(KOKKOSDDT_HAVE_YAKSA)
extern "C" {
#include <yaksa.h>
}
#endif

#define CK(x)                                                                                       \
  do {                                                                                              \
    cudaError_t e_ = (x);                                                                           \
    if (e_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

namespace {

using KokkosDDT::Datatype;
cudaStream_t g_stream;
bool g_quick = false;
int g_max_reps = 1 << 30;  // --profile: every contender runs a few times (under ncu, which replays each launch)
int g_mismatches = 0;
FILE* g_csv = nullptr;

// ------------------------------------------------------------------------------------------------ timing

// Median device time (us) between events around fn(), which enqueues on g_stream.
double event_us(const std::function<void()>& fn, int reps = 20) {
  reps = std::min(reps, g_max_reps);
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) fn();
  CK(cudaStreamSynchronize(g_stream));
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a, g_stream));
    fn();
    CK(cudaEventRecord(b, g_stream));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1000.0);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return bench::median(t);
}

// Median host wall time (us) of fn(), which must complete its work before returning. A call slower than 0.2 s is
// timed once (yaksa packs some types element by element from the host: seconds per call).
double wall_us(const std::function<void()>& fn, int reps = 50) {
  Kokkos::Timer first;
  fn();
  if (first.seconds() > 0.2) return first.seconds() * 1e6;
  return bench::median_us(std::min(reps, g_max_reps), fn, 2);
}

int reps_for(std::int64_t bytes) { return bytes >= (std::int64_t(64) << 20) ? 10 : 30; }

void record(const char* section, const std::string& type, int block, std::int64_t packed, const char* contender,
            double us) {
  std::fprintf(g_csv, "%s,%s,%d,%lld,%s,%.3f\n", section, type.c_str(), block, static_cast<long long>(packed),
               contender, us);
}

// ------------------------------------------------------------------------------------------------ buffers

__global__ void fill_kernel(std::uint64_t* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = (i + seed) * 0x9e3779b97f4a7c15ull;
}

struct DeviceBuffer {
  char* p = nullptr;
  std::size_t bytes = 0;
  explicit DeviceBuffer(std::size_t n) : bytes(n) {
    CK(cudaMalloc(&p, std::max<std::size_t>(n, 16)));
    fill_kernel<<<1024, 256, 0, g_stream>>>(reinterpret_cast<std::uint64_t*>(p), n / 8, n);
    CK(cudaStreamSynchronize(g_stream));
  }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct PinnedBuffer {
  char* p = nullptr;
  explicit PinnedBuffer(std::size_t n) { CK(cudaMallocHost(&p, std::max<std::size_t>(n, 16))); }
  ~PinnedBuffer() { cudaFreeHost(p); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
};

__global__ void diff_kernel(const std::uint64_t* a, const std::uint64_t* b, std::size_t n, int* bad) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    if (a[i] != b[i]) atomicExch(bad, 1);
}

// Compares n bytes (a multiple of 8... or not: the tail is compared on the host) of two buffers the GPU can read.
bool same_bytes(const char* a, const char* b, std::size_t n) {
  int* bad;
  CK(cudaMallocManaged(&bad, sizeof(int)));
  *bad = 0;
  diff_kernel<<<1024, 256, 0, g_stream>>>(reinterpret_cast<const std::uint64_t*>(a),
                                          reinterpret_cast<const std::uint64_t*>(b), n / 8, bad);
  CK(cudaStreamSynchronize(g_stream));
  bool ok = *bad == 0;
  CK(cudaFree(bad));
  if (n % 8) {
    std::vector<char> ta(n % 8), tb(n % 8);
    CK(cudaMemcpy(ta.data(), a + n / 8 * 8, n % 8, cudaMemcpyDefault));
    CK(cudaMemcpy(tb.data(), b + n / 8 * 8, n % 8, cudaMemcpyDefault));
    ok = ok && ta == tb;
  }
  return ok;
}

void verify(const char* what, const char* reference, const char* candidate, std::size_t n) {
  if (!same_bytes(reference, candidate, n)) {
    ++g_mismatches;
    std::printf("  MISMATCH: %s\n", what);
  }
}

// ------------------------------------------------------------------------------------------------ hand kernels

// The anchor's hand-written vector pack: one thread per 8-byte word.
__global__ void hand_vector(const double* __restrict__ in, double* __restrict__ out, std::size_t nwords, int bw,
                            int sw) {
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < nwords) out[i] = in[(i / bw) * sw + i % bw];
}

// k^4 cube out of an N^4 volume of doubles, corner at (s, s, s, s): one thread per double.
__global__ void hand_subarray4d(const double* __restrict__ in, double* __restrict__ out, int N, int k, int s) {
  const std::size_t n = std::size_t(k) * k * k * k;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    std::size_t r = i;
    const int d = r % k;
    r /= k;
    const int c = r % k;
    r /= k;
    const int b = r % k;
    r /= k;
    const int a = static_cast<int>(r);
    out[i] = in[(((std::size_t(a + s) * N + b + s) * N + c + s) * N) + d + s];
  }
}

// jacobi3d's periodic face copy: the interior layer at 1 along `axis` of an (N+2)^3 block of doubles into the ghost
// layer at N+1 across; one thread per double, the face's two other indices from one division.
__global__ void hand_face_copy(double* __restrict__ v, int N, int axis) {
  const int w = blockIdx.x * blockDim.x + threadIdx.x;
  if (w >= N * N) return;
  const std::size_t M = N + 2, a = w / N + 1, b = w % N + 1;
  const std::size_t from = axis == 0 ? (M + a) * M + b : axis == 1 ? (a * M + 1) * M + b : (a * M + b) * M + 1;
  const std::size_t step = axis == 0 ? M * M * N : axis == 1 ? M * N : N;
  v[from + step] = v[from];
}

// Comb-style index list: one thread per double.
__global__ void hand_index_list(const double* __restrict__ in, double* __restrict__ out, const int* __restrict__ idx,
                                std::size_t n) {
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = in[idx[i]];
}

// struct {double, int, int, char}: one thread per struct, field by field.
__global__ void hand_struct(const char* __restrict__ in, char* __restrict__ out, std::size_t n) {
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const char* s = in + i * 24;
  char* d = out + i * 17;
  double x;
  int y, z;
  memcpy(&x, s, 8);
  memcpy(&y, s + 8, 4);
  memcpy(&z, s + 12, 4);
  memcpy(d, &x, 8);
  memcpy(d + 8, &y, 4);
  memcpy(d + 12, &z, 4);
  d[16] = s[16];
}

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + 255) / 256); }

// ------------------------------------------------------------------------------------------------ yaksa

#if defined(KOKKOSDDT_HAVE_YAKSA)
struct Yaksa {
  yaksa_type_t t = YAKSA_TYPE__NULL;
  ~Yaksa() {
    if (t != YAKSA_TYPE__NULL) yaksa_type_free(t);
  }
  void pack(const void* in, std::int64_t count, void* out, std::int64_t bytes) const {
    uintptr_t actual = 0;
    if (yaksa_pack(in, count, t, 0, out, bytes, &actual, nullptr, YAKSA_OP__REPLACE) != YAKSA_SUCCESS ||
        static_cast<std::int64_t>(actual) != bytes) {
      ++g_mismatches;
      std::printf("  yaksa_pack failed\n");
    }
  }
};
#endif

// ------------------------------------------------------------------------------------------------ one case

// Times KokkosDDT and the contenders given on one packed layout; `ours` is KokkosDDT's output, the reference.
struct Case {
  const char* section;
  std::string type;
  int block;
  std::int64_t packed;
  std::map<std::string, double> us;

  void time(const char* contender, const std::function<void()>& fn, int reps) {
    us[contender] = event_us(fn, reps);
    record(section, type, block, packed, contender, us[contender]);
  }
  // KokkosDDT itself: device time ("kokkosddt", events) and, with its fence, host wall time ("ddt_wall": what a
  // caller waits, and what yaksa is compared with).
  void time_library(const Kokkos::Cuda& exec, const std::function<void()>& op, int reps) {
    time("kokkosddt", op, reps);
    time_wall(
        "ddt_wall",
        [&] {
          op();
          exec.fence();
        },
        reps);
  }
  void time_wall(const char* contender, const std::function<void()>& fn, int reps) {
    // A contender that took over a second on this type is not timed again at larger sizes.
    static std::map<std::string, bool> too_slow;
    const std::string key = std::string(contender) + "/" + section + "/" + type;
    if (too_slow[key]) return;
    us[contender] = wall_us(fn, reps);
    record(section, type, block, packed, contender, us[contender]);
    if (us[contender] > 1e6) too_slow[key] = true;
  }
};

std::string size_label(std::int64_t b) {
  char s[32];
  if (b >= (1 << 20))
    std::snprintf(s, sizeof s, "%lld MiB", static_cast<long long>(b >> 20));
  else
    std::snprintf(s, sizeof s, "%lld KiB", static_cast<long long>(b >> 10));
  return s;
}

void print_row(const Case& c, const std::vector<const char*>& columns) {
  std::printf("%-22s %5d %9s |", c.type.c_str(), c.block, size_label(c.packed).c_str());
  for (const char* col : columns) {
    auto it = c.us.find(col);
    if (it == c.us.end())
      std::printf(" %11s", "-");
    else
      std::printf(" %11.2f", it->second);
  }
  std::printf("\n");
}

void print_header(const char* title, const std::vector<const char*>& columns) {
  std::printf("\n%s (us)\n%-22s %5s %9s |", title, "type", "block", "packed");
  for (const char* col : columns) std::printf(" %11s", col);
  std::printf("\n");
}

// ------------------------------------------------------------------------------------------------ sections

std::vector<std::int64_t> sizes() {
  if (g_quick) return {4 << 10, 1 << 20};
  return {4 << 10, 64 << 10, 1 << 20, 16 << 20, std::int64_t(256) << 20};
}

void limits(const Kokkos::Cuda& exec) {
  std::printf("\nlimits\n");
  const std::size_t bytes = g_quick ? (std::size_t(64) << 20) : (std::size_t(1) << 30);
  DeviceBuffer a(bytes), b(bytes);
  const double d2d = event_us([&] { CK(cudaMemcpyAsync(b.p, a.p, bytes, cudaMemcpyDeviceToDevice, g_stream)); }, 20);
  std::printf("  d2d copy %zu MiB: %.1f us = %.1f GB/s (read + write)\n", bytes >> 20, d2d, 2.0 * bytes / d2d / 1e3);
  record("limits", "d2d_copy", 0, bytes, "cudaMemcpy", d2d);
  const std::size_t hb = std::min<std::size_t>(bytes, std::size_t(256) << 20);
  PinnedBuffer h(hb);
  const double d2h = event_us([&] { CK(cudaMemcpyAsync(h.p, a.p, hb, cudaMemcpyDeviceToHost, g_stream)); }, 10);
  const double h2d = event_us([&] { CK(cudaMemcpyAsync(a.p, h.p, hb, cudaMemcpyHostToDevice, g_stream)); }, 10);
  std::printf("  pinned %zu MiB: d2h %.1f GB/s, h2d %.1f GB/s\n", hb >> 20, hb / d2h / 1e3, hb / h2d / 1e3);
  record("limits", "d2h_pinned", 0, hb, "cudaMemcpy", d2h);
  record("limits", "h2d_pinned", 0, hb, "cudaMemcpy", h2d);
  // Latency as a caller sees it: enqueue + completion.
  const double kokkos_empty = wall_us(
      [&] {
        Kokkos::parallel_for("empty", Kokkos::RangePolicy<Kokkos::Cuda>(exec, 0, 1), KOKKOS_LAMBDA(int){});
        exec.fence();
      },
      500);
  Datatype word = KokkosDDT::contiguous(1, KokkosDDT::primitive<double>()).commit();
  const double ddt_word = wall_us(
      [&] {
        KokkosDDT::pack(exec, a.p, 1, word, b.p, 8);
        exec.fence();
      },
      500);
  const double ddt_enqueue = wall_us([&] { KokkosDDT::pack(exec, a.p, 1, word, b.p, 8); }, 500);
  exec.fence();
  // Where the host time of a small pack goes.
  const double kokkos_enqueue = wall_us(
      [&] { Kokkos::parallel_for("empty", Kokkos::RangePolicy<Kokkos::Cuda>(exec, 0, 1), KOKKOS_LAMBDA(int){}); }, 500);
  exec.fence();
  const double team_enqueue = wall_us(
      [&] {
        Kokkos::TeamPolicy<Kokkos::Cuda> policy(exec, 1, 256);
        policy.set_scratch_size(0, Kokkos::PerTeam(256));
        Kokkos::parallel_for("empty team", policy,
                             KOKKOS_LAMBDA(const Kokkos::TeamPolicy<Kokkos::Cuda>::member_type&){});
      },
      500);
  exec.fence();
  const double attributes = wall_us([&] { (void)KokkosDDT::Impl::pointer_kind(a.p); }, 500);
  std::printf(
      "  host cost: Kokkos RangePolicy enqueue %.2f us, TeamPolicy+scratch enqueue %.2f us, "
      "cudaPointerGetAttributes %.2f us\n",
      kokkos_enqueue, team_enqueue, attributes);
  record("limits", "kokkos_range_enqueue", 0, 0, "wall", kokkos_enqueue);
  record("limits", "kokkos_team_enqueue", 0, 0, "wall", team_enqueue);
  record("limits", "pointer_attributes", 0, 0, "wall", attributes);
  std::printf(
      "  latency: Kokkos empty parallel_for + fence %.2f us; KokkosDDT 8-byte pack + fence %.2f us; "
      "KokkosDDT pack enqueue only %.2f us\n",
      kokkos_empty, ddt_word, ddt_enqueue);
  record("limits", "kokkos_empty_pfor_fence", 0, 0, "wall", kokkos_empty);
  record("limits", "ddt_pack8_fence", 0, 8, "wall", ddt_word);
  record("limits", "ddt_pack8_enqueue", 0, 8, "wall", ddt_enqueue);
}

// Occupies the stream for `ns` nanoseconds of device time, so that work queued behind it runs back to back.
__global__ void spin_kernel(long long ns) {
  long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

__global__ void empty_kernel() {}

// Where a small pack's time goes. For each way of moving 4 KiB (or of launching nothing):
//   from_idle: events around one operation on an idle stream (what the other tables report);
//   gpu:       device time per operation when 50 of them wait behind a busy kernel and then run back to back;
//   enqueue:   host time to issue one operation (the same 50, timed on the host);
//   wall:      issue + wait for completion.
// The indexed section's blocks: block b holds 1..16 doubles (irregular) or 8, at 512 * b (+ 0..48 bytes when
// irregular); `list` is every double's index (the hand-written kernel's index list).
struct BlockList {
  std::vector<std::int64_t> bl, dp;
  std::vector<int> list;
  BlockList(int nb, bool irregular) : bl(nb), dp(nb) {
    for (int b = 0; b < nb; ++b) {
      bl[b] = irregular ? 1 + (b * 7) % 16 : 8;
      dp[b] = std::int64_t(b) * 64 + (irregular ? (b * 5) % 7 : 0);
      for (int j = 0; j < bl[b]; ++j) list.push_back(static_cast<int>(dp[b] + j));
    }
  }
};

void latency_section(const Kokkos::Cuda& exec) {
  const std::vector<const char*> cols{"from_idle", "gpu", "enqueue", "wall"};
  print_header("latency of a 4 KiB pack, broken down", cols);
  const std::int64_t packed = 4 << 10, bl = 8, stride = 512, n = packed / bl;
  DeviceBuffer src(n * stride), ours(packed), theirs(packed);
  const auto& dbl = KokkosDDT::primitive<double>();
  Datatype vec = KokkosDDT::vector(n, 1, stride / 8, dbl).commit();
  Datatype contig = KokkosDDT::contiguous(packed / 8, dbl).commit();
  using V2 = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::CudaSpace, Kokkos::MemoryUnmanaged>;
  V2 s2(reinterpret_cast<double*>(src.p), n, stride / 8), d2(reinterpret_cast<double*>(theirs.p), n, 1);
  auto sub = Kokkos::subview(s2, Kokkos::ALL, std::make_pair(0, 1));
  // The indexed section's irregular index list of 64 blocks (4352 bytes): a descriptor over the smaller carried block.
  const BlockList blocks(64, true);
  const auto list_bytes = static_cast<std::int64_t>(blocks.list.size() * 8);
  Datatype irregular = KokkosDDT::indexed(blocks.bl, blocks.dp, dbl).commit();
  DeviceBuffer dlist(blocks.list.size() * sizeof(int)), list_ours(list_bytes), list_theirs(list_bytes);
  CK(cudaMemcpy(dlist.p, blocks.list.data(), blocks.list.size() * sizeof(int), cudaMemcpyHostToDevice));
  const std::vector<std::pair<std::string, std::function<void()>>> ops = {
      {"raw empty kernel", [&] { empty_kernel<<<1, 256, 0, g_stream>>>(); }},
      {"Kokkos empty pfor",
       [&] { Kokkos::parallel_for("empty", Kokkos::RangePolicy<Kokkos::Cuda>(exec, 0, 256), KOKKOS_LAMBDA(int){}); }},
      {"hand vector8",
       [&] {
         hand_vector<<<blocks_for(n), 256, 0, g_stream>>>(reinterpret_cast<const double*>(src.p),
                                                          reinterpret_cast<double*>(theirs.p), n, 1, stride / 8);
       }},
      {"deep_copy vector8", [&] { Kokkos::deep_copy(exec, d2, sub); }},
      {"kokkosddt vector8", [&] { KokkosDDT::pack(exec, src.p, 1, vec, ours.p, packed); }},
      {"cudaMemcpy contig", [&] { CK(cudaMemcpyAsync(theirs.p, src.p, packed, cudaMemcpyDeviceToDevice, g_stream)); }},
      {"kokkosddt contig", [&] { KokkosDDT::pack(exec, src.p, 1, contig, ours.p, packed); }},
      {"hand irregular64",
       [&] {
         hand_index_list<<<blocks_for(blocks.list.size()), 256, 0, g_stream>>>(
             reinterpret_cast<const double*>(src.p), reinterpret_cast<double*>(list_theirs.p),
             reinterpret_cast<const int*>(dlist.p), blocks.list.size());
       }},
      {"kokkosddt irregular64", [&] { KokkosDDT::pack(exec, src.p, 1, irregular, list_ours.p, list_bytes); }},
  };
  constexpr int queued = 50;
  for (const auto& entry : ops) {
    const std::string& name = entry.first;
    const std::function<void()>& op = entry.second;
    Case c{"latency", name, 0, packed, {}};
    c.time("from_idle", op, 50);
    std::vector<double> gpu, host;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int rep = 0; rep < 11; ++rep) {
      spin_kernel<<<1, 1, 0, g_stream>>>(2000000);  // 2 ms: far longer than issuing 50 operations
      Kokkos::Timer timer;
      CK(cudaEventRecord(a, g_stream));
      for (int i = 0; i < queued; ++i) op();
      CK(cudaEventRecord(b, g_stream));
      host.push_back(timer.seconds() * 1e6 / queued);
      CK(cudaEventSynchronize(b));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a, b));
      gpu.push_back(ms * 1000.0 / queued);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    c.us["gpu"] = bench::median(gpu);
    c.us["enqueue"] = bench::median(host);
    record("latency", name, 0, packed, "gpu", c.us["gpu"]);
    record("latency", name, 0, packed, "enqueue", c.us["enqueue"]);
    c.time_wall(
        "wall",
        [&] {
          op();
          CK(cudaStreamSynchronize(g_stream));
        },
        200);
    print_row(c, cols);
  }
}

void contiguous_section(const Kokkos::Cuda& exec) {
  const std::vector<const char*> cols{"kokkosddt", "cudaMemcpy", "ddt_wall", "yaksa_wall"};
  print_header("contiguous D2D", cols);
  for (std::int64_t packed : sizes()) {
    DeviceBuffer src(packed), ours(packed), theirs(packed);
    Datatype t = KokkosDDT::contiguous(packed / 8, KokkosDDT::primitive<double>()).commit();
    Case c{"contiguous", "contiguous", 0, packed, {}};
    const int reps = reps_for(packed);
    c.time_library(
        exec, [&] { KokkosDDT::pack(exec, src.p, 1, t, ours.p, packed); }, reps);
    c.time(
        "cudaMemcpy", [&] { CK(cudaMemcpyAsync(theirs.p, src.p, packed, cudaMemcpyDeviceToDevice, g_stream)); }, reps);
    verify("contiguous", ours.p, theirs.p, packed);
#if defined(KOKKOSDDT_HAVE_YAKSA)
    Yaksa y;
    yaksa_type_create_contig(packed / 8, YAKSA_TYPE__DOUBLE, nullptr, &y.t);
    c.time_wall(
        "yaksa_wall", [&] { y.pack(src.p, 1, theirs.p, packed); }, reps);
    if (c.us.count("yaksa_wall")) verify("contiguous yaksa", ours.p, theirs.p, packed);
#endif
    print_row(c, cols);
  }
}

void vector_section(const Kokkos::Cuda& exec) {
  const std::vector<const char*> cols{"kokkosddt", "hand", "memcpy2D", "deep_copy", "ddt_wall", "yaksa_wall"};
  print_header("vector / indexed / indexed_block D2D (block at a 512 B stride; 1024 B for 512 B blocks)", cols);
  const auto& dbl = KokkosDDT::primitive<double>();
  for (int bl : {8, 32, 128, 512}) {
    const std::int64_t stride = std::max(512, 2 * bl);
    for (std::int64_t packed : sizes()) {
      const std::int64_t n = packed / bl;
      DeviceBuffer src(n * stride), ours(packed), theirs(packed);
      std::vector<std::int64_t> disps(n);
      for (std::int64_t i = 0; i < n; ++i) disps[i] = i * stride / 8;
      const Datatype types[3] = {KokkosDDT::vector(n, bl / 8, stride / 8, dbl).commit(),
                                 KokkosDDT::indexed(std::vector<std::int64_t>(n, bl / 8), disps, dbl).commit(),
                                 KokkosDDT::indexed_block(bl / 8, disps, dbl).commit()};
      const char* names[3] = {"vector", "indexed", "indexed_block"};
      const int reps = reps_for(n * stride);
      for (int v = 0; v < 3; ++v) {
        Case c{"vector", names[v], bl, packed, {}};
        c.time_library(
            exec, [&] { KokkosDDT::pack(exec, src.p, 1, types[v], ours.p, packed); }, reps);
        if (v == 0) {
          const std::size_t words = packed / 8;
          c.time(
              "hand",
              [&] {
                hand_vector<<<blocks_for(words), 256, 0, g_stream>>>(reinterpret_cast<const double*>(src.p),
                                                                     reinterpret_cast<double*>(theirs.p), words, bl / 8,
                                                                     stride / 8);
              },
              reps);
          verify("vector hand", ours.p, theirs.p, packed);
          c.time(
              "memcpy2D",
              [&] { CK(cudaMemcpy2DAsync(theirs.p, bl, src.p, stride, bl, n, cudaMemcpyDeviceToDevice, g_stream)); },
              reps);
          verify("vector memcpy2D", ours.p, theirs.p, packed);
          using V2 = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::CudaSpace, Kokkos::MemoryUnmanaged>;
          V2 s2(reinterpret_cast<double*>(src.p), n, stride / 8), d2(reinterpret_cast<double*>(theirs.p), n, bl / 8);
          auto sub = Kokkos::subview(s2, Kokkos::ALL, std::make_pair(0, bl / 8));
          c.time(
              "deep_copy", [&] { Kokkos::deep_copy(exec, d2, sub); }, reps);
          verify("vector deep_copy", ours.p, theirs.p, packed);
        }
#if defined(KOKKOSDDT_HAVE_YAKSA)
        Yaksa y;
        std::vector<intptr_t> ybl(n, bl / 8), ydp(n);
        for (std::int64_t i = 0; i < n; ++i) ydp[i] = i * stride;
        if (v == 0) yaksa_type_create_hvector(n, bl / 8, stride, YAKSA_TYPE__DOUBLE, nullptr, &y.t);
        if (v == 1) yaksa_type_create_hindexed(n, ybl.data(), ydp.data(), YAKSA_TYPE__DOUBLE, nullptr, &y.t);
        if (v == 2) yaksa_type_create_hindexed_block(n, bl / 8, ydp.data(), YAKSA_TYPE__DOUBLE, nullptr, &y.t);
        c.time_wall(
            "yaksa_wall", [&] { y.pack(src.p, 1, theirs.p, packed); }, reps);
        if (c.us.count("yaksa_wall")) verify("vector yaksa", ours.p, theirs.p, packed);
#endif
        print_row(c, cols);
      }
    }
  }
}

void subarray_section(const Kokkos::Cuda& exec) {
  const std::vector<const char*> cols{"kokkosddt", "hand", "memcpy3D", "deep_copy", "ddt_wall", "yaksa_wall"};
  print_header("4-D subarray: k^4 doubles out of 64^4 at (8,8,8,8), D2D", cols);
  const int N = 64, s = 8;
  DeviceBuffer vol(std::size_t(N) * N * N * N * 8);
  for (int k : g_quick ? std::vector<int>{4, 16} : std::vector<int>{4, 8, 16, 32, 48}) {
    const std::int64_t packed = std::int64_t(k) * k * k * k * 8;
    DeviceBuffer ours(packed), theirs(packed);
    Datatype t = KokkosDDT::subarray({N, N, N, N}, {k, k, k, k}, {s, s, s, s}, KokkosDDT::Order::C,
                                     KokkosDDT::primitive<double>())
                     .commit();
    Case c{"subarray4d", "subarray4d", k * 8, packed, {}};
    c.time_library(
        exec, [&] { KokkosDDT::pack(exec, vol.p, 1, t, ours.p, packed); }, 20);
    c.time(
        "hand",
        [&] {
          hand_subarray4d<<<std::min<unsigned>(blocks_for(packed / 8), 132 * 16), 256, 0, g_stream>>>(
              reinterpret_cast<const double*>(vol.p), reinterpret_cast<double*>(theirs.p), N, k, s);
        },
        20);
    verify("subarray hand", ours.p, theirs.p, packed);
    c.time(
        "memcpy3D",
        [&] {
          for (int l = 0; l < k; ++l) {
            cudaMemcpy3DParms p = {};
            p.srcPtr = make_cudaPitchedPtr(vol.p + std::size_t(s + l) * N * N * N * 8, N * 8, N, N);
            p.srcPos = make_cudaPos(s * 8, s, s);
            p.dstPtr = make_cudaPitchedPtr(theirs.p + std::size_t(l) * k * k * k * 8, k * 8, k, k);
            p.dstPos = make_cudaPos(0, 0, 0);
            p.extent = make_cudaExtent(k * 8, k, k);
            p.kind = cudaMemcpyDeviceToDevice;
            CK(cudaMemcpy3DAsync(&p, g_stream));
          }
        },
        20);
    verify("subarray memcpy3D", ours.p, theirs.p, packed);
    using V4 = Kokkos::View<double****, Kokkos::LayoutRight, Kokkos::CudaSpace, Kokkos::MemoryUnmanaged>;
    V4 v4(reinterpret_cast<double*>(vol.p), N, N, N, N), c4(reinterpret_cast<double*>(theirs.p), k, k, k, k);
    const auto r = std::make_pair(s, s + k);
    auto sub = Kokkos::subview(v4, r, r, r, r);
    c.time(
        "deep_copy", [&] { Kokkos::deep_copy(exec, c4, sub); }, 20);
    verify("subarray deep_copy", ours.p, theirs.p, packed);
#if defined(KOKKOSDDT_HAVE_YAKSA)
    Yaksa y;
    intptr_t sz[4] = {N, N, N, N}, sb[4] = {k, k, k, k}, st[4] = {s, s, s, s};
    yaksa_type_create_subarray(4, sz, sb, st, YAKSA_SUBARRAY_ORDER__C, YAKSA_TYPE__DOUBLE, nullptr, &y.t);
    c.time_wall(
        "yaksa_wall", [&] { y.pack(vol.p, 1, theirs.p, packed); }, k >= 32 ? 3 : 10);
    if (c.us.count("yaksa_wall")) verify("subarray yaksa", ours.p, theirs.p, packed);
#endif
    print_row(c, cols);
  }
}

void indexed_section(const Kokkos::Cuda& exec) {
  const std::vector<const char*> cols{"kokkosddt", "hand", "per_block", "ddt_wall", "yaksa_wall"};
  print_header("indexed: n blocks of 64 B at 512 B (regular), and of 8-128 B at irregular offsets, D2D", cols);
  const auto& dbl = KokkosDDT::primitive<double>();
  for (int nb : g_quick ? std::vector<int>{64, 1024} : std::vector<int>{64, 1024, 16384, 262144}) {
    for (bool irregular : {false, true}) {
      const BlockList blocks(nb, irregular);
      const auto &bl = blocks.bl, &dp = blocks.dp;
      const auto& list = blocks.list;
      const std::int64_t packed = static_cast<std::int64_t>(list.size()) * 8;
      DeviceBuffer src(std::size_t(nb) * 512 + 1024), ours(packed), theirs(packed);
      int* dlist;
      CK(cudaMalloc(&dlist, list.size() * sizeof(int)));
      CK(cudaMemcpy(dlist, list.data(), list.size() * sizeof(int), cudaMemcpyHostToDevice));
      const Datatype idx = KokkosDDT::indexed(bl, dp, dbl).commit();
      const Datatype blk = KokkosDDT::indexed_block(8, dp, dbl).commit();
      const std::string name = irregular ? "indexed_irregular" : "indexed";
      for (int v = 0; v < (irregular ? 1 : 2); ++v) {
        const Datatype& t = v == 0 ? idx : blk;
        Case c{"indexed", v == 0 ? name : std::string("indexed_block"), irregular ? 0 : 64, packed, {}};
        c.time_library(
            exec, [&] { KokkosDDT::pack(exec, src.p, 1, t, ours.p, packed); }, 20);
        c.time(
            "hand",
            [&] {
              hand_index_list<<<blocks_for(list.size()), 256, 0, g_stream>>>(
                  reinterpret_cast<const double*>(src.p), reinterpret_cast<double*>(theirs.p), dlist, list.size());
            },
            20);
        verify("indexed hand", ours.p, theirs.p, packed);
        if (nb <= 16384) {
          c.time(
              "per_block",
              [&] {
                std::int64_t at = 0;
                for (int b = 0; b < nb; ++b) {
                  CK(cudaMemcpyAsync(theirs.p + at, src.p + dp[b] * 8, bl[b] * 8, cudaMemcpyDeviceToDevice, g_stream));
                  at += bl[b] * 8;
                }
              },
              nb >= 16384 ? 3 : 10);
          verify("indexed per-block", ours.p, theirs.p, packed);
        }
#if defined(KOKKOSDDT_HAVE_YAKSA)
        Yaksa y;
        std::vector<intptr_t> ybl(bl.begin(), bl.end()), ydp(nb);
        for (int b = 0; b < nb; ++b) ydp[b] = dp[b] * 8;
        if (v == 0)
          yaksa_type_create_hindexed(nb, ybl.data(), ydp.data(), YAKSA_TYPE__DOUBLE, nullptr, &y.t);
        else
          yaksa_type_create_hindexed_block(nb, 8, ydp.data(), YAKSA_TYPE__DOUBLE, nullptr, &y.t);
        c.time_wall(
            "yaksa_wall", [&] { y.pack(src.p, 1, theirs.p, packed); }, 20);
        if (c.us.count("yaksa_wall")) verify("indexed yaksa", ours.p, theirs.p, packed);
#endif
        print_row(c, cols);
      }
      CK(cudaFree(dlist));
    }
  }
}

void struct_section(const Kokkos::Cuda& exec) {
  const std::vector<const char*> cols{"kokkosddt", "hand", "ddt_wall", "yaksa_wall"};
  print_header("struct {double, int, int, char} (24 B extent, 17 B packed), D2D", cols);
  const Datatype s = KokkosDDT::struct_type({1, 1, 1, 1}, {0, 8, 12, 16},
                                            {KokkosDDT::primitive<double>(), KokkosDDT::primitive<int>(),
                                             KokkosDDT::primitive<int>(), KokkosDDT::primitive<char>()})
                         .commit();
  for (std::int64_t size : sizes()) {
    const std::int64_t n = size / 17, packed = n * 17;
    DeviceBuffer src(n * 24), ours(packed), theirs(packed);
    Case c{"struct", "struct", 17, packed, {}};
    const int reps = reps_for(n * 24);
    c.time_library(
        exec, [&] { KokkosDDT::pack(exec, src.p, n, s, ours.p, packed); }, reps);
    c.time(
        "hand", [&] { hand_struct<<<blocks_for(n), 256, 0, g_stream>>>(src.p, theirs.p, n); }, reps);
    verify("struct hand", ours.p, theirs.p, packed);
#if defined(KOKKOSDDT_HAVE_YAKSA)
    Yaksa y;
    intptr_t ybl[4] = {1, 1, 1, 1}, ydp[4] = {0, 8, 12, 16};
    yaksa_type_t ytypes[4] = {YAKSA_TYPE__DOUBLE, YAKSA_TYPE__INT, YAKSA_TYPE__INT, YAKSA_TYPE__CHAR};
    yaksa_type_t tmp;
    yaksa_type_create_struct(4, ybl, ydp, ytypes, nullptr, &tmp);
    yaksa_type_create_resized(tmp, 0, 24, nullptr, &y.t);
    yaksa_type_free(tmp);
    c.time_wall(
        "yaksa_wall", [&] { y.pack(src.p, n, theirs.p, packed); }, reps);
    if (c.us.count("yaksa_wall")) verify("struct yaksa", ours.p, theirs.p, packed);
#endif
    print_row(c, cols);
  }
}

// Device to pinned host: KokkosDDT writes the packed bytes straight into pinned memory (zero-copy), against packing
// on the device and copying the result over, and against the raw D2H memcpy bandwidth of the packed size.
void d2h_section(const Kokkos::Cuda& exec) {
  const std::vector<const char*> cols{"zero_copy", "pack+memcpy", "memcpy_d2h"};
  print_header("device to pinned host", cols);
  const auto& dbl = KokkosDDT::primitive<double>();
  for (std::int64_t packed : g_quick ? std::vector<std::int64_t>{1 << 20}
                                     : std::vector<std::int64_t>{1 << 20, 16 << 20, std::int64_t(256) << 20}) {
    PinnedBuffer host(packed);
    for (int bl : {8, 128, 0}) {  // 0: the struct
      const std::int64_t stride = 512;
      const std::int64_t n = bl ? packed / bl : packed / 17;
      const std::int64_t bytes = bl ? packed : n * 17;
      DeviceBuffer src(bl ? n * stride : n * 24), dev(bytes);
      const Datatype t = bl ? KokkosDDT::vector(n, bl / 8, stride / 8, dbl).commit()
                            : KokkosDDT::struct_type({1, 1, 1, 1}, {0, 8, 12, 16},
                                                     {dbl, KokkosDDT::primitive<int>(), KokkosDDT::primitive<int>(),
                                                      KokkosDDT::primitive<char>()})
                                  .commit();
      const std::int64_t count = bl ? 1 : n;
      Case c{"d2h", bl ? "vector" : "struct", bl ? bl : 17, bytes, {}};
      const int reps = reps_for(bytes);
      c.time(
          "zero_copy", [&] { KokkosDDT::pack(exec, src.p, count, t, host.p, bytes); }, reps);
      c.time(
          "pack+memcpy",
          [&] {
            KokkosDDT::pack(exec, src.p, count, t, dev.p, bytes);
            CK(cudaMemcpyAsync(host.p, dev.p, bytes, cudaMemcpyDeviceToHost, g_stream));
          },
          reps);
      KokkosDDT::pack(exec, src.p, count, t, dev.p, bytes);
      KokkosDDT::pack(exec, src.p, count, t, host.p, bytes);
      exec.fence();
      verify("zero-copy", dev.p, host.p, bytes);
      c.time(
          "memcpy_d2h", [&] { CK(cudaMemcpyAsync(host.p, dev.p, bytes, cudaMemcpyDeviceToHost, g_stream)); }, reps);
      print_row(c, cols);
    }
  }
}

// Typed-to-typed copies (KokkosDDT::copy: no packed buffer between; one word per thread): jacobi3d's periodic face
// copies (a face of an (N+2)^3 block of doubles into the ghost layer across: one shape, each word located once)
// against a hand-written kernel and Kokkos::deep_copy of the two subviews; and random nested types (the unit tests'
// generator, seed 47, 1 MiB of each) into another layout of the same signature, against packing and unpacking through
// a buffer. ncu's warp instructions per warp of these launches are issue 47's instructions per word.
void copy_section(const Kokkos::Cuda& exec) {
  const std::vector<const char*> cols{"kokkosddt", "hand", "deep_copy", "pack+unpack"};
  print_header("typed-to-typed copies, D2D (block: the face's axis, or the random type's number)", cols);
  const auto& dbl = KokkosDDT::primitive<double>();
  using V3 = Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::CudaSpace, Kokkos::MemoryUnmanaged>;
  for (int N : g_quick ? std::vector<int>{64} : std::vector<int>{64, 128, 256}) {
    const std::int64_t M = N + 2, bytes = std::int64_t(N) * N * 8;
    DeviceBuffer vol(M * M * M * 8), ref(M * M * M * 8);
    for (int axis = 0; axis < 3; ++axis) {
      std::vector<std::int64_t> face{N, N, N}, inner{1, 1, 1}, ghost{1, 1, 1};
      face[axis] = 1;
      ghost[axis] = N + 1;
      const Datatype from = KokkosDDT::subarray({M, M, M}, face, inner, KokkosDDT::Order::C, dbl).commit();
      const Datatype to = KokkosDDT::subarray({M, M, M}, face, ghost, KokkosDDT::Order::C, dbl).commit();
      Case c{"copy", "face" + std::to_string(N), axis, bytes, {}};
      c.time_library(
          exec, [&] { KokkosDDT::copy(exec, vol.p, 1, from, vol.p, 1, to); }, 30);
      c.time(
          "hand",
          [&] { hand_face_copy<<<blocks_for(N * N), 256, 0, g_stream>>>(reinterpret_cast<double*>(ref.p), N, axis); },
          30);
      verify("face copy hand", vol.p, ref.p, M * M * M * 8);
      const V3 v(reinterpret_cast<double*>(ref.p), M, M, M);
      auto range = [&](int d, std::int64_t at) {
        return face[d] == 1 ? std::make_pair(at, at + 1) : std::make_pair<std::int64_t, std::int64_t>(1, N + 1);
      };
      auto sub_from = Kokkos::subview(v, range(0, inner[0]), range(1, inner[1]), range(2, inner[2]));
      auto sub_to = Kokkos::subview(v, range(0, ghost[0]), range(1, ghost[1]), range(2, ghost[2]));
      c.time(
          "deep_copy", [&] { Kokkos::deep_copy(exec, sub_to, sub_from); }, 30);
      verify("face copy deep_copy", vol.p, ref.p, M * M * M * 8);
      print_row(c, cols);
    }
  }
  KokkosDDT::Test::TypeGenerator gen(47);
  for (int number = 0, tries = 0; number < (g_quick ? 2 : 8) && tries < 100000; ++tries) {
    KokkosDDT::Test::RandomType r = gen.next();
    if (r.type.size() < 64) continue;
    r.type.commit();
    const std::int64_t count = (std::int64_t(1) << 20) / r.type.size();
    if (std::abs(r.type.extent()) * count + r.type.true_extent() > (std::int64_t(64) << 20)) continue;
    const KokkosDDT::Test::Side to = KokkosDDT::Test::rearranged(r.type, count, gen);
    const auto sruns = KokkosDDT::Test::flatten(r.type, count), druns = KokkosDDT::Test::flatten(to.type, to.count);
    if (!KokkosDDT::Test::runs_disjoint(druns)) continue;  // (a destination written twice is erroneous)
    const auto [slo, shi] = KokkosDDT::Test::footprint(sruns);
    const auto [dlo, dhi] = KokkosDDT::Test::footprint(druns);
    const std::int64_t bytes = count * r.type.size();
    DeviceBuffer src(shi - slo), dst(dhi - dlo), packed(bytes), ours(bytes), theirs(bytes);
    char *s = src.p - slo, *d = dst.p - dlo;
    auto brief = [](const Datatype& t) {  // (a struct of thousands of members describes itself at length)
      const std::string d = t.describe();
      return d.size() <= 200 ? d : d.substr(0, 160) + " ... " + d.substr(d.size() - 40);
    };
    std::printf("  random type %d: %s x %lld -> %s x %lld\n", number, brief(r.type).c_str(),
                static_cast<long long>(count), brief(to.type).c_str(), static_cast<long long>(to.count));
    Case c{"copy", "random", number++, bytes, {}};
    c.time_library(
        exec, [&] { KokkosDDT::copy(exec, s, count, r.type, d, to.count, to.type); }, 30);
    KokkosDDT::pack(exec, s, count, r.type, ours.p, bytes);
    KokkosDDT::pack(exec, d, to.count, to.type, theirs.p, bytes);
    exec.fence();
    verify("random copy", ours.p, theirs.p, bytes);
    c.time(
        "pack+unpack",
        [&] {
          KokkosDDT::pack(exec, s, count, r.type, packed.p, bytes);
          KokkosDDT::unpack(exec, packed.p, bytes, d, to.count, to.type);
        },
        30);
    print_row(c, cols);
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::vector<std::pair<const char*, void (*)(const Kokkos::Cuda&)>> sections = {
      {"limits", limits},         {"latency", latency_section},   {"contiguous", contiguous_section},
      {"vector", vector_section}, {"subarray", subarray_section}, {"indexed", indexed_section},
      {"struct", struct_section}, {"d2h", d2h_section},           {"copy", copy_section}};
  std::vector<std::string> section_names;
  for (const auto& section : sections) section_names.push_back(section.first);
  std::string csv = "pack_bench_gpu.csv", only;
  bench::Options args("pack_bench_gpu");
  bool profile = false;
  args.flag("--quick", g_quick, "small sizes, few repetitions")
      .flag("--profile", profile, "three repetitions of each contender (for ncu)")
      .option("--csv", "FILE", csv, "write every measurement as CSV")
      .option("--only", "SECTION", only, "run this section only", section_names);
  if (const auto done = args.parse(argc, argv)) return *done;
  if (profile) g_max_reps = 3;
  CK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
  int bad = 0;
  {
    Kokkos::Cuda exec(g_stream);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("KokkosDDT %s GPU pack benchmark on %s (%d SMs, %d MB L2)%s\n", KOKKOSDDT_VERSION, prop.name,
                prop.multiProcessorCount, prop.l2CacheSize >> 20,
#if defined(KOKKOSDDT_HAVE_YAKSA)
                ", yaksa found"
#else
                ", yaksa not found"
#endif
    );
#if defined(KOKKOSDDT_HAVE_YAKSA)
    yaksa_init(nullptr);
#endif
    g_csv = std::fopen(csv.c_str(), "w");
    if (!g_csv) {
      std::fprintf(stderr, "cannot write %s\n", csv.c_str());
      return 1;
    }
    std::fprintf(g_csv, "section,type,block_bytes,packed_bytes,contender,us\n");
    for (const auto& [name, run] : sections)
      if (only.empty() || only == name) {
        run(exec);
        std::fflush(g_csv);
        std::fflush(stdout);
      }
    std::fclose(g_csv);
#if defined(KOKKOSDDT_HAVE_YAKSA)
    yaksa_finalize();
#endif
    bad = g_mismatches;
  }
  std::printf("\n%s; CSV: %s\n", bad ? "MISMATCHES FOUND" : "every contender's bytes match KokkosDDT's", csv.c_str());
  CK(cudaStreamDestroy(g_stream));
  return bad ? 1 : 0;
}
