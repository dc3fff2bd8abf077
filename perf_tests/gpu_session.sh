#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One session on a GPU machine, run from the repository root: build and install Kokkos, build with the `cuda` preset,
# run the unit tests (Cuda, OpenMP and Serial), compute-sanitizer, the demo and the GPU benchmark. Stages run in the
# order given:
#
#   bash perf_tests/gpu_session.sh kokkos env build test sanitize demo bench-quick bench fusion fusion-profile fusion-sanitize profile
#   bash perf_tests/gpu_session.sh kokkos env build-mpi test-mpi        (the MPI layer's tests alone, under MPS)
#   bash perf_tests/gpu_session.sh kokkos build-mpi test-mpi halo-gpu   (+ the GPU halo step: jacobi3d, halo_bench)
#   bash perf_tests/gpu_session.sh kokkos build-mpi graph halo-compare  (+ CUDA graphs of steps; before against after)
#   bash perf_tests/gpu_session.sh kokkos build-multi-gpu               (what perf_tests/multi_gpu.sh runs)
#   bash perf_tests/gpu_session.sh fresh                                (README's one CUDA command, nothing installed)
#   bash perf_tests/gpu_session.sh readme                               (the same, exactly as README gives it, on
#                                                                        .carry/head.tgz = git archive HEAD, 3 runs)
#   bash perf_tests/gpu_session.sh kokkos build-engine   then   engine-test engine-compare   (before against after)
#   bash perf_tests/gpu_session.sh kokkos collectives                   (the collectives: tests, model, gatherv_bench)
#   bash perf_tests/gpu_session.sh spack-cuda                           (spack install --test=root kokkos-ddt+cuda)
#
# Inputs (not in git; DEVELOPERS.md, "On a GPU machine"): .carry/kokkos-cuda.tgz (a /opt/kokkos/cuda install made on
# another machine, unpacked at the same path) or .carry/tpls/kokkos-4.6.01.tar.gz (upstream's release archive, carried
# because the machine may be offline), the Kokkos release the `kokkos` stage builds into /opt/kokkos/cuda, which every
# stage but `fresh` and `readme` configures the `cuda` preset with (an installed Kokkos saves building one per
# session); .carry/tpls/kokkos-kernels-4.7.00.tar.gz (the CG example); .carry/catch2 (a Catch2 install) when the
# machine has none; .carry/yaksa (optional contender).
# Outputs go to $OUT (default ./gpu-out): logs and the benchmark CSV.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
root=$PWD
# nvcc_wrapper (Kokkos' compiler for CUDA code) calls the nvcc on PATH.
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
[ -d .carry/catch2 ] && export Catch2_ROOT=$root/.carry/catch2
if [ -d .carry/yaksa ]; then
  export YAKSA_ROOT=$root/.carry/yaksa
  export LD_LIBRARY_PATH=$root/.carry/yaksa/lib:${LD_LIBRARY_PATH:-}
fi
jobs=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)  # (every core: GNU nproc honours OMP_NUM_THREADS)
status=0
run() {  # run a step, keep its log, remember a failure; returns the step's status so that steps can be chained
  local name=$1
  shift
  echo "==== $name: $*"
  "$@" 2>&1 | tee "$OUT/$name.log"
  local rc=${PIPESTATUS[0]}
  echo "==== $name: exit $rc"
  [ "$rc" -eq 0 ] || status=1
  return "$rc"
}
# The `cuda` preset on the Kokkos the `kokkos` stage installs, compiled with its nvcc_wrapper for the H100/H200.
preset_flags=(-DKokkos_ROOT=/opt/kokkos/cuda -DCMAKE_CXX_COMPILER=/opt/kokkos/cuda/bin/nvcc_wrapper
  -DCMAKE_CXX_FLAGS=-arch=sm_90)
# Kokkos Kernels (the CG example): the build brings it in-tree when none is installed, from a source tree on these
# offline machines: .carry/tpls/kokkos-kernels-4.7.00.tar.gz when carried, else the examples that need it are skipped.
if [ -f "$root/.carry/tpls/kokkos-kernels-4.7.00.tar.gz" ]; then
  mkdir -p /tmp/kk-src && tar xzf "$root/.carry/tpls/kokkos-kernels-4.7.00.tar.gz" -C /tmp/kk-src
  export FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS=/tmp/kk-src/kokkos-kernels-4.7.00
