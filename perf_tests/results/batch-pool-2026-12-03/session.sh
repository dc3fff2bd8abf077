#!/usr/bin/env bash
# Issue 73, session of 2026-12-03 (sixth): README's GPU command on .carry/head.tgz (git archive HEAD), nothing reused;
# while its tests run: its build installed, main's library (.carry/before.tgz) built and installed, Cabana and
# halo_vs_cabana built on each; then our plan's make on the device (halo_vs_cabana --cabana off: the device's Open MPI
# is not CUDA-aware), after/before alternating under MPS, and the setup profile at 16^3.
set -u
out=$LEASE_DIR
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
stamp "readme (background)"
(OUT=$out README_RUNS=1 bash perf_tests/gpu_session.sh readme > "$out/readme-session.log" 2>&1
  touch "$out/README-DONE") &
while ! grep -q "Test project" "$out/readme-1.log" 2>/dev/null && [ ! -f "$out/README-DONE" ]; do sleep 5; done
stamp "readme build done; installing it; main's library; Cabana and halo_vs_cabana on each"
cmake --install /tmp/readme-tree/build/cuda --prefix /tmp/kinst > "$out/install.log" 2>&1 || echo "INSTALL FAILED"
sed -i 's/^default_arch="sm_70"/default_arch="sm_90"/' /tmp/kinst/bin/nvcc_wrapper
rm -rf /tmp/before && mkdir -p /tmp/before && tar xzf .carry/before.tgz -C /tmp/before
(cd /tmp/before && env FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/readme-src/kokkos-4.6.01 \
  cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_EXAMPLES=OFF -DKokkosDDT_ENABLE_PERF_TESTS=OFF \
    -DKokkosDDT_CUDA_ARCH=90 && cmake --build --preset cuda -j 8 && cmake --install build/cuda --prefix /tmp/kinst-before) \
  > "$out/before-build.log" 2>&1 || stamp "BEFORE BUILD FAILED"
sed -i 's/^default_arch="sm_70"/default_arch="sm_90"/' /tmp/kinst-before/bin/nvcc_wrapper 2>/dev/null
(export CXX=/tmp/kinst/bin/nvcc_wrapper OUT=$out/cabana CABANA_STAGE=build
  bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-stage-build.log" 2>&1 ||
  stamp "CABANA BUILD FAILED"
(export CXX=/tmp/kinst-before/bin/nvcc_wrapper
  cmake -S perf_tests/cabana -B /tmp/hvc-before -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="/tmp/kinst-before;/tmp/cabana-bench/install" && cmake --build /tmp/hvc-before -j 8) \
  > "$out/hvc-before-build.log" 2>&1 || stamp "HVC BEFORE BUILD FAILED"
stamp "builds done"
while [ ! -f "$out/README-DONE" ]; do sleep 3; done
cat "$out/readme-summary.txt"
touch "$out/README-DONE-SEEN"
stamp "halo_vs_cabana (ours alone) under MPS, after/before alternating"
nvidia-cuda-mps-control -d
args="--space device --cabana off --sizes 16,32,64 --widths 1,2,3,4"
for run in 1 2; do
  for tag in after before; do
    bin=/tmp/cabana-bench/hvc/halo_vs_cabana
    [ $tag = before ] && bin=/tmp/hvc-before/halo_vs_cabana
    # shellcheck disable=SC2086
    timeout 60 mpiexec -n 2 $bin $args --csv "$out/hvc-$run-$tag.csv" > "$out/hvc-$run-$tag.txt" 2>&1 ||
      stamp "hvc $run $tag failed"
  done
done
timeout 40 mpiexec -n 2 env KOKKOSDDT_PROFILE_SETUP=1 /tmp/cabana-bench/hvc/halo_vs_cabana --space device \
  --cabana off --sizes 16,16 --widths 1 > "$out/hvc-setup-profile.txt" 2>&1
timeout 40 mpiexec -n 2 env KOKKOSDDT_PROFILE_SETUP=1 /tmp/hvc-before/halo_vs_cabana --space device \
  --cabana off --sizes 16,16 --widths 1 > "$out/hvc-setup-profile-before.txt" 2>&1
echo quit | nvidia-cuda-mps-control
stamp done
touch "$out/ALL-DONE"
