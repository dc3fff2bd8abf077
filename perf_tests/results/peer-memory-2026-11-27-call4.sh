#!/usr/bin/env bash
# Device (4 GPUs), issue 46 item 4, fourth call: with the step-stream pool and the cached Kokkos instances: the peer
# memory tests and the suites over peer and auto, the deadline scenarios over every transport (and auto across 2 x 2
# emulated nodes); before (cc4af65) / after alternating twice: the make column (64^3) and the step (jacobi_bench 64^3,
# 5 x 500 iterations); heat3d over peer at 2 and 4 ranks before and after.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
STEPS="environment kokkos" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
if [ ! -x /tmp/base/build/cuda/perf_tests/jacobi_bench ]; then
  (
    rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base-cc4af65.tgz -C /tmp/base && cd /tmp/base &&
      cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON \
        -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
        -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 &&
      cmake --build build/cuda -j 24 --target jacobi_bench heat3d_kokkosddt
    echo "base build exit $?"
  ) > /tmp/base-build.log 2>&1 &
fi
BUILD_TARGETS="kokkosddt_mpi_tests_Cuda jacobi_bench heat3d_kokkosddt" STEPS="environment kokkos build" \
  bash .carry/call-routes.sh | grep -E "^====|exit" | tail -3
cmake --build build/cuda -j 48 --target kokkosddt_mpi_tests_Cuda jacobi_bench heat3d_kokkosddt 2>&1 | grep -E "error|FAILED" | tail -5
t=build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
emu="KOKKOSDDT_NODE_SIZE=2 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo"
run() {  # LABEL "VAR=value ..." ARGS...
  local label=$1 vars=$2
  shift 2
  local t0=$SECONDS
  # shellcheck disable=SC2086
  timeout 150 env $vars "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' > "/tmp/$label.log"
  local rc=${PIPESTATUS[0]}
  echo "## $label: exit $rc after $((SECONDS - t0)) s: $(grep -hE 'All tests passed|test cases:' "/tmp/$label.log" | sort | uniq -c | tr '\n' ' ')"
  [ $rc = 0 ] || grep -A8 -E "FAILED|Segmentation|signal |atchdog|error:" "/tmp/$label.log" | grep -vE "^(-|\.)+$|^$|Catch2|Run with" | sort | uniq -c | sort -rn | head -${LINES_PER:-25}
}
run peer-memory-2 "KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[peer]"
run peer-memory-4 "KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 4 $t "[peer]"
run peer-memory-shared "CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[peer]"
run suite-PEER-2 "KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[halo],[exchange],[transport]"
run suite-AUTO-4 "KOKKOSDDT_TEST_TRANSPORT=AUTO" mpiexec -n 4 $t "[halo],[exchange],[transport],[routes]"
for n in 2 4; do for tr in MPI NCCL PEER AUTO; do run "deadline-$tr-$n" "KOKKOSDDT_TEST_TRANSPORT=$tr" mpiexec -n $n $t "[deadline]"; done; done
run deadline-PEER-shared "CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[deadline]"
LINES_PER=30 run deadline-AUTO-nodes "KOKKOSDDT_TEST_TRANSPORT=AUTO $emu" mpiexec -n 4 $t "[deadline]"
wait
tail -1 /tmp/base-build.log
for round in 1 2; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    echo "## make $name r$round"
    timeout 100 mpiexec -n 4 "$tree"/build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 200 --repeats 2 \
      --exchanges plan-peer,plan-peer,plan-auto,plan-auto --csv "$OUT/make-$name-r$round.csv" 2>&1 | grep -E "^plan-[a-z]+ "
    echo "## step $name r$round"
    timeout 100 mpiexec -n 4 "$tree"/build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 500 --repeats 5 \
      --exchanges none,plan-auto,plan-peer --csv "$OUT/step-$name-r$round.csv" 2>&1 | grep -E "^(none|plan-[a-z]+) "
  done
done
for n in 2 4; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    echo "## heat3d $name $n"
    timeout 100 mpiexec -n $n "$tree"/build/cuda/perf_tests/heat3d_kokkosddt peer > "$OUT/heat3d-$name-$n.log" 2>&1
    grep -E "_(mean|median)" "$OUT/heat3d-$name-$n.log"; grep -E "manual_time +[0-9.]+ ms" "$OUT/heat3d-$name-$n.log" | awk "{printf \"%s \", \$2}"; echo
  done
done
