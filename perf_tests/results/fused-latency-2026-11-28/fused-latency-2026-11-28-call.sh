#!/usr/bin/env bash
# Device (one H100), issue 47 item 1: where a small fused launch's time goes. ncu on fusion_bench --quick --only halo
# (n = 16: the plan's one fused launch and the hand-fused index-list kernels): duration, instructions, occupancy and
# the warp stall reasons (WarpStateStats), plus the source-level hot spots (SourceCounters), one CSV.
export OUT=${OUT:-$PWD/gpu-out} OMP_NUM_THREADS=1 OMP_PROC_BIND=false
t0=$SECONDS
BUILD_TARGETS="fusion_bench" STEPS="environment kokkos build" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
echo "## built after $((SECONDS - t0)) s"
timeout 240 ncu --csv --page details --clock-control none --cache-control none --kernel-name-base demangled \
  -k "regex:FusedKernel|hand" --launch-skip 40 --launch-count 6 \
  --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SourceCounters \
  --section SchedulerStats build/cuda/perf_tests/fusion_bench --quick --only halo --csv /dev/null > /tmp/fused-ncu.csv 2>&1
echo "## ncu exit $? after $((SECONDS - t0)) s"
gzip -c /tmp/fused-ncu.csv > "$OUT/fused-ncu.csv.gz"
grep -E '"(Duration|Registers Per Thread|Achieved Occupancy|Warp Cycles Per Issued Instruction|Executed Instructions|Block Size|Grid Size|Stall [A-Za-z ]+)"' /tmp/fused-ncu.csv | awk -F'","' '{print $5 "|" $(NF-2) "|" $(NF)}' | cut -c1-120 | head -80
