#!/usr/bin/env bash
# Lease 1 (issue 73): main (head) against scatter groups (groups), fusion_bench halo plan/scatter; ncu source counters
# of the scatter kernel at 16^3 w1 F1/F8 in both.
set -u
out=$LEASE_DIR
root=$PWD
export PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
ncu --version > "$out/ncu-version.txt" 2>&1
mkdir -p /tmp/src && tar xzf .carry/tpls/kokkos-4.6.01.tar.gz -C /tmp/src && tar xzf .carry/tpls/kokkos-kernels-4.7.00.tar.gz -C /tmp/src
stamp builds
for t in head groups; do
  (rm -rf /tmp/$t && mkdir -p /tmp/$t && tar xzf .carry/$t.tgz -C /tmp/$t && cd /tmp/$t &&
    FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/src/kokkos-4.6.01 FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS=/tmp/src/kokkos-kernels-4.7.00 \
    Catch2_ROOT=$root/.carry/catch2 NVCC_APPEND_FLAGS=-lineinfo cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF &&
    NVCC_APPEND_FLAGS=-lineinfo cmake --build build/cuda -j 8 --target fusion_bench) > "$out/build-$t.log" 2>&1 &
done
wait
stamp "builds done: $(ls /tmp/head/build/cuda/perf_tests/fusion_bench /tmp/groups/build/cuda/perf_tests/fusion_bench 2>&1 | tr '\n' ' ')"
for t in head groups head groups; do
  stamp "fusion $t"
  timeout 120 /tmp/$t/build/cuda/perf_tests/fusion_bench --only halo --contenders plan,scatter \
    --csv "$out/fusion-$t-$SECONDS.csv" >> "$out/fusion-$t.txt" 2>&1
  echo "exit $?" >> "$out/fusion-$t.txt"
done
for t in head groups; do
  for F in 1 8; do
    stamp "ncu $t 16,1,$F"
    timeout 100 ncu --clock-control none -k regex:DirectionE4E --launch-skip 20 --launch-count 1 \
      --section SourceCounters --section WarpStateStats --section SpeedOfLight --section LaunchStats --section Occupancy \
      --import-source yes -f -o "$out/ncu-$t-16-1-$F" \
      /tmp/$t/build/cuda/perf_tests/fusion_bench --only halo --cell 16,1,$F --contenders scatter > "$out/ncu-$t-16-1-$F.log" 2>&1
    echo "exit $?" >> "$out/ncu-$t-16-1-$F.log"
    ncu -i "$out/ncu-$t-16-1-$F.ncu-rep" --page details > "$out/ncu-$t-16-1-$F.details.txt" 2>&1
    ncu -i "$out/ncu-$t-16-1-$F.ncu-rep" --page source --csv --print-source sass > "$out/ncu-$t-16-1-$F.sass.csv" 2>&1
    ncu -i "$out/ncu-$t-16-1-$F.ncu-rep" --page source --csv --print-source cuda > "$out/ncu-$t-16-1-$F.cuda.csv" 2>&1
  done
done
stamp done
