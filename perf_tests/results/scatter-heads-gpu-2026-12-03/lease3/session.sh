#!/usr/bin/env bash
# Lease 3 (issue 73): fusion_bench's halo (plan gather, plan scatter), main (before.tgz) / scatter groups alone
# (groups.tgz) / scatter-next with heads (head.tgz), alternating, twice each, one machine.
set -u
out=$LEASE_DIR
root=$PWD
export PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
mkdir -p /tmp/src && tar xzf .carry/tpls/kokkos-4.6.01.tar.gz -C /tmp/src && tar xzf .carry/tpls/kokkos-kernels-4.7.00.tar.gz -C /tmp/src
stamp builds
pids=""
for t in before groups head; do
  (rm -rf /tmp/$t && mkdir -p /tmp/$t && tar xzf .carry/$t.tgz -C /tmp/$t && cd /tmp/$t &&
    FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/src/kokkos-4.6.01 FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS=/tmp/src/kokkos-kernels-4.7.00 \
    Catch2_ROOT=$root/.carry/catch2 cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF &&
    cmake --build build/cuda -j 6 --target fusion_bench) > "$out/build-$t.log" 2>&1 &
  pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids
stamp "builds done: $(ls /tmp/*/build/cuda/perf_tests/fusion_bench 2>&1 | tr '\n' ' ')"
for t in head before groups head before groups; do
  stamp "fusion $t"
  timeout 100 /tmp/$t/build/cuda/perf_tests/fusion_bench --only halo --contenders plan,scatter \
    --csv "$out/fusion-$t-$SECONDS.csv" >> "$out/fusion-$t.txt" 2>&1
  echo "exit $?" >> "$out/fusion-$t.txt"
done
stamp done
