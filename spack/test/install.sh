#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `spack install kokkos-ddt`, executed offline, the way a user on a machine without internet would do it:
#   1. Spack and clingo (its concretizer's solver) from the project's third-party archives (../shared/tpls);
#      clingo's Python module is built once and cached outside the source tree;
#   2. a throw-away Spack instance: its own config, install tree and caches under the work folder, the system
#      compiler and the system's cmake, ninja, mpich and catch2 registered as externals, this repository's spack/
#      package repository added, a local mirror holding the kokkos, kokkos-kernels and kokkos-ddt archives
#      (kokkos-ddt from `git archive` of the working tree's tracked files);
#   3. `spack install --test=root kokkos-ddt` with the default variants, then with +kernels;
#   4. examples/consumer built against each install through `spack load`.
# Usage: spack/test/install.sh [stage...]   stages: clingo spack [deps] install consumer (default: all but deps, in
# that order; deps installs the specs' dependencies alone)
# Environment: KOKKOSDDT_TPLS (archives, default ../shared/tpls), KOKKOSDDT_SPACK_CACHE (clingo build, default
# ~/.cache/kokkosddt-spack), KOKKOSDDT_CLINGO_PREFIX (a clingo built elsewhere for this python: its lib/ and py/),
# KOKKOSDDT_SPACK_WORK (the Spack instance, default build/spack-test; wiped by `spack`), KOKKOSDDT_SPACK_JOBS (build
# jobs, default: the cores), KOKKOSDDT_SPACK_SPECS (the specs to install, ';'-separated), KOKKOSDDT_SPACK_MPI (the
# system's MPI package: mpich, the default, or openmpi), KOKKOSDDT_CATCH2_PREFIX (the Catch2 install, default /usr),
# KOKKOSDDT_SPACK_CUDA=1 (the CUDA toolkit on PATH registered as an external, for +cuda specs).
# Needs: python3 with its headers (python3-dev), bison, re2c, a C++ compiler, cmake, ninja, git, an MPI, catch2.
# On a GPU machine (perf_tests/results/spack-cuda-*.log):
#   KOKKOSDDT_SPACK_CUDA=1 KOKKOSDDT_SPACK_MPI=openmpi KOKKOSDDT_SPACK_SPECS="kokkos-ddt@=0.1.0+cuda cuda_arch=90" \
#     spack/test/install.sh spack install
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tpls=${KOKKOSDDT_TPLS:-$src/../shared/tpls}
cache=${KOKKOSDDT_SPACK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kokkosddt-spack}
work=${KOKKOSDDT_SPACK_WORK:-$src/build/spack-test}
jobs=${KOKKOSDDT_SPACK_JOBS:-$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)}
python=$(command -v python3)
version=$(sed -n 's/^project(KokkosDDT VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
# The two installs: the defaults, and the Kokkos Kernels examples (+kernels needs +examples: the CG example), on a
# Kokkos Kernels without explicit instantiations (our kokkos-kernels package's ~eti), as the in-tree build makes it:
# the default (+eti) also compiles the kernels' explicit instantiations, which the CG example does not need.
default_specs="kokkos-ddt@=$version;kokkos-ddt@=$version+kernels+examples ^kokkos-kernels~eti"
IFS=';' read -r -a specs <<<"${KOKKOSDDT_SPACK_SPECS:-$default_specs}"

say() { printf '\n=== %s\n' "$*"; }

# clingo's Python module, built against this python; the cache key names both so that another python rebuilds.
pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
clingo_prefix=${KOKKOSDDT_CLINGO_PREFIX:-$cache/clingo-5.7.1-py$pyver-$(printf '%s' "$python" | sha1sum | cut -c1-8)}
mpi_package=${KOKKOSDDT_SPACK_MPI:-mpich}
catch2_prefix=${KOKKOSDDT_CATCH2_PREFIX:-/usr}
export PYTHONPATH=$clingo_prefix/py${PYTHONPATH:+:$PYTHONPATH}
export LD_LIBRARY_PATH=$clingo_prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

stage_clingo() {
  if "$python" -c 'import clingo, sys; sys.exit(clingo.__version__ != "5.7.1")' 2>/dev/null; then
    say "clingo 5.7.1 for python $pyver: cached at $clingo_prefix"
    return
  fi
  say "clingo 5.7.1 for python $pyver: building into $clingo_prefix (once)"
  local tmp
  tmp=$(mktemp -d)
  tar xzf "$tpls/clingo-5.7.1.tar.gz" -C "$tmp"
  local tree
  tree=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -1)
  cmake -S "$tree" -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$python" \
    -DCLINGO_BUILD_WITH_PYTHON=ON -DCLINGO_BUILD_WITH_LUA=OFF -DCLINGO_BUILD_APPS=OFF -DCLINGO_BUILD_EXAMPLES=OFF \
    -DCLINGO_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$clingo_prefix" -DPYCLINGO_USER_INSTALL=OFF \
    -DPYCLINGO_INSTALL_DIR="$clingo_prefix/py" >"$tmp/configure.log"
  cmake --build "$tmp/build" -j "$jobs" >"$tmp/build.log"
  cmake --install "$tmp/build" >/dev/null
  rm -rf "$tmp"
  "$python" -c 'import clingo; print("clingo", clingo.__version__)'
}

