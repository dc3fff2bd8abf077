######## .carry/call-db0.sh
#!/usr/bin/env bash
# Device (1 GPU), issue 47 item 3: device begin's protocol on one GPU. Build; the CUDA unit cases of the fused kernel;
# the peer tests between 2 ranks sharing the GPU under MPS with KOKKOSDDT_DEVICE_BEGIN=always (gates offered though
# the ranks share a GPU) and with the default (not offered there); jacobi_bench 2 ranks under MPS, 0 against always.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_PROC_BIND=false
t0=$SECONDS
if [ ! -f /tmp/db-build.done ]; then
  BUILD_TARGETS="${BUILD_TARGETS:-kokkosddt_mpi_tests_Cuda jacobi_bench kokkosddt_unit_tests_Cuda}" \
    bash perf_tests/gpu_session.sh kokkos build-multi-gpu > /tmp/db-build.log 2>&1
  grep -E "^==== .*exit|error" /tmp/db-build.log | head -20
  grep -q "build-multi-gpu: exit 0" /tmp/db-build.log && touch /tmp/db-build.done
fi
export OMP_NUM_THREADS=1
echo "## built after $((SECONDS - t0)) s"
bin=build/cuda
t() { echo "## $*"; timeout 120 "$@" > /tmp/t.log 2>&1; local rc=$?; grep -E "All tests passed|test cases|FAILED|Error|error" /tmp/t.log | head -6; echo "## exit $rc after $((SECONDS - t0)) s"; }
t $bin/unit_tests/kokkosddt_unit_tests_Cuda "[fusion],[copy],[cuda]"
nvidia-cuda-mps-control -d && echo "## MPS started"
m=$bin/unit_tests/kokkosddt_mpi_tests_Cuda
t env KOKKOSDDT_DEVICE_BEGIN=always KOKKOSDDT_TEST_TRANSPORT=PEER mpiexec -n 2 $m "[halo],[exchange],[transport],[graph],[routes]"
t env KOKKOSDDT_DEVICE_BEGIN=always KOKKOSDDT_TEST_TRANSPORT=PEER KOKKOSDDT_PEER_LANDING=always mpiexec -n 2 $m "[halo],[exchange],[transport],[graph]"
t env KOKKOSDDT_DEVICE_BEGIN=always KOKKOSDDT_TEST_TRANSPORT=AUTO mpiexec -n 3 $m "[halo],[exchange],[graph]"
t env KOKKOSDDT_DEVICE_BEGIN=always KOKKOSDDT_TEST_TRANSPORT=PEER mpiexec -n 2 $m "[deadline]"
t env KOKKOSDDT_TEST_TRANSPORT=PEER mpiexec -n 2 $m
mkdir -p "$OUT/db0"
for round in 1 2; do
  for mode in 0 always; do
    timeout 90 env KOKKOSDDT_DEVICE_BEGIN=$mode mpiexec -n 2 $bin/perf_tests/jacobi_bench --per-rank 64 --iterations 500 --repeats 3 \
      --exchanges none,plan-auto,graph-auto --graph --csv "$OUT/db0/jacobi-$mode-r$round.csv" > "$OUT/db0/jacobi-$mode-r$round.txt" 2>&1
    echo "## jacobi $mode r$round exit $?: $(grep -E 'ahead|graph' "$OUT/db0/jacobi-$mode-r$round.txt" | grep -v routes | awk '{printf "%s | ", $0}' | cut -c1-500)"
  done
done
echo quit | nvidia-cuda-mps-control
tar czf "$OUT/db0.tgz" -C "$OUT" db0 && rm -rf "$OUT/db0"
echo "## end after $((SECONDS - t0)) s"
######## .carry/call-m1.sh
#!/usr/bin/env bash
# Device (1 GPU), issue 47 items 1-2: the goals measured on one GPU with the tree as it is: pack_bench_gpu's indexed
# and latency sections (library against hand kernels at 4 KiB), fusion_bench's halo grid (plan, hand, floor), and ncu
# of the fused launches (fusion_bench --quick --only halo; jacobi3d 64^3's self-copy: instructions per word).
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_PROC_BIND=false
t0=$SECONDS
if [ ! -f /tmp/m-build.done ]; then
  BUILD_TARGETS="pack_bench_gpu fusion_bench jacobi3d" bash perf_tests/gpu_session.sh kokkos build-multi-gpu > /tmp/m-build.log 2>&1
  grep -E "^==== .*exit|error" /tmp/m-build.log | head -20
  grep -q "build-multi-gpu: exit 0" /tmp/m-build.log && touch /tmp/m-build.done
