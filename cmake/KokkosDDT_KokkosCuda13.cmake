# SPDX-License-Identifier: BSD-3-Clause
# Makes a Kokkos 4.5/4.6 source tree compile with CUDA 13, whose runtime API changed signatures that Kokkos calls
# (upstream fixed this in Kokkos 4.7, pull requests #8298 and #8707):
#   - cudaGraphAddDependencies takes per-edge data before the count (nullptr: plain edges, as before);
#   - cudaMemAdvise and cudaMemPrefetchAsync take a cudaMemLocation instead of a device number (the prefetch also a
#     flags word), and cudaMemAdvise_v2 became cudaMemAdvise.
# Each edit keeps the old call under #else, so the tree still builds with CUDA 12. Running it again changes nothing; a
# Kokkos from 4.7 on is left as it is; a pattern it cannot find stops it with an error before any file is written.
# The build runs it on the Kokkos it brings when CUDA is enabled; by hand:
#
#   cmake -DKOKKOS_SOURCE_DIR=<kokkos source directory> -P cmake/KokkosDDT_KokkosCuda13.cmake
cmake_minimum_required(VERSION 3.25)
if(NOT IS_DIRECTORY "${KOKKOS_SOURCE_DIR}/core/src/Cuda")
  message(FATAL_ERROR "KokkosDDT_KokkosCuda13: no core/src/Cuda under KOKKOS_SOURCE_DIR='${KOKKOS_SOURCE_DIR}'")
endif()
file(STRINGS "${KOKKOS_SOURCE_DIR}/CMakeLists.txt" version REGEX "^set\\(Kokkos_VERSION_(MAJOR|MINOR) ")
string(REGEX REPLACE "[^;]*Kokkos_VERSION_[A-Z]+ ([0-9]+)\\)" "\\1" version "${version}")
string(REPLACE ";" "." version "${version}")
if(version VERSION_GREATER_EQUAL 4.7)
  message(STATUS "KokkosDDT_KokkosCuda13: Kokkos ${version} has upstream's CUDA 13 fix: nothing to do")
  return()
endif()

