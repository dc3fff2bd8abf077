#!/usr/bin/env bash
# Device (4 GPUs), issue 47 item 3, round 4: the default (eager, rising counters) step before (f372545) and after,
# alternating, 5 rounds: jacobi_bench 64^3 per GPU at 2 and 4 GPUs (plan-auto, plan-peer, plan-nccl); halo_bench at 4.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1 OMP_PROC_BIND=false
t0=$SECONDS
mkdir -p "$OUT/r4"
STEPS="environment kokkos" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
(
  rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base-f372545.tgz -C /tmp/base && cd /tmp/base &&
    cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON \
      -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
      -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 &&
    cmake --build build/cuda -j 24 --target jacobi_bench halo_bench
  echo "base build exit $?"
) > /tmp/base-build.log 2>&1 &
BUILD_TARGETS="jacobi_bench halo_bench" STEPS="environment kokkos build" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
wait
tail -1 /tmp/base-build.log
echo "## built after $((SECONDS - t0)) s"
for round in 1 2 3 4 5; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    for n in 2 4; do
      timeout 60 mpiexec -n $n "$tree"/build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 1000 --repeats 5 \
        --exchanges none,plan-auto,plan-peer,plan-nccl --csv "$OUT/r4/jacobi-$name-$n-r$round.csv" > /dev/null 2>&1
      echo "## jacobi $name n=$n r$round: $(tail -n +2 "$OUT/r4/jacobi-$name-$n-r$round.csv" | cut -d, -f4,6 | tr '\n' ' ')"
    done
  done
done
echo "## jacobi done after $((SECONDS - t0)) s"
for round in 1 2; do
  for tree in "$PWD" /tmp/base; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    timeout 100 mpiexec -n 4 "$tree"/build/cuda/perf_tests/halo_bench --csv "$OUT/r4/halo-$name-4-r$round.csv" > /dev/null 2>&1
    echo "## halo $name r$round exit $? after $((SECONDS - t0)) s"
  done
done
cd "$OUT" && tar czf bench4.tgz r4 && rm -rf r4
