#!/usr/bin/env bash
# Device (4 GPUs), issue 46's first part: the deadline and teardown scenarios (Test_Deadlines.cpp, "[deadline]") over
# every transport at 2 and 4 GPUs, 2 ranks sharing a GPU, 2 x 2 emulated nodes; the plan suites again (nothing
# changes without a deadline); jacobi_bench at 64^3 per GPU before (eb8ee99) and after, alternating.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
STEPS="environment kokkos" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2  # (Kokkos first: the base uses it)
if [ ! -x /tmp/base/build/cuda/perf_tests/jacobi_bench ]; then
  (
    rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base-eb8ee99.tgz -C /tmp/base && cd /tmp/base &&
      cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON \
        -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
        -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 &&
      cmake --build build/cuda -j 24 --target jacobi_bench
    echo "base build exit $?"
  ) > "$OUT/base-build.log" 2>&1 &
fi
BUILD_TARGETS="kokkosddt_mpi_tests_Cuda jacobi_bench" STEPS="environment kokkos build" bash .carry/call-routes.sh |
  grep -E "^====|exit" | tail -3
cmake --build build/cuda -j 48 --target kokkosddt_mpi_tests_Cuda jacobi_bench 2>&1 | tail -1
wait
tail -1 "$OUT/base-build.log" 2> /dev/null
t=build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
emu="KOKKOSDDT_NODE_SIZE=2 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo"
run() {  # LABEL "VAR=value ..." ARGS...
  local label=$1 vars=$2
  shift 2
  echo "## $label"
  local t0=$SECONDS
  # shellcheck disable=SC2086
  timeout 120 env $vars "$@" > "$OUT/$label.log" 2>&1
  local rc=$?
  echo "   exit $rc after $((SECONDS - t0)) s: $(grep -hE 'All tests passed|test cases:' "$OUT/$label.log" | sort | uniq -c | tr '\n' ' ')"
  grep -hE "nothing arrived|names no rank" "$OUT/$label.log" | sort | uniq -c | head -4
  if [ $rc = 0 ]; then rm -f "$OUT/$label.log"; else grep -B3 -A10 -E "FAILED|Segmentation|signal|Watchdog|watchdog" "$OUT/$label.log" | head -60; fi
}
for n in 2 4; do
  for tr in MPI NCCL PEER AUTO; do run "deadline-$tr-$n" "KOKKOSDDT_TEST_TRANSPORT=$tr" mpiexec -n $n $t "[deadline]" -s; done
done
run deadline-PEER-shared "CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[deadline]" -s
run deadline-AUTO-nodes "KOKKOSDDT_TEST_TRANSPORT=AUTO $emu" mpiexec -n 4 $t "[deadline]" -s
run suite-AUTO-4 "KOKKOSDDT_TEST_TRANSPORT=AUTO" mpiexec -n 4 $t
run suite-PEER-2 "KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t
run suite-NCCL-2 "KOKKOSDDT_TEST_TRANSPORT=NCCL" mpiexec -n 2 $t
run suite-AUTO-nodes "KOKKOSDDT_TEST_TRANSPORT=AUTO $emu" mpiexec -n 4 $t "[halo],[exchange],[routes]"
for round in 1 2; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    echo "## jacobi $name r$round"
    timeout 100 mpiexec -n 4 "$tree"/build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 500 --repeats 5 \
      --exchanges none,plan-auto,plan-peer,plan-nccl --csv "/tmp/jacobi-$name-r$round.csv" 2>&1 | grep -E "^(none|plan)"
  done
done
