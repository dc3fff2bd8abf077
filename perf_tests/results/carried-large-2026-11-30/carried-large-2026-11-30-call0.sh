#!/usr/bin/env bash
# Device (one H200), nineteenth session (call 0; prepared in the eighteenth as resident-threads-2026-11-29-next-pb2.sh): pack_bench_gpu --only indexed at 4 KiB, ncu with stall reasons, this tree
# as configured by default (descriptors of up to 1 KiB carried) and with -DKokkosDDT_INLINE_DESCRIPTOR_BYTES=2048 (the
# irregular indexed type's 1.6 KiB descriptor carried too).
export OUT=${OUT:-$PWD/gpu-out} OMP_PROC_BIND=false OMP_NUM_THREADS=1 PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF -DKokkosDDT_ENABLE_MPI=OFF -DKokkosDDT_ENABLE_EXAMPLES=OFF
  -DKokkosDDT_ENABLE_TESTS=OFF)
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1; echo "## kokkos after $((SECONDS - t0)) s"
(cmake --preset cuda "${flags[@]}" > /dev/null 2>&1 && cmake --build build/cuda -j 8 --target pack_bench_gpu > /tmp/b1.log 2>&1
  echo "default build exit $?") &
mkdir -p /tmp/s2 && tar --exclude=./build --exclude=./.carry -cf - . | tar -xf - -C /tmp/s2
(cd /tmp/s2 && cmake --preset cuda "${flags[@]}" -DKokkosDDT_INLINE_DESCRIPTOR_BYTES=2048 > /tmp/c2.log 2>&1 &&
  cmake --build build/cuda -j 8 --target pack_bench_gpu > /tmp/b2.log 2>&1; echo "2048 build exit $?") &
wait; grep -h error /tmp/b1.log /tmp/b2.log /tmp/c2.log | head -5
echo "## built after $((SECONDS - t0)) s"
m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
for s in no_instruction long_scoreboard short_scoreboard imc_miss barrier wait lg_throttle mio_throttle selected; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
for b in build/cuda /tmp/s2/build/cuda; do
  n=$([ $b = build/cuda ] && echo default || echo 2048)
  timeout 60 ncu --csv --page details --clock-control none --kernel-name-base demangled --launch-count 66 --metrics "$m" \
    $b/perf_tests/pack_bench_gpu --profile --only indexed --csv /dev/null > "$OUT/pb2-ncu-$n.csv" 2>&1
  echo "## ncu $n exit $? after $((SECONDS - t0)) s"
done
# Regressions elsewhere from a larger parameter block (every flat launch carries InlineDescriptor<Bytes> whole):
# host-timed rows of the latency-bound sections, default-2048-2048-default.
for n in default 2048 2048 default; do
  b=build/cuda; [ $n = 2048 ] && b=/tmp/s2/build/cuda
  r=$([ -e "$OUT/pb2-$n-r1.csv" ] && echo 2 || echo 1)
  for s in vector subarray indexed struct copy; do
    timeout 60 $b/perf_tests/pack_bench_gpu --only $s --csv "$OUT/pb2-$n-$s-r$r.csv" > /dev/null 2>&1
  done
  touch "$OUT/pb2-$n-r1.csv"
  echo "## timed $n r$r after $((SECONDS - t0)) s"
done
(cd "$OUT" && tar czf ../pb2-out.tgz . && rm -f ./* && mv ../pb2-out.tgz .)
