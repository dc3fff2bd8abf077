#!/usr/bin/env bash
# Device (one H200), eighteenth session: issue 47's pack_bench_gpu goal at 4 KiB (library <= hand + 0.3 us for the
# irregular indexed types), by ncu kernel time: pack_bench_gpu --profile --only indexed, every kernel of the first cases.
export OUT=${OUT:-$PWD/gpu-out} OMP_PROC_BIND=false OMP_NUM_THREADS=1 PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF -DKokkosDDT_ENABLE_MPI=OFF -DKokkosDDT_ENABLE_EXAMPLES=OFF)
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1; echo "## kokkos after $((SECONDS - t0)) s"
export Catch2_ROOT=$PWD/.carry/catch2
cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF "${flags[@]}" > /dev/null 2>&1 &&
  cmake --build build/cuda -j 16 --target pack_bench_gpu > /tmp/build.log 2>&1
echo "build exit $? after $((SECONDS - t0)) s"; grep -E "error" /tmp/build.log | head
m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
timeout 120 ncu --csv --page details --clock-control none --kernel-name-base demangled --launch-count 80 --metrics "$m" \
  build/cuda/perf_tests/pack_bench_gpu --profile --only indexed --csv "$OUT/pb-indexed.csv" > "$OUT/pb-ncu.csv" 2>&1
echo "## ncu exit $? after $((SECONDS - t0)) s"
timeout 60 build/cuda/perf_tests/pack_bench_gpu --only indexed --csv "$OUT/pb-indexed-timed.csv" > "$OUT/pb-timed.txt" 2>&1
echo "## timed exit $? after $((SECONDS - t0)) s"
