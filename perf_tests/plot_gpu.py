#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots pack_bench_gpu's CSV: time vs packed size, one panel per type, one line per contender.

    plot_gpu.py bench.csv --png out.png
"""
import argparse
import csv
from collections import OrderedDict, defaultdict

STYLE = {
    "kokkosddt": ("b-s", "KokkosDDT"),
    "hand": ("k--", "hand-written kernel"),
    "memcpy2D": ("g-^", "cudaMemcpy2DAsync"),
    "memcpy3D": ("g-^", "iterative cudaMemcpy3DAsync"),
    "per_block": ("g-^", "per-block cudaMemcpyAsync"),
    "cudaMemcpy": ("g-^", "cudaMemcpyAsync"),
    "deep_copy": ("m-o", "Kokkos::deep_copy of a subview"),
    "ddt_wall": ("c-s", "KokkosDDT + fence (wall)"),
    "yaksa_wall": ("r-o", "yaksa (wall)"),
    "zero_copy": ("b-s", "KokkosDDT into pinned host"),
    "pack+memcpy": ("m-o", "pack, then D2H memcpy"),
    "memcpy_d2h": ("k--", "D2H memcpy of the packed bytes"),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--png", required=True)
    a = ap.parse_args()
    panels = OrderedDict()
    with open(a.csv) as f:
        for r in csv.DictReader(f):
            if r["section"] in ("limits", "latency"):
                continue
            block = int(r["block_bytes"])
            name = f"{r['section']}: {r['type']}" + (f" {block} B" if r["section"] in ("vector", "d2h") else "")
            panels.setdefault(name, defaultdict(list))[r["contender"]].append(
                (int(r["packed_bytes"]) / 1024, float(r["us"])))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cols = 4
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    for ax, (name, series) in zip(axes.flat, panels.items()):
        for contender, pts in series.items():
            pts.sort()
            style, label = STYLE.get(contender, ("y-", contender))
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], style, label=label, markersize=3)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("packed KiB", fontsize=8)
        ax.set_ylabel("µs", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.suptitle("KokkosDDT on the GPU vs the alternatives: time vs packed size (lower is better)")
    fig.tight_layout()
    fig.savefig(a.png, dpi=100)


if __name__ == "__main__":
    main()