fi
export OMP_NUM_THREADS=1
echo "## built after $((SECONDS - t0)) s"
mkdir -p "$OUT/m1"
b=build/cuda/perf_tests
for r in 1 2; do
  timeout 120 $b/pack_bench_gpu --only indexed --csv "$OUT/m1/pack-indexed-r$r.csv" > "$OUT/m1/pack-indexed-r$r.txt" 2>&1
  echo "## pack indexed r$r exit $? after $((SECONDS - t0)) s"
done
timeout 60 $b/pack_bench_gpu --only latency --csv "$OUT/m1/pack-latency.csv" > "$OUT/m1/pack-latency.txt" 2>&1
echo "## pack latency exit $? after $((SECONDS - t0)) s"
head -40 "$OUT/m1/pack-indexed-r1.txt"
timeout 150 $b/fusion_bench --only halo --csv "$OUT/m1/fusion-halo.csv" > "$OUT/m1/fusion-halo.txt" 2>&1
echo "## fusion halo exit $? after $((SECONDS - t0)) s"
timeout 150 ncu --csv --page details --clock-control none --kernel-name-base demangled -k regex:'FusedKernel|hand|Hand' \
  --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread \
  $b/fusion_bench --quick --only halo --csv /dev/null > "$OUT/m1/fusion-ncu.csv" 2>&1
echo "## ncu fusion exit $? after $((SECONDS - t0)) s, $(wc -l < "$OUT/m1/fusion-ncu.csv") lines"
timeout 100 ncu --csv --page details --clock-control none --kernel-name-base demangled -k regex:FusedKernel --launch-skip 20 --launch-count 1 \
  --metrics smsp__inst_executed.sum,gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread \
  build/cuda/examples/jacobi3d 64 40 auto > "$OUT/m1/jacobi-ncu.csv" 2>&1
echo "## ncu jacobi exit $? after $((SECONDS - t0)) s"; grep -E "inst_executed|duration|registers|grid_size" "$OUT/m1/jacobi-ncu.csv" | awk -F'","' '{print $(NF-2) "|" $(NF)}'
tar czf "$OUT/m1.tgz" -C "$OUT" m1 && rm -rf "$OUT/m1"
echo "## end after $((SECONDS - t0)) s"
######## .carry/call-db1.sh
#!/usr/bin/env bash
# Device (2 GPUs), issue 47 item 3: device begin (the writing kernel raises and waits for "free" itself).
# Build; the peer tests; jacobi_bench 64^3 per GPU with KOKKOSDDT_DEVICE_BEGIN=0 (before) and unset (after),
# alternating in one call; halo_bench at 2 GPUs the same way. PHASE=tests|bench|all.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_PROC_BIND=false
t0=$SECONDS
if [ ! -f /tmp/db-build.done ]; then
  BUILD_TARGETS="${BUILD_TARGETS:-kokkosddt_mpi_tests_Cuda jacobi_bench halo_bench kokkosddt_unit_tests_Cuda}" \
    bash perf_tests/gpu_session.sh kokkos build-multi-gpu > /tmp/db-build.log 2>&1
  grep -E "^==== .*exit|error" /tmp/db-build.log | head -20
  grep -q "build-multi-gpu: exit 0" /tmp/db-build.log && touch /tmp/db-build.done
fi
export OMP_NUM_THREADS=1
echo "## built after $((SECONDS - t0)) s"
bin=build/cuda
t() { echo "## $*"; timeout 150 "$@" > /tmp/t.log 2>&1; local rc=$?; grep -E "All tests passed|test cases|FAILED|Error" /tmp/t.log | head -4; echo "## exit $rc after $((SECONDS - t0)) s"; }
if [ "${PHASE:-all}" != bench ]; then
  for tr in PEER AUTO; do t env KOKKOSDDT_TEST_TRANSPORT=$tr mpiexec -n 2 $bin/unit_tests/kokkosddt_mpi_tests_Cuda; done
  t env KOKKOSDDT_TEST_TRANSPORT=PEER KOKKOSDDT_PEER_LANDING=always mpiexec -n 2 $bin/unit_tests/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[transport],[graph]"
  t env CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER mpiexec -n 2 $bin/unit_tests/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[transport],[graph]"
  t env KOKKOSDDT_TEST_TRANSPORT=PEER mpiexec -n 2 $bin/unit_tests/kokkosddt_mpi_tests_Cuda "[deadline]"
  t $bin/unit_tests/kokkosddt_unit_tests_Cuda "[fusion],[copy]"
