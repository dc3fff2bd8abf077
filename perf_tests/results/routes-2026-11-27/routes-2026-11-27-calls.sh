# ===== .carry/call-routes.sh
#!/usr/bin/env bash
# Device (4 GPUs): issue 45's routes: build, the multi-GPU tests (auto, emulated nodes), examples, the nodes step.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export BUILD_TARGETS=${BUILD_TARGETS:-"kokkosddt_unit_tests_Cuda kokkosddt_mpi_tests_Cuda kokkosddt_collectives_tests_Cuda halo_bench jacobi3d jacobi_bench"}
export MULTI_GPU_BUDGET_S=${MULTI_GPU_BUDGET_S:-560} MULTI_GPU_TAIL=25
bash perf_tests/multi_gpu.sh ${STEPS:-environment kokkos build tests examples nodes} > "$OUT/mg.log" 2>&1
echo "multi_gpu exit $?"
grep -E "^====|FAILED|All tests passed|time per iteration|error" "$OUT/mg.log" | head -120

# ===== .carry/call-profile.sh
#!/usr/bin/env bash
# Device (4 GPUs): where auto's step goes at 64^3 per GPU across two emulated nodes (jacobi_bench --phases), the
# NCCL and links streams on the caller's instead, and the MPI tests of the final tree over auto.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
STEPS="environment kokkos build" bash .carry/call-routes.sh | tail -3
bin=build/cuda
emu="KOKKOSDDT_NODE_SIZE=2 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo"
run() { echo "## $*"; timeout 150 env "$@" 2>&1 | grep -v "^send\|^receive\|routes on rank\|^CSV"; }
run $emu mpiexec -n 4 $bin/perf_tests/jacobi_bench --per-rank 64 --iterations 300 --repeats 3 --phases \
  --exchanges none,nccl-remote,plan-auto,plan-nccl --csv $OUT/phases-64.csv
run $emu KOKKOSDDT_PEER_STREAM=caller mpiexec -n 4 $bin/perf_tests/jacobi_bench --per-rank 64 --iterations 300 \
  --repeats 3 --exchanges none,nccl-remote,plan-auto --csv $OUT/peer-caller-64.csv
run $emu KOKKOSDDT_NCCL_STREAM=caller mpiexec -n 4 $bin/perf_tests/jacobi_bench --per-rank 64 --iterations 300 \
  --repeats 3 --exchanges none,nccl-remote,plan-auto --csv $OUT/nccl-caller-64.csv
echo "## tests"
timeout 100 mpiexec -n 4 $bin/unit_tests/kokkosddt_mpi_tests_Cuda 2>&1 | grep -E "All tests passed|test cases:|FAILED" | head
timeout 100 env $emu KOKKOSDDT_TEST_TRANSPORT=AUTO mpiexec -n 4 $bin/unit_tests/kokkosddt_mpi_tests_Cuda \
  "[halo],[exchange],[routes]" 2>&1 | grep -E "All tests passed|test cases:|FAILED" | head

# ===== .carry/call-make.sh
#!/usr/bin/env bash
# Device (4 GPUs): making a plan over auto across two emulated nodes once the library's NCCL communicator exists.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
export BUILD_TARGETS="jacobi_bench"
STEPS="environment kokkos build" bash .carry/call-routes.sh | tail -2
emu="KOKKOSDDT_NODE_SIZE=2 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo"
for size in 64 128; do
  timeout 150 env $emu mpiexec -n 4 build/cuda/perf_tests/jacobi_bench --per-rank $size --iterations 300 --repeats 3 \
    --exchanges none,plan-nccl,plan-auto,plan-auto,nccl-remote --csv $OUT/make-$size.csv 2>&1 | grep -E "^(none|plan|nccl|jacobi)"
done

