# SPDX-License-Identifier: BSD-3-Clause
# Where headers install: every header into include/KokkosDDT/impl/, where they include each other by file name; each
# public one also gets a forwarding header of its name in include/, the one folder on a consumer's include path. So an
# application sees the public headers only, and the public headers still reach the internal ones they need.
set(KokkosDDT_PUBLIC_HEADERS
    KokkosDDT.hpp KokkosDDT_Config.hpp KokkosDDT_Error.hpp KokkosDDT_Datatype.hpp KokkosDDT_Constructors.hpp
    KokkosDDT_Primitives.hpp KokkosDDT_ViewDatatype.hpp KokkosDDT_Pack.hpp KokkosDDT_Copy.hpp KokkosDDT_FusionQueue.hpp
    KokkosDDT_MPI.hpp KokkosDDT_MPIDatatype.hpp KokkosDDT_MPIStaging.hpp KokkosDDT_MPIRequest.hpp KokkosDDT_MPIP2P.hpp
    KokkosDDT_HaloPlan.hpp KokkosDDT_ExchangePlan.hpp KokkosDDT_MPIError.hpp KokkosDDT_Transports.hpp
    KokkosDDT_TransportCapabilities.hpp KokkosDDT_Collectives.hpp KokkosDDT_MpiGpuAware.hpp KokkosDDT_Routes.hpp)
set(KokkosDDT_INSTALL_IMPL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/KokkosDDT/impl)

# Installs one header by that rule.
function(kokkosddt_install_header header)
  get_filename_component(name ${header} NAME)
  install(FILES ${header} DESTINATION ${KokkosDDT_INSTALL_IMPL_INCLUDEDIR})
  if(name IN_LIST KokkosDDT_PUBLIC_HEADERS)
    set(forward ${PROJECT_BINARY_DIR}/forwarding_headers/${name})
    file(CONFIGURE OUTPUT ${forward} @ONLY
         CONTENT "// SPDX-License-Identifier: BSD-3-Clause\n#pragma once\n// A public header of KokkosDDT: its \
declarations are in KokkosDDT/impl/, beside the internal headers.\n#include \"KokkosDDT/impl/@name@\"\n")
    install(FILES ${forward} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  endif()
endfunction()

# Installs the headers of `folder` (not its subfolders).
function(kokkosddt_install_headers folder)
  file(GLOB headers CONFIGURE_DEPENDS ${folder}/*.hpp)
  foreach(header IN LISTS headers)
    kokkosddt_install_header(${header})
  endforeach()
endfunction()

# The installed include path of a target: include/ alone.
function(kokkosddt_install_include_dirs target scope)
  target_include_directories(${target} ${scope} $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endfunction()
