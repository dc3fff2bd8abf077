#!/usr/bin/env bash
# Device (4 GPUs), review of the session of 2026-11-27 evening: the deadline scenarios and a rank that dies over auto
# across 2 x 2 emulated nodes (NCCL on sockets between them, peer links within them), on the final tree.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
t0=$SECONDS
BUILD_TARGETS="kokkosddt_mpi_tests_Cuda" STEPS="environment kokkos build" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
echo "## built after $((SECONDS - t0)) s"
t=build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
emu="KOKKOSDDT_NODE_SIZE=2 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo"
x="-x KOKKOSDDT_NODE_SIZE -x NCCL_P2P_DISABLE -x NCCL_SHM_DISABLE -x NCCL_IB_DISABLE -x NCCL_SOCKET_IFNAME"
# shellcheck disable=SC2086
timeout 60 env KOKKOSDDT_TEST_TRANSPORT=AUTO $emu mpiexec -n 4 $x -x KOKKOSDDT_TEST_TRANSPORT $t "[deadline]" > /tmp/d.log 2>&1
echo "## deadline AUTO 2x2 nodes: exit $? $(grep -hE 'All tests passed|test cases:' /tmp/d.log | sort | uniq -c | tr '\n' ' ')"
grep -A8 -E "FAILED|atchdog" /tmp/d.log | head -20
for death in exit kill; do
  # shellcheck disable=SC2086
  timeout 40 env KOKKOSDDT_TEST_TRANSPORT=AUTO KOKKOSDDT_TEST_DEATH=$death KOKKOSDDT_TEST_DEATH_S=5 $emu \
    mpiexec --mca orte_abort_on_non_zero_status 0 -n 4 $x -x KOKKOSDDT_TEST_TRANSPORT -x KOKKOSDDT_TEST_DEATH \
    -x KOKKOSDDT_TEST_DEATH_S $t "[killed]" > /tmp/k.log 2>&1
  echo "## killed ($death) AUTO 2x2 nodes: exit $?"
  grep -E "a rank that dies" /tmp/k.log | cut -c1-260
done
echo "## done after $((SECONDS - t0)) s"
