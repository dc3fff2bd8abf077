#!/usr/bin/env bash
# Device (one H200), sixteenth session, call 4: typed copies carry only node-only descriptors in the parameters.
# before = .carry/base-copy2.tgz (32975d3), after = this tree; the CUDA unit suite and memcheck on copies (after);
# ncu of pack_bench_gpu --profile --only copy in both trees.
export OUT=${OUT:-$PWD/gpu-out} OMP_PROC_BIND=false OMP_NUM_THREADS=1 PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF -DKokkosDDT_ENABLE_MPI=OFF -DKokkosDDT_ENABLE_EXAMPLES=OFF)
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1; echo "## kokkos after $((SECONDS - t0)) s"
rm -rf build/base && mkdir -p build/base/src && tar xzf .carry/base-copy2.tgz -C build/base/src
export Catch2_ROOT=$PWD/.carry/catch2
(cd build/base/src && cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF "${flags[@]}" > /dev/null 2>&1 &&
  cmake --build build/cuda -j 6 --target pack_bench_gpu > /tmp/base-build.log 2>&1; echo "base build exit $?") &
cmake --preset cuda "${flags[@]}" > /dev/null 2>&1 && cmake --build build/cuda -j 10 --target kokkosddt_unit_tests_Cuda pack_bench_gpu > /tmp/after-build.log 2>&1
echo "after build exit $?"; grep -E "error|warning" /tmp/after-build.log | head -20
wait; grep -E "error" /tmp/base-build.log | head
echo "## built after $((SECONDS - t0)) s"
t() { local lim=$1; shift; echo "## $*"; timeout $lim "$@" > /tmp/t.log 2>&1; local rc=$?; grep -E "All tests passed|test cases|FAILED|ERROR SUMMARY|rror" /tmp/t.log | head -8; echo "## exit $rc after $((SECONDS - t0)) s"; }
t 150 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
t 60 env KOKKOSDDT_TEST_SCALE=0.1 compute-sanitizer --tool memcheck --error-exitcode 1 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda "[copy]"
m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
for s in no_instruction imc_miss barrier long_scoreboard short_scoreboard wait membar selected; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
for tree in build/base/src "$PWD"; do
  name=$([ "$tree" = "$PWD" ] && echo after || echo before)
  timeout 90 ncu --csv --page details --clock-control none --kernel-name-base demangled -k regex:'TypedCopy|hand_face' --metrics "$m" \
    $tree/build/cuda/perf_tests/pack_bench_gpu --profile --only copy --csv /dev/null > "$OUT/copy-ncu-$name.csv" 2>&1
  echo "## copy ncu $name exit $? after $((SECONDS - t0)) s"
done
echo "## end after $((SECONDS - t0)) s"
