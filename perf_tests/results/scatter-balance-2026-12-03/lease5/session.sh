#!/usr/bin/env bash
# Issue 73 (2026-12-03, fourth session), with too little device time left for README's GPU command: a build of the
# MPI tests and fusion_bench of .carry/head.tgz (main merged with plan-arena, 585fb59), the peer scatter test that
# failed on plan-arena (three launches), the 2-rank halo plans, and fusion_bench's halo scatter once.
set -u
out=$LEASE_DIR
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
root=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
rm -rf /tmp/t /tmp/src && mkdir -p /tmp/t /tmp/src && tar xzf .carry/head.tgz -C /tmp/t
tar xzf .carry/tpls/kokkos-4.6.01.tar.gz -C /tmp/src && tar xzf .carry/tpls/kokkos-kernels-4.7.00.tar.gz -C /tmp/src
cd /tmp/t
stamp configure
FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/src/kokkos-4.6.01 FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS=/tmp/src/kokkos-kernels-4.7.00 \
  Catch2_ROOT=$root/.carry/catch2 cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF > "$out/configure.log" 2>&1
stamp "build exit $?"
cmake --build build/cuda -j 16 --target kokkosddt_mpi_tests_Cuda fusion_bench > "$out/build.log" 2>&1
stamp "build exit $?"
tail -5 "$out/build.log"
(cd build/cuda && ctest -N | grep -E "Cuda/mpi" > "$out/tests.txt"
 timeout 200 ctest -R "Cuda/mpi: (plans and transports over peer on 2 ranks|p2p and halo plans on 2 ranks)" \
   --output-on-failure > "$out/ctest.log" 2>&1; echo "ctest exit $?" >> "$out/ctest.log")
grep -E "tests passed|Failed|Passed|exit" "$out/ctest.log"
stamp "fusion_bench"
timeout 60 build/cuda/perf_tests/fusion_bench --only halo --contenders plan,scatter --csv "$out/fusion-scatter-head.csv" \
  > "$out/fusion-scatter-head.txt" 2>&1
stamp done