set(instance "core/src/Cuda/Kokkos_Cuda_Instance.hpp")
set(space "core/src/Cuda/Kokkos_CudaSpace.cpp")
# Edit i: file edit_<i>_file, text edit_<i>_old becomes edit_<i>_new, which holds the old text under #else (so "new
# already there" means done).
set(edit_1_file ${instance})
set(edit_1_old [=[
    return cudaGraphAddDependencies(graph, from, to, numDependencies);
]=])
set(edit_1_new [=[
#if CUDART_VERSION >= 13000
    return cudaGraphAddDependencies(graph, from, to, nullptr, numDependencies);
#else
    return cudaGraphAddDependencies(graph, from, to, numDependencies);
#endif
]=])
# The wrappers keep their int device (callers pass a device number or cudaCpuDeviceId, which meant the host).
set(edit_2_file ${instance})
set(edit_2_old [=[
    return cudaMemAdvise(devPtr, count, advice, device);
]=])
set(edit_2_new [=[
#if CUDART_VERSION >= 13000
    cudaMemLocation loc;
    loc.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost
                                         : cudaMemLocationTypeDevice;
    loc.id   = device;
    return cudaMemAdvise(devPtr, count, advice, loc);
#else
    return cudaMemAdvise(devPtr, count, advice, device);
#endif
]=])
set(edit_3_file ${instance})
set(edit_3_old [=[
    return cudaMemPrefetchAsync(devPtr, count, dstDevice,
                                get_input_stream(stream));
]=])
set(edit_3_new [=[
#if CUDART_VERSION >= 13000
    cudaMemLocation loc;
    loc.type = dstDevice == cudaCpuDeviceId ? cudaMemLocationTypeHost
                                            : cudaMemLocationTypeDevice;
    loc.id   = dstDevice;
    return cudaMemPrefetchAsync(devPtr, count, loc, 0,
                                get_input_stream(stream));
#else
    return cudaMemPrefetchAsync(devPtr, count, dstDevice,
                                get_input_stream(stream));
#endif
]=])
# Only with Kokkos_ENABLE_IMPL_CUDA_UNIFIED_MEMORY: CUDA 13 renamed cudaMemAdvise_v2 to cudaMemAdvise.
set(edit_4_file ${space})
set(edit_4_old [=[
      KOKKOS_IMPL_CUDA_SAFE_CALL(cudaMemAdvise_v2(
]=])
set(edit_4_new [=[
#if CUDART_VERSION >= 13000
      KOKKOS_IMPL_CUDA_SAFE_CALL(cudaMemAdvise(
#else
      KOKKOS_IMPL_CUDA_SAFE_CALL(cudaMemAdvise_v2(
#endif
]=])
# Only with KOKKOS_IMPL_DEBUG_CUDA_PIN_UVM_TO_HOST: the host as a cudaMemLocation. One braced statement, as the call
# is the body of an if without braces.
set(edit_5_file ${space})
set(edit_5_old [=[
      KOKKOS_IMPL_CUDA_SAFE_CALL(
          cudaMemAdvise(ptr, arg_alloc_size, cudaMemAdviseSetPreferredLocation,
                        cudaCpuDeviceId));
]=])
set(edit_5_new [=[
#if CUDART_VERSION >= 13000
    {
      cudaMemLocation loc;
      loc.type = cudaMemLocationTypeHost;
      loc.id   = cudaCpuDeviceId;
      KOKKOS_IMPL_CUDA_SAFE_CALL(cudaMemAdvise(
          ptr, arg_alloc_size, cudaMemAdviseSetPreferredLocation, loc));
    }
#else
      KOKKOS_IMPL_CUDA_SAFE_CALL(
          cudaMemAdvise(ptr, arg_alloc_size, cudaMemAdviseSetPreferredLocation,
                        cudaCpuDeviceId));
#endif
]=])

# Every edit is matched against the texts in memory first; files are written only once all have matched.
set(text_${instance} "")
set(text_${space} "")
foreach(i RANGE 1 5)
  set(name "${edit_${i}_file}")
  if(text_${name} STREQUAL "")
    file(READ "${KOKKOS_SOURCE_DIR}/${name}" text_${name})
  endif()
  string(REGEX MATCH "[^\n]+" first_line "${edit_${i}_old}")
  string(STRIP "${first_line}" first_line)
  string(FIND "${text_${name}}" "${edit_${i}_new}" at)
  if(NOT at EQUAL -1)
    message(STATUS "KokkosDDT_KokkosCuda13: ${name}: already edited: ${first_line}")
    continue()
  endif()
  string(REPLACE "${edit_${i}_old}" "" without "${text_${name}}")
  string(LENGTH "${text_${name}}" n_text)
  string(LENGTH "${without}" n_without)
  string(LENGTH "${edit_${i}_old}" n_old)
  math(EXPR found "(${n_text} - ${n_without}) / ${n_old}")
  if(NOT found EQUAL 1)
    message(FATAL_ERROR "KokkosDDT_KokkosCuda13: ${name}: expected exactly one of\n${edit_${i}_old}found ${found}: "
                        "nothing was written")
  endif()
  string(REPLACE "${edit_${i}_old}" "${edit_${i}_new}" text_${name} "${text_${name}}")
  message(STATUS "KokkosDDT_KokkosCuda13: ${name}: edited: ${first_line}")
endforeach()
foreach(name ${instance} ${space})
  file(READ "${KOKKOS_SOURCE_DIR}/${name}" before)
  if(NOT before STREQUAL text_${name})
    file(WRITE "${KOKKOS_SOURCE_DIR}/${name}" "${text_${name}}")
  endif()
endforeach()
