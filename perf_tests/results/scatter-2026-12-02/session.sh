#!/usr/bin/env bash
# Issue 73 (scatter, phases), one lent H200, started in the background (setsid) and polled.
#   1. A quick check first (its own tree from .carry/head.tgz): the scatter and phase tests at 1 and 2 ranks.
#   2. README's GPU command exactly, on `git archive HEAD` (.carry/head.tgz), from nothing (gpu_session.sh readme).
#   3. fusion_bench's halo on the README build: the plan's gather and scatter (sum), the queue's unpack and sum, hand.
set -u
out=/tmp/gout
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
root=$PWD
rm -rf /tmp/q /tmp/qsrc && mkdir -p /tmp/q /tmp/qsrc && tar xzf .carry/head.tgz -C /tmp/q
tar xzf .carry/tpls/kokkos-4.6.01.tar.gz -C /tmp/qsrc
tar xzf .carry/tpls/kokkos-kernels-4.7.00.tar.gz -C /tmp/qsrc
(
  export Catch2_ROOT=$root/.carry/catch2
  cd /tmp/q
  stamp "quick: configure"
  FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/qsrc/kokkos-4.6.01 FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS=/tmp/qsrc/kokkos-kernels-4.7.00 \
    cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF > "$out/q-configure.log" 2>&1 || echo "QUICK CONFIGURE FAILED"
  stamp "quick: build"
  cmake --build build/cuda -j 16 --target kokkosddt_mpi_tests_Cuda kokkosddt_unit_tests_Cuda > "$out/q-build.log" 2>&1 ||
    echo "QUICK BUILD FAILED"
  grep -E "error" "$out/q-build.log" | head -10
  stamp "quick: tests"
  timeout 120 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda "[ops]" 2>&1 | tail -3
  t=build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
  for env in "" "KOKKOSDDT_TEST_TRANSPORT=mpi"; do
    for n in 1 2; do
      echo "-- ranks $n $env"
      env $env timeout 180 mpiexec -n $n $t "[scatter],[halo][errors]" 2>&1 | grep -E "passed|failed|FAILED" | head -4
    done
  done
  stamp "quick: done"
) > "$out/quick.txt" 2>&1
touch "$out/QUICK-DONE"
stamp "readme run 1"
OUT=$out README_RUNS=1 bash perf_tests/gpu_session.sh readme
touch "$out/README-DONE"
after=/tmp/readme-tree/build/cuda
stamp "fusion_bench halo: plan, scatter, unpack, sum, hand"
timeout 240 "$after/perf_tests/fusion_bench" --only halo --contenders plan,scatter,unpack,sum,hand \
  --csv "$out/fusion-scatter.csv" > "$out/fusion-scatter.txt" 2>&1
echo "fusion exit $?" >> "$out/fusion-scatter.txt"
stamp done
touch "$out/ALL-DONE"
