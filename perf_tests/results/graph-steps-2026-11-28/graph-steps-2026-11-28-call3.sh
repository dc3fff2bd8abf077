#!/usr/bin/env bash
# Device (4 GPUs), issue 47 item 3, round 3: rising counters by default, reset ones under options.graph.
#   PHASE=tests: build (after; before = f372545 in the background), the [graph] tests over every transport at 2 and
#                4 GPUs, one shared GPU, landed, 2 x 2 emulated nodes, 1 rank with self messages; the plan suites and
#                the deadline tests over PEER and AUTO (abandon() changed).
#   PHASE=bench: before/after: jacobi_bench 64^3 per GPU at 1, 2, 4 GPUs (after also --graph), halo_bench at 4.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1 OMP_PROC_BIND=false
t0=$SECONDS
t=build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
emu="KOKKOSDDT_NODE_SIZE=2 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo"
run() {  # LABEL "VAR=value ..." ARGS...
  local label=$1 vars=$2
  shift 2
  local t1=$SECONDS
  # shellcheck disable=SC2086
  timeout ${LIMIT:-90} env $vars "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' > "/tmp/$label.log"
  local rc=${PIPESTATUS[0]}
  echo "## $label: exit $rc after $((SECONDS - t1)) s: $(grep -hE 'All tests passed|test cases:' "/tmp/$label.log" | sort | uniq -c | tr '\n' ' ')"
  [ $rc = 0 ] || grep -A10 -E "FAILED|Segmentation|signal |atchdog|error:|rror" "/tmp/$label.log" | grep -vE "^(-|\.)+$|^$|Catch2|Run with" | sort | uniq -c | sort -rn | head -24
  cp "/tmp/$label.log" "$OUT/logs/" 2>/dev/null
}
mkdir -p "$OUT/logs"
if [ "${PHASE:-tests}" = tests ]; then
  STEPS="environment kokkos" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
  (
    rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base-f372545.tgz -C /tmp/base && cd /tmp/base &&
      cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON \
        -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
        -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 &&
      cmake --build build/cuda -j 20 --target jacobi_bench halo_bench
    echo "base build exit $?"
  ) > /tmp/base-build.log 2>&1 &
  BUILD_TARGETS="kokkosddt_mpi_tests_Cuda jacobi_bench halo_bench" STEPS="environment kokkos build" \
    bash .carry/call-routes.sh | grep -E "^====|exit" | tail -3
  cmake --build build/cuda -j 40 --target kokkosddt_mpi_tests_Cuda jacobi_bench halo_bench 2>&1 | grep -E "error|FAILED" | tail -20
  echo "## built after $((SECONDS - t0)) s"
  for n in 2 4; do for tr in PEER NCCL MPI AUTO; do run "graph-$tr-$n" "KOKKOSDDT_TEST_TRANSPORT=$tr" mpiexec -n $n $t "[graph]"; done; done
  run graph-PEER-shared "CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[graph]"
  run graph-PEER-landed "KOKKOSDDT_TEST_TRANSPORT=PEER KOKKOSDDT_PEER_LANDING=always" mpiexec -n 4 $t "[graph]"
  run graph-AUTO-nodes "KOKKOSDDT_TEST_TRANSPORT=AUTO $emu" mpiexec -n 4 $t "[graph]"
  run graph-NCCL-self "KOKKOSDDT_TEST_TRANSPORT=NCCL KOKKOSDDT_HALO_SELF_MESSAGES=1" mpiexec -n 1 $t "[graph]"
  run graph-MPI-self "KOKKOSDDT_TEST_TRANSPORT=MPI KOKKOSDDT_HALO_SELF_MESSAGES=1" mpiexec -n 1 $t "[graph]"
  run graph-PEER-shared-landed "CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER KOKKOSDDT_PEER_LANDING=always" mpiexec -n 2 $t "[graph]"
  echo "## graph tests done after $((SECONDS - t0)) s"
  run suite-PEER-2 "KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[halo],[exchange],[transport],[peer]"
  run suite-AUTO-4 "KOKKOSDDT_TEST_TRANSPORT=AUTO" mpiexec -n 4 $t "[halo],[exchange],[transport],[routes],[peer]"
  run suite-NCCL-4 "KOKKOSDDT_TEST_TRANSPORT=NCCL" mpiexec -n 4 $t
  run suite-MPI-2 "KOKKOSDDT_TEST_TRANSPORT=MPI" mpiexec -n 2 $t
  run suite-AUTO-nodes "KOKKOSDDT_TEST_TRANSPORT=AUTO $emu" mpiexec -n 4 $t "[halo],[exchange],[routes]"
  run suite-PEER-shared "CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[halo],[exchange],[transport]"
  for n in 2 4; do for tr in PEER AUTO; do run "deadline-$tr-$n" "KOKKOSDDT_TEST_TRANSPORT=$tr" mpiexec -n $n $t "[deadline]"; done; done
  run deadline-PEER-shared "CUDA_VISIBLE_DEVICES=0 KOKKOSDDT_TEST_TRANSPORT=PEER" mpiexec -n 2 $t "[deadline]"
  wait
  tail -1 /tmp/base-build.log
  echo "## tests phase done after $((SECONDS - t0)) s"
else
  for round in 1 2 3; do
    for tree in "$PWD" /tmp/base; do
      name=$([ "$tree" = "$PWD" ] && echo after || echo before)
      for n in 1 2 4; do
        ex=none,plan-auto,plan-peer,plan-nccl; extra=""
        [ $name = after ] && ex=$ex,graph-auto,graph-nccl && extra=--graph
        [ $n = 1 ] && ex=${ex//,plan-peer/}
        echo "## jacobi $name n=$n r$round"
        timeout 100 mpiexec -n $n "$tree"/build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 1000 --repeats 5 \
          --exchanges $ex $extra --csv "$OUT/jacobi-$name-$n-r$round.csv" 2>&1 | grep -E "^(none|plan-[a-z]+|graph-[a-z]+) " | cut -c1-60
      done
    done
  done
  echo "## jacobi done after $((SECONDS - t0)) s"
  for round in 1 2; do
    for tree in /tmp/base "$PWD"; do
      name=$([ "$tree" = "$PWD" ] && echo after || echo before)
      timeout 150 mpiexec -n 4 "$tree"/build/cuda/perf_tests/halo_bench --csv "$OUT/halo-$name-4-r$round.csv" > "$OUT/logs/halo-$name-r$round.log" 2>&1
      echo "## halo $name r$round exit $? after $((SECONDS - t0)) s"
    done
  done
  cd "$OUT" && tar czf bench3.tgz *.csv logs && rm -rf *.csv logs
fi
