#!/usr/bin/env bash
# Device (one H200), issue 47 item 1: where the queue's one-request probe (one warp since the team-size change) and a
# 26-record halo pack spend their instructions and stalls, by source line (HEAD with -lineinfo; fusion_bench --quick
# --only halo; fused launches 0 and 16).
export OUT=${OUT:-$PWD/gpu-out} OMP_NUM_THREADS=1 OMP_PROC_BIND=false
export NVCC_APPEND_FLAGS=-lineinfo PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1
cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
  -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 > /dev/null 2>&1
cmake --build build/cuda -j 16 --target fusion_bench > /tmp/b.log 2>&1; echo "build exit $?"
echo "## built after $((SECONDS - t0)) s"
ncu="ncu --kernel-name-base demangled -k regex:FusedKernel --clock-control none --warp-sampling-interval 0"
for skip in 0 1 16; do
  timeout 60 $ncu --csv --page source --print-source cuda,sass --import-source yes --section SourceCounters \
    --launch-skip $skip --launch-count 1 build/cuda/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/src-$skip.csv" 2>&1
  echo "## src $skip exit $? after $((SECONDS - t0)) s"
done
timeout 60 $ncu --section WarpStateStats --section LaunchStats --section SchedulerStats --section SpeedOfLight \
  --launch-skip 0 --launch-count 2 build/cuda/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/details.txt" 2>&1
(cd "$OUT" && tar czf ../src-out.tgz . && rm -f ./* && mv ../src-out.tgz .)
echo "## end after $((SECONDS - t0)) s"
