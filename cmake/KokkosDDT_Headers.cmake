# SPDX-License-Identifier: BSD-3-Clause
# Where headers install (Kokkos' layout): the public ones, which applications include, into include/; every other
# one into include/KokkosDDT/impl/. Headers include each other by file name, so the installed targets put both folders
# on the include path (kokkosddt_install_include_dirs).
set(KokkosDDT_PUBLIC_HEADERS
    KokkosDDT.hpp KokkosDDT_Config.hpp KokkosDDT_Error.hpp KokkosDDT_Datatype.hpp KokkosDDT_Constructors.hpp
    KokkosDDT_Primitives.hpp KokkosDDT_ViewDatatype.hpp KokkosDDT_Pack.hpp KokkosDDT_FusionQueue.hpp
    KokkosDDT_MPI.hpp KokkosDDT_MPIDatatype.hpp KokkosDDT_MPIStaging.hpp KokkosDDT_MPIRequest.hpp KokkosDDT_MPIP2P.hpp
    KokkosDDT_HaloPlan.hpp KokkosDDT_ExchangePlan.hpp KokkosDDT_MPIError.hpp KokkosDDT_Transports.hpp
    KokkosDDT_Collectives.hpp KokkosDDT_MpiGpuAware.hpp KokkosDDT_Routes.hpp)
set(KokkosDDT_INSTALL_IMPL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/KokkosDDT/impl)

# Installs the headers of `folder` (not its subfolders) by that rule.
function(kokkosddt_install_headers folder)
  file(GLOB headers ${folder}/*.hpp)
  foreach(header IN LISTS headers)
    get_filename_component(name ${header} NAME)
    if(name IN_LIST KokkosDDT_PUBLIC_HEADERS)
      install(FILES ${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
    else()
      install(FILES ${header} DESTINATION ${KokkosDDT_INSTALL_IMPL_INCLUDEDIR})
    endif()
  endforeach()
endfunction()

# The installed include path of a target: include/ and include/KokkosDDT/impl/.
function(kokkosddt_install_include_dirs target scope)
  target_include_directories(${target} ${scope} $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
                                                $<INSTALL_INTERFACE:${KokkosDDT_INSTALL_IMPL_INCLUDEDIR}>)
endfunction()
