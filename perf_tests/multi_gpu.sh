#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The multi-GPU suite, one MPI rank per GPU, on a machine with 2 or 4 GPUs:
# tests, examples against one rank, the profile of a step, the scaling benchmark, halo_bench and heat3d against Kokkos
# Comm, the CG example, and Cabana's grid halo against ours (issue 73), at every rank count in RANKS (default: 2, and 4
# where there are 4 GPUs). Run from the repository root:
#
#   bash perf_tests/multi_gpu.sh [STEP ...]        (no STEP: all of them, in order)
#
# Steps: environment kokkos build tests examples nodes compare profile scaling halo heat3d cg cabana-build cabana. Resumable: each step runs once per
# machine (its state in /tmp/multi-gpu), and a call starts no step its remaining time cannot hold (MULTI_GPU_BUDGET_S,
# default 560 s, for hosts that limit a command to 10 minutes; raise it where none does); call again on the same
# machine for the rest. Every call leaves $OUT/multi-gpu.tgz (every log and CSV so far) and prints a summary.
#
# Inputs (git-ignored): .carry/kokkos-cuda.tgz (or .carry/tpls/kokkos-4.6.01.tar.gz: see gpu_session.sh),
# .carry/catch2, .carry/tpls/kokkos-kernels-4.7.00.tar.gz (the CG example), for heat3d the inputs
# perf_tests/heat3d/run_heat3d.sh names, and for Cabana a CUDA-aware MPI (.carry/ompi-cuda.tgz, below).
#
# Ranks take their GPUs by local rank (Kokkos' default mapping); NCCL's transport checks that no two share one.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0): on some hosts it can take the GPUs down.
# shellcheck disable=SC2317  # (the functions below run through step, by name)
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
state=/tmp/multi-gpu
logs=$state/logs
mkdir -p "$logs"
budget=${MULTI_GPU_BUDGET_S:-560}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMP_PROC_BIND=false
# Every core for the build: GNU nproc honours OMP_NUM_THREADS, which the runs below set to 1.
jobs=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
export OMP_NUM_THREADS=1
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
[ -d .carry/catch2 ] && export Catch2_ROOT=$PWD/.carry/catch2
gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
RANKS=${RANKS:-$([ "$gpus" -ge 4 ] && echo "2 4" || echo "2")}
bin=$PWD/build/cuda
status=0
pending=()