# Spack, confined to $work: its own user and system configuration scopes, caches, stage and install tree.
spack_root=$work/spack
export SPACK_USER_CONFIG_PATH=$work/user-config SPACK_SYSTEM_CONFIG_PATH=$work/system-config
export SPACK_USER_CACHE_PATH=$work/user-cache SPACK_PYTHON=$python
# From /: under Python 3.12 this Spack reads the mirror's file:///abs/path as the relative path abs/path (seen on the
# GPU machines' python 3.12), which from / is the same path. Every path handed to it here is absolute.
spack() { (cd / && "$spack_root/bin/spack" "$@"); }

stage_spack() {
  say "Spack 0.23.0.dev0 in $work (fresh)"
  rm -rf "$work"
  mkdir -p "$work/mirror"
  tar xzf "$tpls/spack-0.23.0.dev0-e8f8cf8.tar.gz" -C "$work"
  spack --version
  # No bootstrapping (it downloads): the clingo above is imported instead.
  spack bootstrap disable
  spack config --scope site add "config:build_stage:[$work/stage]"
  spack config --scope site add "config:build_jobs:$jobs"
  spack compiler find --scope site
  # The system's tools and MPI, never rebuilt. catch2 is a library, which this Spack cannot detect: declared by hand.
  spack external find --scope site --not-buildable cmake ninja gmake "$mpi_package" python
  # The CUDA toolkit (+cuda specs): the one on PATH, never built.
  if [ "${KOKKOSDDT_SPACK_CUDA:-0}" = 1 ]; then spack external find --scope site --not-buildable cuda; fi
  local catch2
  catch2=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")/\1/p' "$(find "$catch2_prefix" -path '*cmake/Catch2/Catch2ConfigVersion.cmake' | head -1)")
  cat >"$work/packages-extra.yaml" <<YAML
packages:
  catch2:
    externals: [{spec: catch2@$catch2, prefix: $catch2_prefix}]
    buildable: false
  all:
    providers:
      mpi: [$mpi_package]
YAML
  spack config --scope site add -f "$work/packages-extra.yaml"
  spack repo add --scope site "$src/spack"
  # The mirror: upstream's release archives from $tpls, and this working tree as a release archive would be.
  mkdir -p "$work/mirror/kokkos" "$work/mirror/kokkos-nvcc-wrapper" "$work/mirror/kokkos-kernels" "$work/mirror/kokkos-ddt"
  cp "$tpls/kokkos-4.6.01.tar.gz" "$work/mirror/kokkos/"
  # (+cuda: Kokkos' nvcc_wrapper comes from the same archive, under its package's name)
  cp "$tpls/kokkos-4.6.01.tar.gz" "$work/mirror/kokkos-nvcc-wrapper/kokkos-nvcc-wrapper-4.6.01.tar.gz"
  cp "$tpls/kokkos-kernels-4.7.00.tar.gz" "$work/mirror/kokkos-kernels/"
  stage_archive
  spack mirror add --scope site local "file://$work/mirror"
  spack config get packages
  spack compilers
}

# The working tree as a release archive would hold it: its files that git tracks or would track (not ignored), as they
# are, committed or not (from the file list, not a commit: a copy of the tree whose .git is older still works).
stage_archive() {
  (cd "$src" && git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
    [ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"
  done | tar --null -T - --transform "s,^,kokkos-ddt-$version/," -czf "$work/mirror/kokkos-ddt/kokkos-ddt-$version.tar.gz")
  rm -rf "$spack_root/var/spack/cache/_source-cache/archive"/*/kokkos-ddt* "$spack_root/var/spack/cache/kokkos-ddt"
}

# The specs' dependencies alone (a GPU machine's command time is limited: Kokkos first, then the install).
stage_deps() {
  for spec in "${specs[@]}"; do
    say "spack install --fresh --only dependencies $spec"
    spack install --fresh --only dependencies --no-checksum --show-log-on-error "$spec"
  done
}

stage_install() {
  : >"$work/installed"
  for spec in "${specs[@]}"; do
    say "spack spec $spec"
    # --fresh: this Spack cannot weigh an installed undeclared version (the first install's @=$version) against a new
    # build of it ("version weights must exist and be unique"); identical dependencies are still used as installed.
    spack spec -I --fresh "$spec"
    say "spack install --test=root --fresh --no-checksum $spec"
    # --no-checksum: the kokkos-ddt archive is this working tree's, so its checksum is not in the recipe (the kokkos
    # and kokkos-kernels archives are checked against theirs).
    spack install --test=root --fresh --no-checksum --show-log-on-error "$spec"
    local hash
    hash=$(spack find --format '{hash}' "$spec" | tail -1)
    echo "$hash $spec" >>"$work/installed"  # the hash first: a spec may hold spaces
    spack find -lv "/$hash"
    # The tests `--test=root` ran, from the install's own log.
    grep -E "tests passed|Total Test time" "$(spack location -i "/$hash")/.spack/install-time-test-log.txt"
  done
}

# The downstream project of examples/consumer, built against each install with only what `spack load` sets.
stage_consumer() {
  while read -r hash spec; do
    say "examples/consumer through spack load /$hash ($spec)"
    local build=$work/consumer-$hash
    (
      eval "$(spack load --sh "/$hash")"
      # The consumer checks that find_package found this install's own Kokkos.
      local kokkos
      kokkos=$(spack find -d --format '{name} {prefix}' "/$hash" | awk '$1 == "kokkos" { print $2 }')
      cmake -S "$src/examples/consumer" -B "$build" -DKOKKOSDDT_EXPECTED_KOKKOS_PREFIX="$kokkos"
      cmake --build "$build"
      OMP_NUM_THREADS=1 OMP_PROC_BIND=false "$build/consumer"
    )
  done <"$work/installed"
}

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(clingo spack install consumer)
for s in "${stages[@]}"; do "stage_$s"; done
