#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plot gatherv_bench CSV: average time against b per problem type, gather on top, scatter below.

    python3 perf_tests/plot_gatherv.py results/gatherv-....csv out.png
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1])))
p = rows[0]["p"]
problems = list(dict.fromkeys(r["problem"] for r in rows))
series = defaultdict(list)
for r in rows:
    series[(r["op"], r["problem"], r["contender"])].append((int(r["b"]), float(r["avg_us"])))
names = {"padded_regular": "MPI regular, padded", "guideline2": "guideline 2 (Allreduce + padded)",
         "mpi_v": "MPI v-collective", "kokkosddt_v": "KokkosDDT (Träff tree)"}
fig, axes = plt.subplots(2, len(problems), figsize=(3.2 * len(problems), 6.4), sharex=True)
for i, op in enumerate(["gather", "scatter"]):
    for j, prob in enumerate(problems):
        ax = axes[i][j]
        for c, label in names.items():
            pts = sorted(series[(op, prob, c)])
            if pts:
                ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=label,
                        linewidth=2.5 if c == "kokkosddt_v" else 1.2)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{op}v, {prob}", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        if j == 0:
            ax.set_ylabel("avg time (us), slowest process")
        if i == 1:
            ax.set_xlabel("b (ints per process, average)")
axes[0][0].legend(fontsize=7)
fig.suptitle(f"Irregular gather/scatter, p = {p}, root p/2 (traff-gatherv19 section 5)")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
