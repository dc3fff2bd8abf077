#!/bin/bash
# ptxas -v of the fused-launch ETI object: HEAD (/work/main) and fb0b33d (/tmp/wt-fb0)
export PATH=/usr/local/cuda/bin:$PATH
cd /work/main/build/cudacheck
B=/work/main/build/cudacheck
for tag in ${TAGS:-head fb0}; do
  src=/work/main; [ $tag = fb0 ] && src=/tmp/wt-fb0; [ $tag = d9a ] && src=/tmp/wt-d9a; [ $tag = d3a ] && src=/tmp/wt-d3a; [ $tag = exA ] && src=/tmp/wt-exA; [ $tag = exB ] && src=/tmp/wt-exB
  I="-I$src/core/src -I$src/core/src/types -I$src/core/src/commit -I$src/core/src/traversal -I$src/core/src/pack -I$src/core/src/fusion -I$src/backends -I$B/generated -I$src/backends/cuda -I$src/backends/openmp -I$src/backends/serial"
  S="-isystem $B/_deps/kokkos-build -isystem $B/_deps/kokkos-build/core/src -isystem $B/_deps/kokkos-src/core/src -isystem $B/_deps/kokkos-src/tpls/desul/include -isystem $B/_deps/kokkos-src/tpls/mdspan/include -isystem /usr/local/cuda/include -isystem $B/_deps/kokkos-build/containers/src -isystem $B/_deps/kokkos-src/containers/src -isystem $B/_deps/kokkos-build/algorithms/src -isystem $B/_deps/kokkos-src/algorithms/src -isystem $B/_deps/kokkos-build/simd/src -isystem $B/_deps/kokkos-src/simd/src"
  ( time $B/_deps/kokkos-src/bin/nvcc_wrapper -DKOKKOS_DEPENDENCE $I $S -O3 -DNDEBUG -fPIC -extended-lambda -arch=sm_90 -fopenmp -std=c++17 -Xptxas -v -o /tmp/fl-$tag.o -c /tmp/eti-$tag.cpp ) > /tmp/ptx-$tag.log 2>&1
done
touch /tmp/ptxv.done
