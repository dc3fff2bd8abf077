#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What halo_vs_cabana's device runs need, built on a lent GPU machine: KokkosDDT's library alone (the `cuda` preset, no
# tests, perf tests, examples or Kokkos Kernels) from a source archive, against the MPI whose mpicxx/mpicc come first on
# PATH (Cabana's device halo needs a CUDA-aware one: ../shared/tools/cuda-aware-ompi.sh), installed with the Kokkos it
# brings; then Cabana 0.7.0 and halo_vs_cabana on that install (run_cabana.sh's build stage, into CABANA_WORK).
#
#   bash perf_tests/cabana/device_build.sh SOURCE_TGZ PREFIX LOG_DIR
#
# SOURCE_TGZ: `git archive HEAD | gzip` of this repository; Kokkos's archive from .carry/tpls or ../shared/tpls.
# PREFIX: where the library installs (halo_vs_cabana is then CABANA_WORK/hvc/halo_vs_cabana, default
# /tmp/cabana-bench). LOG_DIR: lib-build.log and cabana-stage-build.log. Exits non-zero, saying which step failed.
# DEVICE_BUILD_CMAKE_ARGS: more configure arguments (on a machine where no GPU is visible: -DKokkosDDT_CUDA_ARCH=90).
set -uo pipefail
source_tgz=${1:?usage: device_build.sh SOURCE_TGZ PREFIX LOG_DIR}
prefix=${2:?usage: device_build.sh SOURCE_TGZ PREFIX LOG_DIR}
logs=${3:?usage: device_build.sh SOURCE_TGZ PREFIX LOG_DIR}
mkdir -p "$logs"
jobs=$(env -u OMP_NUM_THREADS nproc)
kokkos_tgz=""
for candidate in .carry/tpls/kokkos-4.6.01.tar.gz ../shared/tpls/kokkos-4.6.01.tar.gz; do
  [ -z "$kokkos_tgz" ] && [ -f "$candidate" ] && kokkos_tgz=$candidate
done
[ -n "$kokkos_tgz" ] || { echo "device_build.sh: no Kokkos archive (.carry/tpls or ../shared/tpls)" >&2; exit 1; }
tree=$(mktemp -d /tmp/kokkosddt-tree.XXXX)
kokkos_src=$(mktemp -d /tmp/kokkos-src.XXXX)
tar xzf "$source_tgz" -C "$tree" && tar xzf "$kokkos_tgz" -C "$kokkos_src" || { echo "device_build.sh: unpacking failed" >&2; exit 1; }
(cd "$tree" && FETCHCONTENT_SOURCE_DIR_KOKKOS="$kokkos_src/kokkos-4.6.01" cmake --preset cuda \
  -DKokkosDDT_ENABLE_TESTS=OFF -DKokkosDDT_ENABLE_PERF_TESTS=OFF -DKokkosDDT_ENABLE_EXAMPLES=OFF \
  -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF -DMPI_CXX_COMPILER="$(command -v mpicxx)" -DMPI_C_COMPILER="$(command -v mpicc)" \
  ${DEVICE_BUILD_CMAKE_ARGS:-} &&
  cmake --build build/cuda -j "$jobs" && cmake --install build/cuda --prefix "$prefix") > "$logs/lib-build.log" 2>&1 ||
  { echo "device_build.sh: the library's build failed ($logs/lib-build.log)" >&2; exit 1; }
# (nvcc_wrapper's default architecture is sm_70; the lent GPUs are Hopper)
sed -i 's/^default_arch="sm_70"/default_arch="sm_90"/' "$prefix/bin/nvcc_wrapper"
(export CXX="$prefix/bin/nvcc_wrapper" OUT="$logs/cabana" CABANA_STAGE=build
  bash perf_tests/cabana/run_cabana.sh "$prefix" 2 large) > "$logs/cabana-stage-build.log" 2>&1 ||
  { echo "device_build.sh: Cabana's or halo_vs_cabana's build failed ($logs/cabana-stage-build.log)" >&2; exit 1; }