fi
if [ "${PHASE:-all}" != tests ]; then
  mkdir -p "$OUT/db"
  jb=$bin/perf_tests/jacobi_bench
  for round in 1 2 3; do
    for mode in before after; do
      e=$([ $mode = before ] && echo KOKKOSDDT_DEVICE_BEGIN=0 || echo KOKKOSDDT_DEVICE_BEGIN=)
      for n in 2 1; do
        timeout 90 env $e mpiexec -n $n $jb --per-rank 64 --iterations 1000 --repeats 3 --exchanges none,nccl,plan-auto,plan-nccl,graph-auto --graph \
          --csv "$OUT/db/jacobi-$mode-$n-r$round.csv" > "$OUT/db/jacobi-$mode-$n-r$round.txt" 2>&1
        echo "## jacobi $mode n=$n r$round: $(grep -E 'ahead|graph' "$OUT/db/jacobi-$mode-$n-r$round.txt" | grep -v routes | awk '{printf "%s ", $0} END {print ""}' | cut -c1-600)"
      done
    done
  done
  echo "## jacobi after $((SECONDS - t0)) s"
  for mode in before after; do
    e=$([ $mode = before ] && echo KOKKOSDDT_DEVICE_BEGIN=0 || echo KOKKOSDDT_DEVICE_BEGIN=)
    timeout 100 env $e mpiexec -n 2 $bin/perf_tests/halo_bench --csv "$OUT/db/halo-$mode-2.csv" > "$OUT/db/halo-$mode-2.txt" 2>&1
    echo "## halo $mode exit $? after $((SECONDS - t0)) s"
  done
  tar czf "$OUT/db.tgz" -C "$OUT" db && rm -rf "$OUT/db"
fi
echo "## end after $((SECONDS - t0)) s"
######## .carry/call-tl.sh
#!/usr/bin/env bash
# Device (2 GPUs), issue 47 item 3: the timeline of jacobi_bench's 64^3 step with device begin off (0) and on (1):
# kernels only (CUPTI), then the median timelines.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_PROC_BIND=false
t0=$SECONDS
if [ ! -f /tmp/tl-build.done ]; then
  BUILD_TARGETS="jacobi_bench kokkosddt_timeline ${EXTRA_TARGETS:-}" bash perf_tests/gpu_session.sh kokkos build-multi-gpu > /tmp/tl-build.log 2>&1
  grep -E "^==== .*exit|error" /tmp/tl-build.log | head -20
  grep -q "build-multi-gpu: exit 0" /tmp/tl-build.log && touch /tmp/tl-build.done
fi
export OMP_NUM_THREADS=1
echo "## built after $((SECONDS - t0)) s"
tool=$PWD/$(find build/cuda -name libkokkosddt_timeline.so | head -1)
mkdir -p "$OUT/tl"
jb=build/cuda/perf_tests/jacobi_bench
for mode in 0 1; do
  env KOKKOSDDT_DEVICE_BEGIN=$mode KOKKOS_TOOLS_LIBS=$tool KOKKOSDDT_TIMELINE=$OUT/tl/m$mode timeout 100 mpiexec -n 2 $jb --per-rank 64 --iterations 200 --repeats 1 \
    --exchanges none,plan-auto,graph-auto --graph --csv "$OUT/tl/m$mode.csv" 2>&1 | grep -E "ahead|graph" | grep -v routes | cut -c1-60
  echo "## traced $mode after $((SECONDS - t0)) s"
  for r in "jacobi_bench plan-auto ahead" "jacobi_bench graph-auto graph" "jacobi_bench none ahead" "jacobi_bench plan-auto alone"; do
    python3 perf_tests/timeline/step_timeline.py "$OUT/tl/m$mode" --region "$r" > "$OUT/tl/m$mode-$(echo $r | cut -d' ' -f2,3 | tr ' ' '_').txt" 2>&1
  done
  python3 perf_tests/timeline/step_timeline.py "$OUT/tl/m$mode" --region "jacobi_bench plan-auto alone" --cut FusedKernel --per 1 > "$OUT/tl/m$mode-alone-cut.txt" 2>&1
