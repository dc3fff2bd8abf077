#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where a kernel's instructions go, by source line: reads ncu's source page of one profiled launch, built with
-lineinfo (NVCC_APPEND_FLAGS=-lineinfo), and prints the instructions executed per warp by file and by line.

    ncu --csv --page source --print-source cuda,sass --import-source yes --section SourceCounters \
        --kernel-name-base demangled -k regex:FusedKernel --launch-skip 20 --launch-count 1 jacobi3d 64 40 auto > src.csv
    python3 ncu_source_lines.py src.csv WARPS [LINES]     (WARPS: the launch's warps, e.g. 64 teams x 8 = 512)
"""
import collections
import csv
import sys

path, warps = sys.argv[1], float(sys.argv[2])
f = None; rows = []
for r in csv.reader(open(path)):
    if not r: continue
    if r[0] == "File Path": f = r[1]; continue
    if r[0] in ("Function Name", "Line No"): continue
    if f and r[0] and len(r) > 8 and r[0].isdigit():
        try: rows.append((f.split("/")[-1], int(r[0]), r[1].strip()[:90], int(r[7]), int(r[6])))
        except ValueError: pass
tot = sum(x[3] for x in rows); ts = sum(x[4] for x in rows)
print(f"total {tot} warp inst = {tot/warps:.0f} per warp; samples {ts}")
byfile = collections.Counter()
for x in rows: byfile[x[0]] += x[3]
for k, v in byfile.most_common(): print(f"  {k:<45} {v/warps:7.1f}")
print()
for x in sorted(rows, key=lambda x: -x[3])[:int(sys.argv[3]) if len(sys.argv) > 3 else 45]:
    print(f"{x[0][:28]:<28} {x[1]:5d} {x[3]/warps:7.1f} {x[4]:5d}  {x[2]}")
