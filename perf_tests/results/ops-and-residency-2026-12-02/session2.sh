#!/usr/bin/env bash
# Issue 72: ncu of the 4 KiB irregular index-list pack (pack_bench_gpu's latency section) against the hand kernel,
# on HEAD (.carry/head.tgz), one H200. Builds pack_bench_gpu alone.
set -u
out=/tmp/gout2
mkdir -p "$out" /tmp/src2 /tmp/tree2
export PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
tar xzf .carry/tpls/kokkos-4.6.01.tar.gz -C /tmp/src2
tar xzf .carry/head.tgz -C /tmp/tree2
cd /tmp/tree2
stamp configure
FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/src2/kokkos-4.6.01 cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF \
  -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkosDDT_ENABLE_MPI=OFF > "$out/configure.log" 2>&1
stamp build
cmake --build build/cuda -j 16 --target pack_bench_gpu > "$out/build.log" 2>&1
echo "build exit $?"
stamp latency
timeout 60 build/cuda/perf_tests/pack_bench_gpu --only latency --csv "$out/latency.csv" > "$out/latency.txt" 2>&1
m="gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,launch__grid_size,launch__block_size"
m="$m,launch__registers_per_thread,dram__bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active"
for s in long_scoreboard short_scoreboard no_instruction wait imc_miss barrier branch_resolving; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
for k in hand_index_list DeviceInterleave; do
  stamp "ncu $k"
  timeout 100 ncu --csv --page details --clock-control none --kernel-name-base demangled --metrics "$m" \
    -k regex:"$k" --launch-skip 20 --launch-count 3 \
    build/cuda/perf_tests/pack_bench_gpu --only latency --csv /dev/null > "$out/ncu-$k.csv" 2>&1
done
stamp done
(cd "$out" && tar czf all.tgz latency.csv latency.txt ncu-*.csv build.log configure.log 2> /dev/null)
touch "$out/DONE"
