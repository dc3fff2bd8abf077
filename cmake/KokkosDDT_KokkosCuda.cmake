# SPDX-License-Identifier: BSD-3-Clause
# The in-tree Kokkos with CUDA (included by KokkosDDT_Dependencies.cmake when Kokkos_ENABLE_CUDA is ON and no
# installed Kokkos is used). Three things an installed CUDA Kokkos would have settled:
#  - the compiler: none to choose. CMAKE_CXX_COMPILER stays the host's; Kokkos (seeing CUDA enabled and a compiler
#    that is not nvcc_wrapper) installs its kokkos_launch_compiler as the global compile and link launcher, which hands
#    every command that uses Kokkos (it carries -DKOKKOS_DEPENDENCE) to the fetched tree's bin/nvcc_wrapper with that
#    host compiler, and runs every other command unchanged. The installed KokkosConfig.cmake does the same for
#    projects that consume the install.
#  - the GPU architecture: KokkosDDT_CUDA_ARCH (compute capability without the dot), detected from the first GPU
#    nvidia-smi lists when empty; an explicit Kokkos_ARCH_<GPU>=ON wins over both.
#  - the CUDA 13 fix: Kokkos 4.5/4.6 call CUDA runtime functions whose signatures CUDA 13 changed;
#    KokkosDDT_KokkosCuda13.cmake edits the fetched tree (idempotent, a no-op from Kokkos 4.7 on). A local tree
#    (FETCHCONTENT_SOURCE_DIR_KOKKOS) is copied into the build tree and the copy edited, never the user's tree.
# Sets kokkos_url and kokkos_patch (the FetchContent arguments) and Kokkos_ARCH_<GPU>.
set(KokkosDDT_CUDA_ARCH "" CACHE STRING
    "CUDA: GPU compute capability to build for, without the dot (90 for H100/H200); empty: the first visible GPU's")

set(kokkos_gpu_archs MAXWELL50 MAXWELL52 MAXWELL53 PASCAL60 PASCAL61 VOLTA70 VOLTA72 TURING75 AMPERE80 AMPERE86 ADA89
                     HOPPER90 BLACKWELL100 BLACKWELL120)
# The architecture this file set on an earlier configure (KokkosDDT_CUDA_ARCH_SET) is not "given": a changed
# KokkosDDT_CUDA_ARCH replaces it instead of being ignored.
set(arch_given "")
foreach(arch ${kokkos_gpu_archs})
  if(Kokkos_ARCH_${arch} AND NOT arch STREQUAL KokkosDDT_CUDA_ARCH_SET)
    set(arch_given ${arch})
  endif()
endforeach()
if(arch_given)
  message(STATUS "KokkosDDT: CUDA architecture Kokkos_ARCH_${arch_given} (given)")
else()
  set(cc "${KokkosDDT_CUDA_ARCH}")
  set(how "KokkosDDT_CUDA_ARCH")
  if(cc STREQUAL "")
    find_program(KokkosDDT_NVIDIA_SMI nvidia-smi)
    if(KokkosDDT_NVIDIA_SMI)
      execute_process(COMMAND ${KokkosDDT_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                      OUTPUT_VARIABLE cc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      string(REGEX MATCH "^[0-9]+\\.[0-9]+" cc "${cc}")
      string(REPLACE "." "" cc "${cc}")
      set(how "detected by nvidia-smi")
    endif()
    if(cc STREQUAL "")
      message(FATAL_ERROR "KokkosDDT: CUDA is enabled but no GPU is visible to detect its architecture: configure with "
                          "-DKokkosDDT_CUDA_ARCH=<compute capability without the dot>, e.g. 90 for H100/H200")
    endif()
  endif()
  set(arch_named "")
  foreach(arch ${kokkos_gpu_archs})
    if(arch MATCHES "^[A-Z]+${cc}$")
      set(arch_named ${arch})
    endif()
  endforeach()
  if(NOT arch_named)
    message(FATAL_ERROR "KokkosDDT: KokkosDDT_CUDA_ARCH=${cc} names no architecture Kokkos knows; known: "
                        "${kokkos_gpu_archs}")
  endif()
  if(KokkosDDT_CUDA_ARCH_SET AND NOT KokkosDDT_CUDA_ARCH_SET STREQUAL arch_named)
    set(Kokkos_ARCH_${KokkosDDT_CUDA_ARCH_SET} OFF CACHE BOOL "Kokkos GPU architecture" FORCE)
  endif()
  set(Kokkos_ARCH_${arch_named} ON CACHE BOOL "Kokkos GPU architecture (from KokkosDDT_CUDA_ARCH)" FORCE)
  set(KokkosDDT_CUDA_ARCH_SET ${arch_named} CACHE INTERNAL "The Kokkos_ARCH_<GPU> KokkosDDT_CUDA_ARCH set")
  message(STATUS "KokkosDDT: CUDA architecture Kokkos_ARCH_${arch_named} (compute capability ${cc}, ${how})")
endif()

find_package(CUDAToolkit QUIET)
if(CUDAToolkit_VERSION VERSION_GREATER_EQUAL 13)
  set(kokkos_patch PATCH_COMMAND ${CMAKE_COMMAND} -DKOKKOS_SOURCE_DIR=<SOURCE_DIR> -P
                   ${CMAKE_CURRENT_LIST_DIR}/KokkosDDT_KokkosCuda13.cmake)
  if(FETCHCONTENT_SOURCE_DIR_KOKKOS)
    # FetchContent would build the local tree in place, without a patch step: copy it instead (a directory URL).
    set(kokkos_url "${FETCHCONTENT_SOURCE_DIR_KOKKOS}")
    set(FETCHCONTENT_SOURCE_DIR_KOKKOS "")
  endif()
  message(STATUS "KokkosDDT: CUDA ${CUDAToolkit_VERSION}: the in-tree Kokkos gets the CUDA 13 fix "
                 "(cmake/KokkosDDT_KokkosCuda13.cmake)")
endif()
