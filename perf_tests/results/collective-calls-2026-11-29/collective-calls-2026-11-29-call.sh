#!/usr/bin/env bash
# Device (one H200 machine, its 16 cores), issue 47 item 5: gatherv_bench at p = 16 over Open MPI, host build
# (Kokkos OpenMP+Serial, g++), before (15e2a13) and after, alternating twice, b = 1, 10, 100.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false
t0=$SECONDS
kk=/tmp/kk
if [ ! -f /opt/kokkos/omp/lib/cmake/Kokkos/KokkosConfig.cmake ] && [ ! -f /opt/kokkos/omp/lib64/cmake/Kokkos/KokkosConfig.cmake ]; then
  rm -rf $kk && mkdir -p $kk && tar xzf .carry/tpls/kokkos-4.6.01.tar.gz -C $kk
  cmake -S $kk/kokkos-4.6.01 -B $kk/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/opt/kokkos/omp \
    -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON -DCMAKE_CXX_STANDARD=17 -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    > /tmp/kk.log 2>&1 && cmake --build $kk/build --target install -j 16 >> /tmp/kk.log 2>&1
  echo "## kokkos exit $? after $((SECONDS - t0)) s"; tail -3 /tmp/kk.log
fi
flags=(-DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF
  -DKokkos_ROOT=/opt/kokkos/omp)
[ -d /tmp/base ] || { mkdir -p /tmp/base && tar xzf .carry/base.tgz -C /tmp/base; }
for tree in /tmp/base "$PWD"; do
  (cd "$tree" && cmake --preset openmp "${flags[@]}" > /tmp/cfg.log 2>&1 &&
    cmake --build build/openmp -j 16 --target gatherv_bench > /tmp/b.log 2>&1)
  echo "## build $tree exit $? after $((SECONDS - t0)) s"; grep -E "error|CMake Error" -A3 /tmp/b.log /tmp/cfg.log | head -10
done
export OMP_NUM_THREADS=1
for round in $(seq 1 ${ROUNDS:-2}); do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    timeout 150 mpiexec --bind-to core -n 16 "$tree"/build/openmp/perf_tests/gatherv_bench --b 1,10,100 \
      --section ints,strided --csv "$OUT/gatherv-$name-r$round.csv" > "/tmp/g-$name-$round.log" 2>&1
    echo "## $name r$round: exit $? after $((SECONDS - t0)) s"
  done
done
grep -iE "mismatch|error" /tmp/g-*.log | head -5
echo "## done after $((SECONDS - t0)) s"
