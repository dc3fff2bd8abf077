# SPDX-License-Identifier: BSD-3-Clause
# ctest script: install the build tree, move the install elsewhere (it must be relocatable), then configure, build
# and run examples/consumer against it with find_package(KokkosDDT), building the examples (EXAMPLES_DIR) there too.
#   -DBUILD_DIR -DCONSUMER_DIR -DEXAMPLES_DIR -DWORK_DIR -DKOKKOS_PREFIX -DGENERATOR -DCXX_COMPILER -DCXX_FLAGS
# An empty KOKKOS_PREFIX means Kokkos was built in-tree and installed with KokkosDDT: the consumer must find it there.
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
  message(STATUS "${out}")
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/staging)
file(RENAME ${WORK_DIR}/staging ${WORK_DIR}/relocated)
# Public headers in include/, every header in include/KokkosDDT/impl/ (KokkosDDT_Headers.cmake).
set(include ${WORK_DIR}/relocated/include)
if(NOT EXISTS ${include}/KokkosDDT.hpp OR NOT EXISTS ${include}/KokkosDDT_Copy.hpp
   OR EXISTS ${include}/KokkosDDT_FusedKernel.hpp OR NOT EXISTS ${include}/KokkosDDT/impl/KokkosDDT_FusedKernel.hpp
   OR NOT EXISTS ${include}/KokkosDDT/impl/KokkosDDT.hpp)
  message(FATAL_ERROR "headers not installed as KokkosDDT_Headers.cmake says (public in include/, every one in "
                      "include/KokkosDDT/impl/)")
endif()
if(NOT KOKKOS_PREFIX)
  set(KOKKOS_PREFIX ${WORK_DIR}/relocated)
endif()
# Kokkos_ROOT names another Kokkos (a decoy whose config fails if loaded), as a user's environment may: the package
# must still find the Kokkos it was built with, with no hint but where KokkosDDT is.
set(decoy ${WORK_DIR}/decoy/lib/cmake/Kokkos)
file(WRITE ${decoy}/KokkosConfig.cmake "message(FATAL_ERROR \"the decoy Kokkos of Kokkos_ROOT was loaded\")\n")
file(WRITE ${decoy}/KokkosConfigVersion.cmake
     "set(PACKAGE_VERSION 4.6.1)\nset(PACKAGE_VERSION_COMPATIBLE TRUE)\nset(PACKAGE_VERSION_EXACT FALSE)\n")
run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    -DCMAKE_PREFIX_PATH=${WORK_DIR}/relocated -DKokkos_ROOT=${WORK_DIR}/decoy -DEXAMPLES_DIR=${EXAMPLES_DIR}
    -DKOKKOSDDT_EXPECTED_KOKKOS_PREFIX=${KOKKOS_PREFIX})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
