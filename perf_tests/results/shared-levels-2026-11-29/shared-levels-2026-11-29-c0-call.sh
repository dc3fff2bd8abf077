#!/usr/bin/env bash
# Device (one H200), issue 47 item 2: where the uniform fused kernels spend their instructions, by source line
# (HEAD built with -lineinfo): jacobi3d 64^3's fused self-copy (Copy, 8) and fusion_bench's halo plan launches.
export OUT=${OUT:-$PWD/gpu-out} OMP_NUM_THREADS=1 OMP_PROC_BIND=false
export NVCC_APPEND_FLAGS=-lineinfo PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1
echo "## kokkos after $((SECONDS - t0)) s"
cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
  -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 > /dev/null 2>&1
cmake --build build/cuda -j 16 --target jacobi3d fusion_bench > /tmp/b.log 2>&1; echo "build exit $?"
echo "## built after $((SECONDS - t0)) s"
ncu="ncu --kernel-name-base demangled --clock-control none"
for skip in 21 22; do
  timeout 60 $ncu -k regex:FusedKernel --csv --page source --print-source cuda,sass --import-source yes --section SourceCounters \
    --launch-skip $skip --launch-count 1 build/cuda/examples/jacobi3d 64 40 auto > "$OUT/jac-src-$skip.csv" 2>&1
done
echo "## jacobi src after $((SECONDS - t0)) s"
timeout 120 $ncu -k regex:'FusedKernel|hand' --csv --page details \
  --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread \
  build/cuda/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/fusion-ncu.csv" 2>&1
echo "## fusion ncu after $((SECONDS - t0)) s"
timeout 60 $ncu -k regex:UniformFusedKernel --csv --page source --print-source cuda,sass --import-source yes --section SourceCounters \
  --launch-skip 30 --launch-count 1 build/cuda/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/fus-src.csv" 2>&1
echo "## end after $((SECONDS - t0)) s"
(cd "$OUT" && tar czf ../prof-out.tgz . && rm -f ./* && mv ../prof-out.tgz .)
