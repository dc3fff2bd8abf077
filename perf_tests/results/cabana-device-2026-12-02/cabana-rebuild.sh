#!/usr/bin/env bash
# What ran (as /tmp/cab4.sh) on the first lease after session.sh's Cabana build failed: Kokkos 4.6.01's installed
# nvcc_wrapper defaults to sm_70, which CUDA 13 refuses, and Cabana's configure compiles with it before any flag of
# Kokkos' applies; first `sed -i 's/^default_arch="sm_70"/default_arch="sm_90"/' /tmp/kinst/bin/nvcc_wrapper`, then:
set -u
out=/tmp/gout; ompi=/opt/ompi-cuda
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH NVCC_WRAPPER_DEFAULT_ARCH=sm_90
echo "==== $(date -u +%T) cabana build (sm_90)"
(export PATH=$ompi/bin:$PATH CXX=/tmp/kinst/bin/nvcc_wrapper OUT=$out/cabana CABANA_STAGE=build
  bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana2-stage-build.log" 2>&1
echo "==== $(date -u +%T) built; waiting for the main script"
while [ ! -f $out/ALL-DONE ]; do sleep 3; done
echo "==== $(date -u +%T) cabana run"
(export PATH=$ompi/bin:$PATH OUT=$out/cabana CABANA_STAGE=run OMP_NUM_THREADS=4 HVC_ARGS="--space device"
  timeout 300 bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana2-stage-run.log" 2>&1
echo "==== $(date -u +%T) hvc mpi"
(export PATH=$ompi/bin:$PATH OUT=$out/cabana CABANA_STAGE=run HVC_ONLY=1 HVC_TAG=-mpi KOKKOSDDT_MPI_GPU_AWARE=1 HVC_ARGS="--space device --transport mpi"
  timeout 200 bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana2-stage-mpi.log" 2>&1
echo "==== $(date -u +%T) done"
touch $out/CAB2-DONE
