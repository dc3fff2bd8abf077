#!/usr/bin/env bash
# Device (4 GPUs), issue 46, session of 2026-11-27 evening: peer liveness, the handshake's setup deadline, the 1 000-plan
# loop; the deadline scenarios over peer/auto/NCCL; a rank that dies (exit and SIGKILL) under Open MPI told not to
# abort the others.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
t0=$SECONDS
BUILD_TARGETS="kokkosddt_mpi_tests_Cuda jacobi_bench heat3d_kokkosddt" STEPS="environment kokkos build" \
  bash .carry/call-routes.sh | grep -E "^====|exit" | tail -3
cmake --build build/cuda -j 64 --target kokkosddt_mpi_tests_Cuda jacobi_bench heat3d_kokkosddt 2>&1 | grep -E "error|FAILED" | tail -5
echo "## built after $((SECONDS - t0)) s"
t=build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
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
run peer-memory-2 "KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[peer]"
run peer-memory-4 "KOKKOSDDT_TEST_TRANSPORT=AUTO" mpiexec -n 4 $t "[peer]"
run suite-PEER-2 "KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[halo],[exchange],[transport]"
run suite-AUTO-4 "KOKKOSDDT_TEST_TRANSPORT=AUTO" mpiexec -n 4 $t "[halo],[exchange],[transport],[routes]"
for n in 2 4; do for tr in PEER AUTO NCCL MPI; do run "deadline-$tr-$n" "KOKKOSDDT_TEST_TRANSPORT=$tr" mpiexec -n $n $t "[deadline]"; done; done
run deadline-PEER-shared "CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[deadline]"
# A rank that dies: Open MPI 4.1 told not to abort the others on a non-zero exit; a 5 s deadline shows how soon a peer
# route reports the death (MPI: at the deadline).
for death in exit kill; do
  for tr in PEER AUTO MPI; do
    LIMIT=40 run "killed-$death-$tr" "KOKKOSDDT_TEST_TRANSPORT=$tr KOKKOSDDT_TEST_DEATH=$death KOKKOSDDT_TEST_DEATH_S=5" \
      mpiexec --mca orte_abort_on_non_zero_status 0 -x KOKKOSDDT_TEST_DEATH -x KOKKOSDDT_TEST_DEATH_S -n 3 $t "[killed]"
    grep -E "a rank that dies|mpiexec|exited|killed|signal" "/tmp/killed-$death-$tr.log" | head -6
  done
done
echo "## done after $((SECONDS - t0)) s"
