#!/usr/bin/env bash
# Issues 72 and 73, one lent H200, started in the background (setsid) and polled.
#   1. README's GPU command exactly, on `git archive HEAD` (.carry/head.tgz), from nothing (gpu_session.sh readme).
#   2. Beside its tests (niced): main before this session (.carry/base.tgz, 61a5fb2) and a residency variant of HEAD
#      (fused_teams_per_sm 8: LaunchBounds<256,8>, 32 registers; kWordsInFlight 1), fusion_bench and jacobi_bench.
#   3. fusion_bench's halo: plan,hand on the three trees (2 rounds); unpack,sum on HEAD; jacobi_bench 128^3 one rank;
#      ncu of the plan's fused self-copy at (128,1,32) with achieved occupancy.
set -u
out=/tmp/gout
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
targets=(fusion_bench jacobi_bench)
build_tree() {  # dir tarball [sed script file edits]
  rm -rf "$1" && mkdir -p "$1" && tar xzf "$2" -C "$1"
  if [ -n "${3:-}" ]; then
    sed -i 's/static constexpr int kWordsInFlight = 4;/static constexpr int kWordsInFlight = 1;/' \
      "$1/core/src/fusion/KokkosDDT_FusedTile.hpp"
    sed -i 's/static constexpr int fused_teams_per_sm = 4;/static constexpr int fused_teams_per_sm = 8;/' \
      "$1/backends/cuda/KokkosDDT_Backend_Cuda.hpp"
    grep -c "kWordsInFlight = 1;\|fused_teams_per_sm = 8;" "$1/core/src/fusion/KokkosDDT_FusedTile.hpp" \
      "$1/backends/cuda/KokkosDDT_Backend_Cuda.hpp" >> "$out/builds.txt"
  fi
  (cd "$1" && FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/readme-src/kokkos-4.6.01 \
    FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS=/tmp/readme-src/kokkos-kernels-4.7.00 cmake --preset cuda \
    -DKokkosDDT_DISCOVER_TESTS=OFF > "$out/$(basename "$1")-configure.log" 2>&1 &&
    nice -n 19 cmake --build build/cuda -j 8 --target "${targets[@]}" > "$out/$(basename "$1")-build.log" 2>&1)
  echo "$1 build exit $?" >> "$out/builds.txt"
}
(
  until [ -f "$out/readme-1.log" ] && grep -q "Test project" "$out/readme-1.log"; do
    [ -f "$out/README-DONE" ] && break
    sleep 5
  done
  stamp "base and variant builds (niced)"
  build_tree /tmp/base .carry/base.tgz
  build_tree /tmp/variant .carry/head.tgz edit
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
declare -A tree=([before]=/tmp/base/build/cuda [after]=$after [v8]=/tmp/variant/build/cuda)
stamp "fusion_bench unpack,sum after"
timeout 90 "$after/perf_tests/fusion_bench" --only halo --contenders unpack,sum,hand \
  --csv "$out/fusion-sum.csv" > "$out/fusion-sum.txt" 2>&1
for round in 1 2; do
  for l in before after v8; do
    stamp "fusion_bench halo $l round $round"
    timeout 60 "${tree[$l]}/perf_tests/fusion_bench" --only halo --contenders plan,hand \
      --csv "$out/fusion-$l-$round.csv" > "$out/fusion-$l-$round.txt" 2>&1
  done
done
(cd "$out" && tar czf part.tgz readme-summary.txt readme-1.log.gz builds*.txt fusion-* session.log 2> /dev/null)
for l in before after v8; do
  stamp "jacobi_bench 1 rank 128 $l"
  timeout 60 mpiexec -n 1 "${tree[$l]}/perf_tests/jacobi_bench" --per-rank 128 --exchanges none,plan-auto --repeats 3 \
    --csv "$out/jacobi1-128-$l.csv" > "$out/jacobi1-128-$l.txt" 2>&1
done
m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
m="$m,dram__bytes.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active"
m="$m,launch__occupancy_limit_registers,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"
for l in before after v8; do
  stamp "ncu 128,1,32 $l"
  timeout 40 ncu --csv --page details --clock-control none --kernel-name-base demangled --metrics "$m" \
    -k regex:'Direction\)3' --launch-skip 10 --launch-count 3 "${tree[$l]}/perf_tests/fusion_bench" --only halo \
    --contenders plan --cell 128,1,32 --csv /dev/null > "$out/ncu-128_1_32-$l.csv" 2>&1
done
stamp "done"
(cd "$out" && tar czf all.tgz readme-summary.txt readme-1.log.gz builds*.txt after-build.log fusion-* jacobi* ncu-* \
  session.log 2> /dev/null)
touch "$out/DONE"
