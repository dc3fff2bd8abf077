#!/usr/bin/env bash
# Device (one H200), nineteenth session: fused copies that step through runs in widened tiles (branch copy-runs, this
# tree) against main (5ac5637, .carry/main-5ac5637.tgz), MPI on (the plan contender is a halo plan): fusion_bench --only halo
# (plan, hand, hand_pack) main-runs-runs-main; ncu of the plan's self-copy in four cells on both.
export OUT=${OUT:-$PWD/gpu-out} OMP_PROC_BIND=false OMP_NUM_THREADS=1 PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1; echo "## kokkos after $((SECONDS - t0)) s"
export Catch2_ROOT=$PWD/.carry/catch2
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF -DKokkosDDT_ENABLE_EXAMPLES=OFF)
[ -x /tmp/main/build/cuda/perf_tests/fusion_bench ] || { rm -rf /tmp/main && mkdir -p /tmp/main && tar xzf .carry/main-5ac5637.tgz -C /tmp/main; }
[ -x /tmp/main/build/cuda/perf_tests/fusion_bench ] || (cd /tmp/main && cmake --preset cuda "${flags[@]}" -DKokkosDDT_ENABLE_TESTS=OFF > /dev/null 2>&1 &&
  cmake --build build/cuda -j 8 --target fusion_bench > /tmp/b1.log 2>&1; echo "main build exit $?") &
(cmake --preset cuda "${flags[@]}" -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_MPI=ON > /tmp/c2.log 2>&1 &&
  cmake --build build/cuda -j 8 --target fusion_bench > /tmp/b2.log 2>&1; echo "runs build exit $?") &
wait; grep -h -B2 -A3 error /tmp/b1.log /tmp/b2.log /tmp/c2.log | head -20
echo "## built after $((SECONDS - t0)) s"
for n in main runs runs main; do
  b=build/cuda; [ $n = main ] && b=/tmp/main/build/cuda
  r=1; while [ -e "$OUT/fusion-$n-r$r.csv" ]; do r=$((r + 1)); done
  timeout 120 $b/perf_tests/fusion_bench --only halo --contenders plan,hand,hand_pack --csv "$OUT/fusion-$n-r$r.csv" > /dev/null 2>&1
  echo "## fusion $n r$r exit $? after $((SECONDS - t0)) s"
done
m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
m="$m,dram__bytes.sum,lts__t_requests.sum"
for s in no_instruction long_scoreboard short_scoreboard barrier wait lg_throttle selected; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
for n in ${NCU_TREES:-main runs}; do
  b=build/cuda/perf_tests/fusion_bench; [ $n = main ] && b=/tmp/main/build/cuda/perf_tests/fusion_bench
  for cell in 32,1,32 64,1,8 64,1,32 128,1,32; do
    c=${cell//,/_}
    timeout 60 ncu --csv --page details --clock-control none --kernel-name-base demangled --metrics "$m" \
      -k regex:'Direction\)3' --launch-skip 10 --launch-count 3 $b --only halo --contenders plan --cell $cell \
      --csv /dev/null > "$OUT/ncu-$n-$c.csv" 2>&1
    echo "## ncu $n $cell after $((SECONDS - t0)) s"
  done
done
(cd "$OUT" && tar czf ../runs-out.tgz . && rm -f ./* && mv ../runs-out.tgz .)
