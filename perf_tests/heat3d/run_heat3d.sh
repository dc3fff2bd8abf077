#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Kokkos Comm's 3-D heat benchmark against the same program on a KokkosDDT halo plan (heat3d_kokkosddt.cpp), on a GPU
# machine: 200^3 cells, 100 steps, 10 repetitions each, at each rank count in HEAT3D_RANKS (default 2; one GPU per
# rank where there are enough, else sharing them under MPS). Run from the repository root
# once the project is configured in build/cuda (`cmake --preset cuda`); the script builds heat3d_kokkosddt itself:
#
#   bash perf_tests/heat3d/run_heat3d.sh
#
# Inputs, git-ignored (third-party code, never committed):
#   .carry/kokkos-comm.tgz                     git archive of kokkos/kokkos-comm at b1536761 (its newest snapshot here)
#   .carry/kokkos-comm-heat3d/test_heat3d.cpp  kokkos-comm's perf_tests/mpi/test_heat3d.cpp at 0de24c59, which that
#                                              snapshot lacks; its two API names are mapped to the snapshot's below
#   .carry/benchmark-1.8.3.tgz                 Google Benchmark v1.8.3, which Kokkos Comm's perf tests download at
#                                              configure time (the GPU machine is offline)
# Outputs in $OUT (default ./gpu-out), per rank count N: heat3d-kokkos-comm-N.log, heat3d-kokkosddt-N.log (+
# heat3d-kokkosddt-nccl-N.log with a GPU per rank), heat3d-build.log. Environment: HEAT3D_ARCH (default sm_90); HEAT3D_ARGS, the arguments of both
# programs (default --benchmark_color=false: Open MPI gives the ranks a terminal); HEAT3D_KC_BUFFERS=auto|device|pinned,
# Kokkos Comm's halo buffers (auto: device memory when Open MPI is CUDA-aware, else pinned host memory, since an MPI
# that is not CUDA-aware crashes on device pointers).
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
root=$PWD
arch=${HEAT3D_ARCH:-sm_90}
read -r -a args <<< "${HEAT3D_ARGS-"--benchmark_color=false"}"
kokkos=/opt/kokkos/cuda
wrapper=$kokkos/bin/nvcc_wrapper
work=/tmp/heat3d-kc
kc_src=$work/kokkos-comm
kc_build=$work/build
build_log=$OUT/heat3d-build.log
jobs=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)  # (every core: GNU nproc honours OMP_NUM_THREADS)
status=0

fail() {  # a step that makes the rest pointless
  echo "run_heat3d.sh: FAILED: $*" >&2
  exit 1
}
note() { echo "run_heat3d.sh: $*"; }

# nvcc_wrapper calls the nvcc on PATH; Open MPI refuses root without these.
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OMP_PROC_BIND=${OMP_PROC_BIND:-false}  # (host threads: idle here)

# ---- checks
for f in .carry/kokkos-comm.tgz .carry/kokkos-comm-heat3d/test_heat3d.cpp .carry/benchmark-1.8.3.tgz; do
  [ -f "$f" ] || fail "missing input $root/$f (see the header of this script)"
done
[ -x "$wrapper" ] || fail "no $wrapper: install Kokkos (CUDA) in $kokkos first (perf_tests/gpu_session.sh kokkos)"
command -v nvcc > /dev/null || fail "no nvcc on PATH"
command -v mpiexec > /dev/null || fail "no mpiexec on PATH"
command -v cmake > /dev/null || fail "no cmake on PATH"
[ -f build/cuda/CMakeCache.txt ] || fail "build/cuda is not configured: run 'cmake --preset cuda' from the repository root"
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
: > "$build_log"

# ---- heat3d_kokkosddt (an up-to-date build/cuda only checks it)
note "building heat3d_kokkosddt in build/cuda (log: $build_log)"
echo "==== cmake --build build/cuda --target heat3d_kokkosddt -j $jobs" >> "$build_log"
cmake --build build/cuda --target heat3d_kokkosddt -j "$jobs" >> "$build_log" 2>&1 ||
  fail "building heat3d_kokkosddt (tail of $build_log:)$(echo; tail -n 30 "$build_log")"
ddt_exe=$root/build/cuda/perf_tests/heat3d_kokkosddt
[ -x "$ddt_exe" ] || fail "no $ddt_exe after the build"

