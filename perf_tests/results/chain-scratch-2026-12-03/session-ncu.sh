#!/usr/bin/env bash
# Issue 73, 2026-12-03 (seventh session), diagnostic: fusion_bench of .carry/head.tgz (before) and .carry/cand.tgz
# (after), built side by side with -lineinfo; their halo cells (scatter, plan) timed alternately; then ncu's full set
# (source counters, warp states) of one scatter (combining) launch of each and one gather (copy) launch of the
# before tree, at 16^3 w1 F1, one process; the reports' details and SASS pages as text, and the reports themselves.
set -u
out=$LEASE_DIR
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH NVCC_APPEND_FLAGS=-lineinfo
stamp() { echo "==== $(date -u +%T) $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
ncu --version > "$out/ncu-version.txt" 2>&1
rm -rf /tmp/t /tmp/c /tmp/src && mkdir -p /tmp/t /tmp/c /tmp/src && tar xzf .carry/head.tgz -C /tmp/t && tar xzf .carry/cand.tgz -C /tmp/c
tar xzf .carry/tpls/kokkos-4.6.01.tar.gz -C /tmp/src
export Catch2_ROOT=$PWD/.carry/catch2
stamp build
build() {
  (cd "$1" && env FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/src/kokkos-4.6.01 cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF \
    -DKokkosDDT_ENABLE_EXAMPLES=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF \
    -DKokkosDDT_CUDA_ARCH=90 && cmake --build build/cuda -j 8 --target fusion_bench) > "$out/build-$2.log" 2>&1
}
build /tmp/t before & build /tmp/c after & wait
stamp built
fb_before=$(find /tmp/t/build/cuda -name fusion_bench -type f -perm -u+x | head -1)
fb_after=$(find /tmp/c/build/cuda -name fusion_bench -type f -perm -u+x | head -1)
[ -n "$fb_before" ] || { stamp "BEFORE BUILD FAILED"; tail -30 "$out/build-before.log"; }
[ -n "$fb_after" ] || { stamp "AFTER BUILD FAILED"; tail -30 "$out/build-after.log"; }
for run in 1 2; do
  for side in before after; do
    fb=$([ $side = before ] && echo "$fb_before" || echo "$fb_after")
    [ -n "$fb" ] || continue
    for cell in 16,1,1 64,1,8 128,2,8; do
      timeout 60 "$fb" --only halo --cell $cell --contenders plan,scatter --csv "$out/fb-$side-$cell-$run.csv" \
        > "$out/fb-$side-$cell-$run.txt" 2>&1
    done
  done
done
stamp timed
prof() {  # side fb direction contender
  [ -n "$2" ] || return
  timeout 150 ncu --kernel-name-base demangled -k "regex:UniformFusedKernel.*Direction\)$3" --launch-skip 30 \
    --launch-count 1 --set full --import-source yes -f -o "$out/$1" "$2" --only halo --cell 16,1,1 \
    --contenders "$4" > "$out/ncu-$1.log" 2>&1
  ncu --import "$out/$1.ncu-rep" --page details > "$out/$1-details.txt" 2>&1
  ncu --import "$out/$1.ncu-rep" --page source --csv --print-source sass > "$out/$1-sass.csv" 2>&1
}
prof scatter-before "$fb_before" 4 scatter
stamp "ncu 1"
prof scatter-after "$fb_after" 4 scatter
stamp "ncu 2"
prof gather-before "$fb_before" 3 plan
stamp done
