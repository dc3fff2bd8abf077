# ===== .carry/call-engine.sh
#!/usr/bin/env bash
# Device (4 GPUs), call A of issue 45 item 3 (routes owned by the transports): build this tree, the base tree
# (eb8ee99, before the change) beside the multi-GPU tests (every transport, 2 and 4 GPUs, emulated nodes).
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
STEPS="environment kokkos build" bash .carry/call-routes.sh | tail -4
(
  rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base-eb8ee99.tgz -C /tmp/base && cd /tmp/base &&
    cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON -DKokkosDDT_ENABLE_EXAMPLES=ON \
      -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
      -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 &&
    cmake --build build/cuda -j 24 --target jacobi_bench halo_bench
  echo "base build exit $?"
) > "$OUT/base-build.log" 2>&1 &
STEPS="environment kokkos build tests" bash .carry/call-routes.sh | tail -60
wait
tail -2 "$OUT/base-build.log"
cp /tmp/multi-gpu/logs/tests.log "$OUT/" 2> /dev/null || true

# ===== .carry/call-engine2.sh
#!/usr/bin/env bash
# Device (4 GPUs), call B: the main job against one rank over every transport (examples step), then jacobi_bench
# before (eb8ee99) and after in one run, alternating trees: one node (auto, peer, nccl) and 2 x 2 emulated nodes
# (auto against NCCL's own send/recv of the inter-node bytes), 128^3 and 64^3 per GPU; halo_bench --quick (its
# table over every transport).
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
STEPS="environment kokkos build tests examples" bash .carry/call-routes.sh | grep -E "^====|FAILED|exit" | tail -8
emu="KOKKOSDDT_NODE_SIZE=2 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo"
bench() {  # TREE LABEL "VAR=value ..." ARGS...
  local tree=$1 label=$2 vars=$3
  shift 3
  echo "## $label"
  # shellcheck disable=SC2086  # (vars: assignments, split on purpose)
  timeout 120 env $vars mpiexec -n 4 "$tree"/build/cuda/perf_tests/jacobi_bench --iterations 300 --repeats 3 \
    --label "$label" --csv "$OUT/$label.csv" "$@" 2>&1 | grep -E "^(none|plan|nccl)"
}
for round in 1 2; do
  for size in 128 64; do
    for tree in /tmp/base "$PWD"; do
      [ $round = 2 ] && [ $((SECONDS)) -gt 420 ] && break 3
      name=$([ "$tree" = "$PWD" ] && echo after || echo before)
      bench "$tree" "$name-onenode-$size-r$round" "OMP_NUM_THREADS=1" --per-rank $size \
        --exchanges none,plan-auto,plan-peer,plan-nccl
      bench "$tree" "$name-nodes-$size-r$round" "$emu" --per-rank $size --exchanges none,nccl-remote,plan-auto
    done
  done
done
echo "## halo_bench --quick, 4 ranks"
timeout 90 mpiexec -n 4 build/cuda/perf_tests/halo_bench --quick --csv "$OUT/halo-quick.csv" 2>&1 | tail -12

# ===== .carry/call-engine3.sh
#!/usr/bin/env bash
# Device (4 GPUs), call C: weak scaling (jacobi_bench, 1 and 4 ranks, 128^3 and 64^3 per GPU, auto and peer), then
# halo_bench at 4 ranks on one node and across 2 x 2 emulated nodes (its table over every transport).
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
STEPS="environment kokkos build" bash .carry/call-routes.sh | grep -E "^====|FAILED|exit" | tail -4
emu="KOKKOSDDT_NODE_SIZE=2 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo"
for size in 128 64; do
  for n in 1 4; do
    echo "## weak $size^3 per GPU, $n ranks"
    timeout 100 mpiexec -n $n build/cuda/perf_tests/jacobi_bench --per-rank $size --iterations 500 --repeats 5 \
      --exchanges none,plan-auto,plan-peer --label weak --csv "$OUT/weak-$size-$n.csv" 2>&1 | grep -E "^(none|plan)"
  done
