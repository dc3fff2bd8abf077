#!/usr/bin/env bash
# Issue 73, 2026-12-03 (eighth session): README's GPU command on .carry/head.tgz (git archive HEAD), nothing reused,
# once; while its tests run, its build installed and Cabana + halo_vs_cabana built on it (the device's Open MPI: our
# side alone, --cabana off); then fusion_bench's halo cells twice, halo_vs_cabana (ours) on the device under MPS and
# its setup profile at 16^3 w1 (KOKKOSDDT_PROFILE_SETUP=1).
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
stamp "readme build done; installing it, Cabana and halo_vs_cabana on it"
cmake --install /tmp/readme-tree/build/cuda --prefix /tmp/kinst > "$out/install.log" 2>&1 || echo "INSTALL FAILED"
sed -i 's/^default_arch="sm_70"/default_arch="sm_90"/' /tmp/kinst/bin/nvcc_wrapper
(export CXX=/tmp/kinst/bin/nvcc_wrapper OUT=$out/cabana CABANA_STAGE=build
  nice bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-stage-build.log" 2>&1 ||
  stamp "CABANA BUILD FAILED"
stamp "cabana build done"
while [ ! -f "$out/README-DONE" ]; do sleep 3; done
cat "$out/readme-summary.txt"
touch "$out/README-DONE-SEEN"
fb=/tmp/readme-tree/build/cuda/perf_tests/fusion_bench
[ -x "$fb" ] || fb=$(find /tmp/readme-tree/build/cuda -name fusion_bench -type f -perm -u+x | head -1)
stamp fusion_bench
for run in 1 2; do
  for cell in 16,1,1 64,1,8 128,2,8; do
    timeout 60 "$fb" --only halo --cell $cell --contenders plan,scatter --csv "$out/fb-$cell-$run.csv" \
      > "$out/fb-$cell-$run.txt" 2>&1
  done
done
stamp "halo_vs_cabana (ours) under MPS"
nvidia-cuda-mps-control -d
for run in 1 2; do
  timeout 100 mpiexec -n 2 /tmp/cabana-bench/hvc/halo_vs_cabana --space device --cabana off --sizes 16,32,64 \
    --widths 1,2,3,4 --csv "$out/hvc-$run.csv" > "$out/hvc-$run.txt" 2>&1
done
timeout 60 mpiexec -n 2 env KOKKOSDDT_PROFILE_SETUP=1 /tmp/cabana-bench/hvc/halo_vs_cabana --space device \
  --cabana off --sizes 16,16 --widths 1 > "$out/hvc-setup-profile.txt" 2>&1
echo quit | nvidia-cuda-mps-control
stamp done
touch "$out/ALL-DONE"