done
for f in m0-plan-auto_ahead m1-plan-auto_ahead m1-graph-auto_graph; do echo "######## $f"; head -40 "$OUT/tl/$f.txt"; done
gzip "$OUT"/tl/*.csv
tar czf "$OUT/tl.tgz" -C "$OUT" tl && rm -rf "$OUT/tl"
echo "## end after $((SECONDS - t0)) s"
######## .carry/call-db1.sh as run for the device-join attempt (call 4; jacobi rows at 2 GPUs only, KOKKOSDDT_DEVICE_JOIN)
#!/usr/bin/env bash
# Device (2 GPUs), issue 47 item 3: device begin (the writing kernel raises and waits for "free" itself).
# Build; the peer tests; jacobi_bench 64^3 per GPU with KOKKOSDDT_DEVICE_JOIN=0 (before) and unset (after),
# alternating in one call; halo_bench at 2 GPUs the same way. PHASE=tests|bench|all.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_PROC_BIND=false
t0=$SECONDS
if [ ! -f /tmp/db-build.done ]; then
  BUILD_TARGETS="${BUILD_TARGETS:-kokkosddt_mpi_tests_Cuda jacobi_bench halo_bench kokkosddt_unit_tests_Cuda}" \
    bash perf_tests/gpu_session.sh kokkos build-multi-gpu > /tmp/db-build.log 2>&1
  grep -E "^==== .*exit|error" /tmp/db-build.log | head -20
  grep -q "build-multi-gpu: exit 0" /tmp/db-build.log && touch /tmp/db-build.done
fi
export OMP_NUM_THREADS=1
echo "## built after $((SECONDS - t0)) s"
bin=build/cuda
t() { echo "## $*"; timeout 150 "$@" > /tmp/t.log 2>&1; local rc=$?; grep -E "All tests passed|test cases|FAILED|Error" /tmp/t.log | head -4; echo "## exit $rc after $((SECONDS - t0)) s"; }
if [ "${PHASE:-all}" != bench ]; then
  for tr in PEER AUTO; do t env KOKKOSDDT_TEST_TRANSPORT=$tr mpiexec -n 2 $bin/unit_tests/kokkosddt_mpi_tests_Cuda; done
  t env KOKKOSDDT_TEST_TRANSPORT=PEER KOKKOSDDT_PEER_LANDING=always mpiexec -n 2 $bin/unit_tests/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[transport],[graph]"
  t env CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER mpiexec -n 2 $bin/unit_tests/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[transport],[graph]"
  t env KOKKOSDDT_TEST_TRANSPORT=PEER mpiexec -n 2 $bin/unit_tests/kokkosddt_mpi_tests_Cuda "[deadline]"
  t $bin/unit_tests/kokkosddt_unit_tests_Cuda "[fusion],[copy]"
fi
if [ "${PHASE:-all}" != tests ]; then
  mkdir -p "$OUT/db"
  jb=$bin/perf_tests/jacobi_bench
  for round in 1 2 3; do
    for mode in before after; do
      e=$([ $mode = before ] && echo KOKKOSDDT_DEVICE_JOIN=0 || echo KOKKOSDDT_DEVICE_JOIN=)
      for n in 2; do
        timeout 90 env $e mpiexec -n $n $jb --per-rank 64 --iterations 1000 --repeats 3 --exchanges none,nccl,plan-auto,plan-nccl,graph-auto --graph \
          --csv "$OUT/db/jacobi-$mode-$n-r$round.csv" > "$OUT/db/jacobi-$mode-$n-r$round.txt" 2>&1
        echo "## jacobi $mode n=$n r$round: $(grep -E 'ahead|graph' "$OUT/db/jacobi-$mode-$n-r$round.txt" | grep -v routes | awk '{printf "%s ", $0} END {print ""}' | cut -c1-600)"
      done
    done
  done
  echo "## jacobi after $((SECONDS - t0)) s"
  for mode in before after; do
    e=$([ $mode = before ] && echo KOKKOSDDT_DEVICE_JOIN=0 || echo KOKKOSDDT_DEVICE_JOIN=)
    timeout 100 env $e mpiexec -n 2 $bin/perf_tests/halo_bench --csv "$OUT/db/halo-$mode-2.csv" > "$OUT/db/halo-$mode-2.txt" 2>&1
    echo "## halo $mode exit $? after $((SECONDS - t0)) s"
  done
  tar czf "$OUT/db.tgz" -C "$OUT" db && rm -rf "$OUT/db"
fi
echo "## end after $((SECONDS - t0)) s"
