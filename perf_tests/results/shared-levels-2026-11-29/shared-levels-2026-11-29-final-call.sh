#!/usr/bin/env bash
# Device (one H200): the final tree on the GPU: build, CUDA unit suite, memcheck sample, MPI
# suite at 2 ranks sharing the GPU (AUTO, PEER), jacobi3d check.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false NCCL_NVLS_ENABLE=0
export PATH=/usr/local/cuda/bin:$PATH
t0=$SECONDS
flags=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90 -DKokkosDDT_DISCOVER_TESTS=OFF)
bash perf_tests/gpu_session.sh kokkos > /tmp/kokkos.log 2>&1
echo "## kokkos after $((SECONDS - t0)) s"
export Catch2_ROOT=$PWD/.carry/catch2
cmake --preset cuda "${flags[@]}" > /dev/null 2>&1 && cmake --build build/cuda -j 16 --target kokkosddt_unit_tests_Cuda kokkosddt_unit_tests_OpenMP kokkosddt_mpi_tests_Cuda jacobi3d > /tmp/after-build.log 2>&1
echo "build exit $?"; grep -E "error|warning" /tmp/after-build.log | grep -v "multiple optimization" | head -20
echo "## built after $((SECONDS - t0)) s"
export OMP_NUM_THREADS=1
t() { local lim=$1; shift; echo "## $*"; timeout $lim "$@" > /tmp/t.log 2>&1; local rc=$?; grep -E "All tests passed|test cases|FAILED|ERROR SUMMARY|rror|OK:" /tmp/t.log | head -8; echo "## exit $rc after $((SECONDS - t0)) s"; }
t 150 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
t 150 build/cuda/unit_tests/kokkosddt_unit_tests_OpenMP
t 120 env KOKKOSDDT_TEST_SCALE=0.1 compute-sanitizer --tool memcheck --error-exitcode 1 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda "[cuda][fusion],[fusion],[copy]"
t 100 env KOKKOSDDT_TEST_TRANSPORT=PEER mpiexec -n 2 build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda "[halo],[exchange],[transport],[graph]"
t 120 mpiexec -n 2 build/cuda/unit_tests/kokkosddt_mpi_tests_Cuda
t 60 mpiexec -n 2 build/cuda/examples/jacobi3d 64 100
echo "## end after $((SECONDS - t0)) s"
