#!/usr/bin/env bash
# Call 1 of 2 (fresh machine): multi_gpu.sh's cabana-build step (the working tree's library, Cabana, halo_vs_cabana),
# then where the direct route's time goes under MPS at 128^3 and 256^3 (w1): halo_vs_cabana with the CUPTI timeline,
# landing by the rule against KOKKOSDDT_PEER_LANDING=never; region_summary.py on each trace. All into $OUT/res13.tgz.
set -u
out=/tmp/s13; rm -rf $out; mkdir -p $out
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PATH=/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*" | tee -a "$out/session.log"; }
trap 'cp -r /tmp/multi-gpu/logs $out/mg-logs 2>/dev/null; tar czf $OUT/res13.tgz -C $out .' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
stamp "multi_gpu.sh cabana-build"
RANKS=2 MULTI_GPU_BUDGET_S=480 bash perf_tests/multi_gpu.sh cabana-build > $out/mg-build.txt 2>&1
tail -5 $out/mg-build.txt
hvc=/tmp/cabana-bench/hvc/halo_vs_cabana
[ -x $hvc ] || { stamp "no hvc"; exit 1; }
tl=/tmp/libkokkosddt_timeline.so
g++ -O2 -std=c++17 -shared -fPIC perf_tests/timeline/kokkosddt_timeline.cpp -I/usr/local/cuda/include \
  -L/usr/local/cuda/lib64 -lcupti -lcuda -Wl,-rpath,/usr/local/cuda/lib64 -o $tl > "$out/timeline-build.log" 2>&1 ||
  stamp "TIMELINE BUILD FAILED"
export PATH=/opt/ompi-cuda/bin:$PATH
nvidia-cuda-mps-control -d
for landing in rule never; do
  stamp "traced, MPS, landing $landing"
  env=""; [ $landing = never ] && env="-x KOKKOSDDT_PEER_LANDING=never"
  timeout 100 mpiexec -n 2 $env -x KOKKOS_TOOLS_LIBS=$tl -x KOKKOSDDT_TIMELINE=$out/tl-$landing $hvc --space device \
    --transport auto --sizes 128,256 --widths 1 --csv "$out/hvc-$landing.csv" > "$out/hvc-$landing.txt" 2>&1
  python3 perf_tests/timeline/region_summary.py $out/tl-$landing --csv "$out/regions-$landing.csv" \
    > "$out/regions-$landing.txt" 2>&1
done
echo quit | nvidia-cuda-mps-control
gzip -q $out/tl-* 2>/dev/null
stamp done
