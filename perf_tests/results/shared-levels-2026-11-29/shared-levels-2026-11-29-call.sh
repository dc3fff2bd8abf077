#!/usr/bin/env bash
# Device (one H200), issue 47 item 2: fused walks start below the levels a request shares, 32-bit positions, the
# record lookup as a binary search. before = .carry/base.tgz (f0a3b7e), after = this tree.
# PHASE=1: build both; CUDA unit suite, memcheck on fusion and copies, MPI suite at 2 ranks sharing the GPU (AUTO,
# PEER); ncu (time, instructions) of jacobi3d's fused self-copy at 64^3 and 128^3 and of fusion_bench --quick --only
# halo in both trees. PHASE=2: fusion_bench --only halo and jacobi3d, before/after alternating twice.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false NCCL_NVLS_ENABLE=0
export PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF)
benches="jacobi3d fusion_bench pack_bench_gpu"
trees=(/tmp/base "$PWD")
name_of() { case "$1" in /tmp/base) echo before ;; *) echo after ;; esac; }
if [ "${PHASE:-1}" = 1 ]; then
  bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1
  grep -E "^==== .*exit" /tmp/kokkos.log | tail -1
  echo "## kokkos after $((SECONDS - t0)) s"
  rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base.tgz -C /tmp/base
  export Catch2_ROOT=$PWD/.carry/catch2
  (cd /tmp/base && cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON "${flags[@]}" > /dev/null 2>&1 &&
    cmake --build build/cuda -j 6 --target $benches > /tmp/base-build.log 2>&1; echo "base build exit $?") &
  cmake --preset cuda "${flags[@]}" > /dev/null 2>&1 && cmake --build build/cuda -j 10 --target kokkosddt_unit_tests_Cuda kokkosddt_mpi_tests_Cuda $benches > /tmp/after-build.log 2>&1
  echo "after build exit $?"; grep -E "error|warning" /tmp/after-build.log | grep -v "multiple optimization" | head -20
  wait
  grep -E "error" /tmp/base-build.log | head
  echo "## built after $((SECONDS - t0)) s"
  export OMP_NUM_THREADS=1
  t() { local lim=$1; shift; echo "## $*"; timeout $lim "$@" > /tmp/t.log 2>&1; local rc=$?; grep -E "All tests passed|test cases|FAILED|ERROR SUMMARY|rror" /tmp/t.log | head -8; echo "## exit $rc after $((SECONDS - t0)) s"; }
  t 150 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
  t 100 env KOKKOSDDT_TEST_SCALE=0.1 compute-sanitizer --tool memcheck --error-exitcode 1 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda "[cuda][fusion],[fusion],[copy]"
  t 100 env KOKKOSDDT_TEST_TRANSPORT=PEER mpiexec -n 2 build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[transport],[graph]"
  t 120 mpiexec -n 2 build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
  for tree in "${trees[@]}"; do
    for N in 64 128; do
      timeout 60 ncu --csv --page details --clock-control none --kernel-name-base demangled -k regex:FusedKernel --launch-skip 20 --launch-count 4 \
        --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__registers_per_thread \
        $tree/build/cuda/examples/jacobi3d $N 30 auto > "$OUT/jacobi-ncu-$N-$(name_of $tree).csv" 2>&1
    done
    timeout 150 ncu --csv --page details --clock-control none --kernel-name-base demangled -k regex:'FusedKernel|hand|Hand' \
      --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread \
      $tree/build/cuda/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/fusion-ncu-$(name_of $tree).csv" 2>&1
    echo "## ncu $(name_of $tree) exit $? after $((SECONDS - t0)) s"
  done
fi
if [ "${PHASE:-1}" != 1 ]; then
  export OMP_NUM_THREADS=1
  for round in 1 2; do
    for tree in "${trees[@]}"; do
      timeout 100 "$tree"/build/cuda/perf_tests/fusion_bench --only halo --csv "$OUT/fusion-$(name_of $tree)-r$round.csv" > /dev/null 2>&1
      echo "## fusion $(name_of $tree) r$round exit $? after $((SECONDS - t0)) s"
      for sec in latency indexed; do
        timeout 60 "$tree"/build/cuda/perf_tests/pack_bench_gpu --only $sec --csv "$OUT/pack-$sec-$(name_of $tree)-r$round.csv" > /dev/null 2>&1
      done
      for N in 64 128; do
        timeout 60 "$tree"/build/cuda/examples/jacobi3d $N 400 auto 2>&1 | grep -E "time per iteration" | sed "s/^/$(name_of $tree) r$round N=$N: /" >> "$OUT/jacobi.txt"
      done
    done
  done
  cat "$OUT/jacobi.txt"
fi
(cd "$OUT" && tar czf ../sl-out.tgz . && rm -f ./* && mv ../sl-out.tgz .)
echo "## end after $((SECONDS - t0)) s"
