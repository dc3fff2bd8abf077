#!/usr/bin/env bash
# README's GPU command on git archive HEAD (one run), then, in the time left, the new peer-memory test case alone over
# the peer transport with its assertions printed (whether CUDA refused the map and the plan took the message route).
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
README_RUNS=1 bash perf_tests/gpu_session.sh readme
left=$((590 - SECONDS))
exe=$(find /tmp/readme-tree/build/cuda -name kokkosddt_mpi_tests_Cuda -type f | head -1)
if [ "$left" -gt 15 ] && [ -n "$exe" ]; then
  timeout "$left" mpiexec -n 2 -x KOKKOSDDT_TEST_TRANSPORT=peer -x OMP_NUM_THREADS=1 "$exe" \
    "peer memory: memory another library keeps mapped goes by message" -s > "$OUT/peer-fallback.txt" 2>&1
  echo "peer-fallback rc=$?"
fi
