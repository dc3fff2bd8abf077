#!/usr/bin/env bash
# 2 x H200, warm after multi_gpu.sh build: halo_bench at 2 ranks, before (2e0711c) against after (this tree), ABABAB.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false NCCL_NVLS_ENABLE=0
export PATH=/usr/local/cuda/bin:$PATH Catch2_ROOT=$PWD/.carry/catch2
t0=$SECONDS
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF)
rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base.tgz -C /tmp/base
(cd /tmp/base && cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON "${flags[@]}" > /dev/null &&
  cmake --build build/cuda -j 32 --target halo_bench > /tmp/base-build.log 2>&1; echo "base build exit $?")
ls -la build/cuda/perf_tests/halo_bench | cut -c1-80
echo "## built after $((SECONDS - t0)) s"
export OMP_NUM_THREADS=1
for round in 1 2 3; do
  for nm in before after; do
    tree=$PWD; [ $nm = before ] && tree=/tmp/base
    timeout 75 mpiexec -n 2 "$tree"/build/cuda/perf_tests/halo_bench --csv "$OUT/halo-2-$nm-r$round.csv" > /dev/null 2>&1
    echo "## halo $nm r$round exit $? after $((SECONDS - t0)) s"
  done
done
