#!/usr/bin/env bash
# Issue 73, tenth session: ncu (full set) of our plan's pack and unpack kernels at 256^3 w1 and 16^3 w1 over "mpi" (the
# 256^3 pack of a 2 MiB face takes ~17 us alone on the GPU, a plain copy kernel 4.7 us: team_cost.cu), ncu on rank 0
# only (one ncu per rank hung). Build as lease-s10.sh. Everything into $OUT/res.tgz at the end (few files come back).
set -u
out=/tmp/s11; rm -rf $out; mkdir -p $out
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PATH=/opt/ompi-cuda/bin:/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*" | tee -a "$out/session.log"; }
finish() { tar czf $OUT/res.tgz -C $out . ; }
trap finish EXIT
jobs=$(env -u OMP_NUM_THREADS nproc)
tar xzf .carry/ompi-cuda.tgz -C /
stamp "library build"
tree=/tmp/lib-tree
rm -rf $tree /tmp/lib-src && mkdir -p $tree /tmp/lib-src
tar xzf .carry/head.tgz -C $tree
tar xzf .carry/tpls/kokkos-4.6.01.tar.gz -C /tmp/lib-src
(cd $tree && FETCHCONTENT_SOURCE_DIR_KOKKOS=/tmp/lib-src/kokkos-4.6.01 cmake --preset cuda -DKokkosDDT_ENABLE_TESTS=OFF \
  -DKokkosDDT_ENABLE_PERF_TESTS=OFF -DKokkosDDT_ENABLE_EXAMPLES=OFF -DKokkosDDT_ENABLE_KOKKOS_KERNELS=OFF \
  -DMPI_CXX_COMPILER=/opt/ompi-cuda/bin/mpicxx -DMPI_C_COMPILER=/opt/ompi-cuda/bin/mpicc &&
  cmake --build build/cuda -j "$jobs" && cmake --install build/cuda --prefix /tmp/kinst) > "$out/lib-build.log" 2>&1 ||
  { stamp "LIBRARY BUILD FAILED"; exit 1; }
sed -i 's/^default_arch="sm_70"/default_arch="sm_90"/' /tmp/kinst/bin/nvcc_wrapper
stamp "cabana + halo_vs_cabana build"
(export CXX=/tmp/kinst/bin/nvcc_wrapper OUT=$out/cabana CABANA_STAGE=build
  bash perf_tests/cabana/run_cabana.sh /tmp/kinst 2 large) > "$out/cabana-stage-build.log" 2>&1 ||
  { stamp "CABANA BUILD FAILED"; exit 1; }
hvc=/tmp/cabana-bench/hvc/halo_vs_cabana
for cell in "256 1" "16 1" "256 4"; do
  set -- $cell; n=$1; w=$2
  stamp "ncu $n $w"
  rep=$out/ncu-$n-$w
  timeout 100 mpiexec -n 2 bash -c "if [ \$OMPI_COMM_WORLD_RANK = 0 ]; then exec ncu --set full --import-source no --kernel-name-base demangled \
    -k regex:UniformFused --launch-skip 2 --launch-count 4 -o $rep -f $hvc --space device --transport mpi --sizes $n \
    --widths $w; else exec $hvc --space device --transport mpi --sizes $n --widths $w; fi" > $out/hvc-ncu-$n-$w.txt 2>&1
  stamp "ncu $n $w rc $?"
  ncu -i $rep.ncu-rep --page details > $rep.details.txt 2>&1
  ncu -i $rep.ncu-rep --page source --csv --print-source sass > $rep.source.csv 2>&1
  ncu -i $rep.ncu-rep --page raw --csv > $rep.raw.csv 2>&1
  gzip -q $rep.source.csv $rep.raw.csv
done
stamp done
ncu --set full --kernel-name-base demangled -k regex:pack --launch-skip 20 --launch-count 2 -o $out/ncu-mb -f .carry/mb/team_cost > $out/ncu-mb.txt 2>&1
ncu -i $out/ncu-mb.ncu-rep --page details > $out/ncu-mb.details.txt 2>&1
