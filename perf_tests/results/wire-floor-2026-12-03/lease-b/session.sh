#!/usr/bin/env bash
# Issue 73, 2026-12-03 (ninth session), lease b, on a fresh machine:
#   1. KokkosDDT's library alone (`cuda` preset, tests/benchmarks/examples off, Kokkos in-tree from .carry/tpls) from
#      .carry/head.tgz (git archive HEAD), built against the CUDA-aware Open MPI 4.1.4 carried from the VM
#      (.carry/ompi-cuda.tgz, ../shared/tools/cuda-aware-ompi.sh), installed with its Kokkos into /tmp/kinst.
#   2. Cabana 0.7.0 and halo_vs_cabana on it.
#   3. 2 ranks sharing the GPU under MPS: Cabana's own HaloPerformance (large) + halo_vs_cabana (our transport auto),
#      halo_vs_cabana over "mpi" (KOKKOSDDT_MPI_GPU_AWARE=1), both again, the setup profile at 16^3 w1; then without
#      MPS (time-sliced, as the goal numbers): Cabana's own + auto, and mpi, once.
set -u
out=$LEASE_DIR
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
jobs=$(env -u OMP_NUM_THREADS nproc)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
ompi=/opt/ompi-cuda
tar xzf .carry/ompi-cuda.tgz -C /
"$ompi/bin/ompi_info" --parsable --all 2>&1 | grep "mpi_built_with_cuda_support:value" > "$out/ompi.txt"
export PATH=$ompi/bin:$PATH
stamp "library build"
tree=/tmp/lib-tree
rm -rf $tree /tmp/lib-src && mkdir -p $tree /tmp/lib-src
tar xzf .carry/head.tgz -C $tree
tar xzf .carry/tpls/kokkos-4.6.01.tar.gz -C /tmp/lib-src
(cd $tree && FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/lib-src/kokkos-4.6.01 cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF \
  -DKokkosDDT_ENABLE_PERF_TESTS=OFF -DKokkosDDT_ENABLE_EXAMPLES=OFF -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF \
  -DMPI_CXX_COMPILER=$ompi/bin/mpicxx -DMPI_C_COMPILER=$ompi/bin/mpicc &&
  cmake --build build/cuda -j "$jobs" && cmake --install build/cuda --prefix /tmp/kinst) > "$out/lib-build.log" 2>&1 ||
  { stamp "LIBRARY BUILD FAILED"; tail -30 "$out/lib-build.log"; exit 1; }
grep -i "Found MPI" "$out/lib-build.log" | head -3
sed -i 's/^default_arch="sm_70"/default_arch="sm_90"/' /tmp/kinst/bin/nvcc_wrapper
stamp "cabana + halo_vs_cabana build"
(export CXX=/tmp/kinst/bin/nvcc_wrapper OUT=$out/cabana CABANA_STAGE=build
  bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-stage-build.log" 2>&1 ||
  { stamp "CABANA BUILD FAILED"; tail -30 "$out/cabana-stage-build.log"; exit 1; }
hvc=/tmp/cabana-bench/hvc/halo_vs_cabana
nvidia-cuda-mps-control -d && stamp "MPS started"
for run in 1 2; do
  stamp "mps on, run $run: cabana HaloPerformance + halo_vs_cabana auto"
  if [ $run = 1 ]; then
    (export OUT=$out/mps-on-1 CABANA_STAGE=run OMP_NUM_THREADS=4 HVC_ARGS="--space device"
      timeout 200 bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-run-mps-on-1.log" 2>&1
  else
    timeout 120 mpiexec -n 2 $hvc --space device --csv "$out/hvc-auto-mps-on-2.csv" > "$out/hvc-auto-mps-on-2.txt" 2>&1
  fi
  stamp "mps on, run $run: halo_vs_cabana mpi"
  timeout 150 mpiexec -n 2 -x KOKKOSDDT_MPI_GPU_AWARE=1 $hvc --space device --transport mpi \
    --csv "$out/hvc-mpi-mps-on-$run.csv" > "$out/hvc-mpi-mps-on-$run.txt" 2>&1
done
stamp "setup profile"
timeout 60 mpiexec -n 2 -x KOKKOSDDT_PROFILE_SETUP=1 $hvc --space device --sizes 16,16 --widths 1 \
  > "$out/hvc-setup-profile.txt" 2>&1
echo quit | nvidia-cuda-mps-control
stamp "mps off: cabana HaloPerformance + halo_vs_cabana auto"
(export OUT=$out/mps-off CABANA_STAGE=run OMP_NUM_THREADS=4 HVC_ARGS="--space device"
  timeout 200 bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-run-mps-off.log" 2>&1
stamp "mps off: halo_vs_cabana mpi"
timeout 150 mpiexec -n 2 -x KOKKOSDDT_MPI_GPU_AWARE=1 $hvc --space device --transport mpi \
  --csv "$out/hvc-mpi-mps-off.csv" > "$out/hvc-mpi-mps-off.txt" 2>&1
stamp done
