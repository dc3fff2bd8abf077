#!/usr/bin/env bash
# Device (4 GPUs), issue 46 item 4, second call: as call-cache.sh, with the retry on "already mapped", descriptors
# shared by content (core), the NCCL communicator's setup clock.
# before) in parallel; the peer tests (new: Test_PeerMemory) at 2 GPUs and on one shared GPU, auto at 4, the deadline
# scenarios over peer and auto; the make column (jacobi_bench, plan-peer twice, plan-auto twice, 4 ranks) before and
# after with the setup profile; heat3d_kokkosddt over peer at 2 and 4 ranks before and after.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
STEPS="environment kokkos" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
if [ ! -x /tmp/base/build/cuda/perf_tests/jacobi_bench ]; then
  (
    rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base-cc4af65.tgz -C /tmp/base && cd /tmp/base &&
      cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON \
        -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
        -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 &&
      cmake --build build/cuda -j 24 --target jacobi_bench heat3d_kokkosddt
    echo "base build exit $?"
  ) > "$OUT/base-build.log" 2>&1 &
fi
BUILD_TARGETS="kokkosddt_mpi_tests_Cuda jacobi_bench heat3d_kokkosddt" STEPS="environment kokkos build" \
  bash .carry/call-routes.sh | grep -E "^====|exit" | tail -3
cmake --build build/cuda -j 48 --target kokkosddt_mpi_tests_Cuda jacobi_bench heat3d_kokkosddt 2>&1 | grep -E "error|FAILED|^\[[0-9/]+\] Linking" | tail -5
wait
tail -1 "$OUT/base-build.log" 2> /dev/null
t=build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
run() {  # LABEL "VAR=value ..." ARGS...
  local label=$1 vars=$2
  shift 2
  echo "## $label"
  local t0=$SECONDS
  # shellcheck disable=SC2086
  timeout 150 env $vars "$@" > "$OUT/$label.log" 2>&1
  local rc=$?
  echo "   exit $rc after $((SECONDS - t0)) s: $(grep -hE 'All tests passed|test cases:' "$OUT/$label.log" | sort | uniq -c | tr '\n' ' ')"
  if [ $rc = 0 ]; then rm -f "$OUT/$label.log"; else grep -B3 -A12 -E "FAILED|Segmentation|signal|Watchdog|watchdog|rror" "$OUT/$label.log" | head -60; fi
}
if [ -z "$SKIP_TESTS" ]; then
run peer-memory-2 "KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[peer]" -s
run peer-memory-shared "CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[peer]"
run suite-PEER-2 "KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[halo],[exchange],[transport]"
run suite-PEER-2-landed "KOKKOSDDT_TEST_TRANSPORT=PEER KOKKOSDDT_PEER_LANDING=always" mpiexec -n 2 $t "[halo],[exchange],[transport]"
run suite-AUTO-4 "KOKKOSDDT_TEST_TRANSPORT=AUTO" mpiexec -n 4 $t "[halo],[exchange],[transport],[routes]"
for n in 2 4; do for tr in PEER AUTO; do run "deadline-$tr-$n" "KOKKOSDDT_TEST_TRANSPORT=$tr" mpiexec -n $n $t "[deadline]"; done; done
run deadline-PEER-shared "CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[deadline]"
fi
for round in 1 2; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    echo "## make $name r$round"
    timeout 100 env KOKKOSDDT_PROFILE_SETUP=1 mpiexec -n 4 -x KOKKOSDDT_PROFILE_SETUP "$tree"/build/cuda/perf_tests/jacobi_bench \
      --per-rank 64 --iterations 200 --repeats 2 --exchanges plan-nccl,plan-peer,plan-peer,plan-auto,plan-auto \
      --csv "$OUT/make-$name-r$round.csv" > "/tmp/make-$name-r$round.log" 2>&1
    grep -E "^(none|plan)" "/tmp/make-$name-r$round.log"
    [ $round = 1 ] && [ $name = after ] && grep "rank 0:" "/tmp/make-$name-r$round.log" | grep -v "^plan" | head -30
  done
done
for n in 2 4; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    echo "## heat3d $name $n"
    timeout 100 mpiexec -n $n "$tree"/build/cuda/perf_tests/heat3d_kokkosddt peer > "$OUT/heat3d-$name-$n.log" 2>&1
    grep -E "_(mean|median)" "$OUT/heat3d-$name-$n.log"; grep -E "manual_time +[0-9.]+ ms" "$OUT/heat3d-$name-$n.log" | awk "{printf \"%s \", \$2}"; echo
  done
done
