#!/usr/bin/env bash
# Device (4 GPUs), issue 46: where the first NCCL plan's time goes, and what NCCL's own settings and the launcher's
# binding change (jacobi_bench 64^3 per GPU, plan-nccl first, then the step; KOKKOSDDT_PROFILE_SETUP=1 on rank 0).
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
t0=$SECONDS
BUILD_TARGETS="jacobi_bench" STEPS="environment kokkos build" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
echo "## built after $((SECONDS - t0)) s"
jb=build/cuda/perf_tests/jacobi_bench
one() {  # LABEL N MPIEXEC-ARGS... (env via -x)
  local label=$1 n=$2
  shift 2
  local s=$SECONDS
  timeout 60 mpiexec -n $n -x KOKKOSDDT_PROFILE_SETUP=1 "$@" $jb --per-rank 64 --iterations 300 --repeats 3 \
    --exchanges plan-nccl,plan-nccl --csv "/tmp/nccl-$label-$n.csv" > "/tmp/nccl-$label-$n.log" 2>&1
  local rc=$?
  local comm=$(grep -E "rank 0: NCCL communicator" "/tmp/nccl-$label-$n.log" | head -1 | sed 's/.*communicator: //')
  local route=$(grep -E "rank 0: engine:" "/tmp/nccl-$label-$n.log" | head -1 | sed 's/.*engine: //')
  echo "## $label n=$n rc=$rc ($((SECONDS - s)) s) | comm: $comm | engine: $route"
  grep -E "^plan-nccl " "/tmp/nccl-$label-$n.log" | head -2
}
export KOKKOSDDT_PROFILE_SETUP=1
for n in 4 2; do
  one base $n
  one bind-none $n --bind-to none
  NCCL_MAX_CTAS=2 one maxctas2 $n -x NCCL_MAX_CTAS
  NCCL_MAX_P2P_NCHANNELS=2 one p2pch2 $n -x NCCL_MAX_P2P_NCHANNELS
  NCCL_CUMEM_ENABLE=0 one cumem0 $n -x NCCL_CUMEM_ENABLE
  NCCL_RUNTIME_CONNECT=0 one rtconn0 $n -x NCCL_RUNTIME_CONNECT
  NCCL_MAX_P2P_NCHANNELS=2 one p2pch2-bind-none $n -x NCCL_MAX_P2P_NCHANNELS --bind-to none
done
head -3 /tmp/nccl-base-4.log; grep -E "rank 0" /tmp/nccl-base-4.log | head -12 | cut -c1-250
cat /tmp/nccl-*.csv > "$OUT/nccl-all.csv"; tar czf "$OUT/nccl-logs.tgz" /tmp/nccl-*.log 2>/dev/null
echo "## done after $((SECONDS - t0)) s"
