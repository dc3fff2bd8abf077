#!/usr/bin/env bash
# Device (4 GPUs), issue 46: heat3d against Kokkos Comm at 2 GPUs, alternating 3 times in one call, then at 4; then
# one run over peer with KOKKOSDDT_PROFILE_SETUP=1 (each repetition's plan make and destroy, per process).
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
t0=$SECONDS
BUILD_TARGETS="heat3d_kokkosddt" STEPS="environment kokkos build" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
HEAT3D_RANKS=2 OUT=/tmp/h3 bash perf_tests/heat3d/run_heat3d.sh > /tmp/h3.log 2>&1; grep -E "FAILED|agrees|DIFFERS|_mean" /tmp/h3.log
echo "## built and first round after $((SECONDS - t0)) s"
kc=/tmp/heat3d-kc/build/perf_tests/mpi/perf-test-heat3d
ddt=build/cuda/perf_tests/heat3d_kokkosddt
reps() { grep -E "manual_time +[0-9.]+ ms" "$1" | awk '{printf "%s ", $2}'; grep -E "_(mean|median) " "$1" | awk '{printf "| %s %s ", $1, $2}' | sed 's|benchmark_heat3d_[a-z]*/iterations:1/repeats:10/manual_time_||g'; echo; }
for n in 2 4; do
  for round in 1 2 3; do
    timeout 120 mpiexec -n $n $kc --benchmark_color=false > /tmp/kc-$n-$round.log 2>&1
    timeout 120 mpiexec -n $n $ddt --benchmark_color=false peer > /tmp/peer-$n-$round.log 2>&1
    echo "kc   $n r$round: $(reps /tmp/kc-$n-$round.log)"
    echo "peer $n r$round: $(reps /tmp/peer-$n-$round.log)"
  done
done
timeout 120 mpiexec -n 2 -x KOKKOSDDT_PROFILE_SETUP=1 env KOKKOSDDT_PROFILE_SETUP=1 $ddt --benchmark_color=false peer > /tmp/prof-2.log 2>&1
grep -E "rank 0" /tmp/prof-2.log | cut -c1-220 | head -50
cat /tmp/kc-*.log > "$OUT/kc-all.log"; cat /tmp/peer-*.log > "$OUT/peer-all.log"; cp /tmp/prof-2.log /tmp/h3.log "$OUT/"
echo "## done after $((SECONDS - t0)) s"
