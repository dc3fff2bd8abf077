#!/usr/bin/env bash
# Device (one H200), nineteenth session: the second carried-descriptor block (branch carried-large, this tree) against
# main (2be8694, .carry/before-2be8694.tgz): CUDA unit suite on this tree; pack_bench_gpu --only indexed under ncu
# (stall reasons) on both; host-timed sections vector/subarray/indexed/struct/copy in the order B A A B B A.
export OUT=${OUT:-$PWD/gpu-out} OMP_PROC_BIND=false OMP_NUM_THREADS=1 PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1; echo "## kokkos after $((SECONDS - t0)) s"
export Catch2_ROOT=$PWD/.carry/catch2
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF -DKokkosDDT_ENABLE_EXAMPLES=OFF)
rm -rf /tmp/before && mkdir -p /tmp/before && tar xzf .carry/before-2be8694.tgz -C /tmp/before
(cd /tmp/before && cmake --preset cuda "${flags[@]}" -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_MPI=OFF > /dev/null 2>&1 &&
  cmake --build build/cuda -j 5 --target pack_bench_gpu > /tmp/b1.log 2>&1; echo "before build exit $?") &
(cmake --preset cuda "${flags[@]}" -DKokkosDDT_ENABLE_MPI=OFF > /tmp/c2.log 2>&1 &&
  cmake --build build/cuda -j 11 --target kokkosddt_unit_tests_Cuda pack_bench_gpu > /tmp/b2.log 2>&1; echo "after build exit $?") &
wait; grep -h -B2 -A3 error /tmp/b1.log /tmp/b2.log /tmp/c2.log | head -20
echo "## built after $((SECONDS - t0)) s"
timeout 200 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda > /tmp/t.log 2>&1
echo "## unit exit $? after $((SECONDS - t0)) s"; grep -E "All tests passed|test cases|FAILED" /tmp/t.log | head -5
gzip -c /tmp/t.log > "$OUT/unit.log.gz"
m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
for s in no_instruction long_scoreboard short_scoreboard imc_miss barrier wait lg_throttle mio_throttle selected; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
for n in before after; do
  b=build/cuda; [ $n = before ] && b=/tmp/before/build/cuda
  timeout 60 ncu --csv --page details --clock-control none --kernel-name-base demangled --launch-count 66 --metrics "$m" \
    $b/perf_tests/pack_bench_gpu --profile --only indexed --csv /dev/null > "$OUT/ncu-$n.csv" 2>&1
  echo "## ncu $n exit $? after $((SECONDS - t0)) s"
done
for n in before after after before before after; do
  b=build/cuda; [ $n = before ] && b=/tmp/before/build/cuda
  r=1; while [ -e "$OUT/$n-r$r.done" ]; do r=$((r + 1)); done
  for s in vector subarray indexed struct copy; do
    timeout 60 $b/perf_tests/pack_bench_gpu --only $s --csv "$OUT/pb-$n-$s-r$r.csv" > /dev/null 2>&1
  done
  touch "$OUT/$n-r$r.done"
  echo "## timed $n r$r after $((SECONDS - t0)) s"
done
rm -f "$OUT"/*.done
(cd "$OUT" && tar czf ../large-out.tgz . && rm -f ./* && mv ../large-out.tgz .)
