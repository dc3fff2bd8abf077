#!/usr/bin/env bash
# Device (one H200), prepared in the seventeenth session for the next: run from a checkout of main (carry .carry).
#  - `resident`: .carry/resident-99d8215.tgz (branch fused-resident): the tile rule counting the fused kernel's
#    resident threads (SMs x 4 teams x 256) instead of concurrency(); against main: the CUDA unit suite on it,
#    fusion_bench --only halo host-timed ABBA, and ncu of the plan's self-copy and the hand kernels in the cells that
#    lose to hand (32,1,32), (64,1,8), (64,1,32) (fusion_bench --cell, --contenders plan,hand).
export OUT=${OUT:-$PWD/gpu-out} OMP_PROC_BIND=false OMP_NUM_THREADS=1 PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1; echo "## kokkos after $((SECONDS - t0)) s"
export Catch2_ROOT=$PWD/.carry/catch2
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF -DKokkosDDT_ENABLE_EXAMPLES=OFF)
rm -rf build/var && mkdir -p build/var/resident
tar xzf .carry/resident-99d8215.tgz -C build/var/resident
(cmake --preset cuda "${flags[@]}" -DKokkosDDT_ENABLE_TESTS=OFF > /dev/null 2>&1 &&
  cmake --build build/cuda -j 6 --target fusion_bench > /tmp/main.log 2>&1; echo "main build exit $?") &
(cd build/var/resident && cmake --preset cuda "${flags[@]}" > /dev/null 2>&1 &&
  cmake --build build/cuda -j 10 --target kokkosddt_unit_tests_Cuda fusion_bench > /tmp/resident.log 2>&1
  echo "resident build exit $?") &
wait; grep -h error /tmp/main.log /tmp/resident.log | head
echo "## built after $((SECONDS - t0)) s"
timeout 150 build/var/resident/build/cuda/unit_tests/kokkosddt_unit_tests_Cuda > /tmp/t.log 2>&1
echo "## resident unit exit $? after $((SECONDS - t0)) s"; grep -E "All tests passed|test cases|FAILED" /tmp/t.log | head -5
for tree in "$PWD" build/var/resident build/var/resident "$PWD"; do
  name=$([ "$tree" = "$PWD" ] && echo main || echo resident)
  r=$([ -e "$OUT/fusion-$name-r1.csv" ] && echo 2 || echo 1)
  timeout 100 $tree/build/cuda/perf_tests/fusion_bench --only halo --csv "$OUT/fusion-$name-r$r.csv" > /dev/null 2>&1
  echo "## fusion $name r$r exit $? after $((SECONDS - t0)) s"
done
m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
m="$m,dram__bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active"
for s in no_instruction long_scoreboard short_scoreboard barrier wait lg_throttle selected; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
ncu="ncu --csv --page details --clock-control none --kernel-name-base demangled --metrics $m"
for tree in "$PWD" build/var/resident; do
  name=$([ "$tree" = "$PWD" ] && echo main || echo resident)
  b=$tree/build/cuda/perf_tests/fusion_bench
  for cell in 32,1,32 64,1,8 64,1,32; do
    c=${cell//,/_}  # (the device tool returns no file whose name has a comma)
    timeout 60 $ncu -k regex:'Direction\)3' --launch-skip 10 --launch-count 4 $b --only halo --contenders plan,hand \
      --cell $cell --csv /dev/null > "$OUT/ncu-plan-$name-$c.csv" 2>&1
    [ "$name" = main ] && timeout 60 $ncu -k regex:'Setup::hand' --launch-skip 10 --launch-count 4 $b --only halo \
      --contenders plan,hand --cell $cell --csv /dev/null > "$OUT/ncu-hand-$c.csv" 2>&1
    echo "## ncu $name $cell after $((SECONDS - t0)) s"
  done
done
(cd "$OUT" && tar czf ../next-out.tgz . && rm -f ./* && mv ../next-out.tgz .)
echo "## end after $((SECONDS - t0)) s"
