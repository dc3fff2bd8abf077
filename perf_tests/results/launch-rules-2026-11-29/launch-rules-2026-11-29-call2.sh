#!/usr/bin/env bash
# Device (one H200), seventeenth session: the carried-descriptor launch rule (carry_descriptor: up to two waves of
# words) against its absence, in one call. before = 2e04ecc (main with launch-tiles merged), after = this tree.
export OUT=${OUT:-$PWD/gpu-out} OMP_PROC_BIND=false OMP_NUM_THREADS=1 PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1; echo "## kokkos after $((SECONDS - t0)) s"
export Catch2_ROOT=$PWD/.carry/catch2
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF)
rm -rf build/var && mkdir -p build/var/before
tar xzf .carry/before-2e04ecc.tgz -C build/var/before
(cmake --preset cuda "${flags[@]}" > /dev/null 2>&1 &&
  cmake --build build/cuda -j 10 --target kokkosddt_unit_tests_Cuda pack_bench_gpu > /tmp/after.log 2>&1; echo "after build exit $?") &
(cd build/var/before && cmake --preset cuda "${flags[@]}" -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_MPI=OFF \
  -DKokkosDDT_ENABLE_EXAMPLES=OFF > /dev/null 2>&1 &&
  cmake --build build/cuda -j 6 --target pack_bench_gpu > /tmp/before.log 2>&1; echo "before build exit $?") &
wait; grep -h error /tmp/after.log /tmp/before.log | head
echo "## built after $((SECONDS - t0)) s"
u=build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
timeout 150 $u > /tmp/t.log 2>&1; echo "## unit exit $? after $((SECONDS - t0)) s"
grep -E "All tests passed|test cases|FAILED" /tmp/t.log | head -5
timeout 100 compute-sanitizer --tool memcheck $u "copy: a fused launch larger than the device moves every word once" > /tmp/mc.log 2>&1; echo "## memcheck large launch exit $? after $((SECONDS - t0)) s"
grep -E "ERROR SUMMARY|All tests passed|test cases" /tmp/mc.log | head -3
m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
for s in long_scoreboard short_scoreboard wait mio_throttle lg_throttle selected; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
ncu="ncu --csv --page details --clock-control none --kernel-name-base demangled"
for tree in "$PWD" build/var/before; do
  name=$([ "$tree" = "$PWD" ] && echo after || echo before)
  timeout 90 $ncu -k regex:'cuda_flat_kernel|hand_face' --metrics "$m" $tree/build/cuda/perf_tests/pack_bench_gpu --profile --only copy \
    --csv /dev/null > "$OUT/copy-ncu-$name.csv" 2>&1; echo "## copy ncu $name exit $? after $((SECONDS - t0)) s"
done
for tree in build/var/before "$PWD"; do
  name=$([ "$tree" = "$PWD" ] && echo after || echo before)
  for s in vector indexed subarray struct copy; do
    timeout 60 $tree/build/cuda/perf_tests/pack_bench_gpu --only $s --csv "$OUT/pack-$s-$name.csv" > "$OUT/pack-$s-$name.txt" 2>&1
    echo "## pack $s $name exit $? after $((SECONDS - t0)) s"
    [ $((SECONDS - t0)) -gt 540 ] && break 2
  done
done
(cd "$OUT" && tar czf ../rule-out.tgz . && rm -f ./* && mv ../rule-out.tgz .)
echo "## end after $((SECONDS - t0)) s"
