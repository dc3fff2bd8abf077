#!/usr/bin/env bash
# Device (one H200), issue 47 item 1, experiment: does the fused kernel's 3.5 KiB of parameters (28 inline records)
# cost a tiny launch time? The same tree built twice: default (KokkosDDT_FUSED_INLINE_RECORDS=28) and with 1 inline
# record (a ~0.4 KiB functor; the one-request probe still carries its record as a parameter). ncu of fusion_bench
# --quick --only halo in both, alternating, two rounds.
export OUT=${OUT:-$PWD/gpu-out} PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$OUT"
t0=$SECONDS
jobs=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON)
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1
echo "## kokkos after $((SECONDS - t0)) s"
(cmake -S . -B build/p1 -G Ninja "${flags[@]}" -DKokkosDDT_FUSED_INLINE_RECORDS=1 > /dev/null && cmake --build build/p1 -j $((jobs / 2)) --target fusion_bench > /tmp/p1.log 2>&1; echo "p1 exit $?") &
cmake -S . -B build/p28 -G Ninja "${flags[@]}" > /dev/null && cmake --build build/p28 -j $((jobs / 2)) --target fusion_bench > /tmp/p28.log 2>&1; echo "p28 exit $?"
wait
grep -E "error" /tmp/p1.log /tmp/p28.log | head
echo "## built after $((SECONDS - t0)) s"
export OMP_NUM_THREADS=1
for round in 1 2; do
  for v in p28 p1; do
    timeout 120 ncu --csv --page details --clock-control none --kernel-name-base demangled -k regex:'FusedKernel|hand' --launch-count 60 \
      --metrics "gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size" \
      build/$v/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/param-ncu-$v-r$round.csv" 2>&1
    echo "## ncu $v r$round exit $? after $((SECONDS - t0)) s"
  done
done
(cd "$OUT" && tar czf ../param-out.tgz ./param-* && rm -f ./* && mv ../param-out.tgz .)
echo "## end after $((SECONDS - t0)) s"
