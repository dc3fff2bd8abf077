#!/usr/bin/env bash
# Issue 71 on one lent H200, started in the background by the first device call (setsid) and polled by the next ones;
# everything lands in /tmp/gout.
#   1. README's GPU command exactly, on `git archive HEAD` (.carry/head.tgz), from nothing (gpu_session.sh readme).
#   2. Once its build is done (niced, beside its tests): main before issue 71 (.carry/base.tgz, ba1aa18) built the same
#      way, fusion_bench and jacobi_bench only.
#   3. Before against after, alternately, COMPARE_ROUNDS rounds: fusion_bench's halo table on the GPU; jacobi_bench at
#      64^3 per rank, 2 ranks sharing the GPU under MPS (none, plan-peer, plan-auto).
set -u
out=/tmp/gout
mkdir -p "$out"
root=$PWD
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
stamp() { echo "==== $(date -u +%T) $*"; }
(
  until [ -f "$out/readme-1.log" ] && grep -q "Test project" "$out/readme-1.log"; do
    [ -f "$out/README-DONE" ] && break
    sleep 5
  done
  stamp "base build (niced)"
  rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base.tgz -C /tmp/base
  cd /tmp/base && FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/readme-src/kokkos-4.6.01 \
    FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS=/tmp/readme-src/kokkos-kernels-4.7.00 cmake --preset cuda \
    -DKokkosDDT_DISCOVER_TESTS=OFF > "$out/base-configure.log" 2>&1 &&
    nice -n 19 cmake --build build/cuda -j 10 --target fusion_bench jacobi_bench > "$out/base-build.log" 2>&1
  echo "base build exit $?" > "$out/base-status.txt"
) > "$out/base-watch.txt" 2>&1 &
base=$!
stamp "readme run 1"
OUT=$out README_RUNS=1 bash perf_tests/gpu_session.sh readme
touch "$out/README-DONE"
stamp "waiting for the base build"
wait "$base"
cat "$out/base-status.txt"
after=/tmp/readme-tree/build/cuda
(cd /tmp/readme-tree && cmake --build build/cuda --target fusion_bench jacobi_bench > "$out/after-build.log" 2>&1)
nvidia-cuda-mps-control -d && echo "MPS started"
for round in $(seq "${COMPARE_ROUNDS:-2}"); do
  for tree in /tmp/base/build/cuda "$after"; do
    label=$([ "$tree" = "$after" ] && echo after || echo before)
    stamp "fusion_bench halo $label round $round"
    "$tree/perf_tests/fusion_bench" --only halo --csv "$out/fusion-$label-$round.csv" > "$out/fusion-$label-$round.txt" 2>&1
    stamp "jacobi_bench $label round $round"
    mpiexec -n 2 "$tree/perf_tests/jacobi_bench" --per-rank 64 --exchanges none,plan-peer,plan-auto --repeats 3 \
      --csv "$out/jacobi-$label-$round.csv" > "$out/jacobi-$label-$round.txt" 2>&1
  done
done
echo quit | nvidia-cuda-mps-control
stamp "done"
touch "$out/DONE"
