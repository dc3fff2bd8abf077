#!/usr/bin/env bash
# Issue 73, planned for the next session (not run yet): does the peer route's landing rule cost the gather at 128^3 and
# 256^3 when both processes share one GPU? The rule (mpi/transports/peer/KokkosDDT_PeerTransport.cpp, landed_by_rule)
# lands a receive whose runs are short and many (a face of isolated elements: this study's), so that a sender on
# another GPU does not write it one small NVLink store per element; the gather then takes a pack and an unpack (two
# passes over the face's sectors, 15-26 us each at 256^3). Between two processes of one GPU a "remote" store is a
# local one: the direct typed copy would take one pass. KOKKOSDDT_PEER_LANDING=never forces the direct route, no code
# change: halo_vs_cabana auto, rule against never, 64^3-256^3, widths 1 and 4, under MPS and time-sliced.
# KokkosDDT's library from .carry/head.tgz against the carried CUDA-aware Open MPI, Cabana and halo_vs_cabana on it
# (perf_tests/cabana/device_build.sh). Everything into $OUT/res.tgz at the end (a call brings back only a few files).
#   run: bash next-session-planned.sh          (about 7 minutes)
set -u
out=/tmp/landing; rm -rf $out; mkdir -p $out
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PATH=/opt/ompi-cuda/bin:/usr/local/cuda/bin:$PATH
stamp() { echo "==== $(date -u +%T) $*" | tee -a "$out/session.log"; }
trap 'tar czf $OUT/res.tgz -C $out .' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
tar xzf .carry/ompi-cuda.tgz -C /
stamp "library, Cabana and halo_vs_cabana build"
bash perf_tests/cabana/device_build.sh .carry/head.tgz /tmp/kinst $out 2>&1 | tee -a $out/session.log
[ "${PIPESTATUS[0]}" = 0 ] || exit 1
hvc=/tmp/cabana-bench/hvc/halo_vs_cabana
for mps in on off; do
  [ $mps = on ] && nvidia-cuda-mps-control -d
  for round in 1 2; do
    for landing in rule never; do
      stamp "MPS $mps, landing $landing, round $round"
      env=""; [ $landing = never ] && env="-x KOKKOSDDT_PEER_LANDING=never"
      timeout 150 mpiexec -n 2 $env $hvc --space device --transport auto --sizes 64,128,256 --widths 1,4 \
        --csv "$out/hvc-$mps-$landing-$round.csv" > "$out/hvc-$mps-$landing-$round.txt" 2>&1
    done
  done
  [ $mps = on ] && echo quit | nvidia-cuda-mps-control
done
stamp done
