#!/usr/bin/env bash
# Device (4 GPUs), issue 46 item 4, fifth call: with each plan's counters on cache lines of their own: the peer memory
# tests, the suites over peer and auto, the deadline scenarios over NCCL and peer; the make column once with the setup
# profile; the step before (cc4af65) / after alternating three times, after first (jacobi_bench 64^3, 5 x 500
# iterations; halo_bench over auto).
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
STEPS="environment kokkos" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
if [ ! -x /tmp/base/build/cuda/perf_tests/halo_bench ]; then
  (
    rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base-cc4af65.tgz -C /tmp/base && cd /tmp/base &&
      cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON \
        -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
        -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 &&
      cmake --build build/cuda -j 24 --target jacobi_bench halo_bench
    echo "base build exit $?"
  ) > /tmp/base-build.log 2>&1 &
fi
BUILD_TARGETS="kokkosddt_mpi_tests_Cuda jacobi_bench halo_bench" STEPS="environment kokkos build" \
  bash .carry/call-routes.sh | grep -E "^====|exit" | tail -3
cmake --build build/cuda -j 48 --target kokkosddt_mpi_tests_Cuda jacobi_bench halo_bench 2>&1 | grep -E "error|FAILED" | tail -5
t=build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
run() {  # LABEL "VAR=value ..." ARGS...
  local label=$1 vars=$2
  shift 2
  local t0=$SECONDS
  # shellcheck disable=SC2086
  timeout 150 env $vars "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' > "/tmp/$label.log"
  local rc=${PIPESTATUS[0]}
  echo "## $label: exit $rc after $((SECONDS - t0)) s: $(grep -hE 'All tests passed|test cases:' "/tmp/$label.log" | sort | uniq -c | tr '\n' ' ')"
  [ $rc = 0 ] || grep -A8 -E "FAILED|Segmentation|signal |atchdog|error:" "/tmp/$label.log" | grep -vE "^(-|\.)+$|^$|Catch2|Run with" | sort | uniq -c | sort -rn | head -25
}
run peer-memory-2 "KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[peer]"
run peer-memory-4 "KOKKOSDDT_TEST_TRANSPORT=AUTO" mpiexec -n 4 $t "[peer]"
run peer-memory-shared "CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[peer]"
run suite-PEER-2 "KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[halo],[exchange],[transport]"
run suite-PEER-2-shared-landed "CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER KOKKOSDDT_PEER_LANDING=always" mpiexec -n 2 $t "[halo],[exchange],[transport]"
run suite-AUTO-4 "KOKKOSDDT_TEST_TRANSPORT=AUTO" mpiexec -n 4 $t "[halo],[exchange],[transport],[routes]"
for n in 2 4; do for tr in NCCL PEER; do run "deadline-$tr-$n" "KOKKOSDDT_TEST_TRANSPORT=$tr" mpiexec -n $n $t "[deadline]"; done; done
echo "## make after, profiled"
timeout 100 env KOKKOSDDT_PROFILE_SETUP=1 mpiexec -n 4 -x KOKKOSDDT_PROFILE_SETUP build/cuda/perf_tests/jacobi_bench \
  --per-rank 64 --iterations 200 --repeats 2 --exchanges plan-nccl,plan-peer,plan-peer > /tmp/make.log 2>&1
grep -E "^plan-[a-z]+ " /tmp/make.log
grep "rank 0:" /tmp/make.log | grep -v "^plan" | tail -8
wait
tail -1 /tmp/base-build.log
for round in 1 2 3; do
  for tree in "$PWD" /tmp/base; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    echo "## step $name r$round"
    timeout 100 mpiexec -n 4 "$tree"/build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 500 --repeats 5 \
      --exchanges none,plan-auto,plan-peer --csv "/tmp/step-$name-r$round.csv" 2>&1 | grep -E "^(none|plan-[a-z]+) "
  done
done
for tree in "$PWD" /tmp/base; do
  name=$([ "$tree" = "$PWD" ] && echo after || echo before)
  timeout 100 mpiexec -n 4 "$tree"/build/cuda/perf_tests/halo_bench --csv "$OUT/halo-$name.csv" > /tmp/halo-$name.log 2>&1
  echo "## halo $name: exit $?"
done
cp /tmp/step-*.csv "$OUT"/ 2>/dev/null
cd "$OUT" && tar czf steps.tgz step-*.csv && rm -f step-*.csv
