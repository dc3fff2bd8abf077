// The floor of a halo face perpendicular to a LayoutLeft array's fastest dimension (Cabana's (i, j, k, dof) grid array
// on CUDA): hand-written gather/scatter kernels and cudaMemcpy2D over the same elements, n^3 cells + 2w ghosts, 4 dofs.
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(err_)); return 1; } } while (0)
struct Face { long long e, w, n; };  // extent per dim (n + 2w), width, owned n
// element q of the face (i fastest, then j, k, dof): LayoutLeft offset
__device__ __forceinline__ long long at(const Face& f, long long q) {
  long long i = q % f.w; q /= f.w; long long j = q % f.n; q /= f.n; long long k = q % f.n; long long d = q / f.n;
  return (f.w + i) + f.e * ((f.w + j) + f.e * ((f.w + k) + f.e * d));
}
template <int PER> __global__ void gather(const double* __restrict__ a, double* __restrict__ p, Face f, long long m) {
  long long base = (long long)blockIdx.x * blockDim.x * PER + threadIdx.x;
  double v[PER];
#pragma unroll
  for (int u = 0; u < PER; ++u) { long long q = base + u * blockDim.x; v[u] = q < m ? a[at(f, q)] : 0; }
#pragma unroll
  for (int u = 0; u < PER; ++u) { long long q = base + u * blockDim.x; if (q < m) p[q] = v[u]; }
}
template <int PER> __global__ void scatter(double* __restrict__ a, const double* __restrict__ p, Face f, long long m) {
  long long base = (long long)blockIdx.x * blockDim.x * PER + threadIdx.x;
#pragma unroll
  for (int u = 0; u < PER; ++u) { long long q = base + u * blockDim.x; if (q < m) a[at(f, q)] = p[q]; }
}
static char* flush_buf = nullptr;
static bool cold = false;
template <class K> float time_it(K k, int reps) {
  cudaEvent_t b, e; cudaEventCreate(&b); cudaEventCreate(&e);
  for (int i = 0; i < 10; ++i) k();
  if (!cold) {
    cudaEventRecord(b); for (int i = 0; i < reps; ++i) k(); cudaEventRecord(e); cudaEventSynchronize(e);
    float ms; cudaEventElapsedTime(&ms, b, e); return ms * 1000 / reps;
  }
  float sum = 0;  // cold: 256 MiB written between launches (the L2 holds 60 MB), each launch timed alone
  for (int i = 0; i < 50; ++i) {
    cudaMemsetAsync(flush_buf, i, 256 << 20);
    cudaEventRecord(b); k(); cudaEventRecord(e); cudaEventSynchronize(e);
    float ms; cudaEventElapsedTime(&ms, b, e); sum += ms;
  }
  return sum * 1000 / 50;
}
int main(int argc, char**) {
  cold = argc > 1;
  CK(cudaMalloc(&flush_buf, 256 << 20));
  printf(cold ? "cold: L2 flushed before each launch, each timed alone\n" : "warm: back-to-back launches\n");
  { double* z = nullptr; Face f0{1, 1, 1};
    printf("an empty launch: %.2f us\n", time_it([&] { gather<1><<<1, 256>>>(z, z, f0, 0); }, 200)); }
  printf("%5s %2s %9s | %9s %9s %9s %9s %9s | %9s %9s | us per launch, mean of 200\n", "n", "w", "bytes", "gath_p1",
         "gath_p4", "gath_p16", "memcpy2D", "flat_D2D", "scat_p1", "scat_p4");
  for (long long n : {16ll, 64ll, 128ll, 256ll}) for (long long w : {1ll, 4ll}) {
    Face f{n + 2 * w, w, n};
    long long cells = f.e * f.e * f.e * 4, m = w * n * n * 4;
    double *a, *p; CK(cudaMalloc(&a, cells * 8)); CK(cudaMalloc(&p, m * 8)); CK(cudaMemset(a, 0, cells * 8));
    auto g1 = [&] { gather<1><<<(m + 255) / 256, 256>>>(a, p, f, m); };
    auto g4 = [&] { gather<4><<<(m + 1023) / 1024, 256>>>(a, p, f, m); };
    auto g16 = [&] { gather<16><<<(m + 4095) / 4096, 256>>>(a, p, f, m); };
    // the copy engine over the same elements: rows of w doubles, pitch e doubles (n*n*4 rows)
    auto c2 = [&] { cudaMemcpy2DAsync(p, w * 8, a + w, f.e * 8, w * 8, n * n * 4, cudaMemcpyDeviceToDevice); };
    auto fl = [&] { cudaMemcpyAsync(p, a, m * 8, cudaMemcpyDeviceToDevice); };
    auto s1 = [&] { scatter<1><<<(m + 255) / 256, 256>>>(a, p, f, m); };
    auto s4 = [&] { scatter<4><<<(m + 1023) / 1024, 256>>>(a, p, f, m); };
    printf("%5lld %2lld %9lld | %9.2f %9.2f %9.2f %9.2f %9.2f | %9.2f %9.2f\n", n, w, m * 8, time_it(g1, 200),
           time_it(g4, 200), time_it(g16, 200), time_it(c2, 200), time_it(fl, 200), time_it(s1, 200), time_it(s4, 200));
    CK(cudaGetLastError()); cudaFree(a); cudaFree(p);
  }
  return 0;
}
