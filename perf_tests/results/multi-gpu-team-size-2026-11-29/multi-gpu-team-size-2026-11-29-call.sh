#!/usr/bin/env bash
# Device (2 x H200), issue 47 item 3: before (.carry/base.tgz = e1ce488, before the fused team-width and in-place
# changes) against after (this tree), one rank per GPU. Build both; jacobi_bench 64^3/GPU and halo_bench at 1 and 2
# ranks, alternating, two rounds; then the multi-GPU tests of the after tree at 2 ranks.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false NCCL_NVLS_ENABLE=0
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$OUT"
t0=$SECONDS
jobs=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF)
nvidia-smi -L
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1
grep -E "^==== .*exit" /tmp/kokkos.log | tail -2
echo "## kokkos after $((SECONDS - t0)) s (jobs $jobs)"
rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf .carry/base.tgz -C /tmp/base
export Catch2_ROOT=$PWD/.carry/catch2
(cd /tmp/base && cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=ON "${flags[@]}" > /dev/null &&
  cmake --build build/cuda -j $((jobs / 3)) --target jacobi_bench halo_bench > /tmp/base-build.log 2>&1; echo "base build exit $?") &
cmake --preset cuda "${flags[@]}" > /dev/null && cmake --build build/cuda -j $((jobs * 2 / 3)) --target \
  kokkosddt_unit_tests_Cuda kokkosddt_mpi_tests_Cuda kokkosddt_collectives_tests_Cuda jacobi_bench halo_bench jacobi3d > /tmp/after-build.log 2>&1
echo "after build exit $?"; grep -E "error|warning" /tmp/after-build.log | head -20
wait
grep -E "error" /tmp/base-build.log | head
echo "## built after $((SECONDS - t0)) s"
export OMP_NUM_THREADS=1
name_of() { case "$1" in /tmp/base) echo before ;; *) echo after ;; esac; }
for round in 1 2; do
  for tree in /tmp/base "$PWD"; do
    nm=$(name_of $tree)
    for n in 1 2; do
      timeout 60 mpiexec -n $n "$tree"/build/cuda/perf_tests/jacobi_bench --per-rank 64 --iterations 500 --repeats 3 \
        --exchanges none,plan-auto,plan-peer,plan-nccl,plan-mpi,nccl --graph --label $nm-r$round \
        --csv "$OUT/jacobi-64-${n}gpu-$nm-r$round.csv" > /dev/null 2>&1
      echo "## jacobi $nm r$round n$n exit $? after $((SECONDS - t0)) s"
    done
    timeout 90 mpiexec -n 2 "$tree"/build/cuda/perf_tests/halo_bench --csv "$OUT/halo-2-$nm-r$round.csv" > /dev/null 2>&1
    echo "## halo $nm r$round exit $? after $((SECONDS - t0)) s"
  done
done
failed=0
t() { local lim=$1; shift; echo "## $*"; timeout $lim "$@" > /tmp/t.log 2>&1; local rc=$?; grep -E "All tests passed|test cases|FAILED|ERROR SUMMARY" /tmp/t.log | head -6; echo "## exit $rc after $((SECONDS - t0)) s"; [ $rc = 0 ] || failed=1; cat /tmp/t.log >> "$OUT/tests.log"; }
b=$PWD/build/cuda/unit_tests
t 60 $b/kokkosddt_unit_tests_Cuda "[multi-gpu]"
for tr in AUTO PEER NCCL MPI; do t 100 env KOKKOSDDT_TEST_TRANSPORT=$tr mpiexec -n 2 $b/kokkosddt_mpi_tests_Cuda; done
nodes_env="NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo"
t 100 env KOKKOSDDT_TEST_TRANSPORT=AUTO KOKKOSDDT_NODE_SIZE=1 $nodes_env mpiexec -n 2 $b/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[routes]"
t 60 env KOKKOSDDT_TEST_TRANSPORT=PEER KOKKOSDDT_PEER_LANDING=always mpiexec -n 2 $b/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[transport]"
t 60 mpiexec -n 2 $b/kokkosddt_collectives_tests_Cuda
for tr in auto peer nccl; do t 40 mpiexec -n 2 build/cuda/examples/jacobi3d 128 100 $tr; grep -E "OK|FAILED|exchange" /tmp/t.log | head -3; done
echo "## tests failed=$failed; end after $((SECONDS - t0)) s"
