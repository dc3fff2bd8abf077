######## .carry/call-tl1.sh
#!/usr/bin/env bash
# Device (2 GPUs): build; the timeline of jacobi_bench's step at 64^3 per GPU (CUPTI, perf_tests/timeline); then the
# multi-GPU suite's tests step for the rest of the call.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1 OMP_PROC_BIND=false
t0=$SECONDS
if [ ! -f /tmp/multi-gpu/build.done ]; then
BUILD_TARGETS="kokkosddt_unit_tests_Cuda kokkosddt_mpi_tests_Cuda kokkosddt_collectives_tests_Cuda jacobi_bench kokkosddt_timeline" \
  STEPS="environment kokkos build" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -3
fi
echo "## built after $((SECONDS - t0)) s ($(git log --oneline 2>/dev/null | head -1 | cut -c1-8))"
ls /usr/local/cuda/extras/CUPTI/lib64 2>/dev/null | head -3
tool=$(find build/cuda -name libkokkosddt_timeline.so | head -1)
if [ -z "$tool" ]; then
  inc=$(dirname "$(find /usr/local/cuda/ -name cupti.h | head -1)"); lib=$(dirname "$(find /usr/local/cuda/ -name 'libcupti.so*' | head -1)")
  echo "## no CMake target; g++ with $inc $lib"
  g++ -std=c++17 -O2 -shared -fPIC -I"$inc" -I/usr/local/cuda/include perf_tests/timeline/kokkosddt_timeline.cpp -L"$lib" -lcupti -Wl,-rpath,"$lib" -o /tmp/libkokkosddt_timeline.so && tool=/tmp/libkokkosddt_timeline.so
fi
echo "## tool: $tool"
mkdir -p "$OUT/tl"
jb=build/cuda/perf_tests/jacobi_bench
run_tl() {  # name ranks args...
  local name=$1 n=$2; shift 2
  env KOKKOS_TOOLS_LIBS=$PWD/$tool KOKKOSDDT_TIMELINE=$OUT/tl/$name timeout 120 mpiexec -n "$n" $jb --per-rank 64 --iterations 200 --repeats 1 --csv "$OUT/tl/$name.csv" "$@" 2>&1 | tail -12
  echo "## $name exit ${PIPESTATUS[0]} after $((SECONDS - t0)) s"
}
run_tl two 2 --exchanges none,nccl,plan-auto,plan-nccl,graph-auto --graph --phases
run_tl one 1 --exchanges none,plan-auto --graph
# the same rows without the tool (what the tool costs)
timeout 100 mpiexec -n 2 $jb --per-rank 64 --iterations 200 --repeats 3 --exchanges none,nccl,plan-auto,plan-nccl,graph-auto --graph --csv "$OUT/tl/two-untraced.csv" 2>&1 | tail -12
echo "## untraced after $((SECONDS - t0)) s"
for f in two one; do
  for r in "jacobi_bench plan-auto ahead" "jacobi_bench plan-auto graph" "jacobi_bench none ahead" "jacobi_bench plan-nccl ahead" "jacobi_bench plan-nccl graph" "jacobi_bench nccl ahead" "jacobi_bench graph-auto ahead" "jacobi_bench graph-auto graph"; do
    [ -f "$OUT/tl/$f.0.csv" ] && python3 perf_tests/timeline/step_timeline.py "$OUT/tl/$f" --region "$r" --csv "$OUT/tl/$f-$(echo $r | tr ' ' '_').summary.csv" > "$OUT/tl/$f-$(echo $r | cut -d' ' -f2,3 | tr ' ' '_').txt" 2>&1
  done
