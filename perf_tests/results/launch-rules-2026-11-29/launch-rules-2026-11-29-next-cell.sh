#!/usr/bin/env bash
# Device (one H200), seventeenth session: where the halo grid's mid-size cells (1.5-3 MiB, under one wave) lose to the
# hand-fused index lists: fusion_bench --only halo --cell, host-timed, then ncu of the plan's self-copy launch and the
# hand kernels of the same cell.
export OUT=${OUT:-$PWD/gpu-out} OMP_PROC_BIND=false OMP_NUM_THREADS=1 PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1; echo "## kokkos after $((SECONDS - t0)) s"
cmake --preset cuda -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
  -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_ENABLE_TESTS=OFF \
  -DKokkosDDT_ENABLE_EXAMPLES=OFF > /dev/null 2>&1 &&
  cmake --build build/cuda -j 16 --target fusion_bench > /tmp/build.log 2>&1; echo "## build exit $? after $((SECONDS - t0)) s"
grep error /tmp/build.log | head -5
b=build/cuda/perf_tests/fusion_bench
m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,dram__bytes.sum"
m="$m,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__cycles_active.avg"
for s in no_instruction long_scoreboard short_scoreboard barrier wait lg_throttle selected; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
ncu="ncu --csv --page details --clock-control none --kernel-name-base demangled --metrics $m"
for cell in 32,1,32 64,1,8; do
  c=${cell//,/_}  # (the device tool returns no file whose name has a comma)
  timeout 30 $b --only halo --contenders plan,hand --cell $cell --csv "$OUT/cell-$c.csv" > "$OUT/cell-$c.txt" 2>&1
  timeout 90 $ncu -k regex:'Direction\)3' --launch-skip 10 --launch-count 4 $b --only halo --contenders plan,hand --cell $cell \
    --csv /dev/null > "$OUT/ncu-plan-$c.csv" 2>&1
  timeout 90 $ncu -k regex:'Setup::hand' --launch-skip 10 --launch-count 4 $b --only halo --contenders plan,hand --cell $cell \
    --csv /dev/null > "$OUT/ncu-hand-$c.csv" 2>&1
  echo "## cell $cell after $((SECONDS - t0)) s"
done
