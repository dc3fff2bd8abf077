#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Grouped bars per ddtbench micro-app (its default problem size, the first of ddtbench's list, plus the largest):
pack and unpack speed of MPI_Pack/MPI_Unpack and KokkosDDT (1 thread, all threads, and the device when the CSV has
it), each normalized to the application's own loop (> 1: faster than the loop).

    plot_ddtbench.py ddtbench.csv ddtbench.png [title]
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    src, out = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else "ddtbench micro-apps"
    rows = list(csv.DictReader(open(src)))
    threads = [k for k in rows[0] if k.startswith("pack_ddt_") and k.endswith("t_us") and k != "pack_ddt_1t_us"][0]
    nt = threads[len("pack_ddt_"):-len("t_us")]
    # One case per test: the default size.
    cases = [r for r in rows if r["default"] == "1"]
    labels = [f"{r['test']}\n{r['size']}" for r in cases]
    fig, axes = plt.subplots(2, 1, figsize=(max(10, 0.75 * len(cases)), 9), sharex=True)
    for ax, d in zip(axes, ["pack", "unpack"]):
        series = [(f"MPI_{d.capitalize()}", f"{d}_mpi_us"), ("KokkosDDT 1 thread", f"{d}_ddt_1t_us"),
                  (f"KokkosDDT {nt} threads", f"{d}_ddt_{nt}t_us")]
        width = 0.8 / len(series)
        for i, (name, key) in enumerate(series):
            vals = [float(r[f"{d}_manual_us"]) / float(r[key]) for r in cases]
            ax.bar([x + (i - (len(series) - 1) / 2) * width for x in range(len(cases))], vals, width, label=name)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_ylabel(f"{d} speed / manual loop")
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    axes[-1].set_xticks(range(len(cases)))
    axes[-1].set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
    axes[0].set_title(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    if "dev_pack_ddt_us" in rows[0]:  # device builds: KokkosDDT against the hand-written kernel, every size
        fig, ax = plt.subplots(figsize=(max(10, 0.3 * len(rows)), 5))
        for i, (name, a, b) in enumerate([("pack", "dev_pack_hand_us", "dev_pack_ddt_us"),
                                          ("unpack", "dev_unpack_hand_us", "dev_unpack_ddt_us")]):
            vals = [float(r[a]) / float(r[b]) for r in rows]
            ax.bar([x + (i - 0.5) * 0.4 for x in range(len(rows))], vals, 0.4, label=f"{name} (call + fence)")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_ylabel("hand kernel time / KokkosDDT time")
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels([f"{r['test']} {r['size']}" for r in rows], rotation=75, ha="right", fontsize=6)
        ax.legend(fontsize=8)
        ax.set_title(title + ": device, KokkosDDT vs hand-written kernel (> 1: KokkosDDT faster)")
        fig.tight_layout()
        fig.savefig(out.replace(".png", "-device.png"), dpi=110)


if __name__ == "__main__":
    main()
