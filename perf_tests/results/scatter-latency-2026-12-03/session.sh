#!/usr/bin/env bash
# Issue 73, 2026-12-03 (sixth session), diagnostic: where a latency-bound halo scatter's time goes against its gather
# (fusion_bench's halo cell 16^3 w1 F1, one process, "mpi" transport): fusion_bench of .carry/head.tgz built alone,
# then its kernels' and API calls' times under nsys (when installed) and each kernel's duration under ncu.
set -u
out=$LEASE_DIR
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
(command -v nsys; command -v ncu; nsys --version) > "$out/tools.txt" 2>&1
rm -rf /tmp/t /tmp/src && mkdir -p /tmp/t /tmp/src && tar xzf .carry/head.tgz -C /tmp/t
tar xzf .carry/tpls/kokkos-4.6.01.tar.gz -C /tmp/src
export Catch2_ROOT=$PWD/.carry/catch2
stamp build
(cd /tmp/t && env FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/src/kokkos-4.6.01 cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF \
  -DKokkosDDT_ENABLE_EXAMPLES=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF \
  -DKokkosDDT_CUDA_ARCH=90 && cmake --build build/cuda -j 16 --target fusion_bench) > "$out/build.log" 2>&1 ||
  { stamp "BUILD FAILED"; tail -30 "$out/build.log"; exit 1; }
fb=$(find /tmp/t/build/cuda -name fusion_bench -type f -perm -u+x | head -1)
stamp "fusion_bench: $fb"
for cell in 16,1,1 64,1,8; do
  timeout 60 "$fb" --only halo --cell $cell --contenders plan,scatter --csv "$out/fb-$cell.csv" > "$out/fb-$cell.txt" 2>&1
done
if command -v nsys > /dev/null; then
  timeout 120 nsys profile --trace=cuda --sample=none --cpuctxsw=none -o /tmp/fb16 --force-overwrite true \
    "$fb" --only halo --cell 16,1,1 --contenders plan,scatter > "$out/nsys-run.txt" 2>&1
  timeout 120 nsys stats --report cuda_gpu_trace --report cuda_api_sum --format csv --output "$out/nsys16" /tmp/fb16.nsys-rep \
    > "$out/nsys-stats.txt" 2>&1
fi
timeout 150 ncu --launch-count 400 --print-summary per-kernel --csv "$fb" --only halo --cell 16,1,1 --contenders scatter \
  > "$out/ncu16-summary.csv" 2> "$out/ncu16.err"
stamp done
