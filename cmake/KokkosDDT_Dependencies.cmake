# SPDX-License-Identifier: BSD-3-Clause
# kokkosddt_fetch(<name> <url> [<download/patch options>...]): FetchContent_Declare + FetchContent_MakeAvailable, with
# the targets of the fetched tree marked SYSTEM afterwards, so that its headers do not trip our -Werror, as an installed
# (imported) package's do not. Not FetchContent_Declare's SYSTEM option: CMake 3.25 also hands it to the download
# step, where it joins the URL list ("At least one entry of URL is a path").
include(FetchContent)
function(kokkosddt_mark_system dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target ${targets})
    set_property(TARGET ${target} PROPERTY SYSTEM ON)
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir ${subdirs})
    kokkosddt_mark_system(${subdir})
  endforeach()
endfunction()
macro(kokkosddt_fetch name url)
  FetchContent_Declare(${name} URL ${url} ${ARGN} DOWNLOAD_EXTRACT_TIMESTAMP TRUE)
  FetchContent_MakeAvailable(${name})
  string(TOLOWER ${name} fetched_name)
  kokkosddt_mark_system(${${fetched_name}_SOURCE_DIR})
endmacro()

# Kokkos, the way kokkos-fft does it (KokkosFFT_ENABLE_INTERNAL_KOKKOS), but automatic:
#  - an installed Kokkos >= 4.5 wins (Kokkos_ROOT, CMAKE_PREFIX_PATH, as a variable or in the environment), provided it
#    has the backends asked for with Kokkos_ENABLE_<BACKEND> (the `cuda` preset asks for CUDA);
#  - when none is found (or KokkosDDT_ENABLE_INTERNAL_KOKKOS is ON), the build brings Kokkos itself with FetchContent:
#    upstream's release archive (KokkosDDT_KOKKOS_URL), or a local source tree named by FETCHCONTENT_SOURCE_DIR_KOKKOS
#    (a cache variable or an environment variable: machines without internet unpack the archive and point there).
#    Without backend options it enables OpenMP and Serial, the host presets' backends. With CUDA (cmake/
#    KokkosDDT_KokkosCuda.cmake) the C++ compiler stays the host's: Kokkos' launcher hands every compile that uses
#    Kokkos to the fetched tree's nvcc_wrapper.
# Either way the configure log says which Kokkos was used.
option(KokkosDDT_ENABLE_INTERNAL_KOKKOS "Build Kokkos in-tree (FetchContent) even when an installed one is found" OFF)
set(KokkosDDT_KOKKOS_URL "https://github.com/kokkos/kokkos/releases/download/4.6.01/kokkos-4.6.01.tar.gz"
    CACHE STRING "Archive the build fetches Kokkos from when no installed Kokkos is found")

if(NOT KokkosDDT_ENABLE_INTERNAL_KOKKOS)
  find_package(Kokkos 4.5 QUIET CONFIG)
endif()

if(Kokkos_FOUND)
  set(KokkosDDT_INTERNAL_KOKKOS OFF)
  # A backend asked for and missing is an error, not a silently host-only build (its targets are loaded already, so
  # an in-tree Kokkos cannot be added beside it).
  foreach(backend SERIAL OPENMP THREADS CUDA HIP SYCL)
    if(Kokkos_ENABLE_${backend} AND NOT backend IN_LIST Kokkos_DEVICES)
      message(FATAL_ERROR "KokkosDDT: Kokkos_ENABLE_${backend} is ON but the installed Kokkos ${Kokkos_VERSION} at "
                          "${Kokkos_DIR} has only ${Kokkos_DEVICES}: point Kokkos_ROOT at a Kokkos with ${backend}, or "
                          "configure with -DKokkosDDT_ENABLE_INTERNAL_KOKKOS=ON to build one in-tree")
    endif()
  endforeach()
  message(STATUS "KokkosDDT: using the installed Kokkos ${Kokkos_VERSION} at ${Kokkos_DIR} (devices: ${Kokkos_DEVICES})")
