#!/usr/bin/env bash
# Builds .carry/micro/phases.cpp against build/openmp (made by call-gv.sh) with gatherv_bench's flags, runs it at 16.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false OMP_NUM_THREADS=1
cd build/openmp || exit 1
cmd=$(ninja -t commands perf_tests/gatherv_bench | grep "gatherv_bench.cpp.o -c" | tail -1)
cc=${cmd/-o perf_tests\/CMakeFiles\/gatherv_bench.dir\/gatherv_bench.cpp.o -c \/*gatherv_bench.cpp/-o /tmp/phases.o -c $PWD\/..\/..\/.carry\/micro\/phases.cpp}
cc=${cc/-MD -MT perf_tests\/CMakeFiles\/gatherv_bench.dir\/gatherv_bench.cpp.o -MF perf_tests\/CMakeFiles\/gatherv_bench.dir\/gatherv_bench.cpp.o.d/}
link=$(ninja -t commands perf_tests/gatherv_bench | tail -1)
link=${link/perf_tests\/CMakeFiles\/gatherv_bench.dir\/gatherv_bench.cpp.o -o perf_tests\/gatherv_bench/\/tmp\/phases.o -o \/tmp\/phases}
(eval "${cc#: && }" && eval "${link#: && }") 2>&1 | tail -5
ls -la /tmp/phases || exit 1
for b in 1 10 100; do echo "== b=$b"; timeout 60 mpiexec ${BIND---bind-to core} -n ${NP:-16} /tmp/phases $b 3000 2>&1 | grep -E "root:"; done
