#!/usr/bin/env bash
# Issue 73, 2026-12-03 (ninth session), lease a: README's GPU command on .carry/head.tgz (git archive HEAD), nothing
# reused, once; then fusion_bench's halo cells (plan = gather, scatter = the same plan's scatter-sum) twice.
set -u
out=$LEASE_DIR
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
stamp readme
OUT=$out README_RUNS=1 bash perf_tests/gpu_session.sh readme > "$out/readme-session.log" 2>&1
cat "$out/readme-summary.txt"
fb=/tmp/readme-tree/build/cuda/perf_tests/fusion_bench
[ -x "$fb" ] || fb=$(find /tmp/readme-tree/build/cuda -name fusion_bench -type f -perm -u+x | head -1)
stamp fusion_bench
for run in 1 2; do
  for cell in 16,1,1 64,1,8 128,2,8; do
    timeout 60 "$fb" --only halo --cell $cell --contenders plan,scatter --csv "$out/fb-$cell-$run.csv" \
      > "$out/fb-$cell-$run.txt" 2>&1
  done
done
stamp done
