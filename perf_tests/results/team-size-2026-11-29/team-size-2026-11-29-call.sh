#!/usr/bin/env bash
# Device (one H200), issue 47 item 1: fused launches' teams no wider than their widest tile's words.
# before = .carry/base.tgz (e1ce488), after = this tree. Build both; CUDA unit suite; memcheck on fusion; MPI tests at
# 2 ranks sharing the GPU (PEER, AUTO); ncu of fusion_bench --quick --only halo in both trees (the queue's one-request
# probe, the halo launches and the hand index-list kernels: time, instructions, block size, stall reasons); then
# (PHASE 2) jacobi3d time and fusion_bench halo, before/after alternating.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false NCCL_NVLS_ENABLE=0
export PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF)
benches="jacobi3d fusion_bench"
trees=(/tmp/base "$PWD")
name_of() { case "$1" in /tmp/base) echo before ;; *) echo after ;; esac; }
if [ "${PHASE:-1}" = 1 ]; then
  bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1
  grep -E "^==== .*exit" /tmp/kokkos.log | tail -2
  echo "## kokkos after $((SECONDS - t0)) s"
  rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base.tgz -C /tmp/base
  export Catch2_ROOT=$PWD/.carry/catch2
  (cd /tmp/base && cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON "${flags[@]}" > /dev/null &&
    cmake --build build/cuda -j 6 --target $benches > /tmp/base-build.log 2>&1; echo "base build exit $?") &
  cmake --preset cuda "${flags[@]}" > /dev/null && cmake --build build/cuda -j 10 --target ${AFTER_TARGETS:-kokkosddt_unit_tests_Cuda kokkosddt_mpi_tests_Cuda $benches} > /tmp/after-build.log 2>&1
  echo "after build exit $?"; grep -E "error|warning" /tmp/after-build.log | head -20
  wait
  grep -E "error" /tmp/base-build.log | head
  echo "## built after $((SECONDS - t0)) s"
  export OMP_NUM_THREADS=1
  t() { local lim=$1; shift; echo "## $*"; timeout $lim "$@" > /tmp/t.log 2>&1; local rc=$?; grep -E "All tests passed|test cases|FAILED|ERROR SUMMARY|rror" /tmp/t.log | head -8; echo "## exit $rc after $((SECONDS - t0)) s"; }
  if [ -z "${SKIP_TESTS:-}" ]; then
  t 150 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
  t 90 env KOKKOSDDT_TEST_SCALE=0.1 compute-sanitizer --tool memcheck --error-exitcode 1 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda "[cuda][fusion],copy: a layout into the same layout elsewhere\, located once"
  t 100 env KOKKOSDDT_TEST_TRANSPORT=PEER mpiexec -n 2 build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[transport],[graph]"
  t 120 mpiexec -n 2 build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
  fi
  m=""
  for s in no_instruction imc_miss barrier long_scoreboard short_scoreboard wait membar selected; do
    m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
  done
  for round in 1 2; do
    for tree in "${trees[@]}"; do
      timeout 120 ncu --csv --page details --clock-control none --kernel-name-base demangled -k regex:'FusedKernel|hand' --launch-count 60 \
        --metrics "gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size${m}" \
        "$tree"/build/cuda/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/fusion-ncu-$(name_of $tree)-r$round.csv" 2>&1
      echo "## ncu $(name_of $tree) r$round exit $? after $((SECONDS - t0)) s"
    done
  done
fi
if [ "${PHASE:-1}" != 1 ] || [ -n "${BOTH:-}" ]; then
  export OMP_NUM_THREADS=1
  for round in 1 2; do
    for tree in "${trees[@]}"; do
      for n in 32 64; do
        timeout 40 "$tree"/build/cuda/examples/jacobi3d $n 400 auto > "$OUT/jacobi$n-$(name_of $tree)-r$round.txt" 2>&1
      done
      echo "## jacobi $(name_of $tree) r$round exit $? after $((SECONDS - t0)) s"
    done
  done
  for round in 1 2; do
    for tree in /tmp/base "$PWD"; do
      timeout 100 "$tree"/build/cuda/perf_tests/fusion_bench --only halo --csv "$OUT/fusion-$(name_of $tree)-r$round.csv" > /dev/null 2>&1
      echo "## fusion $(name_of $tree) r$round exit $? after $((SECONDS - t0)) s"
    done
  done
fi
(cd "$OUT" && tar czf ../team-out.tgz . && rm -f ./* && mv ../team-out.tgz .)
echo "## end after $((SECONDS - t0)) s"
