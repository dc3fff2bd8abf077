#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tables and a picture of jacobi_bench's scaling runs (perf_tests/multi_gpu.sh `scaling`): weak scaling (cells per
rank fixed: --per-rank N) and strong scaling (the grid fixed), microseconds per iteration per exchange and binding,
the exchange against NCCL's own messages of the same bytes, and the weak-scaling efficiency (one GPU's time over N's).

    plot_scaling.py scaling.csv [--png out.png] [--markdown]
"""
import argparse
import csv
import math
from collections import defaultdict

EXCHANGES = ["none", "plan-nccl", "plan-mpi", "hand-nccl", "nccl"]
STYLE = {"none": ("0.6", ":", "sweeps alone"), "plan-nccl": ("b", "-", "KokkosDDT plan over NCCL"),
         "plan-mpi": ("c", "-", "KokkosDDT plan over MPI (staged)"), "hand-nccl": ("k", "--", "hand kernels + NCCL"),
         "nccl": ("m", ":", "NCCL's messages alone (floor)")}


def load(path):
    """{(label, ranks, cells, exchange): row} for the 'ahead' rows (jacobi3d's loop, no host synchronization)."""
    rows = {}
    for r in csv.DictReader(open(path)):
        if r["mode"] == "ahead":
            rows[(r["label"], int(r["ranks"]), r["cells"], r["exchange"])] = r
    return rows


def cells_per_rank(cells, ranks):
    n = 1
    for x in cells.split("x"):
        n *= int(x)
    return round((n / ranks) ** (1 / 3))


def series(rows):
    """Weak series per cells-per-rank and the strong series (the largest grid), each {label: {ranks: cells}}."""
    by_size = defaultdict(lambda: defaultdict(dict))
    for (label, ranks, cells, _), _r in rows.items():
        by_size[cells][label][ranks] = cells
    strong = max(by_size, key=lambda c: math.prod(int(x) for x in c.split("x")))
    weak = defaultdict(lambda: defaultdict(dict))
    for (label, ranks, cells, _), _r in rows.items():
        if cells != strong:
            weak[cells_per_rank(cells, ranks)][label][ranks] = cells
    return weak, strong


def table(rows, markdown):
    labels = sorted({k[0] for k in rows})
    out = []
    head = ["binding", "ranks", "cells", "none", "plan-nccl", "plan-mpi", "hand-nccl", "nccl floor",
            "exchange: plan-nccl", "hand-nccl", "floor", "plan/floor"]
    out.append("| " + " | ".join(head) + " |" if markdown else "  ".join(head))
    if markdown:
        out.append("|" + "---|" * len(head))
    keys = sorted({(k[0], k[1], k[2]) for k in rows}, key=lambda k: (k[0], k[1], cells_per_rank(k[2], k[1])))
    for label, ranks, cells in keys:
        def get(e, col="us_per_iteration"):
            r = rows.get((label, ranks, cells, e))
            return float(r[col]) if r else float("nan")
        floor = get("nccl", "exchange_us")
        ratio = get("plan-nccl", "exchange_us") / floor if floor > 0.5 else float("nan")
        vals = [label, str(ranks), cells] + [f"{get(e):.1f}" for e in EXCHANGES] + \
            [f"{get(e, 'exchange_us'):.1f}" for e in ("plan-nccl", "hand-nccl", "nccl")] + \
            ["-" if math.isnan(ratio) else f"{ratio:.2f}"]
        out.append("| " + " | ".join(vals) + " |" if markdown else "  ".join(vals))
    del labels
    return "\n".join(out)


def efficiency(rows):
    """Weak-scaling efficiency per binding, cells per rank, exchange: T(1 GPU) / T(N GPUs)."""
    weak, _ = series(rows)
    out = []
    for size, by_label in sorted(weak.items()):
        for label, by_ranks in sorted(by_label.items()):
            if 1 not in by_ranks:
                continue
            for e in ("plan-nccl", "plan-mpi"):
                t1 = rows.get((label, 1, by_ranks[1], e))
                if not t1:
                    continue
                parts = []
                for n in sorted(by_ranks):
                    if n == 1:
                        continue
                    tn = rows.get((label, n, by_ranks[n], e))
                    if tn:
                        parts.append(f"{n} GPUs {100 * float(t1['us_per_iteration']) / float(tn['us_per_iteration']):.0f} %")
                out.append(f"{size}^3 per GPU, {label} binding, {e}: " + ", ".join(parts))
    return "\n".join(out)


def plot(rows, png):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    weak, strong = series(rows)
    panels = [(f"weak: {s}^3 cells per GPU", weak[s]) for s in sorted(weak)]
    strong_series = defaultdict(dict)
    for (label, ranks, cells, _), _r in rows.items():
        if cells == strong:
            strong_series[label][ranks] = cells
    panels.append((f"strong: {strong} cells", strong_series))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 4.2), squeeze=False)
    for ax, (title, by_label) in zip(axes[0], panels):
        for e in EXCHANGES:
            color, dash, name = STYLE[e]
            for label, by_ranks in sorted(by_label.items()):
                if label != "default":
                    continue  # (--bind-to none: the tables)
                xs = sorted(by_ranks)
                ys = [float(rows[(label, n, by_ranks[n], e)]["us_per_iteration"]) if (label, n, by_ranks[n], e) in rows
                      else float("nan") for n in xs]
                ax.plot(xs, ys, dash, color=color, marker="o", label=name)
        ax.set_xticks([1, 2, 4])
        ax.set_xlabel("GPUs (one rank each)")
        ax.set_ylabel("us per iteration (slowest rank)")
        ax.set_title(title)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("jacobi3d's iteration (jacobi_bench), mpiexec's default binding")
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--png")
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    rows = load(a.csv)
    print(table(rows, a.markdown))
    print()
    print(efficiency(rows))
    if a.png:
        plot(rows, a.png)
        print(f"PNG: {a.png}")


if __name__ == "__main__":
    main()
