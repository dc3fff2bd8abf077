#!/usr/bin/env bash
# Device (one H200), issue 47 items 1-2: the fused kernel's record search back to fixed depth, without its count test,
# with the team lead of 9ec9904. This tree only (before: the two earlier calls' trees): ncu of fusion_bench --quick
# --only halo and the source view of a 26-record launch first, then the CUDA unit suite.
export OUT=${OUT:-$PWD/gpu-out} OMP_NUM_THREADS=1 OMP_PROC_BIND=false PATH=/usr/local/cuda/bin:$PATH NVCC_APPEND_FLAGS=-lineinfo
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1; echo "## kokkos after $((SECONDS - t0)) s"
export Catch2_ROOT=$PWD/.carry/catch2
cmake --preset cuda -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper \
  -DCMAKE_CXX_FLAGS=-arch=sm_90 > /dev/null 2>&1 && cmake --build build/cuda -j 16 --target fusion_bench > /tmp/b.log 2>&1
echo "## build exit $? after $((SECONDS - t0)) s"; grep -E "error" /tmp/b.log | head
m=""
for s in no_instruction imc_miss barrier long_scoreboard short_scoreboard wait membar selected; do m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"; done
ncu="ncu --kernel-name-base demangled --clock-control none"
timeout 40 $ncu --csv --page details -k regex:'FusedKernel|hand' --launch-count 60 \
  --metrics "gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size${m}" \
  build/cuda/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/fusion-ncu-final.csv" 2>&1
echo "## ncu after $((SECONDS - t0)) s"
timeout 30 $ncu -k regex:UniformFusedKernel --csv --page source --print-source cuda,sass --import-source yes --section SourceCounters \
  --launch-skip 30 --launch-count 1 build/cuda/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/fus-src-final.csv" 2>&1
echo "## src after $((SECONDS - t0)) s"
cmake --build build/cuda -j 16 --target kokkosddt_unit_tests_Cuda > /tmp/b2.log 2>&1; echo "## unit build exit $? after $((SECONDS - t0)) s"
timeout 30 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda > /tmp/t.log 2>&1; echo "## unit exit $?"; grep -E "All tests passed|test cases|FAILED" /tmp/t.log | head -5
echo "## end after $((SECONDS - t0)) s"