else()
  set(KokkosDDT_INTERNAL_KOKKOS ON)
  if(NOT FETCHCONTENT_SOURCE_DIR_KOKKOS AND DEFINED ENV{FETCHCONTENT_SOURCE_DIR_KOKKOS})
    set(FETCHCONTENT_SOURCE_DIR_KOKKOS "$ENV{FETCHCONTENT_SOURCE_DIR_KOKKOS}" CACHE PATH "Kokkos source tree to build")
  endif()
  set(backend_chosen OFF)
  foreach(backend SERIAL OPENMP THREADS CUDA HIP SYCL OPENMPTARGET)
    if(DEFINED Kokkos_ENABLE_${backend})
      set(backend_chosen ON)
    endif()
  endforeach()
  if(NOT backend_chosen)
    set(Kokkos_ENABLE_OPENMP ON CACHE BOOL "Kokkos OpenMP backend (KokkosDDT's default)")
    set(Kokkos_ENABLE_SERIAL ON CACHE BOOL "Kokkos Serial backend (KokkosDDT's default)")
  endif()
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)  # Kokkos' static library links into shared consumers too
  set(kokkos_from "${KokkosDDT_KOKKOS_URL}")
  if(FETCHCONTENT_SOURCE_DIR_KOKKOS)
    set(kokkos_from "${FETCHCONTENT_SOURCE_DIR_KOKKOS}")
  endif()
  set(kokkos_url "${KokkosDDT_KOKKOS_URL}")
  set(kokkos_patch "")
  if(Kokkos_ENABLE_CUDA)
    include(KokkosDDT_KokkosCuda)  # the GPU architecture; the CUDA 13 fix (kokkos_url, kokkos_patch)
  endif()
  message(STATUS "KokkosDDT: no installed Kokkos found; building Kokkos from ${kokkos_from}")
  kokkosddt_fetch(Kokkos ${kokkos_url} ${kokkos_patch})
  FetchContent_GetProperties(Kokkos SOURCE_DIR kokkos_source)
  file(STRINGS ${kokkos_source}/CMakeLists.txt kokkos_version REGEX "^set\\(Kokkos_VERSION_(MAJOR|MINOR|PATCH) ")
  string(REGEX REPLACE "[^;]*Kokkos_VERSION_[A-Z]+ ([0-9]+)\\)" "\\1" kokkos_version "${kokkos_version}")
  string(REPLACE ";" "." kokkos_version "${kokkos_version}")
  message(STATUS "KokkosDDT: using the in-tree Kokkos ${kokkos_version} from ${kokkos_source} (installed with KokkosDDT)")
endif()

if(KokkosDDT_ENABLE_MPI)
  find_package(MPI REQUIRED COMPONENTS CXX)
endif()

# Kokkos Kernels: the library does not use it; the CG example (examples/cg_poisson) and its benchmark (cg_bench) do.
# Like Kokkos: an installed one wins when it was built with the Kokkos found above (KokkosKernels_ROOT or
# CMAKE_PREFIX_PATH; its package names that Kokkos); otherwise the build brings it with FetchContent, on the Kokkos in
# use: upstream's release archive (KokkosDDT_KOKKOSKERNELS_URL), or a local source tree named by
# FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS (cache or environment variable; machines without internet unpack the archive).
# Only what the examples use (the sparse component, which brings BLAS, LAPACK, graph and batched), without explicit
# instantiations (header-only use: minutes, not an hour, on two cores), no tests, no TPLs. The configure log says which.
option(KokkosDDT_ENABLE_KOKKOS_KERNELS "Build the examples and benchmarks that need Kokkos Kernels" ON)
set(KokkosDDT_KOKKOSKERNELS_URL
    "https://github.com/kokkos/kokkos-kernels/releases/download/4.7.00/kokkos-kernels-4.7.00.tar.gz"
    CACHE STRING "Archive the build fetches Kokkos Kernels from when no matching installed one is found")
set(KokkosDDT_HAVE_KOKKOS_KERNELS OFF)
set(kk_users "the CG example (cg_poisson) and its benchmark (cg_bench)")
if(NOT KokkosDDT_ENABLE_KOKKOS_KERNELS OR NOT KokkosDDT_ENABLE_MPI)
  message(STATUS "KokkosDDT: Kokkos Kernels not used (KokkosDDT_ENABLE_KOKKOS_KERNELS or _MPI is OFF): "
                 "${kk_users} are not built")
