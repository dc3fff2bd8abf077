#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots halo_bench CSVs: time per halo exchange step vs local grid size, one panel per CSV (machine and ranks), one
line per contender and field count.

    plot_halo.py a.csv b.csv ... --png out.png [--titles "A" "B" ...]
"""
import argparse
import csv
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {"plan": ("b", "KokkosDDT halo plan"), "hand": ("k", "hand-fused kernel + MPI"),
         "per_region": ("r", "KokkosDDT pack per region + MPI"), "deep_copy": ("g", "deep_copy staging + MPI"),
         "mpi_datatype": ("m", "MPI derived datatypes")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--png", required=True)
    ap.add_argument("--titles", nargs="*")
    a = ap.parse_args()
    fig, axes = plt.subplots(1, len(a.csv), figsize=(4.5 * len(a.csv), 4), squeeze=False)
    for i, path in enumerate(a.csv):
        lines = defaultdict(list)
        with open(path) as f:
            for r in csv.DictReader(f):
                lines[(r["contender"], int(r["fields"]))].append((int(r["n"]), float(r["us"])))
        ax = axes[0][i]
        for (contender, fields), pts in sorted(lines.items()):
            pts.sort()
            color, label = STYLE[contender]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=color, marker="o" if fields == 1 else "s",
                    linestyle="-" if fields == 1 else "--", label=f"{label}, {fields} field{'s' if fields > 1 else ''}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("local interior cells per dimension (n)")
        ax.set_ylabel("µs per exchange step")
        ax.set_title(a.titles[i] if a.titles and i < len(a.titles) else path, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("3-D halo exchange, 26 neighbours, one ghost layer: time per step (pack + messages + unpack)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)


if __name__ == "__main__":
    main()
