#!/usr/bin/env bash
# Device (one H100 machine, its 16 cores), issue 47 item 5: gatherv_bench at p = 16, before (6242420) and after
# (unchecked calls), alternating twice, b = 1, 10, 100.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMP_PROC_BIND=false
t0=$SECONDS
(
  rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base-6242420.tgz -C /tmp/base && cd /tmp/base &&
    while [ ! -x /opt/kokkos/cuda/bin/nvcc_wrapper ]; do sleep 2; done &&
    cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON \
      -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
      -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 > /dev/null &&
    cmake --build build/cuda -j 8 --target gatherv_bench
  echo "base build exit $?"
) > /tmp/base-build.log 2>&1 &
BUILD_TARGETS="gatherv_bench" STEPS="environment kokkos build" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
wait
tail -1 /tmp/base-build.log
echo "## built after $((SECONDS - t0)) s"
for round in 1 2; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    timeout 200 mpiexec --bind-to core -n 16 "$tree"/build/cuda/perf_tests/gatherv_bench --b 1,10,100 \
      --section ints,strided --csv "$OUT/gatherv-$name-r$round.csv" > "/tmp/g-$name-$round.log" 2>&1
    echo "## $name r$round: exit $? after $((SECONDS - t0)) s"
  done
done
grep -vE "WARNING|Detected|Requested|OMP_PROC|OpenMP|MPI detected|^\s*$" /tmp/g-after-2.log | cut -c1-40,300- | head -40
cp /tmp/g-after-2.log "$OUT/gatherv-after-r2.log"
echo "## done after $((SECONDS - t0)) s"
