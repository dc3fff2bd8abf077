#!/usr/bin/env bash
# Issue 73 on one lent H200: chains in one pass (HEAD) against chains one record after another (c849974, .carry/before.tgz).
#   1. README's GPU command exactly, on `git archive HEAD` (.carry/head.tgz), from nothing (gpu_session.sh readme).
#   2. While it runs: fusion_bench of the commit before (.carry/before.tgz) in a tree of its own; once README's build
#      is done, it is installed (/tmp/kinst) and Cabana + halo_vs_cabana built on it.
#   3. Once README's tests are done: fusion_bench's halo, plan gather and scatter, after and before, twice each;
#      halo_vs_cabana on the device under MPS (auto).
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
tar xzf .carry/ompi-cuda.tgz -C /
while ! grep -q "Test project" "$out/readme-1.log" 2>/dev/null && [ ! -f "$out/README-DONE" ]; do sleep 5; done
stamp "readme build done; before-tree build (background); installing it"
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
stamp "ncu at 16^3 w1 F1 (after)"
timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread \
  $after/perf_tests/fusion_bench --only halo --cell 16,1,1 --contenders plan,scatter > "$out/ncu-16_1_1.txt" 2>&1
echo "ncu exit $?" >> "$out/ncu-16_1_1.txt"
stamp "halo_vs_cabana under MPS"
nvidia-cuda-mps-control -d
(export PATH=$ompi/bin:$PATH OUT=$out/cabana CABANA_STAGE=run HVC_ONLY=1 HVC_ARGS="--space device"
  timeout 150 bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-run.log" 2>&1
echo quit | nvidia-cuda-mps-control
stamp done
touch "$out/ALL-DONE"