done
head -60 "$OUT/tl/two-plan-auto_ahead.txt"
tar czf "$OUT/tl.tgz" -C "$OUT" tl && rm -rf "$OUT/tl"
echo "## timeline done after $((SECONDS - t0)) s"
MULTI_GPU_BUDGET_S=$((570 - SECONDS)) MULTI_GPU_TAIL=4 bash perf_tests/multi_gpu.sh tests > "$OUT/tests.log" 2>&1
tail -8 "$OUT/tests.log"; grep -E "^## |FAILED|All tests passed|test cases" /tmp/multi-gpu/logs/tests.log | head -80
echo "## end after $((SECONDS - t0)) s"
######## .carry/call-tl2.sh
#!/usr/bin/env bash
# Device (2 GPUs): build (with -lineinfo); jacobi_bench's timeline at 64^3 per GPU with kernels only traced (CUPTI),
# beside the same rows untraced; ncu's per-instruction counts of the fused kernel (jacobi3d's self copy, fusion_bench's
# halo); then the CUDA unit suite and compute-sanitizer memcheck as time allows (PHASE=tests: those only).
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1 OMP_PROC_BIND=false
t0=$SECONDS
export NVCC_APPEND_FLAGS=-lineinfo
if [ ! -f /tmp/multi-gpu/build.done ]; then
BUILD_TARGETS="kokkosddt_unit_tests_Cuda jacobi_bench kokkosddt_timeline jacobi3d fusion_bench" \
  STEPS="environment kokkos build" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -3
fi
echo "## built after $((SECONDS - t0)) s ($(git log --oneline 2>/dev/null | head -1 | cut -c1-8))"
if [ "${PHASE:-all}" = all ]; then
tool=$(find build/cuda -name libkokkosddt_timeline.so | head -1)
mkdir -p "$OUT/tl"
jb=build/cuda/perf_tests/jacobi_bench
x="none,nccl,plan-auto,plan-nccl,graph-auto"
for round in 1 2; do
  env KOKKOS_TOOLS_LIBS=$PWD/$tool KOKKOSDDT_TIMELINE=$OUT/tl/k$round timeout 100 mpiexec -n 2 $jb --per-rank 64 --iterations 200 --repeats 1 --exchanges $x --graph --csv "$OUT/tl/k$round.csv" 2>&1 | grep -E "ahead|graph" | grep -v routes
  echo "## traced $round after $((SECONDS - t0)) s"
  timeout 100 mpiexec -n 2 $jb --per-rank 64 --iterations 200 --repeats 3 --exchanges $x --graph --csv "$OUT/tl/u$round.csv" 2>&1 | grep -E "ahead|graph" | grep -v routes
  echo "## untraced $round after $((SECONDS - t0)) s"
done
env KOKKOS_TOOLS_LIBS=$PWD/$tool KOKKOSDDT_TIMELINE=$OUT/tl/k1one timeout 60 mpiexec -n 1 $jb --per-rank 64 --iterations 200 --repeats 1 --exchanges none,plan-auto --graph --csv "$OUT/tl/k1one.csv" 2>&1 | grep -E "ahead|graph" | grep -v routes
tar czf "$OUT/tl2.tgz" -C "$OUT" tl && rm -rf "$OUT/tl"
echo "## timeline done after $((SECONDS - t0)) s"
mkdir -p "$OUT/ncu"
timeout 150 ncu --csv --page source --print-source sass --section SourceCounters --clock-control none --kernel-name-base demangled \
  -k regex:FusedKernel --launch-skip 20 --launch-count 1 build/cuda/examples/jacobi3d 64 40 auto > "$OUT/ncu/jacobi-sass.csv" 2> "$OUT/ncu/jacobi-sass.err"
echo "## ncu jacobi sass exit $? after $((SECONDS - t0)) s, $(wc -l < "$OUT/ncu/jacobi-sass.csv") lines"
timeout 100 ncu --csv --page source --print-source cuda,sass --import-source yes --section SourceCounters --clock-control none --kernel-name-base demangled \
  -k regex:FusedKernel --launch-skip 20 --launch-count 1 build/cuda/examples/jacobi3d 64 40 auto > "$OUT/ncu/jacobi-src.csv" 2> "$OUT/ncu/jacobi-src.err"
echo "## ncu jacobi src exit $? after $((SECONDS - t0)) s, $(wc -l < "$OUT/ncu/jacobi-src.csv") lines"
timeout 100 ncu --csv --page details --clock-control none --kernel-name-base demangled -k regex:FusedKernel --launch-skip 20 --launch-count 1 \
  --metrics smsp__inst_executed.sum,gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread build/cuda/examples/jacobi3d 64 40 auto > "$OUT/ncu/jacobi-sum.csv" 2>&1
