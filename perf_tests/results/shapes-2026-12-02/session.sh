#!/usr/bin/env bash
# Issue 72 on one lent H200, started in the background by the first device call (setsid) and polled by the next ones;
# everything lands in /tmp/gout.
#   1. README's GPU command exactly, on `git archive HEAD` (.carry/head.tgz), from nothing (gpu_session.sh readme).
#   2. Once its build is done (niced, beside its tests): main before issue 72 (.carry/base.tgz) built the same way,
#      pack_bench_gpu only.
#   3. Before against after, alternately: pack_bench_gpu's latency, vector and subarray sections; shape_bench (after
#      only: it has its own before column, the walk).
set -u
out=/tmp/gout
mkdir -p "$out"
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
    nice -n 19 cmake --build build/cuda -j 10 --target pack_bench_gpu > "$out/base-build.log" 2>&1
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
(cd /tmp/readme-tree && cmake --build build/cuda --target pack_bench_gpu shape_bench > "$out/after-build.log" 2>&1)
for section in latency vector subarray; do
  for tree in /tmp/base/build/cuda "$after"; do
    label=$([ "$tree" = "$after" ] && echo after || echo before)
    stamp "pack_bench_gpu $section $label"
    timeout 150 "$tree/perf_tests/pack_bench_gpu" --only "$section" --csv "$out/pack-$section-$label.csv" \
      > "$out/pack-$section-$label.txt" 2>&1
  done
done
stamp "shape_bench"
OMP_NUM_THREADS=1 timeout 120 "$after/perf_tests/shape_bench" --csv "$out/shape.csv" > "$out/shape.txt" 2>&1
stamp "done"
(cd "$out" && tar czf all.tgz readme-summary.txt readme-1.log.gz base-*.txt pack-* shape.* session.log 2> /dev/null)
touch "$out/DONE"
