#!/usr/bin/env bash
# Issue 72 (shaped fused records, listed levels) on one lent H200, started in the background by the first device call
# (setsid) and polled by the next ones; everything lands in /tmp/gout.
#   1. README's GPU command exactly, on `git archive HEAD` (.carry/head.tgz), from nothing (gpu_session.sh readme).
#   2. Once its build is done (niced, beside its tests): main before this session (.carry/base.tgz, d8dbac1) built the
#      same way, fusion_bench and jacobi_bench only.
#   3. Before against after: fusion_bench's halo table (1 round); jacobi_bench at 64^3 and 128^3 on one rank (the
#      plan's self-copies).
#   4. ncu of the plan's fused self-copy in two fusion_bench cells, before and after.
set -u
out=/tmp/gout
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
targets=(fusion_bench jacobi_bench)
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
    nice -n 19 cmake --build build/cuda -j 10 --target "${targets[@]}" > "$out/base-build.log" 2>&1
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
(cd /tmp/readme-tree && cmake --build build/cuda --target "${targets[@]}" > "$out/after-build.log" 2>&1)
trees=(/tmp/base/build/cuda "$after")
label() { [ "$1" = "$after" ] && echo after || echo before; }
for round in 1; do
  for tree in "${trees[@]}"; do
    l=$(label "$tree")
    stamp "fusion_bench halo $l round $round"
    timeout 120 "$tree/perf_tests/fusion_bench" --only halo --csv "$out/fusion-$l-$round.csv" > "$out/fusion-$l-$round.txt" 2>&1
  done
done
for tree in "${trees[@]}"; do
  l=$(label "$tree")
  for n in 64 128; do
    stamp "jacobi_bench 1 rank $n $l"
    timeout 60 mpiexec -n 1 "$tree/perf_tests/jacobi_bench" --per-rank $n --exchanges none,plan-auto --repeats 3 \
      --csv "$out/jacobi1-$n-$l.csv" > "$out/jacobi1-$n-$l.txt" 2>&1
  done
done
m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
m="$m,dram__bytes.sum,lts__t_requests.sum"
for s in no_instruction long_scoreboard short_scoreboard barrier wait lg_throttle selected; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
for tree in "${trees[@]}"; do
  l=$(label "$tree")
  for cell in 32,1,32 128,1,32; do
    stamp "ncu $cell $l"
    timeout 60 ncu --csv --page details --clock-control none --kernel-name-base demangled --metrics "$m" \
      -k regex:'Direction\)3' --launch-skip 10 --launch-count 3 "$tree/perf_tests/fusion_bench" --only halo \
      --contenders plan --cell $cell --csv /dev/null > "$out/ncu-${cell//,/_}-$l.csv" 2>&1
  done
done
stamp "done"
(cd "$out" && tar czf all.tgz readme-summary.txt readme-1.log.gz base-*.txt after-build.log fusion-* pack-* jacobi* ncu-* \
  session.log 2> /dev/null)
touch "$out/DONE"
