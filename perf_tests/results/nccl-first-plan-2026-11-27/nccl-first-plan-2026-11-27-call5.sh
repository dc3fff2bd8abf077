#!/usr/bin/env bash
# Device (4 GPUs), issue 46: NCCL's CTA (channel) limit against the first plan's connections and the step's pace:
# jacobi_bench 64^3 and 128^3 per GPU (make + step) and halo_bench's NCCL table, per NCCL_MAX_CTAS, 4 ranks.
export OUT=${OUT:-$PWD/gpu-out} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=1
t0=$SECONDS
BUILD_TARGETS="jacobi_bench halo_bench" STEPS="environment kokkos build" bash .carry/call-routes.sh | grep -E "^====|exit" | tail -2
echo "## built after $((SECONDS - t0)) s"
for m in default 16 8 4 2; do
  vars=(); [ $m = default ] || vars=(-x NCCL_MAX_CTAS=$m)
  for pr in 64 128; do
    timeout 60 mpiexec -n 4 "${vars[@]}" build/cuda/perf_tests/jacobi_bench --per-rank $pr --iterations 300 --repeats 3 \
      --exchanges plan-nccl,plan-nccl --csv "/tmp/jb-$m-$pr.csv" > "/tmp/jb-$m-$pr.log" 2>&1
    echo "## ctas $m jacobi $pr: $(grep -E '^plan-nccl ' /tmp/jb-$m-$pr.log | awk -F'|' '{printf "[%s|%s] ", $2, $3}')"
  done
  timeout 120 mpiexec -n 4 "${vars[@]}" build/cuda/perf_tests/halo_bench --csv "/tmp/halo-$m.csv" > "/tmp/halo-$m.log" 2>&1
  echo "## ctas $m halo rc=$? $(grep -iE 'nccl' /tmp/halo-$m.csv | head -12 | tr '\n' ' ')"
done
for m in default 16 8 4 2; do sed "s/^/$m,/" /tmp/halo-$m.csv; done > "$OUT/halo-ctas.csv"
for m in default 16 8 4 2; do for pr in 64 128; do sed "s/^/$m,/" /tmp/jb-$m-$pr.csv; done; done > "$OUT/jacobi-ctas.csv"
head -30 /tmp/halo-default.log
echo "## done after $((SECONDS - t0)) s"
