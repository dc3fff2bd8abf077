#!/usr/bin/env bash
# Issue 73, planned for the next session: where our halo step's time goes on the device at 256^3 against 16^3 (our
# gather grows from 23-32 us to 81-96 us with the width making no difference, in both transports, while MPI's own bytes
# do not grow: wire-floor-2026-12-03). KokkosDDT's library from .carry/head.tgz built against the carried CUDA-aware
# Open MPI (.carry/ompi-cuda.tgz), Cabana + halo_vs_cabana on it, the CUPTI timeline library
# (perf_tests/timeline/kokkosddt_timeline.cpp, built with g++ here); then halo_vs_cabana at 16^3 and 256^3, widths 1
# and 4, auto and mpi, time-sliced and under MPS, each traced (every kernel and copy, and each timed run as a region),
# and perf_tests/timeline/region_summary.py on each trace. Logs straight into $OUT (a cut-off call keeps them).
#   run: mkdir -p $OUT && OUT=$OUT bash .carry/lease-s10.sh          (about 6 minutes)
set -u
out=$OUT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PATH=/opt/ompi-cuda/bin:/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*" | tee -a "$out/session.log"; }
jobs=$(env -u OMP_NUM_THREADS nproc)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
tar xzf .carry/ompi-cuda.tgz -C /
stamp "library build"
tree=/tmp/lib-tree
rm -rf $tree /tmp/lib-src && mkdir -p $tree /tmp/lib-src
tar xzf .carry/head.tgz -C $tree
tar xzf .carry/tpls/kokkos-4.6.01.tar.gz -C /tmp/lib-src
(cd $tree && FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/lib-src/kokkos-4.6.01 cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF \
  -DKokkosDDT_ENABLE_PERF_TESTS=OFF -DKokkosDDT_ENABLE_EXAMPLES=OFF -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF \
  -DMPI_CXX_COMPILER=/opt/ompi-cuda/bin/mpicxx -DMPI_C_COMPILER=/opt/ompi-cuda/bin/mpicc &&
  cmake --build build/cuda -j "$jobs" && cmake --install build/cuda --prefix /tmp/kinst) > "$out/lib-build.log" 2>&1 ||
  { stamp "LIBRARY BUILD FAILED"; exit 1; }
sed -i 's/^default_arch="sm_70"/default_arch="sm_90"/' /tmp/kinst/bin/nvcc_wrapper
tl=/tmp/libkokkosddt_timeline.so
g++ -O2 -std=c++17 -shared -fPIC $tree/perf_tests/timeline/kokkosddt_timeline.cpp -I/usr/local/cuda/include \
  -L/usr/local/cuda/lib64 -lcupti -lcuda -Wl,-rpath,/usr/local/cuda/lib64 -o $tl > "$out/timeline-build.log" 2>&1 ||
  stamp "TIMELINE BUILD FAILED"
stamp "cabana + halo_vs_cabana build"
(export CXX=/tmp/kinst/bin/nvcc_wrapper OUT=$out/cabana CABANA_STAGE=build
  bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-stage-build.log" 2>&1 ||
  { stamp "CABANA BUILD FAILED"; exit 1; }
hvc=/tmp/cabana-bench/hvc/halo_vs_cabana
for mps in off on; do
  [ $mps = on ] && nvidia-cuda-mps-control -d
  for t in auto mpi; do
    stamp "traced: MPS $mps, transport $t"
    timeout 120 mpiexec -n 2 -x KOKKOS_TOOLS_LIBS=$tl -x KOKKOSDDT_TIMELINE=$out/tl-$mps-$t $hvc --space device \
      --transport $t --sizes 16,256 --widths 1,4 --csv "$out/hvc-$mps-$t.csv" > "$out/hvc-$mps-$t.txt" 2>&1
    python3 $tree/perf_tests/timeline/region_summary.py $out/tl-$mps-$t --csv "$out/regions-$mps-$t.csv" \
      > "$out/regions-$mps-$t.txt" 2>&1
  done
  [ $mps = on ] && echo quit | nvidia-cuda-mps-control
done
gzip -q $out/tl-*.csv
stamp done
