#!/usr/bin/env bash
# Device (one H200), sixteenth session, call 1: this tree (HEAD + pack_bench_gpu's copy section) and before =
# .carry/base.tgz (3c238b6, before the team lead and record search). Builds both; the CUDA unit suite, memcheck on a
# sample, the MPI suite at 2 ranks sharing the GPU on this tree; ncu of pack_bench_gpu --only copy (typed copies:
# instructions per word) and of fusion_bench --quick --only halo in both trees, alternating.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false NCCL_NVLS_ENABLE=0
export PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF)
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1
grep -E "^==== .*exit" /tmp/kokkos.log | tail -2
echo "## kokkos after $((SECONDS - t0)) s"
mkdir -p build/base && rm -rf build/base/src && mkdir -p build/base/src && tar xzf .carry/base.tgz -C build/base/src
export Catch2_ROOT=$PWD/.carry/catch2
(cd build/base/src && cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON "${flags[@]}" > /dev/null &&
  cmake --build build/cuda -j 6 --target fusion_bench > /tmp/base-build.log 2>&1; echo "base build exit $?") &
cmake --preset cuda "${flags[@]}" > /dev/null && cmake --build build/cuda -j 10 --target kokkosddt_unit_tests_Cuda kokkosddt_mpi_tests_Cuda fusion_bench pack_bench_gpu jacobi3d > /tmp/after-build.log 2>&1
echo "after build exit $?"; grep -E "error|warning" /tmp/after-build.log | head -20
wait
grep -E "error" /tmp/base-build.log | head
echo "## built after $((SECONDS - t0)) s"
export OMP_NUM_THREADS=1
t() { local lim=$1; shift; echo "## $*"; timeout $lim "$@" > /tmp/t.log 2>&1; local rc=$?; grep -E "All tests passed|test cases|FAILED|ERROR SUMMARY|rror" /tmp/t.log | head -8; echo "## exit $rc after $((SECONDS - t0)) s"; }
t 150 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
t 90 env KOKKOSDDT_TEST_SCALE=0.1 compute-sanitizer --tool memcheck --error-exitcode 1 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda "[cuda][fusion],copy: a layout into the same layout elsewhere\, located once,fusion queue: requests whose bytes are one contiguous run match the reference"
t 100 env KOKKOSDDT_TEST_TRANSPORT=PEER mpiexec -n 2 build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[transport],[graph]"
t 120 mpiexec -n 2 build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
timeout 100 build/cuda/perf_tests/pack_bench_gpu --only copy --csv "$OUT/copy-r1.csv" > "$OUT/copy-r1.txt" 2>&1
echo "## copy bench exit $? after $((SECONDS - t0)) s"
m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
for s in no_instruction imc_miss barrier long_scoreboard short_scoreboard wait membar selected; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
timeout 120 ncu --csv --page details --clock-control none --kernel-name-base demangled -k regex:'TypedCopy|hand_face|ViewCopy' \
  --metrics "$m" build/cuda/perf_tests/pack_bench_gpu --only copy --csv /dev/null > "$OUT/copy-ncu.csv" 2>&1
echo "## copy ncu exit $? after $((SECONDS - t0)) s"
for round in 1 2; do
  for tree in build/base/src "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    timeout 120 ncu --csv --page details --clock-control none --kernel-name-base demangled -k regex:'FusedKernel|hand' --launch-count 60 \
      --metrics "$m" "$tree"/build/cuda/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/fusion-ncu-$name-r$round.csv" 2>&1
    echo "## ncu $name r$round exit $? after $((SECONDS - t0)) s"
  done
done
(cd "$OUT" && tar czf ../s16a-out.tgz . && rm -f ./* && mv ../s16a-out.tgz .)
echo "## end after $((SECONDS - t0)) s"
