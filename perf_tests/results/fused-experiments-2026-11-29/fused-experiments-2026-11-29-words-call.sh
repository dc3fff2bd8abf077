#!/usr/bin/env bash
# Device (one H200), issue 47 items 1-2: several words per thread in fused launches (LaunchShape::fused_tile_bytes,
# words in flight). PHASE=1: build before (.carry/base.tgz = 28ace1f), after (default fused_thread_bytes 32) and
# after8 (-DKokkosDDT_FUSED_THREAD_BYTES=8: the old tile rule, the new code); CUDA unit suite; memcheck; MPI halo tests
# at 2 ranks sharing the GPU; ncu of jacobi3d's fused self-copy. PHASE=2: jacobi3d time, fusion_bench halo,
# pack_bench_gpu latency/indexed, before/after alternating.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false NCCL_NVLS_ENABLE=0
export PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF)
benches="jacobi3d fusion_bench pack_bench_gpu"
trees=(/tmp/base "$PWD" /tmp/after8)
name_of() { case "$1" in /tmp/base) echo before ;; /tmp/after8) echo after8 ;; *) echo after ;; esac; }
if [ "${PHASE:-1}" = 1 ]; then
  bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1
  grep -E "^==== .*exit" /tmp/kokkos.log | tail -2
  echo "## kokkos after $((SECONDS - t0)) s"
  rm -rf /tmp/base /tmp/after8 && mkdir -p /tmp/base /tmp/after8 && tar xzf .carry/base.tgz -C /tmp/base
  git ls-files -co --exclude-standard | grep -v '^\.carry' | tar cf - -T - | tar xf - -C /tmp/after8
  export Catch2_ROOT=$PWD/.carry/catch2
  (cd /tmp/base && cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON "${flags[@]}" > /dev/null &&
    cmake --build build/cuda -j 5 --target $benches > /tmp/base-build.log 2>&1; echo "base build exit $?") &
  (cd /tmp/after8 && cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON -DKokkosDDT_FUSED_THREAD_BYTES=8 "${flags[@]}" > /dev/null &&
    cmake --build build/cuda -j 5 --target $benches > /tmp/after8-build.log 2>&1; echo "after8 build exit $?") &
  cmake --preset cuda "${flags[@]}" > /dev/null && cmake --build build/cuda -j 8 --target ${AFTER_TARGETS:-kokkosddt_unit_tests_Cuda kokkosddt_mpi_tests_Cuda $benches} > /tmp/after-build.log 2>&1
  echo "after build exit $?"; grep -E "error|warning" /tmp/after-build.log | head -20
  wait
  grep -E "error" /tmp/base-build.log /tmp/after8-build.log | head
  echo "## built after $((SECONDS - t0)) s"
  export OMP_NUM_THREADS=1
  t() { local lim=$1; shift; echo "## $*"; timeout $lim "$@" > /tmp/t.log 2>&1; local rc=$?; grep -E "All tests passed|test cases|FAILED|ERROR SUMMARY|rror" /tmp/t.log | head -8; echo "## exit $rc after $((SECONDS - t0)) s"; }
  if [ -z "${SKIP_TESTS:-}" ]; then
  t 120 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
  t 90 env KOKKOSDDT_TEST_SCALE=0.1 compute-sanitizer --tool memcheck --error-exitcode 1 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda "[cuda][fusion],copy: a layout into the same layout elsewhere\, located once"
  t 100 env KOKKOSDDT_TEST_TRANSPORT=PEER mpiexec -n 2 build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[transport],[graph]"
  t 120 mpiexec -n 2 build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
  fi
  for n in 64 128; do
    for tree in "${trees[@]}"; do
      timeout 60 ncu --csv --kernel-name-base demangled --clock-control none --cache-control none -k regex:FusedKernel --launch-skip 20 --launch-count 4 \
        --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread \
        "$tree"/build/cuda/examples/jacobi3d $n 30 auto > "$OUT/ncu-jacobi$n-$(name_of $tree).csv" 2>&1
      echo "## ncu $n $(name_of $tree) exit $? after $((SECONDS - t0)) s"
    done
  done
fi
if [ "${PHASE:-1}" != 1 ] || [ -n "${BOTH:-}" ]; then
  export OMP_NUM_THREADS=1
  for round in 1 2; do
    for tree in "${trees[@]}"; do
      for n in 64 128; do
        timeout 40 "$tree"/build/cuda/examples/jacobi3d $n 400 auto > "$OUT/jacobi$n-$(name_of $tree)-r$round.txt" 2>&1
      done
      echo "## jacobi $(name_of $tree) r$round exit $? after $((SECONDS - t0)) s"
    done
  done
  for tree in /tmp/base "$PWD"; do
    timeout 100 "$tree"/build/cuda/perf_tests/fusion_bench --only halo --csv "$OUT/fusion-$(name_of $tree).csv" > /dev/null 2>&1
    echo "## fusion $(name_of $tree) exit $? after $((SECONDS - t0)) s"
  done
  for tree in /tmp/base "$PWD"; do
    for s in latency indexed; do
      timeout 60 "$tree"/build/cuda/perf_tests/pack_bench_gpu --only $s --csv "$OUT/pack-$s-$(name_of $tree).csv" > /dev/null 2>&1
    done
    echo "## pack $(name_of $tree) exit $? after $((SECONDS - t0)) s"
  done
fi
(cd "$OUT" && tar czf ../ft-out.tgz . && rm -f ./* && mv ../ft-out.tgz .)
echo "## end after $((SECONDS - t0)) s"
