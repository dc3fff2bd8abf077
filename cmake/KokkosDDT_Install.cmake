# SPDX-License-Identifier: BSD-3-Clause
# A relocatable CMake package: find_package(KokkosDDT) gives KokkosDDT::kokkosddt (and KokkosDDT::kokkosddt_mpi when
# built with MPI); the config file re-finds Kokkos (and MPI) with find_dependency.
include(CMakePackageConfigHelpers)

set(KokkosDDT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/KokkosDDT)
install(EXPORT KokkosDDTTargets NAMESPACE KokkosDDT:: DESTINATION ${KokkosDDT_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/KokkosDDTConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/KokkosDDTConfig.cmake
                              INSTALL_DESTINATION ${KokkosDDT_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/KokkosDDTConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/KokkosDDTConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/KokkosDDTConfigVersion.cmake
        DESTINATION ${KokkosDDT_INSTALL_CMAKEDIR})
