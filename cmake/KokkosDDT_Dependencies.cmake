# Kokkos: an installed package (Kokkos_ROOT or CMAKE_PREFIX_PATH) is the normal route. Users with network access may
# set KokkosDDT_FETCH_KOKKOS=ON to build Kokkos 4.6.01 in-tree instead, pinned by its release commit.
find_package(Kokkos 4.5 QUIET CONFIG)
if(NOT Kokkos_FOUND)
  if(KokkosDDT_FETCH_KOKKOS)
    include(FetchContent)
    message(STATUS "KokkosDDT: Kokkos not found; fetching Kokkos 4.6.01 (commit 1b1383c6)")
    FetchContent_Declare(
      Kokkos
      GIT_REPOSITORY https://github.com/kokkos/kokkos.git
      GIT_TAG 1b1383c6001f3bfe9fe309ca923c2d786600cc79 # tag 4.6.01
    )
    FetchContent_MakeAvailable(Kokkos)
  else()
    message(FATAL_ERROR "KokkosDDT needs Kokkos >= 4.5. Point Kokkos_ROOT at an installation (for example "
                        "-DKokkos_ROOT=/opt/kokkos/omp) or configure with -DKokkosDDT_FETCH_KOKKOS=ON to download it.")
  endif()
else()
  message(STATUS "KokkosDDT: Kokkos ${Kokkos_VERSION} from ${Kokkos_DIR} (devices: ${Kokkos_DEVICES})")
endif()

if(KokkosDDT_ENABLE_MPI)
  find_package(MPI REQUIRED COMPONENTS CXX)
endif()
