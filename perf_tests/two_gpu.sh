#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Two GPUs, one MPI rank per GPU (issue 26): the tests, halo_bench, jacobi3d, cg_bench / cg_poisson and Kokkos Comm's
# heat3d against ours, over MPI (staged through pinned memory when the MPI is not CUDA-aware) and over NCCL. Run from
# the repository root on a machine with two GPUs (the lent `nvidia-h200-x2`):
#
#   bash perf_tests/two_gpu.sh
#
# Resumable: each step runs once per machine (its state in /tmp/two-gpu), and a call starts no step its remaining
# time cannot hold (TWO_GPU_BUDGET_S, default 540 s, inside the device tool's 10 minutes); call it again on the same
# warm machine for the rest. Every call leaves $OUT/two-gpu-logs.tgz (every log and CSV so far) and prints a summary.
#
# Inputs, as for gpu_session.sh: .carry/kokkos-cuda.tgz, .carry/catch2, .carry/tpls (Kokkos Kernels for the CG
# programs); for heat3d also .carry/kokkos-comm.tgz, .carry/kokkos-comm-heat3d, .carry/benchmark-1.8.3.tgz
# (perf_tests/heat3d/run_heat3d.sh says what they are).
#
# Each rank takes its own GPU: Kokkos maps devices by local MPI rank (round robin), and halo_bench checks that the
# ranks' PCI bus ids differ. NVLink multicast stays off (NCCL_NVLS_ENABLE=0): it can take the host's GPUs down.
# shellcheck disable=SC2317  # (the functions below run through step, by name)
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
state=/tmp/two-gpu
logs=$state/logs
mkdir -p "$logs"
budget=${TWO_GPU_BUDGET_S:-540}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OMP_PROC_BIND=false
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
bin=$PWD/build/cuda
status=0
pending=()

# step NAME ESTIMATE_S COMMAND...: runs COMMAND once per machine (log: $logs/NAME.log), unless it is done already, an
# earlier step is still to run, or the call's remaining time is under ESTIMATE_S. A step cut off by the budget is not marked done (the next call runs it
# again; the build then resumes where it stopped).
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
  tail -n "${TWO_GPU_TAIL:-8}" "$logs/$name.log"
  echo "==== $name: exit $rc after $((SECONDS - t0)) s"
  if [ "$rc" -eq 124 ]; then
    pending+=("$name")
  else
    echo "exit $rc, $((SECONDS - t0)) s" > "$state/$name.done"
  fi
  [ "$rc" -eq 0 ] || status=1
}

mpi2() { mpiexec -n 2 "$@"; }

environment() {
  nvidia-smi
  nvidia-smi topo -m
  nvidia-smi nvlink --status | head -40
  nvcc --version | tail -2
  mpiexec --version | head -1
  python3 -c 'import nvidia.nccl, os; p = list(nvidia.nccl.__path__)[0]; print("NCCL:", p, os.listdir(p + "/lib"))'
  # shellcheck disable=SC2016  # (expanded by each rank's shell)
  mpiexec -n 2 bash -c 'echo "rank $OMPI_COMM_WORLD_RANK: local rank $OMPI_COMM_WORLD_LOCAL_RANK"'
  nproc
  date -u
}

# jacobi3d, weak scaling: N^3 cells on one GPU, then (2N) x N x N on two (N^3 per rank), over each transport; the
# first NCCL run with NCCL_DEBUG=INFO (which paths NCCL took between the GPUs).
jacobi() {
  local n=$1
  mpiexec -n 1 "$bin"/examples/jacobi3d "$n" 200 mpi
  mpi2 "$bin"/examples/jacobi3d "$((2 * n))x${n}x${n}" 200 mpi
  if [ "$n" = 128 ]; then
    NCCL_DEBUG=INFO mpi2 -x NCCL_DEBUG "$bin"/examples/jacobi3d "$((2 * n))x${n}x${n}" 200 nccl
  else
    mpi2 "$bin"/examples/jacobi3d "$((2 * n))x${n}x${n}" 200 nccl
  fi
}

# cg_bench at one and two ranks: 64^3 and 128^3 (strong scaling) and 81^3, 161^3 at two ranks (twice the cells:
# weak scaling against 64^3 and 128^3 on one GPU); every exchange, the plan over NCCL too.
cg() {
  mpiexec -n 1 "$bin"/perf_tests/cg_bench --nccl --n 64,128 --csv "$logs/cg-1gpu.csv"
  mpi2 "$bin"/perf_tests/cg_bench --nccl --n 64,81,128,161 --csv "$logs/cg-2gpu.csv"
  for exchange in kokkosddt plan-nccl; do mpi2 "$bin"/examples/cg_poisson 48 1e-12 "$exchange"; done
}

export bin logs
export -f mpi2 environment jacobi cg
step environment 20 environment
step kokkos 60 env OUT="$logs" bash perf_tests/gpu_session.sh kokkos
step build 60 env OUT="$logs" bash perf_tests/gpu_session.sh build-two-gpu
step device-restore 20 "$bin"/unit_tests/kokkosddt_unit_tests_Cuda "[multi-gpu]" --success
step mpi-tests-mpi 90 env KOKKOSDDT_TEST_TRANSPORT=MPI mpiexec -n 2 "$bin"/unit_tests/kokkosddt_mpi_tests_Cuda
step mpi-tests-nccl 90 env KOKKOSDDT_TEST_TRANSPORT=NCCL mpiexec -n 2 "$bin"/unit_tests/kokkosddt_mpi_tests_Cuda
step collectives 60 mpi2 "$bin"/unit_tests/kokkosddt_collectives_tests_Cuda
step halo-bench 150 mpi2 "$bin"/perf_tests/halo_bench --csv "$logs/halo-2gpu.csv"
step jacobi-128 60 jacobi 128
step jacobi-256 90 jacobi 256
step build-cg 60 cmake --build "$bin" -j "$(nproc)" --target cg_bench cg_poisson
step cg 200 cg
step heat3d 240 env OUT="$logs" bash perf_tests/heat3d/run_heat3d.sh
step unit-tests-cuda 200 "$bin"/unit_tests/kokkosddt_unit_tests_Cuda

tar czf "$OUT/two-gpu-logs.tgz" -C "$state" .
echo
echo "==== summary ($SECONDS s in this call)"
for f in "$state"/*.done; do [ -f "$f" ] && echo "  $(basename "$f" .done): $(cat "$f")"; done
if [ ${#pending[@]} -gt 0 ]; then
  echo "  not yet run: ${pending[*]} (call again on the same machine)"
  status=3
fi
exit $status
