#!/usr/bin/env bash
# README's GPU command whole on git archive HEAD, then the peer-memory case alone printing its routes.
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi > "$LEASE_DIR/gpu.txt" 2>&1
OUT=$LEASE_DIR/readme README_RUNS=1 bash perf_tests/gpu_session.sh readme
echo "readme done at $SECONDS s"
exe=$(find /tmp/readme-tree/build/cuda -name kokkosddt_mpi_tests_Cuda -type f | head -1)
if [ -n "$exe" ]; then
  timeout 60 mpiexec -n 2 -x KOKKOSDDT_TEST_TRANSPORT=peer -x OMP_NUM_THREADS=1 "$exe" \
    "peer memory: memory another library keeps mapped goes by message" -s > "$LEASE_DIR/peer-fallback.txt" 2>&1
  echo "peer-fallback rc=$? at $SECONDS s"
fi