elseif(NOT KokkosDDT_ENABLE_EXAMPLES AND NOT KokkosDDT_ENABLE_PERF_TESTS)
  # (a library-only build: a consumer's add_subdirectory or FetchContent, a package without examples)
  message(STATUS "KokkosDDT: Kokkos Kernels not used (neither examples nor benchmarks are built)")
else()
  set(kk_installed_ok OFF)
  if(NOT KokkosDDT_INTERNAL_KOKKOS)
    find_package(KokkosKernels QUIET CONFIG)
    if(KokkosKernels_FOUND)
      file(STRINGS "${KokkosKernels_DIR}/KokkosKernelsConfig.cmake" kk_kokkos REGEX "find_dependency\\(Kokkos HINTS")
      string(REGEX REPLACE ".*HINTS +([^ )]+).*" "\\1" kk_kokkos "${kk_kokkos}")
      get_filename_component(kk_kokkos "${kk_kokkos}" REALPATH)
      get_filename_component(our_kokkos "${Kokkos_DIR}" REALPATH)
      if(kk_kokkos AND NOT kk_kokkos STREQUAL our_kokkos)
        message(STATUS "KokkosDDT: the installed Kokkos Kernels at ${KokkosKernels_DIR} was built with the Kokkos at "
                       "${kk_kokkos}, not ${our_kokkos}: not used")
      else()
        set(kk_installed_ok ON)
        message(STATUS "KokkosDDT: using the installed Kokkos Kernels ${KokkosKernels_VERSION} at "
                       "${KokkosKernels_DIR}: ${kk_users} are built")
      endif()
    endif()
  endif()
  if(NOT kk_installed_ok)
    if(NOT FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS AND DEFINED ENV{FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS})
      set(FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS "$ENV{FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS}"
          CACHE PATH "Kokkos Kernels source tree to build")
    endif()
    set(KokkosKernels_ENABLE_ALL_COMPONENTS OFF CACHE BOOL "")
    set(KokkosKernels_ENABLE_COMPONENT_SPARSE ON CACHE BOOL "")
    set(KokkosKernels_ADD_DEFAULT_ETI OFF CACHE BOOL "")
    set(KokkosKernels_ENABLE_TESTS OFF CACHE BOOL "")
    set(KokkosKernels_ENABLE_EXAMPLES OFF CACHE BOOL "")
    set(KokkosKernels_ENABLE_PERFTESTS OFF CACHE BOOL "")
    set(KokkosKernels_ENABLE_BENCHMARK OFF CACHE BOOL "")
    foreach(tpl CUBLAS CUSPARSE CUSOLVER BLAS LAPACK)
      set(KokkosKernels_ENABLE_TPL_${tpl} OFF CACHE BOOL "")
    endforeach()
    if(FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS)
      set(kk_from "${FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS}")
    else()
      set(kk_from "${KokkosDDT_KOKKOSKERNELS_URL}")
    endif()
    kokkosddt_fetch(KokkosKernels ${KokkosDDT_KOKKOSKERNELS_URL})
    message(STATUS "KokkosDDT: building Kokkos Kernels in-tree from ${kk_from} (sparse and what it needs, no ETI): "
                   "${kk_users} are built")
  endif()
  set(KokkosDDT_HAVE_KOKKOS_KERNELS ON)
endif()

# The execution spaces the Kokkos in use enables, by their Kokkos names (Serial, OpenMP, Threads, Cuda, HIP, SYCL), in
# that order; with arguments, only those of them. (An installed Kokkos lists its devices in Kokkos_DEVICES, an
# in-tree one sets Kokkos_ENABLE_<DEVICE>.) The one place that asks: backends, tests and explicit instantiation.
function(kokkosddt_enabled_spaces out)
  set(spaces "")
  foreach(space Serial OpenMP Threads Cuda HIP SYCL)
    string(TOUPPER ${space} device)
    if((NOT ARGN OR space IN_LIST ARGN) AND (device IN_LIST Kokkos_DEVICES OR Kokkos_ENABLE_${device}))
      list(APPEND spaces ${space})
    endif()
  endforeach()
  set(${out} ${spaces} PARENT_SCOPE)
endfunction()
