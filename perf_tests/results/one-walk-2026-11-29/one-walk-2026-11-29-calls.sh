#!/usr/bin/env bash
# Device (one H200), issue 47 item 2: copies between types of one shape locate each position once. Before (base tree,
# .carry/base.tgz) and after in one call: the CUDA unit suite's copy, fusion and random tests (after), memcheck on the
# new copy case, ncu's instructions of jacobi3d's fused self-copy (64^3 and 128^3, one rank), jacobi3d's time per
# iteration.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMP_PROC_BIND=false
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1
grep -E "^==== .*exit" /tmp/kokkos.log | tail -3
echo "## kokkos after $((SECONDS - t0)) s"
(
  rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base.tgz -C /tmp/base && cd /tmp/base &&
    cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON \
      -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda > /dev/null &&
    cmake --build build/cuda -j 7 --target jacobi3d
  echo "base build exit $?"
) > /tmp/base-build.log 2>&1 &
BUILD_TARGETS="kokkosddt_unit_tests_Cuda jacobi3d" bash perf_tests/gpu_session.sh build-multi-gpu > /tmp/after.log 2>&1
grep -E "^==== .*exit|error" /tmp/after.log | head -20
wait
tail -3 /tmp/base-build.log
echo "## built after $((SECONDS - t0)) s"
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout 240 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda "[copy],[fusion],[random]" 2>&1 | tail -4
  echo "## tests exit ${PIPESTATUS[0]} after $((SECONDS - t0)) s"
  KOKKOSDDT_TEST_SCALE=0.1 timeout 200 compute-sanitizer --tool memcheck --print-limit 5 \
    build/cuda/unit_tests/kokkosddt_unit_tests_Cuda "copy: a layout into the same layout elsewhere, located once" 2>&1 | tail -6
  echo "## memcheck exit ${PIPESTATUS[0]} after $((SECONDS - t0)) s"
fi
for n in 64 128; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    timeout 120 ncu --csv --clock-control none --cache-control none -k regex:FusedKernel --launch-skip 20 --launch-count 4 \
      --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread \
      "$tree"/build/cuda/examples/jacobi3d $n 30 auto > "$OUT/ncu-jacobi$n-$name.csv" 2>&1
    echo "## ncu $n $name exit $? after $((SECONDS - t0)) s"
  done
done
for round in 1 2; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    for n in 64 128; do
      timeout 60 "$tree"/build/cuda/examples/jacobi3d $n 400 auto > "$OUT/jacobi$n-$name-r$round.txt" 2>&1
    done
    echo "## bench $name r$round exit $? after $((SECONDS - t0)) s"
  done
done
echo "## end after $((SECONDS - t0)) s"
#!/usr/bin/env bash
# Device (one H200), issue 47 item 2, second call: one walk for copies of one shape, checked across processes and
# profiled. Built with -lineinfo (both trees). The CUDA unit suite's copy, fusion and random tests; the MPI suite's halo,
# exchange and transport tests on 2 ranks sharing the GPU over PEER and AUTO; ncu's source lines of jacobi3d 64^3's
# fused self-copy (after); jacobi3d (1 rank) and jacobi_bench (2 ranks on the one GPU), before and after alternating.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMP_PROC_BIND=false
export NVCC_APPEND_FLAGS=-lineinfo
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1
grep -E "^==== .*exit" /tmp/kokkos.log | tail -1
(
  rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base.tgz -C /tmp/base && cd /tmp/base &&
    cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON \
      -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda > /dev/null &&
    cmake --build build/cuda -j 6 --target jacobi3d jacobi_bench
  echo "base build exit $?"
) > /tmp/base-build.log 2>&1 &
BUILD_TARGETS="kokkosddt_unit_tests_Cuda kokkosddt_mpi_tests_Cuda jacobi3d jacobi_bench" \
  bash perf_tests/gpu_session.sh build-multi-gpu > /tmp/after.log 2>&1
grep -E "^==== .*exit|error" /tmp/after.log | head -20
wait
tail -1 /tmp/base-build.log
echo "## built after $((SECONDS - t0)) s"
b=build/cuda
timeout 200 $b/unit_tests/kokkosddt_unit_tests_Cuda "[copy],[fusion],[random]" 2>&1 | tail -2
echo "## unit exit ${PIPESTATUS[0]} after $((SECONDS - t0)) s"
for tr in PEER AUTO; do
  timeout 150 env KOKKOSDDT_TEST_TRANSPORT=$tr mpiexec -n 2 $b/unit_tests/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[transport]" 2>&1 | grep -E "passed|failed|FAILED" | head -4
  echo "## mpi $tr exit ${PIPESTATUS[0]} after $((SECONDS - t0)) s"
done
timeout 100 ncu --csv --page source --print-source cuda,sass --import-source yes --section SourceCounters --clock-control none \
  --kernel-name-base demangled -k regex:FusedKernel --launch-skip 20 --launch-count 1 $b/examples/jacobi3d 64 40 auto > /tmp/src.csv 2>&1
python3 perf_tests/timeline/ncu_source_lines.py /tmp/src.csv 512 30
echo "## ncu source after $((SECONDS - t0)) s"
for round in 1 2 3; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    for n in 64 128; do
      echo "$name r$round $n: $(timeout 60 $tree/build/cuda/examples/jacobi3d $n 400 auto 2>&1 | grep 'time per iteration')"
    done
    timeout 90 mpiexec -n 2 $tree/build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 500 --repeats 3 \
      --exchanges none,plan-auto,plan-peer,graph-auto --graph 2>&1 | grep -E "^ *(none|plan|graph)" | sed "s/^/$name r$round: /" | cut -c1-150
  done
done
echo "## end after $((SECONDS - t0)) s"
#!/usr/bin/env bash
# Device (one H200), issue 47 item 2, third call: the tests of the second call, whose output was cut off, again, and
# the head of ncu's source lines of jacobi3d 64^3's fused self-copy (after, -lineinfo).
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMP_PROC_BIND=false
export NVCC_APPEND_FLAGS=-lineinfo
t0=$SECONDS
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1
BUILD_TARGETS="kokkosddt_unit_tests_Cuda kokkosddt_mpi_tests_Cuda jacobi3d" \
  bash perf_tests/gpu_session.sh build-multi-gpu > /tmp/after.log 2>&1
grep -E "^==== .*exit|error" /tmp/after.log | head -20
echo "## built after $((SECONDS - t0)) s"
b=build/cuda
timeout 200 $b/unit_tests/kokkosddt_unit_tests_Cuda "[copy],[fusion],[random]" 2>&1 | tail -2
echo "## unit exit ${PIPESTATUS[0]} after $((SECONDS - t0)) s"
for tr in PEER AUTO; do
  timeout 150 env KOKKOSDDT_TEST_TRANSPORT=$tr mpiexec -n 2 $b/unit_tests/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[transport]" 2>&1 | grep -E "passed|failed|FAILED" | head -4
  echo "## mpi $tr exit ${PIPESTATUS[0]} after $((SECONDS - t0)) s"
done
timeout 100 ncu --csv --page source --print-source cuda,sass --import-source yes --section SourceCounters --clock-control none \
  --kernel-name-base demangled -k regex:FusedKernel --launch-skip 20 --launch-count 1 $b/examples/jacobi3d 64 40 auto > /tmp/src.csv 2>&1
python3 perf_tests/timeline/ncu_source_lines.py /tmp/src.csv 512 12 | head -40
echo "## end after $((SECONDS - t0)) s"