echo "## ncu jacobi sum exit $? after $((SECONDS - t0)) s"
timeout 100 ncu --csv --page source --print-source sass --section SourceCounters --clock-control none --kernel-name-base demangled \
  -k regex:FusedKernel --launch-skip 40 --launch-count 1 build/cuda/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/ncu/fusion-sass.csv" 2> "$OUT/ncu/fusion-sass.err"
echo "## ncu fusion sass exit $? after $((SECONDS - t0)) s, $(wc -l < "$OUT/ncu/fusion-sass.csv") lines"
cuobjdump -sass build/cuda/core/libkokkosddt.a 2>/dev/null | awk '/Function :.*FusedKernel/{p=1} p{print} /EXIT/{if(p) c++} ' | head -c 3000000 > "$OUT/ncu/fused.sass" || true
tar czf "$OUT/ncu.tgz" -C "$OUT" ncu && rm -rf "$OUT/ncu"
echo "## ncu done after $((SECONDS - t0)) s"
fi
u=build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
left=$((560 - SECONDS)); [ $left -gt 240 ] && left=240
timeout $left $u 2>&1 | tail -3
echo "## unit suite exit ${PIPESTATUS[0]} after $((SECONDS - t0)) s"
left=$((575 - SECONDS))
[ $left -gt 20 ] && { timeout $left compute-sanitizer --tool memcheck --print-limit 20 $u "[random],[fusion]" > "$OUT/memcheck.log" 2>&1; echo "## memcheck exit $? after $((SECONDS - t0)) s"; tail -5 "$OUT/memcheck.log"; }
######## .carry/call-copy1.sh
#!/usr/bin/env bash
# Device (2 GPUs), issue 47 items 2-3: the device typed copy moves one word per item without a loop over runs, and the
# fused kernel's record lookup stops at the launch's records. Before (f97c536) and after in one call: the CUDA unit
# suite's copy/random/fusion cases and memcheck (after), ncu's instructions of jacobi3d's fused self-copy (64^3 and
# 128^3, one rank), jacobi_bench at 64^3 per GPU on 1 and 2 GPUs alternating, fusion_bench's halo table, a timeline.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1 OMP_PROC_BIND=false
t0=$SECONDS
mkdir -p "$OUT/c1"
(
  rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base-f97c536.tgz -C /tmp/base && cd /tmp/base &&
    while [ ! -x /opt/kokkos/cuda/bin/nvcc_wrapper ]; do sleep 2; done &&
    cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON \
      -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
      -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 > /dev/null &&
    cmake --build build/cuda -j 12 --target fusion_bench jacobi3d jacobi_bench
  echo "base build exit $?"
) > /tmp/base-build.log 2>&1 &
BUILD_TARGETS="kokkosddt_unit_tests_Cuda fusion_bench jacobi3d jacobi_bench kokkosddt_timeline" STEPS="environment kokkos build" \
  bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
wait
tail -2 /tmp/base-build.log
echo "## built after $((SECONDS - t0)) s"
u=build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
timeout 150 $u "[random],[copy],[fusion]" 2>&1 | tail -2
echo "## tests exit ${PIPESTATUS[0]} after $((SECONDS - t0)) s"
timeout 100 compute-sanitizer --tool memcheck --print-limit 20 $u "[copy]" > "$OUT/c1/memcheck-copy.log" 2>&1
echo "## memcheck [copy] exit $? after $((SECONDS - t0)) s: $(tail -1 "$OUT/c1/memcheck-copy.log")"
for tree in /tmp/base "$PWD"; do
  name=$([ "$tree" = "$PWD" ] && echo after || echo before)
  for n in 64 128; do
    timeout 60 ncu --csv --clock-control none --cache-control none -k regex:FusedKernel --launch-skip 20 --launch-count 3 \
      --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__registers_per_thread \
      "$tree"/build/cuda/examples/jacobi3d $n 30 auto > "$OUT/c1/ncu-jacobi$n-$name.csv" 2>&1
    echo "## ncu $name $n: $(grep -E 'inst_executed|duration|registers' "$OUT/c1/ncu-jacobi$n-$name.csv" | awk -F'","' '{printf "%s=%s ", $(NF-2), $NF}' | tr -d '"')"
  done
