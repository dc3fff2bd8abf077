#!/usr/bin/env bash
# Device (one H200), eighteenth session, run from a checkout of main (carry .carry):
#  - resident (.carry/resident2.tgz, branch resident2): the tile rule counts the fused kernel's resident threads;
#  - pairs (.carry/pairs.tgz, branch fused-pairs): resident + fused threads move words two at a time (loads first).
# CUDA unit suite on pairs; fusion_bench --only halo resident-pairs-pairs-resident; the cells where the queue contender
# looked slower under resident (main-resident-main-resident, --cell); ncu of the plan's self-copy for pairs.
export OUT=${OUT:-$PWD/gpu-out} OMP_PROC_BIND=false OMP_NUM_THREADS=1 PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1; echo "## kokkos after $((SECONDS - t0)) s"
export Catch2_ROOT=$PWD/.carry/catch2
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF -DKokkosDDT_ENABLE_EXAMPLES=OFF)
rm -rf build/var && mkdir -p build/var/resident build/var/pairs
tar xzf .carry/resident2.tgz -C build/var/resident
tar xzf .carry/pairs.tgz -C build/var/pairs
(cmake --preset cuda "${flags[@]}" -DKokkosDDT_ENABLE_TESTS=OFF > /dev/null 2>&1 &&
  cmake --build build/cuda -j 4 --target fusion_bench > /tmp/main.log 2>&1; echo "main build exit $?") &
(cd build/var/resident && cmake --preset cuda "${flags[@]}" -DKokkosDDT_ENABLE_TESTS=OFF > /dev/null 2>&1 &&
  cmake --build build/cuda -j 5 --target fusion_bench > /tmp/resident.log 2>&1; echo "resident build exit $?") &
(cd build/var/pairs && cmake --preset cuda "${flags[@]}" > /dev/null 2>&1 &&
  cmake --build build/cuda -j 8 --target kokkosddt_unit_tests_Cuda fusion_bench > /tmp/pairs.log 2>&1
  echo "pairs build exit $?") &
wait; grep -h error /tmp/main.log /tmp/resident.log /tmp/pairs.log | head
echo "## built after $((SECONDS - t0)) s"
timeout 150 build/var/pairs/build/cuda/unit_tests/kokkosddt_unit_tests_Cuda > /tmp/t.log 2>&1
echo "## pairs unit exit $? after $((SECONDS - t0)) s"; grep -E "All tests passed|test cases|FAILED" /tmp/t.log | head -5
for name in resident pairs pairs resident; do
  r=$([ -e "$OUT/fusion-$name-r1.csv" ] && echo 2 || echo 1)
  timeout 100 build/var/$name/build/cuda/perf_tests/fusion_bench --only halo --csv "$OUT/fusion-$name-r$r.csv" > /dev/null 2>&1
  echo "## fusion $name r$r exit $? after $((SECONDS - t0)) s"
done
for round in 1 2; do
  for name in main resident; do
    b=build/cuda/perf_tests/fusion_bench
    [ $name = resident ] && b=build/var/resident/$b
    for cell in 128,1,32 128,2,8 64,2,32; do
      timeout 60 $b --only halo --cell $cell --contenders fused,fused_pack,async,plan,hand \
        --csv "$OUT/cell-$name-${cell//,/_}-r$round.csv" > /dev/null 2>&1
    done
    echo "## cells $name r$round after $((SECONDS - t0)) s"
  done
done
m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
m="$m,dram__bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active"
for s in no_instruction long_scoreboard short_scoreboard barrier wait lg_throttle selected; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
ncu="ncu --csv --page details --clock-control none --kernel-name-base demangled --metrics $m"
b=build/var/pairs/build/cuda/perf_tests/fusion_bench
for cell in 32,1,32 64,1,8 64,1,32 128,1,32; do
  timeout 60 $ncu -k regex:'Direction\)3' --launch-skip 10 --launch-count 2 $b --only halo --contenders plan,hand \
    --cell $cell --csv /dev/null > "$OUT/ncu-plan-pairs-${cell//,/_}.csv" 2>&1
  echo "## ncu pairs $cell after $((SECONDS - t0)) s"
done
(cd "$OUT" && tar czf ../pairs-out.tgz . && rm -f ./* && mv ../pairs-out.tgz .)
echo "## end after $((SECONDS - t0)) s"
