#!/usr/bin/env bash
# Issue 70 on one lent H200, started in the background by the first device call (setsid) and polled by the next ones;
# everything lands in /tmp/gout, packed into /tmp/gout/first-machine.tgz at the end.
#   1. README's GPU command exactly, on `git archive HEAD` (.carry/head.tgz), README_RUNS runs in a row in one fresh
#      tree (perf_tests/gpu_session.sh readme for the first, from nothing; the others the same command again).
#   2. Meanwhile (after run 1, niced): the commit before (.carry/base.tgz, main at ba1aa18) built the same way, its
#      jacobi_bench only.
#   3. jacobi_bench at 64^3 per rank, 2 ranks sharing the GPU under MPS, before and after alternately (JACOBI_ROUNDS
#      rounds): no slowdown of a step without a deadline (plan-peer, plan-auto).
#   4. DEADLINE_PROBES=1: the deadline tests with a 10-s deadline over peer and MPI on 2 ranks sharing the GPU
#      (README's loop against a rank that skips a step: "released after ... s").
set -u
out=/tmp/gout
mkdir -p "$out"
root=$PWD
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
stamp() { echo "==== $(date -u +%T) $*"; }
stamp "readme run 1"
OUT=$out README_RUNS=1 bash perf_tests/gpu_session.sh readme
mv "$out/readme-1.log.gz" "$out/readme-run1.log.gz"
stamp "base build (background, niced)"
rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base.tgz -C /tmp/base
(cd /tmp/base && FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/readme-src/kokkos-4.6.01 \
  FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS=/tmp/readme-src/kokkos-kernels-4.7.00 cmake --preset cuda \
  -DKokkosDDT_DISCOVER_TESTS=OFF > "$out/base-configure.log" 2>&1 &&
  nice -n 19 cmake --build build/cuda -j 12 --target jacobi_bench > "$out/base-build.log" 2>&1; echo "base build exit $?") \
  > "$out/base-status.txt" 2>&1 &
base=$!
for r in $(seq 2 "${README_RUNS:-3}"); do
  stamp "readme run $r (the same command again, same tree)"
  (cd /tmp/readme-tree && env FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/readme-src/kokkos-4.6.01 \
    FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS=/tmp/readme-src/kokkos-kernels-4.7.00 cmake --workflow --preset cuda) \
    > "$out/readme-run$r.log" 2>&1
  echo "run $r: exit $?; $(grep -E 'tests passed' "$out/readme-run$r.log" | tail -1)" | tee -a "$out/readme-summary.txt"
  grep -E '^ *[0-9]+ - .*\((Failed|Timeout|Not Run|SEGFAULT|Subprocess aborted)\)' "$out/readme-run$r.log" |
    tee -a "$out/readme-summary.txt"
  gzip -f "$out/readme-run$r.log"
done
stamp "waiting for the base build"
wait "$base"
cat "$out/base-status.txt"
after=/tmp/readme-tree/build/cuda
nvidia-cuda-mps-control -d && echo "MPS started"
for round in $(seq "${JACOBI_ROUNDS:-2}"); do
  for tree in /tmp/base/build/cuda "$after"; do
    label=$([ "$tree" = "$after" ] && echo after || echo before)
    stamp "jacobi_bench $label round $round"
    mpiexec -n 2 "$tree/perf_tests/jacobi_bench" --per-rank 64 --exchanges none,plan-peer,plan-auto --repeats 3 \
      --csv "$out/jacobi-$label-$round.csv" > "$out/jacobi-$label-$round.txt" 2>&1
  done
done
echo quit | nvidia-cuda-mps-control
for t in $([ "${DEADLINE_PROBES:-0}" = 1 ] && echo peer mpi); do
  stamp "deadlines over $t, 10 s"
  KOKKOSDDT_TEST_TRANSPORT=$t KOKKOSDDT_TEST_DEADLINE_S=10 OMP_NUM_THREADS=1 timeout 300 mpiexec -n 2 \
    "$after/unit_tests/kokkosddt_mpi_tests_Cuda" "[deadline]" > "$out/deadlines-$t.txt" 2>&1
  echo "deadlines over $t: exit $?" | tee -a "$out/readme-summary.txt"
done
stamp "done"
(cd "$out" && shopt -s nullglob && tar czf first-machine.tgz readme-summary.txt readme-run*.log.gz base-*.txt base-*.log \
  jacobi-* deadlines-*)
touch "$out/DONE"
