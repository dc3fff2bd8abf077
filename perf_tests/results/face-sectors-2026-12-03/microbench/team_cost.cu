// Microbenchmark: what a fused pack's per-team completion costs at 512 teams (issue 73, 256^3 halo face).
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(err_)); return 1; } } while (0)
struct Args { const double* src; double* dst; long long run_words, run_stride_words, words; int per_thread; unsigned long long* counter; volatile unsigned long long* flag; int mode; };
__global__ void __launch_bounds__(256, 4) pack(Args a) {
  long long tile = (long long)blockDim.x * a.per_thread;
  long long first = blockIdx.x * tile;
  for (int u = 0; u < a.per_thread; ++u) {
    long long p = first + u * blockDim.x + threadIdx.x;
    if (p < a.words) {
      long long r = p / a.run_words, o = p - r * a.run_words;
      a.dst[p] = a.src[r * a.run_stride_words + o];
    }
  }
  if (a.mode == 0) return;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long before;
    if (a.mode == 1) asm volatile("atom.add.release.gpu.u64 %0,[%1],1;" : "=l"(before) : "l"(a.counter) : "memory");
    else if (a.mode == 2) before = atomicAdd(a.counter, 1ull);
    else { __threadfence(); before = atomicAdd(a.counter, 1ull); }
    if (before + 1 == gridDim.x) {
      *a.counter = 0;
      asm volatile("fence.acq_rel.sys;" ::: "memory");
      *a.flag = 1;
    }
  }
}
int main() {
  const long long n = 256, w = 1, ext = n + 2 * w;
  const long long cells = ext * ext * ext * 4;
  double *src, *dst; unsigned long long* counter; unsigned long long* flag;
  CK(cudaMalloc(&src, cells * 8)); CK(cudaMalloc(&dst, 64ll << 20)); CK(cudaMalloc(&counter, 8));
  CK(cudaMemset(counter, 0, 8)); CK(cudaHostAlloc(&flag, 8, cudaHostAllocMapped));
  CK(cudaMemset(src, 1, cells * 8));
  cudaEvent_t b, e; cudaEventCreate(&b); cudaEventCreate(&e);
  const char* names[] = {"no completion", "atom.release.gpu", "relaxed atomicAdd", "threadfence+atomicAdd"};
  printf("%10s %6s %6s %5s | %22s | us per launch (mean of 200)\n", "bytes", "teams", "words", "/thr", "completion");
  for (long long faces : {1ll, 4ll}) {       // 2 MiB (w1) and 8 MiB (w4-like) faces
    for (int per : {1, 2, 4, 8, 16, 32}) {
      for (int mode = 0; mode < 4; ++mode) {
        Args a{src, dst, n * 4, ext * 4, faces * n * n * 4, per, counter, flag, mode};
        long long tile = 256ll * per; int teams = (int)((a.words + tile - 1) / tile);
        for (int i = 0; i < 20; ++i) pack<<<teams, 256>>>(a);
        CK(cudaDeviceSynchronize());
        cudaEventRecord(b);
        for (int i = 0; i < 200; ++i) pack<<<teams, 256>>>(a);
        cudaEventRecord(e); CK(cudaEventSynchronize(e));
        float ms; cudaEventElapsedTime(&ms, b, e);
        printf("%10lld %6d %6lld %5d | %22s | %8.2f\n", a.words * 8, teams, a.words, per, names[mode], ms * 1000 / 200);
      }
    }
  }
  // memcpy floor
  cudaEventRecord(b);
  for (int i = 0; i < 200; ++i) cudaMemcpyAsync(dst, src, 2ll << 20, cudaMemcpyDeviceToDevice);
  cudaEventRecord(e); CK(cudaEventSynchronize(e));
  float ms; cudaEventElapsedTime(&ms, b, e);
  printf("cudaMemcpy D2D 2 MiB: %.2f us\n", ms * 1000 / 200);
  return 0;
}
