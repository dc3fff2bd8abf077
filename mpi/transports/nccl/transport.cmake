# SPDX-License-Identifier: BSD-3-Clause
# The NCCL transport (CUDA builds): NCCL found under NCCL_ROOT, the CUDA toolkit, or the nvidia-nccl Python package
# (whose lib/ has only libnccl.so.2). Without it the build says so and has the others. Its test pass: one process
# (NCCL refuses two on one GPU) whose plans send their messages to themselves through it; its tests hand plans a
# communicator of their own (nccl.h).
option(KokkosDDT_ENABLE_NCCL "Build the NCCL transport in CUDA builds where NCCL is found" ON)
kokkosddt_kokkos_has_cuda(cuda)
if(KokkosDDT_ENABLE_NCCL AND cuda)
  set(nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT})
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    list(APPEND nccl_hints ${CUDAToolkit_LIBRARY_ROOT} ${CUDAToolkit_TARGET_DIR})
  endif()
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_FOUND)
    execute_process(COMMAND ${Python3_EXECUTABLE} -c "import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])"
                    OUTPUT_VARIABLE python_nccl OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    list(APPEND nccl_hints ${python_nccl})
  endif()
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${nccl_hints} PATH_SUFFIXES include)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${nccl_hints} PATH_SUFFIXES lib lib64)
  if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    kokkosddt_add_transport(nccl ENTRIES nccl_transport_entry HEADER KokkosDDT_NcclTransport.hpp
                            SOURCES KokkosDDT_NcclTransport.cpp INCLUDE ${NCCL_INCLUDE_DIR} LINK ${NCCL_LIBRARY}
                            TEST_INCLUDE ${NCCL_INCLUDE_DIR} TEST_LINK ${NCCL_LIBRARY}
                            TEST_ENVIRONMENT KOKKOSDDT_HALO_SELF_MESSAGES=1 TEST_BACKENDS Cuda)
  else()
    message(STATUS "KokkosDDT: NCCL not found (set NCCL_ROOT): the NCCL transport is not built")
  endif()
endif()
