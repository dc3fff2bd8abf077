#!/usr/bin/env bash
# Device (2 x H200), nineteenth session: the multi-GPU suite at 2 ranks on main (the second carried block), then the
# whole CUDA unit suite and compute-sanitizer memcheck on the device-layout cases (random types, the carried blocks).
export OUT=${OUT:-$PWD/gpu-out}
t0=$SECONDS
RANKS=2 MULTI_GPU_BUDGET_S=480 bash perf_tests/multi_gpu.sh environment kokkos build tests 2>&1 | tail -40
echo "## suite after $((SECONDS - t0)) s"
export PATH=/usr/local/cuda/bin:$PATH OMP_NUM_THREADS=1
u=build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
timeout 120 $u > /tmp/unit.log 2>&1; echo "## unit exit $? after $((SECONDS - t0)) s"; grep -E "All tests passed|test cases|FAILED" /tmp/unit.log | head -5
KOKKOSDDT_TEST_SCALE=0.1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $u "device layout*" > /tmp/san.log 2>&1
echo "## memcheck exit $? after $((SECONDS - t0)) s"; tail -4 /tmp/san.log
gzip -c /tmp/unit.log > "$OUT/unit.log.gz"; gzip -c /tmp/san.log > "$OUT/memcheck.log.gz"