done
echo "## ncu done after $((SECONDS - t0)) s"
for round in 1 2 3; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    for n in 1 2; do
      timeout 60 mpiexec -n $n "$tree"/build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 500 --repeats 3 \
        --exchanges none,plan-auto,plan-nccl,graph-auto --graph --csv "$OUT/c1/jacobi-$name-$n-r$round.csv" > /dev/null 2>&1
      echo "## jacobi $name n=$n r$round: $(tail -n +2 "$OUT/c1/jacobi-$name-$n-r$round.csv" | cut -d, -f4,5,6 | tr '\n' ' ')"
    done
  done
done
echo "## jacobi done after $((SECONDS - t0)) s"
for round in 1 2; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    timeout 150 "$tree"/build/cuda/perf_tests/fusion_bench --only halo --csv "$OUT/c1/fusion-$name-r$round.csv" > /dev/null 2>&1
    echo "## fusion $name r$round exit $? after $((SECONDS - t0)) s"
  done
done
tool=$(find build/cuda -name libkokkosddt_timeline.so | head -1)
env KOKKOS_TOOLS_LIBS=$PWD/$tool KOKKOSDDT_TIMELINE=$OUT/c1/tl timeout 60 mpiexec -n 2 build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 200 --repeats 1 --exchanges none,plan-auto,graph-auto --graph > /dev/null 2>&1
python3 perf_tests/timeline/step_timeline.py "$OUT/c1/tl" --region "jacobi_bench plan-auto ahead" | head -10
python3 perf_tests/timeline/step_timeline.py "$OUT/c1/tl" --region "jacobi_bench plan-auto alone" --cut FusedKernel | head -6
cd "$OUT" && tar czf c1.tgz c1 && rm -rf c1
echo "## end after $((SECONDS - t0)) s"
######## .carry/call-copy2.sh
#!/usr/bin/env bash
# Device (2 GPUs), issue 47 items 1-3, round 2: before (f97c536) against after (the one-word copy, the bounded lookup,
# one scratch pass) in one call: the CUDA unit suite's copy/random/fusion cases and memcheck, ncu's instructions of the
# fused self-copy (jacobi3d 64^3 and 128^3, one rank) and of fusion_bench's halo launch, the source-level profile
# (after), jacobi_bench at 64^3 per GPU on 1 and 2 GPUs alternating, fusion_bench's halo table, a timeline, and the
# multi-GPU suite's MPI tests over every transport.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1 OMP_PROC_BIND=false
export NVCC_APPEND_FLAGS=-lineinfo
t0=$SECONDS
mkdir -p "$OUT/c2"
(
  rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base-f97c536.tgz -C /tmp/base && cd /tmp/base &&
    while [ ! -x /opt/kokkos/cuda/bin/nvcc_wrapper ]; do sleep 2; done &&
    cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON \
      -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
      -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 > /dev/null &&
    cmake --build build/cuda -j 12 --target fusion_bench jacobi3d jacobi_bench
  echo "base build exit $?"
) > /tmp/base-build.log 2>&1 &
BUILD_TARGETS="kokkosddt_unit_tests_Cuda kokkosddt_mpi_tests_Cuda fusion_bench jacobi3d jacobi_bench kokkosddt_timeline" STEPS="environment kokkos build" \
  bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
