#!/usr/bin/env bash
# Device (one H200), sixteenth session, call 3: typed copies launched flat with small descriptors in the parameters,
# and locate's terminal block resolved in the walk (device packs, fused packs and copies). before =
# .carry/base-copy.tgz (5102f22), after = this tree; both built here. CUDA unit suite, memcheck on copies and fusion,
# the MPI suite at 2 ranks sharing the GPU (AUTO; PEER); ncu of pack_bench_gpu --profile --only copy, of fusion_bench
# --quick --only halo and of jacobi3d's fused self-copy in both trees; pack_bench_gpu --only copy and --only indexed
# timed in both trees, alternating.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false NCCL_NVLS_ENABLE=0
export PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF)
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1; echo "## kokkos after $((SECONDS - t0)) s"
rm -rf build/base && mkdir -p build/base/src && tar xzf .carry/base-copy.tgz -C build/base/src
export Catch2_ROOT=$PWD/.carry/catch2
benches="pack_bench_gpu fusion_bench jacobi3d"
(cd build/base/src && cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF "${flags[@]}" > /dev/null 2>&1 &&
  cmake --build build/cuda -j 6 --target $benches > /tmp/base-build.log 2>&1; echo "base build exit $?") &
cmake --preset cuda "${flags[@]}" > /dev/null 2>&1 && cmake --build build/cuda -j 10 --target kokkosddt_unit_tests_Cuda kokkosddt_mpi_tests_Cuda $benches > /tmp/after-build.log 2>&1
echo "after build exit $?"; grep -E "error|warning" /tmp/after-build.log | head -20
wait; grep -E "error" /tmp/base-build.log | head
echo "## built after $((SECONDS - t0)) s"
export OMP_NUM_THREADS=1
t() { local lim=$1; shift; echo "## $*"; timeout $lim "$@" > /tmp/t.log 2>&1; local rc=$?; grep -E "All tests passed|test cases|FAILED|ERROR SUMMARY|rror" /tmp/t.log | head -8; echo "## exit $rc after $((SECONDS - t0)) s"; }
t 150 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
t 90 env KOKKOSDDT_TEST_SCALE=0.1 compute-sanitizer --tool memcheck --error-exitcode 1 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda "[copy],[cuda][fusion]"
t 100 env KOKKOSDDT_TEST_TRANSPORT=PEER mpiexec -n 2 build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[transport],[graph]"
t 120 mpiexec -n 2 build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
for s in no_instruction imc_miss barrier long_scoreboard short_scoreboard wait membar selected; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
ncu="ncu --csv --page details --clock-control none --kernel-name-base demangled"
for tree in build/base/src "$PWD"; do
  name=$([ "$tree" = "$PWD" ] && echo after || echo before)
  B=$tree/build/cuda
  timeout 90 $ncu -k regex:'TypedCopy|hand_face|ViewCopy|cuda_flat_kernel' --metrics "$m" $B/perf_tests/pack_bench_gpu --profile --only copy --csv /dev/null > "$OUT/copy-ncu-$name.csv" 2>&1
  echo "## copy ncu $name exit $? after $((SECONDS - t0)) s"
  timeout 40 $ncu -k regex:'FusedKernel|hand' --launch-count 60 --metrics "$m" $B/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/fusion-ncu-$name.csv" 2>&1
  echo "## fusion ncu $name exit $? after $((SECONDS - t0)) s"
  timeout 40 $ncu -k regex:FusedKernel --launch-skip 20 --launch-count 4 --metrics "$m" $B/examples/jacobi3d 64 30 auto > "$OUT/jacobi-ncu-$name.csv" 2>&1
  echo "## jacobi ncu $name exit $? after $((SECONDS - t0)) s"
done
for round in 1 2; do
  for tree in build/base/src "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    for sec in copy indexed; do
      timeout 60 $tree/build/cuda/perf_tests/pack_bench_gpu --only $sec --csv "$OUT/pb-$sec-$name-r$round.csv" > "$OUT/pb-$sec-$name-r$round.txt" 2>&1
    done
    echo "## pack_bench $name r$round exit $? after $((SECONDS - t0)) s"
  done
done
(cd "$OUT" && tar czf ../s16c-out.tgz . && rm -f ./* && mv ../s16c-out.tgz .)
echo "## end after $((SECONDS - t0)) s"
