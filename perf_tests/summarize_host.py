#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Summarize pack_bench_host runs: the median of each time over the runs given, a Markdown table with the goal
check of issue 2, and a PNG plot (time per packed size, one panel per type family).

    summarize_host.py run1.csv [run2.csv ...] --markdown out.md --png out.png
"""
import argparse
import csv
import statistics
from collections import OrderedDict


def load(paths):
    rows = OrderedDict()
    threads = None
    for path in paths:
        with open(path) as f:
            reader = csv.DictReader(f)
            many = [c for c in reader.fieldnames if c.startswith("ddt_") and c != "ddt_1t_us"][0]
            for r in reader:
                key = (r["family"], int(r["block_bytes"]), int(r["packed_bytes"]))
                entry = rows.setdefault(key, {"hand": [], "mpi": [], "ddt1": [], "ddtn": []})
                entry["hand"].append(float(r["hand_us"]))
                entry["mpi"].append(float(r["mpi_pack_us"]))
                entry["ddt1"].append(float(r["ddt_1t_us"]))
                entry["ddtn"].append(float(r[many]))
                threads = int(r["threads"])
    return {k: {m: statistics.median(v) for m, v in e.items()} for k, e in rows.items()}, threads, len(paths)


def us(x):
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 1000 else f"{x:.0f}"


def size_label(b):
    return f"{b // (1 << 20)} MiB" if b >= 1 << 20 else f"{b // 1024} KiB" if b >= 1024 else f"{b} B"


def markdown(rows, threads, runs):
    out = [f"| type | block | packed | hand µs | MPI_Pack µs | KokkosDDT 1T µs | KokkosDDT {threads}T µs "
           f"| vs hand | vs MPI_Pack | {threads}T speed-up | goal |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    met = missed = 0
    for (family, block, packed), t in rows.items():
        vs_hand, vs_mpi = t["hand"] / t["ddt1"], t["mpi"] / t["ddt1"]
        ok = vs_mpi >= 1.0 and (block < 64 or vs_hand >= 0.9)
        met += ok
        missed += not ok
        out.append(f"| {family} | {block or '-'} | {size_label(packed)} | {us(t['hand'])} | {us(t['mpi'])} "
                   f"| {us(t['ddt1'])} | {us(t['ddtn'])} | {vs_hand:.2f} | {vs_mpi:.2f} "
                   f"| {t['ddt1'] / t['ddtn']:.2f} | {'met' if ok else '**missed**'} |")
    out.append("")
    out.append(f"Medians of {runs} runs. Goal (one thread): ≥ 1.0× MPI_Pack on every case and ≥ 0.9× the hand loop "
               f"for blocks ≥ 64 B: met on {met} of {met + missed} cases.")
    return "\n".join(out)


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = OrderedDict()
    for (family, block, packed), t in rows.items():
        name = family if family in ("contiguous", "subarray4d", "struct") else f"{family} {block} B"
        panels.setdefault(name, []).append((packed, t))
    names = list(panels)
    cols = 4
    nrows = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4 * cols, 3 * nrows), squeeze=False)
    for ax, name in zip(axes.flat, names):
        pts = sorted(panels[name])
        x = [p / 1024 for p, _ in pts]
        for key, label, style in (("hand", "hand loop", "k--"), ("mpi", "MPI_Pack", "r-o"),
                                  ("ddt1", "KokkosDDT 1T", "b-s"), ("ddtn", "KokkosDDT 2T", "c-^")):
            ax.loglog(x, [t[key] for _, t in pts], style, label=label, markersize=3)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("packed KiB", fontsize=8)
        ax.set_ylabel("µs", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.suptitle("KokkosDDT host pack (OpenMP) vs hand-written loops vs MPICH MPI_Pack: time vs packed size")
    fig.tight_layout()
    fig.savefig(path, dpi=110)

    # Speed relative to MPI_Pack, one thread: every family on one chart.
    fig, ax = plt.subplots(figsize=(9, 5))
    ax.set_prop_cycle(color=plt.cm.tab20.colors)
    for name in names:
        pts = sorted(panels[name])
        ax.semilogx([p / 1024 for p, _ in pts], [t["mpi"] / t["ddt1"] for _, t in pts], "-o", markersize=3,
                    label=name)
    ax.axhline(1.0, color="k", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xlabel("packed KiB")
    ax.set_ylabel("MPI_Pack time / KokkosDDT time (1 thread)")
    ax.set_title("KokkosDDT speed relative to MPICH MPI_Pack (> 1: faster)")
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(path.replace(".png", "-vs-mpi.png"), dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--markdown")
    ap.add_argument("--png")
    a = ap.parse_args()
    rows, threads, runs = load(a.csv)
    table = markdown(rows, threads, runs)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(table + "\n")
    else:
        print(table)
    if a.png:
        plot(rows, a.png)


if __name__ == "__main__":
    main()