wait
tail -2 /tmp/base-build.log
echo "## built after $((SECONDS - t0)) s"
u=build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
timeout 150 $u "[random],[copy],[fusion]" 2>&1 | tail -2
echo "## tests exit ${PIPESTATUS[0]} after $((SECONDS - t0)) s"
timeout 100 compute-sanitizer --tool memcheck --print-limit 20 $u "[copy],[fusion]" > "$OUT/c2/memcheck.log" 2>&1
echo "## memcheck [copy],[fusion] exit $? after $((SECONDS - t0)) s: $(tail -1 "$OUT/c2/memcheck.log")"
m=gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__registers_per_thread
for tree in /tmp/base "$PWD"; do
  name=$([ "$tree" = "$PWD" ] && echo after || echo before)
  for n in 64 128; do
    timeout 60 ncu --csv --kernel-name-base demangled --clock-control none -k regex:FusedKernel --launch-skip 20 --launch-count 3 \
      --metrics $m "$tree"/build/cuda/examples/jacobi3d $n 30 auto > "$OUT/c2/ncu-jacobi$n-$name.csv" 2>&1
    echo "## ncu $name $n: $(grep -E 'inst_executed|duration|registers|grid_size' "$OUT/c2/ncu-jacobi$n-$name.csv" | head -4 | awk -F'","' '{printf "%s=%s ", $(NF-2), $NF}' | tr -d '"')"
  done
  timeout 60 ncu --csv --kernel-name-base demangled --clock-control none -k "regex:FusedKernel|hand" --launch-skip 40 --launch-count 6 \
    --metrics $m "$tree"/build/cuda/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/c2/ncu-fusion-$name.csv" 2>&1
  echo "## ncu fusion $name exit $?"
done
timeout 60 ncu --csv --page source --print-source cuda,sass --import-source yes --section SourceCounters --clock-control none \
  --kernel-name-base demangled -k regex:FusedKernel --launch-skip 20 --launch-count 1 build/cuda/examples/jacobi3d 64 40 auto > "$OUT/c2/jacobi-src.csv" 2>&1
echo "## ncu done after $((SECONDS - t0)) s"
for round in 1 2 3; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    for n in 1 2; do
      timeout 60 mpiexec -n $n "$tree"/build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 500 --repeats 3 \
        --exchanges none,nccl,plan-auto,plan-nccl,graph-auto --graph --csv "$OUT/c2/jacobi-$name-$n-r$round.csv" > /dev/null 2>&1
      echo "## jacobi $name n=$n r$round: $(tail -n +2 "$OUT/c2/jacobi-$name-$n-r$round.csv" | cut -d, -f4,5,6 | tr '\n' ' ')"
    done
  done
done
echo "## jacobi done after $((SECONDS - t0)) s"
for round in 1 2; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    timeout 150 "$tree"/build/cuda/perf_tests/fusion_bench --only halo --csv "$OUT/c2/fusion-$name-r$round.csv" > /dev/null 2>&1
    echo "## fusion $name r$round exit $? after $((SECONDS - t0)) s"
  done
done
tool=$(find build/cuda -name libkokkosddt_timeline.so | head -1)
env KOKKOS_TOOLS_LIBS=$PWD/$tool KOKKOSDDT_TIMELINE=$OUT/c2/tl timeout 60 mpiexec -n 2 build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 200 --repeats 1 --exchanges none,nccl,plan-auto,plan-nccl,graph-auto --graph > /dev/null 2>&1
env KOKKOS_TOOLS_LIBS=$PWD/$tool KOKKOSDDT_TIMELINE=$OUT/c2/tlone timeout 60 mpiexec -n 1 build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 200 --repeats 1 --exchanges none,plan-auto --graph > /dev/null 2>&1
echo "## timeline after $((SECONDS - t0)) s"
mt=build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
for tr in MPI NCCL PEER AUTO; do
  [ $((SECONDS - t0)) -gt 540 ] && { echo "## mpi tests $tr: no time left"; continue; }
  echo "## mpi tests $tr n=2: $(env KOKKOSDDT_TEST_TRANSPORT=$tr timeout 60 mpiexec -n 2 $mt 2>&1 | grep -E 'All tests passed|test cases:|FAILED' | sort | uniq -c | tr '\n' ' ')"