elif [ ! -d /opt/kokkos-kernels/cuda ]; then
  preset_flags+=(-DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF)
fi

for stage in "$@"; do
  case $stage in
    kokkos)
      # Built here from the carried release tarball (the machine has no internet). Kokkos 4.6.01 calls CUDA runtime
      # functions whose signatures CUDA 13 changed: cmake/KokkosDDT_KokkosCuda13.cmake edits the unpacked tree first.
      # A fresh tree and build directory each time, so a failed attempt leaves nothing half-done behind; skipped once
      # installed.
      if compgen -G '/opt/kokkos/cuda/lib*/cmake/Kokkos/KokkosConfig.cmake' > /dev/null; then
        echo "==== kokkos: already installed in /opt/kokkos/cuda"
      elif [ -f .carry/kokkos-cuda.tgz ]; then  # an install built on the development machine (same paths, sm_90)
        run kokkos-carried tar xzf .carry/kokkos-cuda.tgz -C /opt
      else
        kk_src=/tmp/kokkos-src/kokkos-4.6.01
        kk_build=/tmp/kokkos-build
        rm -rf /tmp/kokkos-src "$kk_build" && mkdir -p /tmp/kokkos-src
        run kokkos-unpack tar xzf "$root/.carry/tpls/kokkos-4.6.01.tar.gz" -C /tmp/kokkos-src &&
          run kokkos-cuda13 cmake -DKOKKOS_SOURCE_DIR="$kk_src" -P "$root/cmake/KokkosDDT_KokkosCuda13.cmake" &&
          run kokkos-configure cmake -S "$kk_src" -B "$kk_build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
            -DCMAKE_INSTALL_PREFIX=/opt/kokkos/cuda -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_OPENMP=ON \
            -DKokkos_ENABLE_SERIAL=ON -DKokkos_ARCH_HOPPER90=ON -DCMAKE_CXX_COMPILER="$kk_src/bin/nvcc_wrapper" \
            -DCMAKE_CXX_FLAGS=-arch=sm_90 -DCMAKE_CXX_STANDARD=17 -DCMAKE_POSITION_INDEPENDENT_CODE=ON &&
          run kokkos-install cmake --build "$kk_build" --target install -j "$jobs"
      fi ;;
    fresh)
      # README's one command on a GPU machine with nothing installed: `cmake --workflow --preset cuda` brings Kokkos
      # (CUDA+OpenMP+Serial for the GPU nvidia-smi shows, with the CUDA 13 fix) and Kokkos Kernels, builds everything
      # and runs every test of the preset. The only difference from a machine with internet: the release archives
      # come from .carry/tpls as source trees. Multi-rank tests time-slice the GPU (no MPS, as a new user would).
      if compgen -G '/opt/kokkos*' > /dev/null || [ -n "${Kokkos_ROOT:-}" ]; then
        echo "==== fresh: a Kokkos is installed (/opt/kokkos*, Kokkos_ROOT): not a fresh machine"
        status=1
        continue
      fi
      mkdir -p /tmp/fresh-src && tar xzf "$root/.carry/tpls/kokkos-4.6.01.tar.gz" -C /tmp/fresh-src
      export FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/fresh-src/kokkos-4.6.01
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      rm -rf build/cuda build/cuda-fresh
      run fresh cmake --workflow --preset cuda
      mv build/cuda build/cuda-fresh ;;  # the other stages configure build/cuda on the installed Kokkos
    readme)
      # README's GPU command exactly as README.md gives it (the first command under "## GPUs"), on a `git archive` of
      # the commit (.carry/head.tgz: `git archive HEAD | gzip > .carry/head.tgz`) unpacked into a new folder, nothing
      # reused from earlier builds or installs, README_RUNS times in a row (default 3) in that folder: the first
      # configures and builds from nothing, each later one runs the same command again (its configure, a build with
      # nothing left to do, every test). As on a machine with internet but for one thing: the release archives come
      # from .carry/tpls as source trees. No MPS: the multi-rank tests time-slice the GPU, as a new user's do.
      # Output: $OUT/readme-<run>.log.gz and $OUT/readme-summary.txt (each run's exit status and ctest's count).
      if compgen -G '/opt/kokkos*' > /dev/null || [ -n "${Kokkos_ROOT:-}" ]; then
        echo "==== readme: a Kokkos is installed (/opt/kokkos*, Kokkos_ROOT): not a fresh machine"
        status=1
        continue
      fi
      tree=/tmp/readme-tree
      rm -rf "$tree" /tmp/readme-src && mkdir -p "$tree" /tmp/readme-src
      tar xzf .carry/head.tgz -C "$tree"
      tar xzf "$root/.carry/tpls/kokkos-4.6.01.tar.gz" -C /tmp/readme-src
      tar xzf "$root/.carry/tpls/kokkos-kernels-4.7.00.tar.gz" -C /tmp/readme-src
      readme_command=$(awk '/^## GPUs/ {on = 1; next} /^## / {on = 0} on && /^    [^ ]/ {sub(/^    /, ""); print; exit}' \
        "$tree/README.md")
      commit=$(zcat .carry/head.tgz | git get-tar-commit-id 2>/dev/null || echo "the archive's commit")
      echo "==== readme: \$ $readme_command   (in $tree, ${commit:0:7})"
      for r in $(seq "${README_RUNS:-3}"); do
        # shellcheck disable=SC2086
        (cd "$tree" && env FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/readme-src/kokkos-4.6.01 \
          FETCHCONTENT_SOURCE_DIR_KOKKOSKERNELS=/tmp/readme-src/kokkos-kernels-4.7.00 \
          OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 $readme_command) > "$OUT/readme-$r.log" 2>&1
        rc=$?
        [ "$rc" -eq 0 ] || status=1
        echo "run $r: exit $rc; $(grep -E 'tests passed' "$OUT/readme-$r.log" | tail -1)" | tee -a "$OUT/readme-summary.txt"
        grep -E '^ *[0-9]+ - .*\((Failed|Timeout|Not Run|SEGFAULT|Subprocess aborted)\)' "$OUT/readme-$r.log" |
          tee -a "$OUT/readme-summary.txt"
        gzip -f "$OUT/readme-$r.log"
      done ;;
    env)
      run env bash -c 'nvidia-smi; nvcc --version | tail -2; cmake --version | head -1; g++ --version | head -1;
                      (command -v mpicxx && mpicxx --version | head -1) || echo "no MPI"; nproc; date -u' ;;
    build)
      run configure cmake --preset cuda "${preset_flags[@]}"
      run build cmake --build --preset cuda -j "$jobs" ;;
    test)
      # Every test of the preset, the multi-rank ones included (ranks share the GPU under MPS; Open MPI refuses root
      # without these variables).
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      nvidia-cuda-mps-control -d && echo "MPS started"
      run test ctest --preset cuda -j 8 --timeout 600
      echo quit | nvidia-cuda-mps-control ;;
    build-mpi)
      # The MPI layer's tests only (and the CUDA unit tests): one test per executable, nothing run at build time.
      run configure-mpi cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF "${preset_flags[@]}"
      run build-mpi cmake --build --preset cuda -j "$jobs" --target kokkosddt_unit_tests_Cuda kokkosddt_mpi_tests_Cuda \
        kokkosddt_mpi_tests_OpenMP kokkosddt_collectives_tests_OpenMP jacobi3d halo_bench fusion_bench graph_step ;;
    build-multi-gpu)
      # What perf_tests/multi_gpu.sh runs at one rank per GPU (one test per executable, nothing run at build time), or
      # the targets in $BUILD_TARGETS; cg_poisson is build-cg's.
      targets=(${BUILD_TARGETS:-kokkosddt_unit_tests_Cuda kokkosddt_mpi_tests_Cuda kokkosddt_collectives_tests_Cuda
        halo_bench jacobi3d jacobi_bench heat3d_kokkosddt})
      run configure-multi-gpu cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF "${preset_flags[@]}" &&
        run build-multi-gpu cmake --build --preset cuda -j "$jobs" --target "${targets[@]}" ;;
    build-cg)
      # The CG example on Kokkos Kernels (built in-tree from .carry/tpls), once build-multi-gpu configured build/cuda.
      run build-cg cmake --build --preset cuda -j "$jobs" --target cg_poisson ;;
    collectives)
      # The collectives (issue 25): their tests on Cuda and OpenMP at every p (ranks share the GPU under MPS), the
      # cost model's constants, and gatherv_bench at 16 ranks, one per core: the ints and strided sections alternating
      # with the code before (.carry/base-*.tgz, its ints table), then the device section under MPS. Output:
      # $OUT/coll.tgz.
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
      mkdir -p /tmp/coll
      run configure-coll cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF "${preset_flags[@]}"
      run build-coll cmake --build --preset cuda -j "$jobs" --target gatherv_bench kokkosddt_collectives_tests_Cuda \
        kokkosddt_collectives_tests_OpenMP
      base=$(compgen -G '.carry/base-*.tgz' | head -1)
      if [ -n "$base" ]; then
        rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf "$base" -C /tmp/base
        (cd /tmp/base && run configure-base cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF "${preset_flags[@]}" &&
          run build-base cmake --build build/cuda -j "$jobs" --target gatherv_bench)
      fi
      nvidia-cuda-mps-control -d && echo "MPS started"
      run test-coll ctest --test-dir build/cuda -R "(Cuda|OpenMP)/collectives" --timeout 300 --output-on-failure
      echo quit | nvidia-cuda-mps-control
      bench=(mpiexec --bind-to core -n 16 -x OMP_NUM_THREADS=1)
      run coll-model "${bench[@]}" build/cuda/perf_tests/gatherv_bench --alpha-beta
      for rep in 1 2; do
        run "coll-new-$rep" "${bench[@]}" build/cuda/perf_tests/gatherv_bench --section ints,strided \
          --csv "/tmp/coll/gatherv-new-$rep.csv"
        [ -x /tmp/base/build/cuda/perf_tests/gatherv_bench ] &&
          run "coll-base-$rep" "${bench[@]}" /tmp/base/build/cuda/perf_tests/gatherv_bench --csv "/tmp/coll/gatherv-base-$rep.csv"
      done
      nvidia-cuda-mps-control -d && echo "MPS started"
      run coll-device "${bench[@]}" build/cuda/perf_tests/gatherv_bench --section device --b 1,100,10000 --reps 30 \
        --csv /tmp/coll/gatherv-device.csv
      echo quit | nvidia-cuda-mps-control
      cp "$OUT"/*coll*.log "$OUT"/build-base.log /tmp/coll/ 2>/dev/null
      tar czf "$OUT/coll.tgz" -C /tmp coll ;;
    test-mpi)
      # Every MPI pass (1, 2 with 2 threads, 3 and 4 ranks with small chunks) on Cuda, OpenMP and the collectives; the
      # ranks share the GPU under MPS (without it they are time-sliced). Open MPI refuses root without these.
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      nvidia-cuda-mps-control -d && echo "MPS started"
      run test-mpi ctest --test-dir build/cuda -L mpi -E Serial --timeout 600 --output-on-failure
      run test-cuda build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
      echo quit | nvidia-cuda-mps-control ;;
    halo-gpu)
      # The GPU halo step on one GPU and one rank: jacobi3d over each transport, halo_bench with the plan's messages
      # to itself sent through the transport (the NCCL table; NCCL cannot put two ranks on one GPU).
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      for cells in 64 128; do
        for transport in mpi nccl; do
          run "jacobi3d-$cells-$transport" mpiexec -n 1 build/cuda/examples/jacobi3d "$cells" 200 "$transport"
        done
      done
      KOKKOSDDT_HALO_SELF_MESSAGES=1 run halo-bench-self mpiexec -n 1 build/cuda/perf_tests/halo_bench \
        --csv "$OUT/halo-self.csv"
      run halo-bench mpiexec -n 1 build/cuda/perf_tests/halo_bench --csv "$OUT/halo.csv" ;;
    graph)
      # A CUDA graph of whole steps against launching them (perf_tests/graph_step.cpp): message-less NCCL plans, then
      # the same with the messages to itself through NCCL.
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      for cells in 64 128; do
        run "graph-$cells" mpiexec -n 1 build/cuda/perf_tests/graph_step "$cells" 400 nccl --csv "$OUT/graph-$cells.csv"
        KOKKOSDDT_HALO_SELF_MESSAGES=1 run "graph-$cells-self" mpiexec -n 1 build/cuda/perf_tests/graph_step "$cells" \
          400 nccl --csv "$OUT/graph-$cells-self.csv"
      done ;;
    halo-profile)
      # Where a one-GPU halo step's time goes: Nsight Systems' kernel summary of jacobi3d 64^3 over NCCL, then Nsight
      # Compute on one fused pack and unpack launch of it.
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      run halo-nsys nsys profile -t cuda,nvtx --stats=true -f true -o /tmp/jacobi-nsys \
        build/cuda/examples/jacobi3d 64 100 nccl
      run halo-ncu ncu --clock-control none --cache-control none --kernel-name-base demangled -k regex:FusedKernel \
        --launch-skip 20 --launch-count 2 --section SpeedOfLight --section LaunchStats --section Occupancy \
        --section WarpStateStats build/cuda/examples/jacobi3d 64 20 nccl ;;
    halo-compare)
      # Before against after in one run: the tree in .carry/base-*.tgz (a git archive of the commit before the change)
      # built like this one, then fusion_bench's halo table and jacobi3d's time per iteration from both.
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      base_tgz=$(ls .carry/base-*.tgz | head -1)
      rm -rf /tmp/base && mkdir -p /tmp/base && tar xzf "$base_tgz" -C /tmp/base
      (cd /tmp/base && cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF "${preset_flags[@]}" > /dev/null &&
        cmake --build --preset cuda -j "$jobs" --target fusion_bench jacobi3d) > "$OUT/base-build.log" 2>&1 ||
        status=1
      # (alternately, COMPARE_RUNS times: default 2)
      for r in $(seq "${COMPARE_RUNS:-2}"); do
        for tree in /tmp/base "$root"; do
          label=$([ "$tree" = "$root" ] && echo after || echo before)-$r
          run "fusion-halo-$label" "$tree/build/cuda/perf_tests/fusion_bench" --only halo --csv "$OUT/fusion-$label.csv"
          for cells in 64 128; do
            run "jacobi3d-$cells-$label" mpiexec -n 1 "$tree/build/cuda/examples/jacobi3d" "$cells" 200
          done
        done
      done ;;
    spack-cuda)
      # `spack install --test=root kokkos-ddt +cuda cuda_arch=90`, offline, as a cluster user would (spack/test/install.sh):
      # Spack and the Kokkos archive from .carry/tpls, clingo built on the development machine for this machine's
      # python 3.12 (.carry/clingo, with cffi's backend in .carry/cffi), Open MPI, the CUDA toolkit and .carry/catch2
      # as externals; the ranks of the MPI tests share the GPU under MPS. SPACK_STAGES: install.sh's stages (default
      # "spack deps install": two calls fit, "spack deps" then "install").
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      nvidia-cuda-mps-control -d 2> /dev/null && echo "MPS started"
      # shellcheck disable=SC2086
      PYTHONPATH=$root/.carry/cffi KOKKOSDDT_TPLS=$root/.carry/tpls KOKKOSDDT_CLINGO_PREFIX=$root/.carry/clingo \
        KOKKOSDDT_SPACK_WORK=$root/build/spack-cuda KOKKOSDDT_SPACK_MPI=openmpi \
        KOKKOSDDT_CATCH2_PREFIX=$root/.carry/catch2 KOKKOSDDT_SPACK_CUDA=1 \
        KOKKOSDDT_SPACK_SPECS="kokkos-ddt@=0.1.0+cuda cuda_arch=90" \
        run spack-cuda bash spack/test/install.sh ${SPACK_STAGES:-spack deps install} ;;
    resources)
      # Registers, stack and shared memory of every kernel in fusion_bench and jacobi3d, before (halo-compare's
      # /tmp/base) and after: explicit instantiation must not change what is compiled into a kernel.
      for tree in /tmp/base "$root"; do
        label=$([ "$tree" = "$root" ] && echo after || echo before)
        for exe in perf_tests/fusion_bench examples/jacobi3d; do
          cuobjdump --dump-resource-usage "$tree/build/cuda/$exe" 2>/dev/null |
            awk '/Function/ { name = $2 } /REG:/ { sub(/^[ \t]+/, ""); print name, $0 }' | sort -u
        done > "$OUT/resources-$label.txt"
      done
      run resources-diff bash -c "diff $OUT/resources-before.txt $OUT/resources-after.txt && echo 'every kernel: same resources'"
      ;;
    build-engine)
      # The engine's benchmarks twice: this tree (build/cuda, with the CUDA unit tests) and the tree in
      # .carry/base-*.tgz (a git archive of the commit before the change, unpacked into build/base-src), same flags.
      run configure-engine cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF "${preset_flags[@]}"
      run build-engine cmake --build --preset cuda -j "$jobs" --target kokkosddt_unit_tests_Cuda pack_bench_gpu ddtbench
      base_tgz=$(ls .carry/base-*.tgz | head -1)
      rm -rf build/base-src && mkdir -p build/base-src && tar xzf "$base_tgz" -C build/base-src
      (cd build/base-src && cmake --preset cuda -DKokkosDDT_DISCOVER_TESTS=OFF "${preset_flags[@]}" &&
        cmake --build --preset cuda -j "$jobs" --target pack_bench_gpu ddtbench) > "$OUT/build-base.log" 2>&1 ||
        { status=1; tail -30 "$OUT/build-base.log"; } ;;
    engine-test)
      run test-cuda build/cuda/unit_tests/kokkosddt_unit_tests_Cuda ;;
    engine-compare)
      # Before and after alternately, ENGINE_RUNS times (default 2): pack_bench_gpu's sections in $ENGINE_SECTIONS and
      # ddtbench on the device (its host columns too). One CSV per build and run, named before-/after-<bench>-<run>.
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      for r in $(seq "${ENGINE_RUNS:-2}"); do
        for tree in build/base-src "$root"; do
          label=$([ "$tree" = "$root" ] && echo after || echo before)
          for section in ${ENGINE_SECTIONS:-latency vector subarray indexed struct}; do
            "$tree/build/cuda/perf_tests/pack_bench_gpu" --only "$section" --csv "$OUT/$label-pack-$section-$r.csv" \
              > "$OUT/$label-pack-$section-$r.txt" 2>&1 || status=1
          done
          "$tree/build/cuda/perf_tests/ddtbench" --csv "$OUT/$label-ddtbench-$r.csv" > "$OUT/$label-ddtbench-$r.txt" \
            2>&1 || status=1
        done
      done
      # (One archive: the device tool returns 8 files at most. Only the files made: ENGINE_SECTIONS=" " runs ddtbench
      # alone.)
      (cd "$OUT" && shopt -s nullglob && made=(./*-pack-*.csv ./*-pack-*.txt ./*-ddtbench-*.csv ./*-ddtbench-*.txt) &&
        tar czf engine-compare.tgz "${made[@]}" && rm -f "${made[@]}") ;;
    fusion-halo)
      run fusion-halo build/cuda/perf_tests/fusion_bench --only halo --csv "$OUT/fusion-halo.csv" ;;
    sanitize)
      # A fraction of the random cases: the sanitizers slow every kernel down by orders of magnitude.
      export KOKKOSDDT_TEST_SCALE=${KOKKOSDDT_TEST_SCALE:-0.04}
      run memcheck compute-sanitizer --tool memcheck --leak-check full --error-exitcode 1 \
        build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
      run racecheck compute-sanitizer --tool racecheck --error-exitcode 1 build/cuda/unit_tests/kokkosddt_unit_tests_Cuda
      run memcheck-demo compute-sanitizer --tool memcheck --error-exitcode 1 build/cuda/examples/halo_demo 32 3
      unset KOKKOSDDT_TEST_SCALE ;;
    demo)
      run demo build/cuda/examples/halo_demo 128 50 ;;
    profile)
      # Nsight Compute on the 4 KiB vector pack of the latency section: the library's kernel, then the hand-written one,
      # caches left warm as in the benchmark loop.
      for k in cuda_flat_kernel hand_vector; do
        run "profile-$k" ncu --cache-control none --section SpeedOfLight --section LaunchStats --section WarpStateStats \
          --section InstructionStats --section MemoryWorkloadAnalysis -k "regex:$k" --launch-skip 10 --launch-count 1 \
          build/cuda/perf_tests/pack_bench_gpu --only latency --csv /dev/null
      done ;;
    engine-ncu)
      # Nsight Compute over every launch of the library's flat kernel and the hand kernels in pack_bench_gpu's sections
      # $ENGINE_SECTIONS (default latency indexed subarray): duration, grid, registers, instructions and stalls per
      # launch, one CSV per section (rows: one per launch and metric).
      for section in ${ENGINE_SECTIONS:-latency indexed subarray}; do
        timeout 200 ncu --csv --clock-control none --cache-control none -k "regex:${ENGINE_KERNELS:-cuda_flat_kernel|hand_}" \
          -c "${ENGINE_LAUNCHES:-400}" \
          --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,smsp__inst_executed.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,\
smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,\
dram__bytes.sum,lts__t_bytes.sum \
          build/cuda/perf_tests/pack_bench_gpu --only "$section" --csv /dev/null > "$OUT/ncu-$section.csv" 2>&1 ||
          status=1
      done ;;
    fusion)
      run fusion build/cuda/perf_tests/fusion_bench --csv "$OUT/fusion.csv" ;;
    fusion-profile)
      # Nsight Compute on one fused pack of the demo's 26 regions (n = 128, one field), clocks and caches as in a run.
      run fusion-profile ncu --clock-control none --cache-control none --kernel-name-base demangled \
        -k regex:FusedKernel --launch-skip 4 --launch-count 2 --section SpeedOfLight --section LaunchStats \
        --section WarpStateStats --section Occupancy build/cuda/examples/halo_demo 128 3 ;;
    fusion-sanitize)
      export KOKKOSDDT_TEST_SCALE=${KOKKOSDDT_TEST_SCALE:-0.01}
      for tool in memcheck racecheck; do
        run "fusion-$tool" compute-sanitizer --tool $tool --error-exitcode 1 \
          build/cuda/unit_tests/kokkosddt_unit_tests_Cuda "[fusion]~*long stream*"
      done
      unset KOKKOSDDT_TEST_SCALE ;;
    bench-quick)
      run bench-quick build/cuda/perf_tests/pack_bench_gpu --quick --csv "$OUT/bench-quick.csv" ;;
    bench)
      run bench build/cuda/perf_tests/pack_bench_gpu --csv "$OUT/bench.csv" ;;
    tune)
      # Launch-setting variants of the benchmark (KokkosDDT_* CMake options, DEVELOPERS.md) on the sections in
      # $TUNE_ONLY, into one log. TUNE_VARIANTS="name:-DKokkosDDT_X=1 -DKokkosDDT_Y=2 other:..."
      for variant in ${TUNE_VARIANTS:-"base:"}; do
        name=${variant%%:*}
        options=${variant#*:}
        echo "==== tune variant $name: $options" | tee -a "$OUT/tune.log"
        # shellcheck disable=SC2086
        cmake --preset cuda -B "build/tune-$name" $options "${preset_flags[@]}" > /dev/null 2>&1
        cmake --build "build/tune-$name" --target pack_bench_gpu -j "$jobs" > /dev/null 2>&1 || status=1
        for section in ${TUNE_ONLY:-vector}; do
          "build/tune-$name/perf_tests/pack_bench_gpu" --only "$section" --csv /dev/null 2>&1 | grep -v OMP |
            tee -a "$OUT/tune.log"
        done
      done ;;
    bench-*)
      run "$stage" build/cuda/perf_tests/pack_bench_gpu --only "${stage#bench-}" --csv "$OUT/$stage.csv" ;;
    *)
      echo "unknown stage $stage" >&2
      status=2 ;;
  esac
done
exit $status
