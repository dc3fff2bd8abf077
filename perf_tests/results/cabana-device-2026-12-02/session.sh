#!/usr/bin/env bash
# Issue 73 on one lent H200, started in the background (setsid) and polled:
#   1. README's GPU command exactly, on `git archive HEAD` (.carry/head.tgz), from nothing (gpu_session.sh readme).
#   2. While its tests run: a CUDA-aware Open MPI 4.1.4 (.carry/ompi-cuda.tgz, built on the VM by
#      ../shared/tools/cuda-aware-ompi.sh's configure line; else built here by that script), KokkosDDT and its Kokkos
#      installed from README's build, Cabana 0.7.0 and halo_vs_cabana built against them (run_cabana.sh, stage build).
#      And fusion_bench of the commit before this session (fb0b33d, .carry/before.tgz) in a tree of its own.
#   3. Once README's tests are done: fusion_bench's halo (the plan's gather and scatter), before and after, Cabana's own
#      HaloPerformance (large, 2 ranks sharing the GPU, 4 threads each), halo_vs_cabana on the device with our plan's
#      auto transport and with "mpi" on the CUDA-aware Open MPI.
set -u
out=/tmp/gout
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
root=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
stamp "readme (background)"
(OUT=$out README_RUNS=1 bash perf_tests/gpu_session.sh readme > "$out/readme-session.log" 2>&1
  touch "$out/README-DONE") &
ompi=/opt/ompi-cuda
(
  stamp "open mpi"
  if [ -f .carry/ompi-cuda.tgz ]; then tar xzf .carry/ompi-cuda.tgz -C /; fi
  if ! "$ompi/bin/ompi_info" --parsable --all 2>&1 | grep -q "mpi_built_with_cuda_support:value:true"; then
    echo "carried Open MPI does not run here: building it"
    rm -rf "$ompi"
    bash .carry/cuda-aware-ompi.sh .carry/tpls/openmpi-4.1.4.tar.xz "$ompi"
  fi
  "$ompi/bin/ompi_info" --parsable --all | grep "mpi_built_with_cuda_support:value"
) > "$out/ompi.txt" 2>&1
# README's build is done once its ctest begins.
while ! grep -q "Test project" "$out/readme-1.log" 2>/dev/null && [ ! -f "$out/README-DONE" ]; do sleep 5; done
stamp "readme build done; installing it"
cmake --install /tmp/readme-tree/build/cuda --prefix /tmp/kinst > "$out/install.log" 2>&1 || echo "INSTALL FAILED"
stamp "before: fusion_bench of fb0b33d (background)"
(
  rm -rf /tmp/before && mkdir -p /tmp/before && tar xzf .carry/before.tgz -C /tmp/before && cd /tmp/before &&
    FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/readme-src/kokkos-4.6.01 \
      FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS=/tmp/readme-src/kokkos-kernels-4.7.00 Catch2_ROOT=$root/.carry/catch2 \
      cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF && cmake --build build/cuda -j 8 --target fusion_bench
) > "$out/before-build.log" 2>&1 &
before_pid=$!
stamp "cabana + halo_vs_cabana build"
(export PATH=$ompi/bin:$PATH CXX=/tmp/kinst/bin/nvcc_wrapper OUT=$out/cabana CABANA_STAGE=build
  bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-stage-build.log" 2>&1
wait $before_pid
stamp "before build exit $?"
stamp "waiting for readme"
while [ ! -f "$out/README-DONE" ]; do sleep 5; done
cat "$out/readme-summary.txt" 2>/dev/null
touch "$out/README-DONE-SEEN"
after=/tmp/readme-tree/build/cuda
for tree in after before; do
  bin=$after/perf_tests/fusion_bench
  [ $tree = before ] && bin=/tmp/before/build/cuda/perf_tests/fusion_bench
  stamp "fusion_bench halo ($tree): plan, scatter"
  timeout 150 "$bin" --only halo --contenders plan,scatter --csv "$out/fusion-scatter-$tree.csv" \
    > "$out/fusion-scatter-$tree.txt" 2>&1
  echo "fusion exit $?" >> "$out/fusion-scatter-$tree.txt"
done
touch "$out/FUSION-DONE"
stamp "cabana HaloPerformance + halo_vs_cabana (auto)"
(export PATH=$ompi/bin:$PATH OUT=$out/cabana CABANA_STAGE=run OMP_NUM_THREADS=4 HVC_ARGS="--space device"
  timeout 300 bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-stage-run.log" 2>&1
touch "$out/CABANA-DONE"
stamp "halo_vs_cabana (mpi)"
(export PATH=$ompi/bin:$PATH OUT=$out/cabana CABANA_STAGE=run HVC_ONLY=1 HVC_TAG=-mpi KOKKOSDDT_MPI_GPU_AWARE=1 \
  HVC_ARGS="--space device --transport mpi"
  timeout 200 bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-stage-mpi.log" 2>&1
stamp done
touch "$out/ALL-DONE"
