# SPDX-License-Identifier: BSD-3-Clause
# Warnings for KokkosDDT's own targets. Kokkos, MPI and Catch2 are imported targets, so their headers are system
# headers and do not trip -Werror.
function(kokkosddt_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra)
    if(KokkosDDT_ENABLE_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
endfunction()