# ---- Kokkos Comm's heat3d: its own CMake, the perf tests on, Google Benchmark from the carried source
note "unpacking Kokkos Comm and Google Benchmark into $work"
rm -rf "$work"
mkdir -p "$work" || fail "cannot make $work"
tar xzf .carry/kokkos-comm.tgz -C "$work" || fail "unpacking .carry/kokkos-comm.tgz"
tar xzf .carry/benchmark-1.8.3.tgz -C "$work" || fail "unpacking .carry/benchmark-1.8.3.tgz"
[ -f "$kc_src/perf_tests/mpi/test_main.cpp" ] || fail "$kc_src/perf_tests/mpi/test_main.cpp missing: not the expected tree"
heat=$kc_src/perf_tests/mpi/test_heat3d.cpp
cp .carry/kokkos-comm-heat3d/test_heat3d.cpp "$heat" || fail "copying test_heat3d.cpp"
# The benchmark is newer than the library snapshot: Communicator<MpiSpace, Exec>::from_raw(comm, space) and Request<>
# are that snapshot's Handle<Exec, Mpi>(space, comm) and Req<> (the same calls underneath: fence the instance, then
# MPI_Isend/MPI_Irecv of the contiguous buffer; wait_all waits each request).
sed -i -e 's/KokkosComm::Request<>/KokkosComm::Req<>/' \
  -e 's/KokkosComm::Communicator<KokkosComm::MpiSpace, Kokkos::DefaultExecutionSpace>::from_raw(comm\.comm, \(E_[a-z]*\))/KokkosComm::Handle<Kokkos::DefaultExecutionSpace, KokkosComm::Mpi>(\1, comm.comm)/' \
  "$heat"
if [ "$(grep -c 'KokkosComm::Handle<Kokkos::DefaultExecutionSpace, KokkosComm::Mpi>(E_' "$heat")" != 6 ] ||
  [ "$(grep -c 'KokkosComm::Req<>' "$heat")" != 1 ] || grep -q 'Communicator<\|Request<>' "$heat"; then
  fail "mapping test_heat3d.cpp to the snapshot's API (not the expected file?)"
fi
cuda_aware=no
if command -v ompi_info > /dev/null && ompi_info --parsable --all 2> /dev/null |
  grep -q 'mpi_built_with_cuda_support:value:true'; then
  cuda_aware=yes
fi
buffers=${HEAT3D_KC_BUFFERS:-auto}
[ "$buffers" = auto ] && buffers=$([ $cuda_aware = yes ] && echo device || echo pinned)
kc_note="MPI CUDA-aware: $cuda_aware; Kokkos Comm's halo buffers in $buffers memory"
if [ "$buffers" = pinned ]; then
  # Device pointers handed to an MPI that is not CUDA-aware crash it. Pinned host buffers (what KokkosDDT stages
  # through on such an MPI) keep the program as it is otherwise: the packs are deep_copy kernels into them, the surface
  # kernels read them.
  sed -i 's/^using buffer_t = Kokkos::View<double\*\*, Kokkos::LayoutLeft, Kokkos::DefaultExecutionSpace>;/using buffer_t = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::SharedHostPinnedSpace>;/' "$heat"
  grep -q 'Kokkos::LayoutLeft, Kokkos::SharedHostPinnedSpace>;' "$heat" || fail "switching test_heat3d.cpp's buffers"
fi
note "$kc_note"
# The target: test_main.cpp (MPI, Kokkos and Google Benchmark set up as for perf-test-main) and the benchmark alone.
cat >> "$kc_src/perf_tests/mpi/CMakeLists.txt" << 'EOF'

# (added by KokkosDDT's run_heat3d.sh)
add_executable(perf-test-heat3d test_main.cpp test_heat3d.cpp)
target_link_libraries(perf-test-heat3d KokkosComm::KokkosComm benchmark::benchmark)
EOF
configure=(cmake -S "$kc_src" -B "$kc_build" ${generator[@]+"${generator[@]}"} -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_CXX_COMPILER="$wrapper" -DCMAKE_CXX_FLAGS="-arch=$arch" -DKokkos_ROOT="$kokkos"
  -DKokkosComm_ENABLE_MPI=ON -DKokkosComm_ENABLE_PERFTESTS=ON -DKokkosComm_ENABLE_TESTS=OFF
  -DFETCHCONTENT_SOURCE_DIR_BENCHMARK="$work/benchmark" -DBENCHMARK_ENABLE_WERROR=OFF
  -DBENCHMARK_ENABLE_GTEST_TESTS=OFF -DBENCHMARK_ENABLE_INSTALL=OFF)
build=(cmake --build "$kc_build" --target perf-test-heat3d -j "$jobs")
note "configuring and building Kokkos Comm's perf-test-heat3d (log: $build_log)"
echo "==== ${configure[*]}" >> "$build_log"
"${configure[@]}" >> "$build_log" 2>&1 || fail "configuring Kokkos Comm (tail of $build_log:)$(echo; tail -n 30 "$build_log")"
echo "==== ${build[*]}" >> "$build_log"
"${build[@]}" >> "$build_log" 2>&1 || fail "building perf-test-heat3d (tail of $build_log:)$(echo; tail -n 30 "$build_log")"
kc_exe=$kc_build/perf_tests/mpi/perf-test-heat3d
[ -x "$kc_exe" ] || fail "no $kc_exe after the build"

