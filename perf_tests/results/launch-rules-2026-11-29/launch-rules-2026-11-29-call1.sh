#!/usr/bin/env bash
# Device (one H200), prepared in the sixteenth session for the next: run from a checkout of main.
#  - `noinline`: this tree with -DKokkosDDT_INLINE_DESCRIPTOR_BYTES=0 (no carried descriptors): isolates the carried
#    descriptors' share of random type 6's +8 % (pack_bench_gpu --only copy, ncu, against this tree).
#  - `tiles`: .carry/tiles-905bc9e.tgz (branch launch-tiles): the launch-level tile rule, against this tree: the CUDA
#    unit suite on it, ncu of fusion_bench --quick --only halo and jacobi3d's self-copy, fusion_bench --only halo
#    host-timed ABBA, jacobi3d 64/128 timing.
export OUT=${OUT:-$PWD/gpu-out} OMP_PROC_BIND=false OMP_NUM_THREADS=1 PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1; echo "## kokkos after $((SECONDS - t0)) s"
export Catch2_ROOT=$PWD/.carry/catch2
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF)
rm -rf build/var && mkdir -p build/var/tiles build/var/noinline
tar xzf .carry/tiles-905bc9e.tgz -C build/var/tiles
tar c --exclude=./build --exclude=./.carry --exclude=./.git --exclude=./gpu-out . | tar x -C build/var/noinline
(cmake --preset cuda "${flags[@]}" -DKokkosDDT_ENABLE_TESTS=OFF > /dev/null 2>&1 &&
  cmake --build build/cuda -j 5 --target fusion_bench pack_bench_gpu jacobi3d > /tmp/main.log 2>&1; echo "main build exit $?") &
(cd build/var/tiles && cmake --preset cuda "${flags[@]}" > /dev/null 2>&1 &&
  cmake --build build/cuda -j 6 --target kokkosddt_unit_tests_Cuda fusion_bench jacobi3d > /tmp/tiles.log 2>&1; echo "tiles build exit $?") &
(cd build/var/noinline && cmake --preset cuda "${flags[@]}" -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_MPI=OFF \
  -DKokkosDDT_ENABLE_EXAMPLES=OFF -DKokkosDDT_INLINE_DESCRIPTOR_BYTES=0 > /dev/null 2>&1 &&
  cmake --build build/cuda -j 5 --target pack_bench_gpu > /tmp/noinline.log 2>&1; echo "noinline build exit $?") &
wait; grep -h error /tmp/main.log /tmp/tiles.log /tmp/noinline.log | head
echo "## built after $((SECONDS - t0)) s"
timeout 150 build/var/tiles/build/cuda/unit_tests/kokkosddt_unit_tests_Cuda > /tmp/t.log 2>&1; echo "## tiles unit exit $?"
grep -E "All tests passed|test cases|FAILED" /tmp/t.log | head -5
m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
for s in no_instruction imc_miss barrier long_scoreboard short_scoreboard wait membar selected; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
ncu="ncu --csv --page details --clock-control none --kernel-name-base demangled"
for tree in "$PWD" build/var/noinline; do
  name=$([ "$tree" = "$PWD" ] && echo main || echo noinline)
  timeout 90 $ncu -k regex:'TypedCopy|hand_face' --metrics "$m" $tree/build/cuda/perf_tests/pack_bench_gpu --profile --only copy \
    --csv /dev/null > "$OUT/copy-ncu-$name.csv" 2>&1; echo "## copy ncu $name exit $? after $((SECONDS - t0)) s"
done
for tree in "$PWD" build/var/tiles; do
  name=$([ "$tree" = "$PWD" ] && echo main || echo tiles)
  timeout 40 $ncu -k regex:'FusedKernel|hand' --launch-count 60 --metrics "$m" $tree/build/cuda/perf_tests/fusion_bench --quick --only halo \
    --csv /dev/null > "$OUT/fusion-ncu-$name.csv" 2>&1
  for n in 64 128; do
    timeout 40 $ncu -k regex:FusedKernel --launch-skip 20 --launch-count 4 --metrics "$m" $tree/build/cuda/examples/jacobi3d $n 30 auto \
      > "$OUT/jacobi$n-ncu-$name.csv" 2>&1
  done
  echo "## fused ncu $name after $((SECONDS - t0)) s"
done
for tree in "$PWD" build/var/tiles build/var/tiles "$PWD"; do
  name=$([ "$tree" = "$PWD" ] && echo main || echo tiles)
  r=$([ -e "$OUT/fusion-$name-r1.csv" ] && echo 2 || echo 1)
  timeout 100 $tree/build/cuda/perf_tests/fusion_bench --only halo --csv "$OUT/fusion-$name-r$r.csv" > /dev/null 2>&1
  echo "## fusion $name r$r exit $? after $((SECONDS - t0)) s"
done
(cd "$OUT" && tar czf ../next-out.tgz . && rm -f ./* && mv ../next-out.tgz .)
echo "## end after $((SECONDS - t0)) s"
