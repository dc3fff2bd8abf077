#!/usr/bin/env bash
# Device (one H200), issue 47 item 1: uniform fused kernels for every word size (1 and 2 bytes too). This tree only:
# build; CUDA unit suite, memcheck on fusion, MPI suite at 2 ranks sharing the GPU; SASS sizes; ncu of fusion_bench
# --quick --only halo (the queue's one-request probe and the halo launches against the hand index-list kernels), and
# the stall reasons of those launches.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false NCCL_NVLS_ENABLE=0
export PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF)
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1
grep -E "^==== .*exit" /tmp/kokkos.log | tail -1
echo "## kokkos after $((SECONDS - t0)) s"
export Catch2_ROOT=$PWD/.carry/catch2
cmake --preset cuda "${flags[@]}" > /dev/null 2>&1 && cmake --build build/cuda -j 16 --target kokkosddt_unit_tests_Cuda kokkosddt_mpi_tests_Cuda fusion_bench jacobi3d > /tmp/after-build.log 2>&1
echo "after build exit $?"; grep -E "error|warning" /tmp/after-build.log | grep -v "multiple optimization" | head -20
echo "## built after $((SECONDS - t0)) s"
export OMP_NUM_THREADS=1
t() { local lim=$1; shift; echo "## $*"; timeout $lim "$@" > /tmp/t.log 2>&1; local rc=$?; grep -E "All tests passed|test cases|FAILED|ERROR SUMMARY|rror" /tmp/t.log | head -8; echo "## exit $rc after $((SECONDS - t0)) s"; }
t 150 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
t 120 env KOKKOSDDT_TEST_SCALE=0.1 compute-sanitizer --tool memcheck --error-exitcode 1 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda "[cuda][fusion],[fusion],copy: a layout into the same layout elsewhere\, located once"
t 100 env KOKKOSDDT_TEST_TRANSPORT=PEER mpiexec -n 2 build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[transport],[graph]"
t 120 mpiexec -n 2 build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
for o in $(find build/cuda -name "*ETI_FusedLaunch*Cuda*.o"); do
  cuobjdump -sass "$o" | awk '/Function :/ {name=$3} /^ +\/\*[0-9a-f]+\*\// {n[name]++} END {for (k in n) print n[k], k}' | sort -n
done > "$OUT/sass-size.txt" 2>&1
timeout 150 ncu --csv --page details --clock-control none --kernel-name-base demangled -k regex:'FusedKernel|hand|Hand' \
  --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread \
  build/cuda/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/fusion-ncu.csv" 2>&1
echo "## ncu fusion exit $? after $((SECONDS - t0)) s"
m=""
for s in no_instruction imc_miss branch_resolving barrier long_scoreboard short_scoreboard wait membar drain lg_throttle mio_throttle math_pipe_throttle not_selected selected sleeping dispatch_stall misc; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
timeout 150 ncu --csv --page details --clock-control none --kernel-name-base demangled -k regex:'FusedKernel|hand_' --launch-count 40 \
  --metrics "gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,smsp__cycles_active.avg,sm__cycles_elapsed.max${m}" \
  build/cuda/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/fusion-stall.csv" 2>&1
echo "## ncu stall exit $? after $((SECONDS - t0)) s"
(cd "$OUT" && tar czf ../uni3-out.tgz . && rm -f ./* && mv ../uni3-out.tgz .)
echo "## end after $((SECONDS - t0)) s"
