#!/usr/bin/env bash
# Lease 2 (issue 73): README's GPU command on the candidate (.carry/head.tgz = git archive of scatter-next), then
# fusion_bench's halo, main (before.tgz) / scatter groups alone (groups.tgz) / candidate, twice each; ncu of the
# candidate's scatter kernel at 16^3 w1 F8.
set -u
out=$LEASE_DIR
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*"; }
root=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
stamp "readme (background)"
(OUT=$out README_RUNS=1 bash perf_tests/gpu_session.sh readme > "$out/readme-session.log" 2>&1
  touch "$out/README-DONE") &
while ! grep -q "Test project" "$out/readme-1.log" 2>/dev/null && [ ! -f "$out/README-DONE" ]; do sleep 5; done
stamp "readme build done; before and groups builds"
for t in before groups; do
  (rm -rf /tmp/$t && mkdir -p /tmp/$t && tar xzf .carry/$t.tgz -C /tmp/$t && cd /tmp/$t &&
    FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/readme-src/kokkos-4.6.01 \
      FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS=/tmp/readme-src/kokkos-kernels-4.7.00 Catch2_ROOT=$root/.carry/catch2 \
      cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF && cmake --build build/cuda -j 4 --target fusion_bench
  ) > "$out/$t-build.log" 2>&1 &
  pids="${pids:-} $!"
done
# shellcheck disable=SC2086
wait $pids
stamp "builds: $(ls /tmp/before/build/cuda/perf_tests/fusion_bench /tmp/groups/build/cuda/perf_tests/fusion_bench 2>&1 | tr '\n' ' ')"
while [ ! -f "$out/README-DONE" ]; do sleep 3; done
cat "$out/readme-summary.txt"
after=/tmp/readme-tree/build/cuda/perf_tests/fusion_bench
for t in after before groups after before groups; do
  bin=$after; [ $t != after ] && bin=/tmp/$t/build/cuda/perf_tests/fusion_bench
  stamp "fusion $t"
  timeout 100 "$bin" --only halo --contenders plan,scatter --csv "$out/fusion-$t-$SECONDS.csv" >> "$out/fusion-$t.txt" 2>&1
  echo "exit $?" >> "$out/fusion-$t.txt"
done
stamp "ncu after 16,1,8"
timeout 100 ncu --clock-control none --kernel-name-base mangled -k regex:DirectionE4E --launch-skip 20 --launch-count 1 \
  --section SourceCounters --section WarpStateStats --section SpeedOfLight --section LaunchStats -f -o /tmp/ncu-after \
  $after --only halo --cell 16,1,8 --contenders scatter > "$out/ncu-after.log" 2>&1
ncu -i /tmp/ncu-after.ncu-rep --page details > "$out/ncu-after.details.txt" 2>&1
ncu -i /tmp/ncu-after.ncu-rep --page source --csv --print-source sass 2>&1 | gzip > "$out/ncu-after.sass.csv.gz"
stamp done
