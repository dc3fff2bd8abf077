#!/usr/bin/env bash
# Device (one H200), nineteenth session: this tree (branch carried-large) built twice, the second carried block on
# (default, 2048) and off (-DKokkosDDT_INLINE_DESCRIPTOR_BYTES_LARGE=0, main's launches); pack_bench_gpu's latency
# section (gpu / enqueue / wall per op, incl. the 64-block irregular list) and indexed section, order off on on off off on.
export OUT=${OUT:-$PWD/gpu-out} OMP_PROC_BIND=false OMP_NUM_THREADS=1 PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1; echo "## kokkos after $((SECONDS - t0)) s"
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF -DKokkosDDT_ENABLE_EXAMPLES=OFF -DKokkosDDT_ENABLE_TESTS=OFF
  -DKokkosDDT_ENABLE_MPI=OFF)
rm -rf /tmp/off && mkdir -p /tmp/off && tar --exclude=./build --exclude=./.carry -cf - . | tar -xf - -C /tmp/off
(cd /tmp/off && cmake --preset cuda "${flags[@]}" -DKokkosDDT_INLINE_DESCRIPTOR_BYTES_LARGE=0 > /dev/null 2>&1 &&
  cmake --build build/cuda -j 8 --target pack_bench_gpu > /tmp/b1.log 2>&1; echo "off build exit $?") &
(cmake --preset cuda "${flags[@]}" > /tmp/c2.log 2>&1 &&
  cmake --build build/cuda -j 8 --target pack_bench_gpu > /tmp/b2.log 2>&1; echo "on build exit $?") &
wait; grep -h -B2 -A3 error /tmp/b1.log /tmp/b2.log /tmp/c2.log | head -20
echo "## built after $((SECONDS - t0)) s"
for n in off on on off off on; do
  b=build/cuda; [ $n = off ] && b=/tmp/off/build/cuda
  r=1; while [ -e "$OUT/$n-r$r.done" ]; do r=$((r + 1)); done
  for s in latency indexed; do
    timeout 90 $b/perf_tests/pack_bench_gpu --only $s --csv "$OUT/pb-$n-$s-r$r.csv" > "$OUT/pb-$n-$s-r$r.txt" 2>&1
  done
  touch "$OUT/$n-r$r.done"
  echo "## timed $n r$r after $((SECONDS - t0)) s"
done
rm -f "$OUT"/*.done
(cd "$OUT" && tar czf ../lat-out.tgz . && rm -f ./* && mv ../lat-out.tgz .)
