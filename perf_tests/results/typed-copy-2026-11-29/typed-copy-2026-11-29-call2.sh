#!/usr/bin/env bash
# Device (one H200), sixteenth session, call 2. Builds, all with -lineinfo: this tree (fusion_bench, pack_bench_gpu),
# before = .carry/base.tgz (3c238b6; fusion_bench) and `nofence` = this tree (MPI off) without the system-scope fence before the completion flag (FusedKernel::complete; an
# experiment, not a change: what the fence costs the queue's one-request probe). Then ncu of the probe in this tree and
# `nofence`, alternating; source views of the probe and of the typed copies; ncu of pack_bench_gpu --only copy
# --profile; fusion_bench --only halo host-timed, before (build/base) then after (this tree).
export OUT=${OUT:-$PWD/gpu-out} OMP_PROC_BIND=false OMP_NUM_THREADS=1 PATH=/usr/local/cuda/bin:$PATH NVCC_APPEND_FLAGS=-lineinfo
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1; echo "## kokkos after $((SECONDS - t0)) s"
export Catch2_ROOT=$PWD/.carry/catch2
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_EXAMPLES=OFF)
rm -rf build/base && mkdir -p build/base/src && tar xzf .carry/base.tgz -C build/base/src
rm -rf build/var/nofence && mkdir -p build/var/nofence
tar c --exclude=./build --exclude=./.carry --exclude=./.git --exclude=./gpu-out . | tar x -C build/var/nofence
f=build/var/nofence/core/src/fusion/KokkosDDT_FusedKernel.hpp
sed -i '/KOKKOS_FUNCTION void complete(const FusedRecord& r) const {/,/^  }/ s/^    Backend::fence_acq_rel_node();/    \/\/ (experiment: no fence)/' $f
echo "nofence edits: $(grep -c 'experiment: no fence' $f)"
(cmake --preset cuda "${flags[@]}" > /dev/null 2>&1 && cmake --build build/cuda -j 6 --target fusion_bench pack_bench_gpu > /tmp/after.log 2>&1; echo "after build exit $?") &
(cd build/base/src && cmake --preset cuda "${flags[@]}" > /dev/null 2>&1 && cmake --build build/cuda -j 5 --target fusion_bench > /tmp/base.log 2>&1; echo "base build exit $?") &
(cd build/var/nofence && cmake --preset cuda "${flags[@]}" -DKokkosDDT_ENABLE_MPI=OFF > /dev/null 2>&1 &&
  cmake --build build/cuda -j 5 --target fusion_bench > /tmp/nofence.log 2>&1; echo "nofence build exit $?") &
wait; grep -h error /tmp/after.log /tmp/base.log /tmp/nofence.log | head
echo "## built after $((SECONDS - t0)) s"
m="gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
for s in no_instruction imc_miss barrier long_scoreboard short_scoreboard wait membar selected; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
ncu="ncu --csv --clock-control none --kernel-name-base demangled"
for round in 1 2; do
  for tree in "$PWD" build/var/nofence; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo nofence)
    timeout 60 $ncu --page details -k regex:'FusedKernel|hand' --launch-count 30 --metrics "$m" \
      "$tree"/build/cuda/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/probe-ncu-$name-r$round.csv" 2>&1
    echo "## probe $name r$round exit $? after $((SECONDS - t0)) s"
  done
done
L=build/cuda/perf_tests
timeout 40 $ncu --page source --print-source cuda,sass --import-source yes --section SourceCounters -k regex:UniformFusedKernel \
  --launch-count 1 $L/fusion_bench --quick --only halo --csv /dev/null > "$OUT/probe-src.csv" 2>&1
echo "## probe src exit $? after $((SECONDS - t0)) s"
# TypedCopy launches under --profile: 12 per case (kokkosddt 3 + 3, ddt_wall ~6): face64 axes 0, 1, 2 from 0, 12, 24;
# the random types from 108.
for k in 3 27 111; do
  timeout 60 $ncu --page source --print-source cuda,sass --import-source yes --section SourceCounters -k regex:TypedCopy \
    --launch-skip $k --launch-count 1 $L/pack_bench_gpu --profile --only copy --csv /dev/null > "$OUT/copy-src-$k.csv" 2>&1
  echo "## copy src $k exit $? after $((SECONDS - t0)) s"
done
timeout 150 $ncu --page details -k regex:'TypedCopy|hand_face|ViewCopy' --metrics "$m" \
  build/cuda/perf_tests/pack_bench_gpu --profile --only copy --csv /dev/null > "$OUT/copy-ncu.csv" 2>&1
echo "## copy ncu exit $? after $((SECONDS - t0)) s"
for tree in build/base/src "$PWD"; do
  name=$([ "$tree" = "$PWD" ] && echo after || echo before)
  timeout 100 "$tree"/build/cuda/perf_tests/fusion_bench --only halo --csv "$OUT/fusion-$name-r1.csv" > /dev/null 2>&1
  echo "## fusion $name r1 exit $? after $((SECONDS - t0)) s"
done
(cd "$OUT" && tar czf ../s16b-out.tgz . && rm -f ./* && mv ../s16b-out.tgz .)
echo "## end after $((SECONDS - t0)) s"