# step NAME ESTIMATE_S COMMAND...: runs COMMAND once per machine (log: $logs/NAME.log), unless it is done already, an
# earlier step is still to run, or the call's remaining time is under ESTIMATE_S. A step cut off by the budget is not
# marked done (the next call runs it again).
step() {
  local name=$1 estimate=$2
  shift 2
  if [ -f "$state/$name.done" ]; then
    echo "==== $name: done in an earlier call ($(cat "$state/$name.done"))"
    return 0
  fi
  local left=$((budget - SECONDS))
  if [ ${#pending[@]} -gt 0 ] || [ "$left" -lt "$estimate" ]; then  # (in order: a step may need the ones before)
    echo "==== $name: left for the next call (${left} s left, needs about ${estimate} s)"
    pending+=("$name")
    return 0
  fi
  echo "==== $name: $*"
  local t0=$SECONDS
  timeout "$left" bash -c '"$@"' step "$@" > "$logs/$name.log" 2>&1  # (bash -c: the commands may be functions)
  local rc=$?
  tail -n "${MULTI_GPU_TAIL:-12}" "$logs/$name.log"
  echo "==== $name: exit $rc after $((SECONDS - t0)) s"
  if [ "$rc" -eq 124 ]; then
    pending+=("$name")
  else
    echo "exit $rc, $((SECONDS - t0)) s" > "$state/$name.done"
  fi
  [ "$rc" -eq 0 ] || status=1
}

# A command that must pass; its exit status is remembered and the step goes on.
check() {
  echo "## $*"
  "$@"
  local rc=$?
  [ $rc -eq 0 ] || { echo "## FAILED ($rc): $*"; failed=1; }
}

environment() {
  nvidia-smi
  nvidia-smi topo -m
  nvcc --version | tail -2
  mpiexec --version | head -1
  python3 -c 'import nvidia.nccl, os; p = list(nvidia.nccl.__path__)[0]; print("NCCL:", p, os.listdir(p + "/lib"))'
  command -v nsys || ls /opt/nvidia/nsight-systems* 2> /dev/null || echo "no nsys"
  echo "cores: $jobs; GPUs: $gpus; rank counts: $RANKS"
  date -u
}

build() {
  bash perf_tests/gpu_session.sh build-multi-gpu
}

# The MPI layer's tests over each transport, the collectives, at every rank count (one GPU each); the CUDA unit
# tests that need two GPUs.
tests() {
  failed=0
  check "$bin"/unit_tests/kokkosddt_unit_tests_Cuda "[multi-gpu]"
  for n in $RANKS; do
    for transport in MPI NCCL PEER AUTO; do
      check env KOKKOSDDT_TEST_TRANSPORT=$transport mpiexec -n "$n" "$bin"/unit_tests/kokkosddt_mpi_tests_Cuda
    done
    # "auto" across emulated nodes: every rank a node of its own (every message over NCCL), and nodes of two ranks
    # (peer inside, NCCL between), with NCCL on its network transport over loopback.
    for size in 1 2; do
      [ "$size" -lt "$n" ] || continue
      check env KOKKOSDDT_TEST_TRANSPORT=AUTO KOKKOSDDT_NODE_SIZE=$size $nodes_env mpiexec -n "$n" \
        "$bin"/unit_tests/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[routes]"
    done
    # (the peer transport's landed receives on every field, not only on faces of many short runs)
    check env KOKKOSDDT_TEST_TRANSPORT=PEER KOKKOSDDT_PEER_LANDING=always mpiexec -n "$n" \
      "$bin"/unit_tests/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[transport]"
    check mpiexec -n "$n" "$bin"/unit_tests/kokkosddt_collectives_tests_Cuda
    # Deadlines and teardown (issue 46), over every transport on one node (across emulated nodes the teardown still
    # hangs: perf_tests/results/peer-memory-2026-11-27/peer-memory-2026-11-27.md).
    for transport in MPI NCCL PEER AUTO; do
      check env KOKKOSDDT_TEST_TRANSPORT=$transport mpiexec -n "$n" "$bin"/unit_tests/kokkosddt_mpi_tests_Cuda "[deadline]"
    done
  done
  check env CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER mpiexec -n 2 "$bin"/unit_tests/kokkosddt_mpi_tests_Cuda \
    "[deadline]"
  # The peer transport between processes sharing one GPU (CUDA IPC within a device).
  check env CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER mpiexec -n 2 "$bin"/unit_tests/kokkosddt_mpi_tests_Cuda \
    "[halo],[exchange],[transport]"
  check env CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER KOKKOSDDT_PEER_LANDING=always mpiexec -n 2 \
    "$bin"/unit_tests/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[transport]"
  return $failed
}

# The main job against one rank (it checks itself): jacobi3d over each transport.
examples() {
  failed=0
  for n in $RANKS; do
    for transport in auto mpi nccl peer; do check mpiexec -n "$n" "$bin"/examples/jacobi3d 128 100 "$transport"; done
    [ "$n" -gt 2 ] && check env KOKKOSDDT_NODE_SIZE=2 $nodes_env mpiexec -n "$n" "$bin"/examples/jacobi3d 128 100 auto
  done
  return $failed
}

# Two nodes of two GPUs on a 4-GPU machine (KOKKOSDDT_NODE_SIZE=2, NCCL through sockets over loopback): jacobi_bench
# at 128^3 and 64^3 per GPU over "auto" beside NCCL's own send/recv of the inter-node bytes alone (nccl-remote), the
# plan over "peer" (MPI between nodes) and over "nccl" (every pair); halo_bench there. Then one node, no emulation:
# "auto" against "peer".
nodes() {
  local n=${RANKS##* } size
  [ "$n" -ge 4 ] || { echo "needs 4 GPUs"; return 0; }
  for size in 128 64; do
    env KOKKOSDDT_NODE_SIZE=2 $nodes_env mpiexec -n "$n" "$bin"/perf_tests/jacobi_bench --per-rank "$size" \
      --iterations 300 --repeats 5 --exchanges none,nccl-remote,nccl,plan-auto,plan-peer,plan-nccl,hand-nccl \
      --label nodes-2x2 --csv "$logs/nodes-$size.csv" || return 1
    mpiexec -n "$n" "$bin"/perf_tests/jacobi_bench --per-rank "$size" --iterations 300 --repeats 5 \
      --exchanges none,plan-auto,plan-peer,plan-auto,plan-peer --label one-node --csv "$logs/one-node-$size.csv" ||
      return 1
  done
  env KOKKOSDDT_NODE_SIZE=2 $nodes_env mpiexec -n "$n" "$bin"/perf_tests/halo_bench --csv "$logs/halo-nodes.csv"
}

# Before against after in one run (issue 47's "no slowdown"): the tree in .carry/base-*.tgz (a git archive of the
# commit before the change) built like this one; then, alternating the two trees (and which of them goes first),
# COMPARE_ROUNDS rounds (default 3) of jacobi_bench at 64^3 per GPU (eager and replayed steps over each transport,
# NCCL's own send/recv beside them) and halo_bench, at every rank count. CSVs in $logs/compare-{before,after}-*.csv; the summary is compare_runs.py's (the
# medians over rounds, after/before, and each tree's spread between rounds, so that a difference can be told from
# the host's jitter).
compare() {
  local base_tgz
  base_tgz=$(compgen -G '.carry/base-*.tgz' | head -1)
  [ -n "$base_tgz" ] || { echo "no .carry/base-*.tgz"; return 1; }
  rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf "$base_tgz" -C /tmp/base
  (cd /tmp/base && cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF \
    -DKokkosDDT_ENABLE_TESTS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper \
    -DCMAKE_CXX_FLAGS=-arch=sm_90 > /dev/null &&
    cmake --build build/cuda -j "$jobs" --target jacobi_bench halo_bench > /dev/null) || { echo "base build failed"; return 1; }
  local n tree name round
  for round in $(seq 1 "${COMPARE_ROUNDS:-3}"); do
    local order=(/tmp/base "$PWD")
    # (odd rounds before first, even rounds after first: on 4 x H200 the tree run second was ~3 % slower in code
    # neither tree changed, perf_tests/results/four-gpu-2026-11-29/four-gpu-2026-11-29.md)
    [ $((round % 2)) = 0 ] && order=("$PWD" /tmp/base)
    for tree in "${order[@]}"; do
      name=$([ "$tree" = "$PWD" ] && echo after || echo before)
      for n in $RANKS; do
        timeout 120 mpiexec -n "$n" "$tree"/build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 500 --repeats 3 \
          --exchanges none,plan-auto,plan-peer,plan-nccl,plan-mpi,nccl --graph --label "$name-r$round" \
          --csv "$logs/compare-$name-jacobi-$n-r$round.csv" > /dev/null || echo "jacobi_bench $name $n r$round: exit $?"
        timeout 150 mpiexec -n "$n" "$tree"/build/cuda/perf_tests/halo_bench \
          --csv "$logs/compare-$name-halo-$n-r$round.csv" > /dev/null || echo "halo_bench $name $n r$round: exit $?"
      done
    done
  done
  for n in $RANKS; do
    echo "## jacobi_bench, $n ranks"
    python3 perf_tests/compare_runs.py --key ranks,exchange,mode --value us_per_iteration \
      --before "$logs"/compare-before-jacobi-"$n"-r*.csv --after "$logs"/compare-after-jacobi-"$n"-r*.csv
    echo "## halo_bench, $n ranks"
    python3 perf_tests/compare_runs.py --key n,fields,contender --value us \
      --before "$logs"/compare-before-halo-"$n"-r*.csv --after "$logs"/compare-after-halo-"$n"-r*.csv
  done
}

# Where a step's time goes (jacobi_bench --phases) at 2 ranks, 128^3 and 64^3 cells per rank, NCCL's log on (the
# transport NCCL took between the GPUs, the CPU affinity of its threads); the same with --bind-to none; then at the
# other rank counts.
profile() {
  local n size
  for size in 128 64; do
    local args=(--per-rank "$size" --iterations 500 --sync --phases)
    NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P mpiexec -n 2 -x NCCL_DEBUG -x NCCL_DEBUG_SUBSYS \
      "$bin"/perf_tests/jacobi_bench "${args[@]}" --label default --csv "$logs/profile-$size-default.csv"
    mpiexec -n 2 --bind-to none "$bin"/perf_tests/jacobi_bench "${args[@]}" --label none \
      --csv "$logs/profile-$size-none.csv"
  done
  for n in $RANKS; do
    [ "$n" = 2 ] && continue
    mpiexec -n "$n" "$bin"/perf_tests/jacobi_bench --per-rank 128 --iterations 500 --sync --phases --label default \
      --csv "$logs/profile-128-$n.csv"
  done
}

# jacobi_bench: weak scaling (64^3 and 128^3 per GPU) and strong scaling (256^3) on 1 rank and every rank count, each
# exchange, under mpiexec's default binding and --bind-to none.
scaling() {
  local csv=$logs/scaling.csv
  rm -f "$csv"
  for n in 1 $RANKS; do
    for binding in default none; do
      local flags=()
      [ "$binding" = none ] && flags=(--bind-to none)
      for size in "--per-rank 64" "--per-rank 128" "--cells 256"; do
        # shellcheck disable=SC2086  # (size is two words)
        mpiexec -n "$n" ${flags[@]+"${flags[@]}"} "$bin"/perf_tests/jacobi_bench $size --iterations 500 \
          --label "$binding" --csv "$logs/scaling-part.csv" || return 1
        if [ -f "$csv" ]; then tail -n +2 "$logs/scaling-part.csv" >> "$csv"; else cp "$logs/scaling-part.csv" "$csv"; fi
      done
    done
  done
}

# halo_bench at every rank count.
halo() {
  local n
  for n in $RANKS; do mpiexec -n "$n" "$bin"/perf_tests/halo_bench --csv "$logs/halo-$n.csv" || return 1; done
}

heat3d() {
  env OUT="$logs" HEAT3D_RANKS="$RANKS" bash perf_tests/heat3d/run_heat3d.sh
}

# Between emulated nodes, a network: NCCL's socket transport over loopback (no NVLink, no shared memory), and Open
# MPI's TCP over loopback (ob1 and the tcp BTL: no shared memory either), so that no transport crosses "nodes" faster
# than a network would. (env $nodes_env ...: split into assignments on purpose)
nodes_env="NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo OMPI_MCA_pml=ob1"
nodes_env+=" OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo"
export bin logs RANKS jobs gpus nodes_env
cg() {  # (last: Kokkos Kernels' templates are the slowest part of the build)
  bash perf_tests/gpu_session.sh build-cg || return 1
  failed=0
  for n in $RANKS; do
    for exchange in kokkosddt plan-nccl; do check mpiexec -n "$n" "$bin"/examples/cg_poisson 48 1e-12 "$exchange"; done
  done
  return $failed
}

# Cabana 0.7.0's grid halo against our halo plan, one rank per GPU (issue 73's goals on 2 and 4 GPUs): Cabana hands
# device pointers to MPI, so both steps need a CUDA-aware one: /opt/ompi-cuda, or .carry/ompi-cuda.tgz holding it
# (`tar czf .carry/ompi-cuda.tgz -C / opt/ompi-cuda` after ../shared/tools/cuda-aware-ompi.sh); without it they skip,
# saying so. cabana-build: the working tree's library (the `cuda` preset, library alone, into /tmp/kinst-cabana), Cabana
# and halo_vs_cabana on it (perf_tests/cabana/device_build.sh, into /tmp/cabana-bench). cabana: at every rank count,
# Cabana's own benchmark as it is (its "large" run, 4 OpenMP threads per rank for its host section), then
# halo_vs_cabana on the device over auto and over "mpi" (results checked equal to Cabana's in every row).
ompi_cuda=/opt/ompi-cuda
cabana_mpi() {
  [ -x $ompi_cuda/bin/mpicxx ] || { [ -f .carry/ompi-cuda.tgz ] && tar xzf .carry/ompi-cuda.tgz -C /; }
  [ -x $ompi_cuda/bin/mpicxx ] && "$ompi_cuda"/bin/ompi_info --parsable --all 2> /dev/null |
    grep -q 'mpi_built_with_cuda_support:value:true'
}
cabana_build() {
  cabana_mpi || { echo "cabana-build: skipped: no CUDA-aware MPI ($ompi_cuda or .carry/ompi-cuda.tgz)"; return 0; }
  tar czf /tmp/multi-gpu-tree.tgz --exclude=./.carry --exclude=./build --exclude=./gpu-out . || return 1
  PATH=$ompi_cuda/bin:$PATH bash perf_tests/cabana/device_build.sh /tmp/multi-gpu-tree.tgz /tmp/kinst-cabana \
    "$logs/cabana"
}
cabana() {
  local n t hvc=/tmp/cabana-bench/hvc/halo_vs_cabana
  [ -x $hvc ] || { echo "cabana: skipped: no halo_vs_cabana (the cabana-build step skipped or failed)"; return 0; }
  for n in $RANKS; do
    for t in auto mpi; do  # (Cabana's own benchmark once per rank count, before the first)
      env PATH=$ompi_cuda/bin:$PATH OUT="$logs/cabana" CABANA_STAGE=run OMP_NUM_THREADS=4 HVC_TAG="-$t" \
        HVC_ONLY=$([ $t = auto ] && echo 0 || echo 1) HVC_ARGS="--space device --transport $t" \
        bash perf_tests/cabana/run_cabana.sh /tmp/kinst-cabana "$n" large || return 1
      tail -n 22 "$logs/cabana/halo_vs_cabana-$n-$t.txt"
    done
  done
}

export ompi_cuda
export -f check environment build tests examples nodes compare profile scaling halo heat3d cg cabana_mpi cabana_build \
  cabana
steps=("$@")
[ ${#steps[@]} -eq 0 ] &&
  steps=(environment kokkos build tests examples nodes compare profile scaling halo heat3d cg cabana-build cabana)
for s in "${steps[@]}"; do
  case $s in
    environment) step environment 20 environment ;;
    kokkos) step kokkos 60 env OUT="$logs" bash perf_tests/gpu_session.sh kokkos ;;
    build) step build 150 build ;;
    tests) step tests 240 tests ;;
    examples) step examples 120 examples ;;
    nodes) step nodes 200 nodes ;;
    compare) step compare 300 compare ;;
    profile) step profile 60 profile ;;
    scaling) step scaling 240 scaling ;;
    halo) step halo 150 halo ;;
    heat3d) step heat3d 200 heat3d ;;
    cg) step cg 200 cg ;;
    cabana-build) step cabana-build 420 cabana_build ;;
    cabana) step cabana 360 cabana ;;
    *)
      echo "unknown step $s" >&2
      status=2
      ;;
  esac
done

tar czf "$OUT/multi-gpu.tgz" -C "$state" .
echo
echo "==== summary ($SECONDS s in this call)"
for f in "$state"/*.done; do [ -f "$f" ] && echo "  $(basename "$f" .done): $(cat "$f")"; done
if [ ${#pending[@]} -gt 0 ]; then
  echo "  not yet run: ${pending[*]} (call again on the same machine)"
  status=3
fi
exit $status
