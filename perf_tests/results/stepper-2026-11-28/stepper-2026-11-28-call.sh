#!/usr/bin/env bash
# Device (one H100), issue 47 item 2: the stepping walk. Before (935361b) and after in one call: the CUDA unit suite's
# device-layout, copy and fusion tests, ncu's instructions of jacobi3d's fused self-copy (128^3, one rank), fusion_bench's
# halo table and pack_bench_gpu's latency and indexed sections.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMP_PROC_BIND=false
t0=$SECONDS
(
  rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base-935361b.tgz -C /tmp/base && cd /tmp/base &&
    while [ ! -x /opt/kokkos/cuda/bin/nvcc_wrapper ]; do sleep 2; done &&
    cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON \
      -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
      -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 > /dev/null &&
    cmake --build build/cuda -j 6 --target fusion_bench pack_bench_gpu jacobi3d
  echo "base build exit $?"
) > /tmp/base-build.log 2>&1 &
BUILD_TARGETS="${AFTER_TARGETS:-kokkosddt_unit_tests_Cuda fusion_bench pack_bench_gpu jacobi3d}" STEPS="environment kokkos build" \
  bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
wait
tail -3 /tmp/base-build.log
echo "## built after $((SECONDS - t0)) s"
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout 200 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda "[random],[copy],[fusion]" 2>&1 | tail -4
  echo "## tests exit ${PIPESTATUS[0]} after $((SECONDS - t0)) s"
fi
for tree in /tmp/base "$PWD"; do
  name=$([ "$tree" = "$PWD" ] && echo after || echo before)
  timeout 120 ncu --csv --clock-control none --cache-control none -k regex:FusedKernel --launch-skip 20 --launch-count 4 \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__registers_per_thread \
    "$tree"/build/cuda/examples/jacobi3d 128 30 auto > "$OUT/ncu-jacobi-$name.csv" 2>&1
  echo "## ncu $name exit $? after $((SECONDS - t0)) s"
done
for round in 1 2; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    timeout 150 "$tree"/build/cuda/perf_tests/fusion_bench --only halo --csv "$OUT/fusion-$name-r$round.csv" > /dev/null 2>&1
    echo "## fusion $name r$round exit $? after $((SECONDS - t0)) s"
    [ "$round" = 2 ] && continue
    for s in latency indexed; do
      timeout 100 "$tree"/build/cuda/perf_tests/pack_bench_gpu --only $s --csv "$OUT/pack-$s-$name.csv" > /dev/null 2>&1
    done
    echo "## pack $name exit $? after $((SECONDS - t0)) s"
  done
done
