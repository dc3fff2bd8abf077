#!/usr/bin/env bash
# Issue 73 on one lent H200: chains in one pass on main (HEAD, .carry/head.tgz) against chains one record after
# another (03b8ffb = c849974's code, .carry/before.tgz).
#   1. README's GPU command exactly, on `git archive HEAD`, from nothing (gpu_session.sh readme).
#   2. Once README's build is done: fusion_bench of the tree before, in a tree of its own.
#   3. Once README's tests are done: fusion_bench's halo (plan gather, plan scatter, a fused unpack replacing and
#      summing), after and before, twice each; ncu at 16^3 w1 F1 after; halo_bench at 2 ranks under MPS.
set -u
out=/tmp/gout
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
root=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
stamp "readme (background)"
(OUT=$out README_RUNS=1 bash perf_tests/gpu_session.sh readme > "$out/readme-session.log" 2>&1
  touch "$out/README-DONE") &
while ! grep -q "Test project" "$out/readme-1.log" 2>/dev/null && [ ! -f "$out/README-DONE" ]; do sleep 5; done
stamp "readme build done; before-tree build"
(
  rm -rf /tmp/before && mkdir -p /tmp/before && tar xzf .carry/before.tgz -C /tmp/before && cd /tmp/before &&
    FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/readme-src/kokkos-4.6.01 \
      FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS=/tmp/readme-src/kokkos-kernels-4.7.00 Catch2_ROOT=$root/.carry/catch2 \
      cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF && cmake --build build/cuda -j 6 --target fusion_bench
) > "$out/before-build.log" 2>&1
stamp "before build exit $?"
while [ ! -f "$out/README-DONE" ]; do sleep 3; done
cat "$out/readme-summary.txt"
after=/tmp/readme-tree/build/cuda
for tree in after before after before; do
  bin=$after/perf_tests/fusion_bench
  [ $tree = before ] && bin=/tmp/before/build/cuda/perf_tests/fusion_bench
  stamp "fusion_bench halo ($tree): plan, scatter, unpack, sum"
  timeout 100 "$bin" --only halo --contenders plan,scatter,unpack,sum --csv "$out/fusion-$tree-$SECONDS.csv" \
    >> "$out/fusion-$tree.txt" 2>&1
  echo "fusion exit $?" >> "$out/fusion-$tree.txt"
done
touch "$out/FUSION-DONE"
stamp "ncu at 16^3 w1 F1 (after)"
timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread \
  $after/perf_tests/fusion_bench --only halo --cell 16,1,1 --contenders plan,scatter,sum > "$out/ncu-16_1_1.txt" 2>&1
echo "ncu exit $?" >> "$out/ncu-16_1_1.txt"
stamp "halo_bench, 2 ranks sharing the GPU under MPS (the floor beside the plan)"
nvidia-cuda-mps-control -d
timeout 150 mpiexec -n 2 $after/perf_tests/halo_bench --quick --csv "$out/halo-2.csv" > "$out/halo-2.txt" 2>&1
echo "halo_bench exit $?" >> "$out/halo-2.txt"
echo quit | nvidia-cuda-mps-control
stamp done
touch "$out/ALL-DONE"
