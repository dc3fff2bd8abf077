#!/usr/bin/env bash
# Issue 73, session of 2026-12-03 (fifth): README's GPU command on .carry/head.tgz (git archive HEAD), nothing reused;
# while its tests run, its build installed and Cabana + halo_vs_cabana built on it; then halo_vs_cabana on the device
# (2 ranks, MPS) and its setup profile at 16^3 (KOKKOSDDT_PROFILE_SETUP=1).
set -u
out=$LEASE_DIR
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
stamp "readme (background)"
(OUT=$out README_RUNS=1 bash perf_tests/gpu_session.sh readme > "$out/readme-session.log" 2>&1
  touch "$out/README-DONE") &
ompi=/opt/ompi-cuda
tar xzf .carry/ompi-cuda.tgz -C /
while ! grep -q "Test project" "$out/readme-1.log" 2>/dev/null && [ ! -f "$out/README-DONE" ]; do sleep 5; done
stamp "readme build done; installing it, Cabana and halo_vs_cabana on it"
cmake --install /tmp/readme-tree/build/cuda --prefix /tmp/kinst > "$out/install.log" 2>&1 || echo "INSTALL FAILED"
sed -i 's/^default_arch="sm_70"/default_arch="sm_90"/' /tmp/kinst/bin/nvcc_wrapper
(export PATH=$ompi/bin:$PATH CXX=/tmp/kinst/bin/nvcc_wrapper OUT=$out/cabana CABANA_STAGE=build
  bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-stage-build.log" 2>&1 ||
  stamp "CABANA BUILD FAILED"
stamp "cabana build done"
while [ ! -f "$out/README-DONE" ]; do sleep 3; done
cat "$out/readme-summary.txt"
touch "$out/README-DONE-SEEN"
stamp "halo_vs_cabana under MPS"
nvidia-cuda-mps-control -d
(export PATH=$ompi/bin:$PATH OUT=$out/cabana CABANA_STAGE=run HVC_ONLY=1 HVC_ARGS="--space device"
  timeout 150 bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-run.log" 2>&1
(export PATH=$ompi/bin:$PATH
  timeout 60 mpiexec -n 2 env KOKKOSDDT_PROFILE_SETUP=1 /tmp/cabana-bench/hvc/halo_vs_cabana --space device \
    --sizes 16,16 --widths 1) > "$out/hvc-setup-profile.txt" 2>&1
echo quit | nvidia-cuda-mps-control
stamp done
touch "$out/ALL-DONE"
