#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A GPU session longer than one call of a lent machine (calls of at most 10 minutes, each returning only what it left
# in $OUT): the session runs in the background and each call collects what it has written so far.
#
#   bash perf_tests/lease.sh start SCRIPT [SECONDS]   run SCRIPT (bash, from the repository root) in the background
#                                                     under setsid, wait up to SECONDS (default 540) for it to end
#   bash perf_tests/lease.sh wait [SECONDS]           a later call: wait up to SECONDS more (default 540)
#
# SCRIPT writes its files into $LEASE_DIR (exported; default /tmp/lease), its output going to $LEASE_DIR/session.log;
# when it ends, $LEASE_DIR/DONE holds its exit status. Every call ends by packing $LEASE_DIR into $OUT/lease.tgz, so
# that what a cut-off call had written still comes back. `wait` on a machine where `start` never ran (a lent machine
# given back between calls, then a fresh one) says so and exits 3 at once, instead of waiting for files that are not
# there. Exit status: SCRIPT's once it has ended, 2 while it is still running, 3 as above.
set -uo pipefail
LEASE_DIR=${LEASE_DIR:-/tmp/lease}
OUT=${OUT:-$PWD/gpu-out}
export LEASE_DIR
mode=${1:?usage: lease.sh start SCRIPT [SECONDS] | lease.sh wait [SECONDS]}
shift
collect() {  # waits up to $1 seconds for DONE, packs what there is, returns the session's state
  local until=$((SECONDS + $1))
  while [ ! -f "$LEASE_DIR/DONE" ] && [ "$SECONDS" -lt "$until" ]; do sleep 3; done
  mkdir -p "$OUT"
  tar czf "$OUT/lease.tgz" -C "$LEASE_DIR" . 2> /dev/null
  tail -n 5 "$LEASE_DIR/session.log" 2> /dev/null
  if [ -f "$LEASE_DIR/DONE" ]; then
    echo "lease.sh: the session ended, exit $(cat "$LEASE_DIR/DONE")"
    return "$(cat "$LEASE_DIR/DONE")"
  fi
  echo "lease.sh: still running; call \`lease.sh wait\` again within the machine's idle time"
  return 2
}
case $mode in
  start)
    script=${1:?usage: lease.sh start SCRIPT [SECONDS]}
    [ -f "$script" ] || { echo "lease.sh: no script $script" >&2; exit 1; }
    rm -rf "$LEASE_DIR" && mkdir -p "$LEASE_DIR"
    # shellcheck disable=SC2016  # (expanded by the inner shell)
    setsid nohup bash -c 'bash "$1" > "$LEASE_DIR/session.log" 2>&1; echo $? > "$LEASE_DIR/DONE.part" &&
      mv "$LEASE_DIR/DONE.part" "$LEASE_DIR/DONE"' lease "$script" < /dev/null > /dev/null 2>&1 &
    collect "${2:-540}"
    ;;
  wait)
    if [ ! -d "$LEASE_DIR" ]; then
      echo "lease.sh: no $LEASE_DIR here: this is not the machine \`lease.sh start\` ran on (its work is gone)"
      exit 3
    fi
    collect "${1:-540}"
    ;;
  *)
    echo "usage: lease.sh start SCRIPT [SECONDS] | lease.sh wait [SECONDS]" >&2
    exit 1
    ;;
esac
