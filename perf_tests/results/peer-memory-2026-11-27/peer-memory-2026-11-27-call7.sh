#!/usr/bin/env bash
# Device (4 GPUs), issue 46, last call of 2026-11-27: one counter block per plan (pooled), NCCL's abort on a thread of
# its own and settled together at destroy: the peer memory tests, the suites, the deadline scenarios over every
# transport at 2 and 4 GPUs and auto across 2 x 2 emulated nodes; before (cc4af65) / after the step at 64^3 (twice),
# the make column, heat3d at 4.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
STEPS="environment kokkos" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
if [ ! -x /tmp/base/build/cuda/perf_tests/jacobi_bench ]; then
  (
    rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base-cc4af65.tgz -C /tmp/base && cd /tmp/base &&
      cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON \
        -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
        -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 &&
      cmake --build build/cuda -j 24 --target jacobi_bench
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
  timeout ${LIMIT:-100} env $vars "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' > "/tmp/$label.log"
  local rc=${PIPESTATUS[0]}
  echo "## $label: exit $rc after $((SECONDS - t0)) s: $(grep -hE 'All tests passed|test cases:' "/tmp/$label.log" | sort | uniq -c | tr '\n' ' ')"
  [ $rc = 0 ] || grep -A8 -E "FAILED|Segmentation|signal |atchdog|error:" "/tmp/$label.log" | grep -vE "^(-|\.)+$|^$|Catch2|Run with" | sort | uniq -c | sort -rn | head -20
}
run peer-memory-2 "KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[peer]"
run peer-memory-4 "KOKKOSDDT_TEST_TRANSPORT=AUTO" mpiexec -n 4 $t "[peer]"
run peer-memory-shared "CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[peer]"
run suite-PEER-2 "KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[halo],[exchange],[transport]"
run suite-AUTO-4 "KOKKOSDDT_TEST_TRANSPORT=AUTO" mpiexec -n 4 $t "[halo],[exchange],[transport],[routes]"
run suite-NCCL-2 "KOKKOSDDT_TEST_TRANSPORT=NCCL" mpiexec -n 2 $t "[halo],[exchange],[transport]"
for n in 2 4; do for tr in MPI NCCL PEER AUTO; do run "deadline-$tr-$n" "KOKKOSDDT_TEST_TRANSPORT=$tr" mpiexec -n $n $t "[deadline]"; done; done
run deadline-PEER-shared "CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[deadline]"
LIMIT=40 run deadline-AUTO-nodes "KOKKOSDDT_TEST_TRANSPORT=AUTO KOKKOSDDT_PROFILE_SETUP=trace $emu" mpiexec -n 4 -x KOKKOSDDT_PROFILE_SETUP $t "[deadline]"
grep -E "trace: .*(destroy|Abort|settle|fence)" /tmp/deadline-AUTO-nodes.log | tail -12
wait
tail -1 /tmp/base-build.log
for round in 1 2; do
  for tree in "$PWD" /tmp/base; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    echo "## step $name r$round"
    timeout 100 mpiexec -n 4 "$tree"/build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 500 --repeats 5 \
      --exchanges none,plan-auto,plan-peer,plan-peer --csv "$OUT/step-$name-r$round.csv" 2>&1 | grep -E "^(none|plan-[a-z]+) "
  done
done
echo "## heat3d after 4"
timeout 100 mpiexec -n 4 build/cuda/perf_tests/heat3d_kokkosddt peer > /tmp/heat3d.log 2>&1
grep -E "_(mean|median)" /tmp/heat3d.log; grep -E "manual_time +[0-9.]+ ms" /tmp/heat3d.log | awk "{printf \"%s \", \$2}"; echo