# ---- runs at each rank count in HEAT3D_RANKS (default 2): one GPU per rank where there are enough, else the ranks
# share the GPUs under MPS (NCCL, which refuses two ranks on one GPU, is then skipped)
gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
read -r -a rank_counts <<< "${HEAT3D_RANKS:-2}"
most=0
for n in "${rank_counts[@]}"; do [ "$n" -gt "$most" ] && most=$n; done
if [ "$gpus" -lt "$most" ]; then
  if nvidia-cuda-mps-control -d; then
    note "MPS started ($gpus GPUs for up to $most ranks)"
    trap 'echo quit | nvidia-cuda-mps-control > /dev/null 2>&1; echo "run_heat3d.sh: MPS stopped"' EXIT
  else
    note "MPS did not start (already running, or not available): the ranks are time-sliced"
  fi
fi
run() {  # log name, then the command; its output (stdout and stderr) goes to $OUT/<name>.log
  local name=$1 log=$OUT/$1.log
  shift
  {
    echo "# $*"
    echo "# $kc_note; GPUs: $gpus; $(date -u +%FT%TZ)"
  } > "$log"
  note "running $name: $*"
  timeout 300 "$@" >> "$log" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || {
    status=1
    note "FAILED: $name exited with $rc$([ $rc -eq 124 ] && echo ' (timed out after 300 s)') (see $log)"
  }
  return $rc
}
for n in "${rank_counts[@]}"; do
  run "heat3d-kokkos-comm-$n" mpiexec -n "$n" "$kc_exe" ${args[@]+"${args[@]}"}
  run "heat3d-kokkosddt-$n" mpiexec -n "$n" "$ddt_exe" ${args[@]+"${args[@]}"}
  if [ "$gpus" -ge "$n" ]; then  # NCCL puts one rank on each GPU (it refuses two ranks on one)
    run "heat3d-kokkosddt-nccl-$n" mpiexec -n "$n" "$ddt_exe" ${args[@]+"${args[@]}"} nccl
    run "heat3d-kokkosddt-peer-$n" mpiexec -n "$n" "$ddt_exe" ${args[@]+"${args[@]}"} peer
  else
    note "NCCL run at $n ranks skipped: $gpus GPUs (NCCL needs one GPU per rank)"
  fi
done

# ---- summary per rank count: the CSV lines (heat3D,label,ranks,steps,T_ave,time_inner,time_surface,time_update,last,
# total,GUPs,X,MB) and the mean time of a repetition; T_ave must agree (the same arithmetic in the same order).
for n in "${rank_counts[@]}"; do
  echo
  echo "== $n ranks"
  echo "heat3D,label,ranks,steps,T_ave,time_inner,time_surface,time_update,time_last,time_all,GUPs,X,MB"
  for log in "$OUT/heat3d-kokkos-comm-$n.log" "$OUT/heat3d-kokkosddt-$n.log" "$OUT/heat3d-kokkosddt-nccl-$n.log" \
    "$OUT/heat3d-kokkosddt-peer-$n.log"; do
    [ -f "$log" ] || continue
    grep '^heat3D,' "$log" | tail -n 1
    grep '_mean ' "$log" || echo "(no mean row in $(basename "$log"))"
  done
  t_kc=$(grep '^heat3D,' "$OUT/heat3d-kokkos-comm-$n.log" 2> /dev/null | cut -d, -f5 | sort -u | tr '\n' ' ')
  t_ddt=$(cat "$OUT/heat3d-kokkosddt-$n.log" "$OUT/heat3d-kokkosddt-nccl-$n.log" "$OUT/heat3d-kokkosddt-peer-$n.log" 2> /dev/null | grep '^heat3D,' |
    cut -d, -f5 | sort -u | tr '\n' ' ')
  if [ -z "$t_kc" ] || [ -z "$t_ddt" ]; then
    note "$n ranks: no T_ave to compare: Kokkos Comm '$t_kc', KokkosDDT '$t_ddt'"
    status=1
  elif [ "$t_kc" = "$t_ddt" ]; then
    note "$n ranks: T_ave agrees in every repetition: $t_kc"
  elif awk -v a="${t_kc%% *}" -v b="${t_ddt%% *}" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a; exit !(d <= 1e-9 * m) }'; then
    note "$n ranks: T_ave agrees to 1e-9 (rounding): Kokkos Comm $t_kc, KokkosDDT $t_ddt"
  else
    note "$n ranks: T_ave DIFFERS: Kokkos Comm $t_kc, KokkosDDT $t_ddt"
    status=1
  fi
done
exit $status
