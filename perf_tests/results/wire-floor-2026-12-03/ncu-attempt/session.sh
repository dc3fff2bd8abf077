#!/usr/bin/env bash
# Issue 73, 2026-12-03 (ninth session), the last device minutes: where our plan's gather over "mpi" spends its time at
# 256^3 w1 against 16^3 w1. KokkosDDT's library (git archive HEAD, built against the carried CUDA-aware Open MPI),
# Cabana and halo_vs_cabana as in lease-s9b.sh; then halo_vs_cabana under ncu (every kernel's duration, summed per
# kernel name, each rank's own log), time-sliced (ncu does not profile MPS clients). Logs straight into $OUT.
set -u
out=$OUT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PATH=/opt/ompi-cuda/bin:/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*" | tee -a "$out/session.log"; }
jobs=$(env -u OMP_NUM_THREADS nproc)
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
stamp "cabana + halo_vs_cabana build"
(export CXX=/tmp/kinst/bin/nvcc_wrapper OUT=$out/cabana CABANA_STAGE=build
  bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-stage-build.log" 2>&1 ||
  { stamp "CABANA BUILD FAILED"; exit 1; }
hvc=/tmp/cabana-bench/hvc/halo_vs_cabana
ncu --version > "$out/ncu-version.txt" 2>&1
for n in 256 16; do
  stamp "ncu $n"
  timeout 120 mpiexec -n 2 -x KOKKOSDDT_MPI_GPU_AWARE=1 bash -c "ncu --target-processes all --print-summary per-kernel \
    --metrics gpu__time_duration.sum --log-file $out/ncu-$n-rank\$OMPI_COMM_WORLD_RANK.txt $hvc --space device \
    --transport mpi --sizes $n --widths 1" > "$out/hvc-ncu-$n.txt" 2>&1
done
stamp done
