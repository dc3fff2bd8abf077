#!/usr/bin/env bash
# Issue 73, next session (prepared 2026-12-03; run: bash perf_tests/lease.sh start .carry/lease-next.sh):
# .carry/head.tgz = git archive merge-next (8083192), before.tgz = main (f0076ce; its compiled code 401cb59). From cabana-device-2026-12-03/lease2/session-b.sh:, started in the background (setsid) and polled:
#   1. README's GPU command exactly, on `git archive HEAD` (.carry/head.tgz), from nothing (gpu_session.sh readme).
#   2. While it runs: fusion_bench of the commit before this session's kernel change (.carry/before.tgz) in a tree of
#      its own; once README's build is done, it is installed (/tmp/kinst) and Cabana + halo_vs_cabana built on it.
#   3. Once README's tests are done: fusion_bench's halo, plan gather and scatter, before and after, in one session;
#      ncu (one metric: each kernel's duration) over one cell's scatter; halo_vs_cabana on the device under MPS (auto),
#      and its setup profile (KOKKOSDDT_PROFILE_SETUP=1) at 16^3.
set -u
out=$LEASE_DIR
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
root=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
stamp "readme (background)"
(OUT=$out README_RUNS=1 bash perf_tests/gpu_session.sh readme > "$out/readme-session.log" 2>&1
  touch "$out/README-DONE") &
ompi=/opt/ompi-cuda
tar xzf .carry/ompi-cuda.tgz -C /
while ! grep -q "Test project" "$out/readme-1.log" 2>/dev/null && [ ! -f "$out/README-DONE" ]; do sleep 5; done
stamp "readme build done; installing it; before-tree build (background)"
(
  rm -rf /tmp/before && mkdir -p /tmp/before && tar xzf .carry/before.tgz -C /tmp/before && cd /tmp/before &&
    FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/readme-src/kokkos-4.6.01 \
      FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS=/tmp/readme-src/kokkos-kernels-4.7.00 Catch2_ROOT=$root/.carry/catch2 \
      cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF && cmake --build build/cuda -j 6 --target fusion_bench
) > "$out/before-build.log" 2>&1 &
before_pid=$!
cmake --install /tmp/readme-tree/build/cuda --prefix /tmp/kinst > "$out/install.log" 2>&1 || echo "INSTALL FAILED"
sed -i 's/^default_arch="sm_70"/default_arch="sm_90"/' /tmp/kinst/bin/nvcc_wrapper
(export PATH=$ompi/bin:$PATH CXX=/tmp/kinst/bin/nvcc_wrapper OUT=$out/cabana CABANA_STAGE=build
  bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-stage-build.log" 2>&1 ||
  stamp "CABANA BUILD FAILED"
wait $before_pid
stamp "before build exit $?"
while [ ! -f "$out/README-DONE" ]; do sleep 3; done
cat "$out/readme-summary.txt"
touch "$out/README-DONE-SEEN"
after=/tmp/readme-tree/build/cuda
for tree in after before after before; do
  bin=$after/perf_tests/fusion_bench
  [ $tree = before ] && bin=/tmp/before/build/cuda/perf_tests/fusion_bench
  stamp "fusion_bench halo ($tree): plan, scatter"
  timeout 100 "$bin" --only halo --contenders plan,scatter --csv "$out/fusion-scatter-$tree-$SECONDS.csv" \
    >> "$out/fusion-scatter-$tree.txt" 2>&1
  echo "fusion exit $?" >> "$out/fusion-scatter-$tree.txt"
done
touch "$out/FUSION-DONE"
for tree in after before; do
  bin=$after/perf_tests/fusion_bench
  [ $tree = before ] && bin=/tmp/before/build/cuda/perf_tests/fusion_bench
  stamp "ncu ($tree)"
  timeout 100 ncu --clock-control none --kernel-name-base mangled -k regex:DirectionE4E --launch-skip 20 \
    --launch-count 1 --section SourceCounters --section WarpStateStats --section SpeedOfLight -f -o /tmp/ncu-$tree \
    "$bin" --only halo --cell 128,2,8 --contenders scatter > "$out/ncu-$tree.log" 2>&1
  ncu -i /tmp/ncu-$tree.ncu-rep --page details > "$out/ncu-$tree.details.txt" 2>&1
  ncu -i /tmp/ncu-$tree.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > "$out/ncu-$tree.sass.csv.gz"
done
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
