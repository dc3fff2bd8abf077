#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots fusion_bench's CSV: halo exchange time vs grid size (one panel per field count and ghost width, one line per
contender) and the threshold sweep (time and launches vs threshold, the model's threshold marked).

    plot_fusion.py fusion.csv --png out.png [--title TEXT]
"""
import argparse
import csv
from collections import defaultdict

STYLE = {
    "fused": ("b-s", "KokkosDDT fusion queue"),
    "sync": ("r-^", "per region, fence each"),
    "async": ("m-o", "per region, one fence"),
    "deep_copy": ("g-v", "Kokkos::deep_copy per region"),
    "hand": ("k--", "hand-fused index lists"),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--png", required=True)
    ap.add_argument("--title", default="Bulk 3-D halo exchange: 26 regions x F fields, pack + unpack")
    a = ap.parse_args()
    halo = defaultdict(lambda: defaultdict(list))
    sweep, model = [], None
    with open(a.csv) as f:
        for r in csv.DictReader(f):
            if r["section"] == "halo" and r["contender"] in STYLE and float(r["us"]) > 0:  # (-1: not timed)
                halo[(int(r["fields"]), int(r["w"]))][r["contender"]].append((int(r["n"]), float(r["us"])))
            elif r["section"] == "sweep":
                point = (int(r["threshold"]), float(r["us"]), int(r["launches"]))
                if r["contender"] == "model":
                    model = point
                else:
                    sweep.append(point)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = sorted(halo)
    cols = 3
    rows = (len(panels) + 1 + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.6 * rows), squeeze=False)
    for ax, key in zip(axes.flat, panels):
        for contender, pts in halo[key].items():
            pts.sort()
            style, label = STYLE[contender]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label, markersize=4)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"F = {key[0]} fields, ghost width {key[1]}", fontsize=9)
        ax.set_xlabel("n (grid n^3 per field)")
        ax.set_ylabel("us")
        ax.legend(fontsize=6)
    ax = axes.flat[len(panels)]
    if sweep:
        sweep.sort()
        ax.plot([p[0] / 1024 for p in sweep], [p[1] for p in sweep], "b-s", markersize=4, label="fixed threshold")
        if model:
            ax.plot([model[0] / 1024], [model[1]], "r*", markersize=12, label="the model's threshold")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("threshold (KiB)")
        ax.set_ylabel("us")
        ax.set_title("threshold sweep (Fig. 8 of the seed)", fontsize=9)
        ax.legend(fontsize=6)
    for extra in list(axes.flat)[len(panels) + 1:]:
        extra.axis("off")
    fig.suptitle(a.title)
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)


if __name__ == "__main__":
    main()