done
echo "## halo_bench, 4 ranks, one node"
timeout 200 mpiexec -n 4 build/cuda/perf_tests/halo_bench --csv "$OUT/halo-4.csv" 2>&1 | grep -v "^send\|^receive\|routes"
echo "## halo_bench, 4 ranks, 2 x 2 emulated nodes"
timeout 200 env $emu mpiexec -n 4 build/cuda/perf_tests/halo_bench --csv "$OUT/halo-nodes.csv" 2>&1 |
  grep -v "^send\|^receive\|routes"

# ===== .carry/call-engine4.sh
#!/usr/bin/env bash
# Device (4 GPUs), call D: halo_bench before (eb8ee99: the NCCL table's plan_nccl and plan_auto time exchange(), with
# its fence) and after (the table over every transport, start + wait + fence), at 4 ranks on one node and across
# 2 x 2 emulated nodes, in one run.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
if [ ! -x /tmp/base/build/cuda/perf_tests/halo_bench ]; then
  (
    rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base-eb8ee99.tgz -C /tmp/base && cd /tmp/base &&
      cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON \
        -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
        -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 &&
      cmake --build build/cuda -j 24 --target halo_bench
    echo "base build exit $?"
  ) > "$OUT/base-build.log" 2>&1 &
fi
BUILD_TARGETS="halo_bench" STEPS="environment kokkos build" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -3
cmake --build build/cuda -j 48 --target halo_bench 2>&1 | tail -1  # (a warm machine: its build step is done already)
wait
tail -1 "$OUT/base-build.log" 2> /dev/null
emu="KOKKOSDDT_NODE_SIZE=2 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo"
for where in one-node nodes; do
  vars="OMP_NUM_THREADS=1"
  [ $where = nodes ] && vars=$emu
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    echo "## halo_bench $name, 4 ranks, $where"
    # shellcheck disable=SC2086
    timeout 150 env $vars mpiexec -n 4 "$tree"/build/cuda/perf_tests/halo_bench --csv "$OUT/halo-$name-$where.csv" 2>&1 |
      grep -A40 "^NCCL transport" | grep -v "^send\|^receive\|routes\|^CSV\|^)"
  done
done

# ===== .carry/call-engine5.sh
#!/usr/bin/env bash
# Device (4 GPUs), call D: halo_bench before (eb8ee99: the NCCL table's plan_nccl and plan_auto time exchange(), with
# its fence) and after (the table over every transport, start + wait + fence), at 4 ranks on one node and across
# 2 x 2 emulated nodes, in one run.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
if [ ! -x /tmp/base/build/cuda/perf_tests/jacobi_bench ]; then
  (
    rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base-eb8ee99.tgz -C /tmp/base && cd /tmp/base &&
      cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON \
        -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda \
        -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper -DCMAKE_CXX_FLAGS=-arch=sm_90 &&
      cmake --build build/cuda -j 24 --target halo_bench jacobi_bench
    echo "base build exit $?"
  ) > "$OUT/base-build.log" 2>&1 &
fi
BUILD_TARGETS="halo_bench jacobi_bench" STEPS="environment kokkos build" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -3
cmake --build build/cuda -j 48 --target halo_bench jacobi_bench 2>&1 | tail -1  # (a warm machine: its build step is done already)
wait
tail -1 "$OUT/base-build.log" 2> /dev/null
# One node, alternating trees twice: halo_bench (its plan over auto, fenced in both trees) and jacobi_bench at 64^3
# per GPU (auto and peer).
for round in 1 2; do
  for tree in /tmp/base "$PWD"; do
    name=$([ "$tree" = "$PWD" ] && echo after || echo before)
    echo "## $name r$round"
    timeout 100 mpiexec -n 4 "$tree"/build/cuda/perf_tests/halo_bench --csv "$OUT/halo-$name-r$round.csv" > /dev/null 2>&1
    timeout 100 mpiexec -n 4 "$tree"/build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 500 --repeats 5 \
      --exchanges none,plan-auto,plan-peer --csv "$OUT/jacobi-$name-r$round.csv" 2>&1 | grep -E "^(none|plan)"
  done
done

