#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Cabana 0.7.0's own grid halo benchmark (benchmark/grid/Cabana_Grid_HaloPerformance.cpp), built from the release
# archive against an installed Kokkos and run as it is: halo creation, gather, and scatter (ScatterReduce::Sum) of a
# cell array of 4 doubles per cell, a 26-neighbour pattern (NodeHaloPattern<3>), 10 runs each with the halo made anew,
# its "large" run: 16^3-256^3 cells per rank and halo widths 0-4 (its loop index is the width). Issue 73's contender.
# Then halo_vs_cabana (this folder): Cabana's halo and our halo plan on the same arrays in one process, results checked
# equal, for the sizes and widths in $HVC_ARGS (default: its own, 16^3-256^3 and widths 1-4).
#
#   bash perf_tests/cabana/run_cabana.sh KOKKOS_PREFIX [ranks] [small|large]
#
# KOKKOS_PREFIX: an installed Kokkos (>= 4.1), e.g. `cmake --install build/openmp --prefix /tmp/kinst` (this project's
# install carries the Kokkos it built). The device section runs where that Kokkos has a device; Cabana hands device
# pointers to MPI, so a GPU needs a CUDA-aware MPI (../shared/tools/cuda-aware-ompi.sh builds one).
# Inputs (third-party code, never committed): the archive at $CABANA_TGZ, else .carry/tpls/cabana-0.7.0.tar.gz, else
# ../shared/tpls/cabana-0.7.0.tar.gz. Outputs in $OUT (default ./cabana-out): cabana-<ranks>.txt (Cabana's own report),
# cabana-build.log, cabana-run.log, halo_vs_cabana-<ranks>.txt and .csv. KOKKOS_PREFIX must hold KokkosDDT too
# (`cmake --install build/openmp --prefix ...` installs both) for halo_vs_cabana; CABANA_ONLY=1 skips it.
# Environment: CABANA_WORK (default /tmp/cabana-bench), OMP_NUM_THREADS (per rank, default 1), MPIEXEC (default
# mpiexec), CABANA_STAGE (build: build both and stop; run: run what an earlier build left in CABANA_WORK; default
# both), HVC_ARGS, HVC_TAG (appended to halo_vs_cabana's output names), HVC_ONLY=1 (halo_vs_cabana alone, not
# Cabana's own benchmark again). A CUDA Kokkos: CXX=KOKKOS_PREFIX/bin/nvcc_wrapper; a CUDA-aware MPI: its bin first on
# PATH.
set -uo pipefail
kokkos=${1:?usage: run_cabana.sh KOKKOS_PREFIX [ranks] [small|large]}
ranks=${2:-2}
size=${3:-large}
OUT=${OUT:-$PWD/cabana-out}
work=${CABANA_WORK:-/tmp/cabana-bench}
mkdir -p "$OUT" "$work"
fail() {
  echo "run_cabana.sh: FAILED: $*" >&2
  exit 1
}
archive=${CABANA_TGZ:-}
for candidate in .carry/tpls/cabana-0.7.0.tar.gz ../shared/tpls/cabana-0.7.0.tar.gz; do
  [ -z "$archive" ] && [ -f "$candidate" ] && archive=$candidate
done
[ -n "$archive" ] && [ -f "$archive" ] || fail "no Cabana archive (CABANA_TGZ, .carry/tpls or ../shared/tpls)"
[ -d "$kokkos" ] || fail "no Kokkos install at $kokkos"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OMP_PROC_BIND=${OMP_PROC_BIND:-false}
jobs=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)  # (every core: GNU nproc honours OMP_NUM_THREADS)

stage=${CABANA_STAGE:-all}
here=$(cd "$(dirname "$0")" && pwd)
if [ "$stage" != run ]; then
  rm -rf "$work/src" && mkdir -p "$work/src" && tar xzf "$archive" -C "$work/src" --strip-components 1 ||
    fail "unpacking $archive"
  # Its grid module and benchmarks, with MPI; nothing else (no tests, no optional libraries required).
  {
    cmake -S "$work/src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$kokkos" \
      -DCabana_REQUIRE_MPI=ON -DCabana_ENABLE_GRID=ON -DCabana_ENABLE_PERFORMANCE_TESTING=ON &&
      cmake --build "$work/build" -j "$jobs" --target HaloPerformance &&
      cmake --install "$work/build" --prefix "$work/install"
  } > "$OUT/cabana-build.log" 2>&1 || fail "building Cabana (see $OUT/cabana-build.log)"
  if [ "${CABANA_ONLY:-0}" != 1 ]; then
    {
      cmake -S "$here" -B "$work/hvc" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$kokkos;$work/install" &&
        cmake --build "$work/hvc" -j "$jobs"
    } > "$OUT/halo_vs_cabana-build.log" 2>&1 || fail "building halo_vs_cabana (see $OUT/halo_vs_cabana-build.log)"
  fi
  echo "run_cabana.sh: built in $work"
  [ "$stage" = build ] && exit 0
fi
binary=$(find "$work/build" -name HaloPerformance -type f -perm -u+x | head -1)
[ -n "$binary" ] || fail "no HaloPerformance binary"
# Cabana writes its report to <name>_<ranks>.
if [ "${HVC_ONLY:-0}" != 1 ]; then
  (cd "$OUT" && ${MPIEXEC:-mpiexec} -n "$ranks" "$binary" cabana "$size") > "$OUT/cabana-run.log" 2>&1 ||
    fail "running HaloPerformance (see $OUT/cabana-run.log)"
  mv "$OUT/cabana_$ranks" "$OUT/cabana-$ranks.txt"
  echo "run_cabana.sh: $OUT/cabana-$ranks.txt"
fi
[ "${CABANA_ONLY:-0}" = 1 ] && exit 0
# shellcheck disable=SC2086
name=halo_vs_cabana-$ranks${HVC_TAG:-}
${MPIEXEC:-mpiexec} -n "$ranks" "$work/hvc/halo_vs_cabana" ${HVC_ARGS:-} --csv "$OUT/$name.csv" > "$OUT/$name.txt" 2>&1 ||
  fail "running halo_vs_cabana (see $OUT/$name.txt)"
echo "run_cabana.sh: $OUT/$name.txt"
