#!/bin/bash
# Rank 0 under callgrind (MPICH sets PMI_RANK), collecting only where the program toggles it; TAG names the output.
if [ "$PMI_RANK" = "0" ]; then
  exec valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=callgrind.out.$TAG "$@" 2>/dev/null
else
  exec "$@"
fi
