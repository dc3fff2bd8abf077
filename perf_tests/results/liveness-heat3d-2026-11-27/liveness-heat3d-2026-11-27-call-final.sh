#!/usr/bin/env bash
# Device (4 GPUs), end of the session of 2026-11-27 evening: the final tree's plan suites, deadline scenarios and
# collectives on Cuda (the MPI transport asks its rank once; fingerprints mix a word at a time; unchecked collectives).
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
t0=$SECONDS
BUILD_TARGETS="kokkosddt_mpi_tests_Cuda kokkosddt_collectives_tests_Cuda" STEPS="environment kokkos build" \
  bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
echo "## built after $((SECONDS - t0)) s"
t=build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
c=build/cuda/unit_tests/kokkosddt_collectives_tests_Cuda
run() {  # LABEL "VAR=value ..." ARGS...
  local label=$1 vars=$2
  shift 2
  local t0=$SECONDS
  # shellcheck disable=SC2086
  timeout ${LIMIT:-100} env $vars "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' > "/tmp/$label.log"
  local rc=${PIPESTATUS[0]}
  echo "## $label: exit $rc after $((SECONDS - t0)) s: $(grep -hE 'All tests passed|test cases:' "/tmp/$label.log" | sort | uniq -c | tr '\n' ' ')"
  [ $rc = 0 ] || grep -A8 -E "FAILED|Segmentation|signal |atchdog|error:" "/tmp/$label.log" | grep -vE "^(-|\.)+$|^$|Catch2|Run with" | sort | uniq -c | sort -rn | head -20
}
run suite-PEER-2 "KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[halo],[exchange],[transport]"
run suite-NCCL-2 "KOKKOSDDT_TEST_TRANSPORT=NCCL" mpiexec -n 2 $t "[halo],[exchange],[transport]"
run suite-AUTO-4 "KOKKOSDDT_TEST_TRANSPORT=AUTO" mpiexec -n 4 $t "[halo],[exchange],[transport],[routes],[peer]"
run suite-MPI-4 "KOKKOSDDT_TEST_TRANSPORT=MPI" mpiexec -n 4 $t
for tr in PEER NCCL; do run "deadline-$tr-4" "KOKKOSDDT_TEST_TRANSPORT=$tr" mpiexec -n 4 $t "[deadline]"; done
run collectives-4 "" mpiexec -n 4 $c
run collectives-3 "" mpiexec -n 3 $c
echo "## done after $((SECONDS - t0)) s"
