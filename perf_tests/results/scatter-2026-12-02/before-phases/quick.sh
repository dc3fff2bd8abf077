#!/usr/bin/env bash
# Issue 73: a first GPU check of the scatter (before README's full run): the MPI tests' scatter cases at 1 and 2 ranks
# on one H200 (auto: peer between the two processes; and over MPI), fusion_bench's plan scatter against its gather.
set -u
out=/tmp/gout
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
root=$PWD
rm -rf /tmp/q /tmp/qsrc && mkdir -p /tmp/q /tmp/qsrc && tar xzf .carry/head.tgz -C /tmp/q
tar xzf .carry/tpls/kokkos-4.6.01.tar.gz -C /tmp/qsrc
tar xzf .carry/tpls/kokkos-kernels-4.7.00.tar.gz -C /tmp/qsrc
export Catch2_ROOT=$root/.carry/catch2
cd /tmp/q
stamp configure
FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/qsrc/kokkos-4.6.01 FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS=/tmp/qsrc/kokkos-kernels-4.7.00 cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF > "$out/configure.log" 2>&1
rc=$?; echo "configure $rc"; [ $rc -eq 0 ] || { tail -20 "$out/configure.log"; touch "$out/ALL-DONE"; exit 1; }
stamp build
cmake --build build/cuda -j 16 --target kokkosddt_mpi_tests_Cuda fusion_bench > "$out/build.log" 2>&1
rc=$?; echo "build $rc"
grep -E "error" "$out/build.log" | head -20
t=build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
stamp "scatter tests"
for env in "" "KOKKOSDDT_TEST_TRANSPORT=mpi"; do
  for n in 1 2; do
    echo "-- ranks $n $env"
    env $env timeout 240 mpiexec -n $n $t "[scatter],[halo][errors]" 2>&1 | grep -E "passed|failed|FAILED|error|Error" | head -20
  done
done
echo "-- self messages through the transport"
KOKKOSDDT_HALO_SELF_MESSAGES=1 timeout 120 mpiexec -n 1 $t "[scatter]" 2>&1 | grep -E "passed|failed|FAILED" | head
stamp "fusion_bench"
timeout 200 build/cuda/perf_tests/fusion_bench --only halo --contenders plan,scatter,unpack,sum,hand \
  --csv "$out/fusion-scatter.csv" > "$out/fusion-scatter.txt" 2>&1
echo "fusion exit $?"
stamp done
touch "$out/ALL-DONE"
