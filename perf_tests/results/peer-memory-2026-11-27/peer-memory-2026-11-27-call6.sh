#!/usr/bin/env bash
# Device (4 GPUs), issue 46: (1) where auto's teardown across 2 x 2 emulated nodes hangs (KOKKOSDDT_PROFILE_SETUP=trace
# prints each teardown phase as it ends); (2) which of the kept resources slows jacobi_bench's 64^3 step by 2-7 %:
# the step with each one put back to the old behaviour (KOKKOSDDT_DIAG_*), against before (cc4af65).
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
BUILD_TARGETS="kokkosddt_mpi_tests_Cuda jacobi_bench" STEPS="environment kokkos build" \
  bash .carry/call-routes.sh | grep -E "^====|exit" | tail -3
cmake --build build/cuda -j 48 --target kokkosddt_mpi_tests_Cuda jacobi_bench 2>&1 | grep -E "error|FAILED" | tail -5
t=build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
emu="KOKKOSDDT_NODE_SIZE=2 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo"
echo "## deadline auto across emulated nodes, traced"
timeout 45 env KOKKOSDDT_TEST_TRANSPORT=AUTO KOKKOSDDT_PROFILE_SETUP=trace $emu mpiexec -n 4 -x KOKKOSDDT_PROFILE_SETUP \
  $t "[deadline]" -s 2>&1 | sed 's/\x1b\[[0-9;]*m//g' > "$OUT/trace-nodes.log"
echo "exit $?"
grep -nE "KokkosDDT trace|Timeout|timed out|-----|^[a-z].*scenario|SECTION|atchdog" "$OUT/trace-nodes.log" | grep -vE "^[0-9]+:-+$" | tail -60
wait
tail -1 /tmp/base-build.log
step() {  # LABEL TREE VARS
  local label=$1 tree=$2 vars=$3
  # shellcheck disable=SC2086
  printf "%-22s " "$label"
  timeout 100 env $vars mpiexec -n 4 $(for v in $vars; do echo -x "${v%%=*}"; done) "$tree"/build/cuda/perf_tests/jacobi_bench \
    --per-rank 64 --iterations 500 --repeats 5 --exchanges plan-peer --csv "/tmp/diag-$label.csv" 2>&1 | grep -E "^plan-peer " | awk '{print $4, $5, $6}'
}
for round in 1 2; do
  step "before-r$round" /tmp/base ""
  step "after-r$round" "$PWD" ""
  step "streams-r$round" "$PWD" "KOKKOSDDT_DIAG_FRESH_STREAMS=1"
  step "instances-r$round" "$PWD" "KOKKOSDDT_DIAG_FRESH_INSTANCES=1"
  step "counters-r$round" "$PWD" "KOKKOSDDT_DIAG_OWN_COUNTERS=1"
  step "descriptors-r$round" "$PWD" "KOKKOSDDT_DIAG_UNSHARED_DESCRIPTORS=1"
  step "all-r$round" "$PWD" "KOKKOSDDT_DIAG_FRESH_STREAMS=1 KOKKOSDDT_DIAG_FRESH_INSTANCES=1 KOKKOSDDT_DIAG_OWN_COUNTERS=1 KOKKOSDDT_DIAG_UNSHARED_DESCRIPTORS=1 KOKKOSDDT_PEER_IDLE_MAPPINGS=0"
done
