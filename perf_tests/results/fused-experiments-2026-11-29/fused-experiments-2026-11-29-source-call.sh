#!/usr/bin/env bash
# Device (one H200), issue 47 item 1: where the fused self-copy of jacobi3d 64^3 waits, by source line: stall samples
# (every 32 cycles) and the warp-state breakdown, HEAD built with -lineinfo.
export OUT=${OUT:-$PWD/gpu-out} OMP_NUM_THREADS=1 OMP_PROC_BIND=false
export NVCC_APPEND_FLAGS=-lineinfo PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1
cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
  -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 > /dev/null 2>&1
cmake --build build/cuda -j 16 --target jacobi3d > /tmp/b.log 2>&1; echo "build exit $?"
echo "## built after $((SECONDS - t0)) s"
ncu="ncu --kernel-name-base demangled -k regex:FusedKernel --clock-control none --warp-sampling-interval 0"
for skip in 20 21 22; do
  timeout 60 $ncu --csv --page source --print-source cuda,sass --import-source yes --section SourceCounters \
    --launch-skip $skip --launch-count 1 build/cuda/examples/jacobi3d 64 40 auto > "$OUT/src-$skip.csv" 2>&1
done
timeout 60 $ncu --section WarpStateStats --section LaunchStats --section Occupancy --section SchedulerStats \
  --section SpeedOfLight --launch-skip 20 --launch-count 2 build/cuda/examples/jacobi3d 64 40 auto > "$OUT/details.txt" 2>&1
(cd "$OUT" && tar czf ../src-out.tgz . && rm -f ./* && mv ../src-out.tgz .)
echo "## end after $((SECONDS - t0)) s"