done
cd "$OUT" && tar czf c2.tgz c2 && rm -rf c2
echo "## end after $((SECONDS - t0)) s"
######## .carry/call-copy3.sh
#!/usr/bin/env bash
# Device (2 GPUs), issue 47, round 3 (the final tree): before (f97c536) against after in one call, within ~420 s:
# the CUDA unit suite's copy/random/fusion cases and memcheck, ncu's instruction counts (after), jacobi_bench at 64^3
# per GPU on 1 and 2 GPUs alternating, fusion_bench's halo table, the MPI tests over PEER and AUTO.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1 OMP_PROC_BIND=false
t0=$SECONDS
mkdir -p "$OUT/c3"
(
  rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base-f97c536.tgz -C /tmp/base && cd /tmp/base &&
    while [ ! -x /opt/kokkos/cuda/bin/nvcc_wrapper ]; do sleep 2; done &&
    cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON \
      -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
      -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 > /dev/null &&
    cmake --build build/cuda -j 10 --target fusion_bench jacobi_bench
  echo "base build exit $?"
) > /tmp/base-build.log 2>&1 &
BUILD_TARGETS="kokkosddt_unit_tests_Cuda kokkosddt_mpi_tests_Cuda fusion_bench jacobi3d jacobi_bench" STEPS="environment kokkos build" \
  bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
wait
tail -1 /tmp/base-build.log
echo "## built after $((SECONDS - t0)) s"
u=build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
timeout 100 $u "[random],[copy],[fusion]" 2>&1 | tail -2
echo "## tests exit ${PIPESTATUS[0]} after $((SECONDS - t0)) s"
timeout 60 compute-sanitizer --tool memcheck --print-limit 20 $u "[copy],[fusion]" > "$OUT/c3/memcheck.log" 2>&1
echo "## memcheck exit $? after $((SECONDS - t0)) s: $(tail -1 "$OUT/c3/memcheck.log")"
m=gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__registers_per_thread
timeout 40 ncu --csv --kernel-name-base demangled --clock-control none -k regex:FusedKernel --launch-skip 20 --launch-count 2 \
  --metrics $m build/cuda/examples/jacobi3d 64 30 auto > "$OUT/c3/ncu-jacobi64-after.csv" 2>&1
timeout 40 ncu --csv --kernel-name-base demangled --clock-control none -k "regex:FusedKernel" --launch-skip 10 --launch-count 2 \
  --metrics $m build/cuda/perf_tests/fusion_bench --quick --only halo --csv /dev/null > "$OUT/c3/ncu-fusion-after.csv" 2>&1
echo "## ncu after $((SECONDS - t0)) s: $(grep -h inst_executed "$OUT"/c3/ncu-*.csv | awk -F'","' '{printf "%s ", $NF}' | tr -d '"')"
mt=build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
for tr in PEER AUTO; do
  echo "## mpi tests $tr n=2: $(env KOKKOSDDT_TEST_TRANSPORT=$tr timeout 40 mpiexec -n 2 $mt 2>&1 | grep -E 'All tests passed|test cases:|FAILED' | sort | uniq -c | tr '\n' ' ')"
done
echo "## mpi tests after $((SECONDS - t0)) s"
for round in 1 2; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    for n in 1 2; do
      timeout 40 mpiexec -n $n "$tree"/build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 500 --repeats 3 \
        --exchanges none,plan-auto,plan-nccl,graph-auto --graph --csv "$OUT/c3/jacobi-$name-$n-r$round.csv" > /dev/null 2>&1
      echo "## jacobi $name n=$n r$round: $(tail -n +2 "$OUT/c3/jacobi-$name-$n-r$round.csv" | cut -d, -f4,5,6 | tr '\n' ' ')"
    done
  done
done
echo "## jacobi done after $((SECONDS - t0)) s"
for tree in /tmp/base "$PWD"; do
  name=$([ "$tree" = "$PWD" ] && echo after || echo before)
  [ $((SECONDS - t0)) -gt 370 ] && { echo "## fusion $name: no time left"; continue; }
  timeout 50 "$tree"/build/cuda/perf_tests/fusion_bench --only halo --csv "$OUT/c3/fusion-$name-r1.csv" > /dev/null 2>&1
  echo "## fusion $name exit $? after $((SECONDS - t0)) s"
done
cd "$OUT" && tar czf c3.tgz c3 && rm -rf c3
echo "## end after $((SECONDS - t0)) s"
