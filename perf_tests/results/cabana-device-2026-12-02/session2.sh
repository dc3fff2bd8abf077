#!/usr/bin/env bash
# Issue 73, the session's second lease on one H200 (the first: session.sh), started in the background and polled:
#   1. README's GPU command exactly, on `git archive HEAD` (.carry/head.tgz), from nothing (gpu_session.sh readme).
#   2. fusion_bench's halo on README's build: the plan's gather and scatter (sum) with a one-process scatter's
#      messages as combining copies (the default), then through the transport (KOKKOSDDT_HALO_SELF_MESSAGES=1: landed
#      by the peer transport, then combined: a pack and a combine, as before combining copies).
set -u
out=/tmp/gout
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
stamp "readme"
OUT=$out README_RUNS=1 bash perf_tests/gpu_session.sh readme > "$out/readme-session.log" 2>&1
cat "$out/readme-summary.txt"
touch "$out/README-DONE"
after=/tmp/readme-tree/build/cuda
for variant in copies transport; do
  stamp "fusion_bench halo ($variant): plan, scatter"
  env $([ $variant = transport ] && echo KOKKOSDDT_HALO_SELF_MESSAGES=1) timeout 100 "$after/perf_tests/fusion_bench" \
    --only halo --contenders plan,scatter --csv "$out/fusion-scatter-$variant.csv" > "$out/fusion-scatter-$variant.txt" 2>&1
  echo "fusion exit $?" >> "$out/fusion-scatter-$variant.txt"
done
stamp done
touch "$out/ALL-DONE"
