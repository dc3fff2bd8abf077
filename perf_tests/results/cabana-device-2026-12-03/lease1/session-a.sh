#!/usr/bin/env bash
# Issue 73 on one lent H200 (first lease of the session), started in the background (setsid) and polled:
#   1. KokkosDDT's library alone (`cuda` preset, tests/benchmarks/examples off, Kokkos in-tree from .carry/tpls) from
#      `git archive HEAD` (.carry/head.tgz), installed with its Kokkos into /tmp/kinst; the installed nvcc_wrapper's
#      default arch moved to sm_90 (CUDA 13 refuses its sm_70, and Cabana's configure compiles with it).
#   2. The CUDA-aware Open MPI 4.1.4 carried from the VM (.carry/ompi-cuda.tgz); Cabana 0.7.0 and halo_vs_cabana.
#   3. 2 ranks sharing the GPU, time-sliced (no MPS) and then under MPS: Cabana's own HaloPerformance (large), then
#      halo_vs_cabana --space device with our plan's auto transport and with "mpi" on that Open MPI.
set -u
out=/tmp/gout
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
root=$PWD
jobs=$(env -u OMP_NUM_THREADS nproc)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
ompi=/opt/ompi-cuda
(tar xzf .carry/ompi-cuda.tgz -C / && "$ompi/bin/ompi_info" --parsable --all | grep "mpi_built_with_cuda_support:value") \
  > "$out/ompi.txt" 2>&1 &
stamp "library build"
tree=/tmp/lib-tree
rm -rf $tree /tmp/lib-src && mkdir -p $tree /tmp/lib-src
tar xzf .carry/head.tgz -C $tree
tar xzf .carry/tpls/kokkos-4.6.01.tar.gz -C /tmp/lib-src
(cd $tree && FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/lib-src/kokkos-4.6.01 cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF \
  -DKokkosDDT_ENABLE_PERF_TESTS=OFF -DKokkosDDT_ENABLE_EXAMPLES=OFF -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF &&
  cmake --build build/cuda -j "$jobs" && cmake --install build/cuda --prefix /tmp/kinst) > "$out/lib-build.log" 2>&1 ||
  { stamp "LIBRARY BUILD FAILED"; tail -30 "$out/lib-build.log"; touch "$out/ALL-DONE"; exit 1; }
sed -i 's/^default_arch="sm_70"/default_arch="sm_90"/' /tmp/kinst/bin/nvcc_wrapper
wait
cat "$out/ompi.txt"
stamp "cabana + halo_vs_cabana build"
(export PATH=$ompi/bin:$PATH CXX=/tmp/kinst/bin/nvcc_wrapper OUT=$out/cabana CABANA_STAGE=build
  bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-stage-build.log" 2>&1 ||
  { stamp "CABANA BUILD FAILED"; tail -30 "$out/cabana-stage-build.log"; }
for mps in off on; do
  if [ $mps = on ]; then nvidia-cuda-mps-control -d && stamp "MPS started"; fi
  stamp "cabana HaloPerformance + halo_vs_cabana auto (MPS $mps)"
  (export PATH=$ompi/bin:$PATH OUT=$out/cabana-mps-$mps CABANA_STAGE=run OMP_NUM_THREADS=4 HVC_ARGS="--space device"
    timeout 240 bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-run-mps-$mps.log" 2>&1
  stamp "halo_vs_cabana mpi (MPS $mps)"
  (export PATH=$ompi/bin:$PATH OUT=$out/cabana-mps-$mps CABANA_STAGE=run HVC_ONLY=1 HVC_TAG=-mpi \
    KOKKOSDDT_MPI_GPU_AWARE=1 HVC_ARGS="--space device --transport mpi"
    timeout 200 bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-mpi-mps-$mps.log" 2>&1
  if [ $mps = on ]; then echo quit | nvidia-cuda-mps-control; fi
done
stamp done
touch "$out/ALL-DONE"
