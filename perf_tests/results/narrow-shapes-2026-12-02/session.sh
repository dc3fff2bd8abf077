#!/usr/bin/env bash
# Issue 72, second call of 2026-12-02 on one lent H200, started in the background (setsid) and polled.
#   1. README's GPU command exactly, on `git archive HEAD` (.carry/head.tgz, 9b08ec5: narrow shape arithmetic, branchless divide32, four
#      words in flight per thread, the wide shape read in place), from nothing (gpu_session.sh readme).
#   2. Beside its tests (niced): main before this session (.carry/base.tgz, 9c1c518) and a variant of HEAD with one
#      word in flight (kWordsInFlight = 1: the narrow arithmetic alone), fusion_bench and jacobi_bench only.
#   3. fusion_bench's halo (plan and hand, two rounds) on the three trees; jacobi_bench 64^3/128^3 one rank; ncu of the
#      plan's fused self-copy at (128,1,32) and (32,1,32).
set -u
out=/tmp/gout
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
targets=(fusion_bench jacobi_bench)
build_tree() {  # dir tarball [sed expression for FusedTile]
  rm -rf "$1" && mkdir -p "$1" && tar xzf "$2" -C "$1"
  [ -n "${3:-}" ] && sed -i "$3" "$1/core/src/fusion/KokkosDDT_FusedTile.hpp"
  (cd "$1" && FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/readme-src/kokkos-4.6.01 \
    FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS=/tmp/readme-src/kokkos-kernels-4.7.00 cmake --preset cuda \
    -DKokkosDDT_DISCOVER_TESTS=OFF > "$out/$(basename "$1")-configure.log" 2>&1 &&
    nice -n 19 cmake --build build/cuda -j 10 --target "${targets[@]}" > "$out/$(basename "$1")-build.log" 2>&1)
  echo "$1 build exit $?" >> "$out/builds.txt"
}
(
  until [ -f "$out/readme-1.log" ] && grep -q "Test project" "$out/readme-1.log"; do
    [ -f "$out/README-DONE" ] && break
    sleep 5
  done
  stamp "base and variant builds (niced)"
  build_tree /tmp/base .carry/base.tgz
  build_tree /tmp/variant .carry/head.tgz 's/static constexpr int kWordsInFlight = 4;/static constexpr int kWordsInFlight = 1;/'
  grep -c "kWordsInFlight = 1;" /tmp/variant/core/src/fusion/KokkosDDT_FusedTile.hpp >> "$out/builds.txt"
) > "$out/builds-watch.txt" 2>&1 &
builds=$!
stamp "readme run 1"
OUT=$out README_RUNS=1 bash perf_tests/gpu_session.sh readme
touch "$out/README-DONE"
stamp "waiting for the other builds"
wait "$builds"
cat "$out/builds.txt"
after=/tmp/readme-tree/build/cuda
(cd /tmp/readme-tree && cmake --build build/cuda --target "${targets[@]}" > "$out/after-build.log" 2>&1)
declare -A tree=([before]=/tmp/base/build/cuda [after]=$after [u1]=/tmp/variant/build/cuda)
for round in 1 2; do
  for l in before after u1; do
    stamp "fusion_bench halo $l round $round"
    timeout 60 "${tree[$l]}/perf_tests/fusion_bench" --only halo --contenders plan,hand \
      --csv "$out/fusion-$l-$round.csv" > "$out/fusion-$l-$round.txt" 2>&1
  done
done
for l in before after u1; do
  for n in 64 128; do
    stamp "jacobi_bench 1 rank $n $l"
    timeout 60 mpiexec -n 1 "${tree[$l]}/perf_tests/jacobi_bench" --per-rank $n --exchanges none,plan-auto --repeats 3 \
      --csv "$out/jacobi1-$n-$l.csv" > "$out/jacobi1-$n-$l.txt" 2>&1
  done
done
m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
m="$m,dram__bytes.sum,lts__t_requests.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed"
for s in no_instruction long_scoreboard short_scoreboard barrier wait lg_throttle selected; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
for l in before after u1; do
  for cell in 128,1,32 32,1,32; do
    stamp "ncu $cell $l"
    timeout 40 ncu --csv --page details --clock-control none --kernel-name-base demangled --metrics "$m" \
      -k regex:'Direction\)3' --launch-skip 10 --launch-count 3 "${tree[$l]}/perf_tests/fusion_bench" --only halo \
      --contenders plan --cell $cell --csv /dev/null > "$out/ncu-${cell//,/_}-$l.csv" 2>&1
  done
done
stamp "done"
(cd "$out" && tar czf all.tgz readme-summary.txt readme-1.log.gz builds*.txt after-build.log fusion-* jacobi* ncu-* \
  session.log 2> /dev/null)
touch "$out/DONE"
