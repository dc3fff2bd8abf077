# SPDX-License-Identifier: BSD-3-Clause
# A relocatable CMake package: find_package(KokkosDDT) gives KokkosDDT::kokkosddt (and KokkosDDT::kokkosddt_mpi when
# built with MPI); the config file re-finds Kokkos (and MPI) with find_dependency.
include(CMakePackageConfigHelpers)

set(KokkosDDT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/KokkosDDT)
install(EXPORT KokkosDDTTargets NAMESPACE KokkosDDT:: DESTINATION ${KokkosDDT_INSTALL_CMAKEDIR})
# Where the config file looks for Kokkos first (KokkosDDTConfig.cmake.in): the in-tree Kokkos installed beside
# KokkosDDT, relative to the install prefix (relocatable), or the installed Kokkos this build used.
if(KokkosDDT_INTERNAL_KOKKOS)
  set(KokkosDDT_KOKKOS_CONFIG_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/Kokkos")
else()
  set(KokkosDDT_KOKKOS_CONFIG_DIR "${Kokkos_DIR}")
endif()
configure_package_config_file(cmake/KokkosDDTConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/KokkosDDTConfig.cmake
                              INSTALL_DESTINATION ${KokkosDDT_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/KokkosDDTConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/KokkosDDTConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/KokkosDDTConfigVersion.cmake
        DESTINATION ${KokkosDDT_INSTALL_CMAKEDIR})
