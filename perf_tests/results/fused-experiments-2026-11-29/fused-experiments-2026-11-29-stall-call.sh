#!/usr/bin/env bash
# Device (one H200), issue 47 item 1: the stall reasons of jacobi3d 64^3's fused self-copy, and the fused kernel's code
# size (SASS instructions of each FusedKernel function in the library).
export OUT=${OUT:-$PWD/gpu-out} OMP_NUM_THREADS=1 OMP_PROC_BIND=false PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1
cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
  -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 > /dev/null 2>&1
cmake --build build/cuda -j 16 --target jacobi3d > /tmp/b.log 2>&1; echo "build exit $?"
echo "## built after $((SECONDS - t0)) s"
m=""
for s in no_instruction imc_miss branch_resolving barrier long_scoreboard short_scoreboard wait math_pipe_throttle \
  lg_throttle mio_throttle drain membar dispatch_stall not_selected selected sleeping misc tex_throttle; do
  m="$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
timeout 60 ncu --csv --kernel-name-base demangled -k regex:FusedKernel --clock-control none --launch-skip 20 --launch-count 3 \
  --metrics "gpu__time_duration.sum,smsp__inst_executed.sum,sm__icc_requests.sum,sm__icc_hit_rate.pct${m}" \
  build/cuda/examples/jacobi3d 64 40 auto > "$OUT/stall.csv" 2>&1
for o in $(find build/cuda -name "*ETI_FusedLaunch*Cuda*.o"); do
  echo "== $o"
  cuobjdump -sass "$o" | awk '/Function :/ {name=$3} /^ +\/\*[0-9a-f]+\*\// {n[name]++} END {for (k in n) print n[k], k}' | sort -n | tail -5
done > "$OUT/sass-size.txt" 2>&1
(cd "$OUT" && tar czf ../stall-out.tgz . && rm -f ./* && mv ../stall-out.tgz .)
echo "## end after $((SECONDS - t0)) s"
