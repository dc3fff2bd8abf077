#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plots of the application benchmarks: cg_bench (exchange time per iteration of the three exchanges against the grid
size) and hacc_bench (time to move the HACC block to the host against the particle count, with the crossover).

  plot_apps.py --cg a.csv [b.csv ...] --hacc h.csv --out prefix   (writes prefix-cg.png and prefix-hacc.png)
"""
import argparse
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def plot_cg(paths, out):
    fig, axes = plt.subplots(1, len(paths), figsize=(5 * len(paths), 4), squeeze=False)
    for ax, path in zip(axes[0], paths):
        data = rows(path)
        for variant, style in (("kokkosddt", "o-"), ("hand", "s--"), ("mpi-ddt", "^:")):
            pts = [(int(r["n"]), float(r["exchange_us"])) for r in data if r["exchange"] == variant]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=variant)
        ax.set_title(f"{data[0]['space']}, {data[0]['ranks']} ranks ({path.split('/')[-1]})", fontsize=8)
        ax.set_xlabel("grid points per dimension (n^3 rows)")
        ax.set_ylabel("exchange per iteration (us)")
        ax.set_yscale("log")
        ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def plot_hacc(path, out):
    data = [r for r in rows(path) if r["case"] == "sweep"]
    fig, ax = plt.subplots(figsize=(6, 4))
    x = [int(r["particles"]) for r in data]
    for key, label, style in (("kokkosddt_us", "KokkosDDT: one struct-type pack", "o-"),
                              ("copies_us", "one async copy per member", "s--"),
                              ("copies_sync_us", "one cudaMemcpy per member (seed)", "x:"),
                              ("cpu_mpi_pack_us", "MPI_Pack on the host (seed's CPU ref.)", "^-.")):
        ax.plot(x, [float(r[key]) for r in data], style, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("particles")
    ax.set_ylabel("time to the host buffer (us)")
    ax.set_title(f"HACC vblock_t, {data[0]['space']}", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--cg", nargs="+", default=[])
    p.add_argument("--hacc")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    if a.cg:
        plot_cg(a.cg, a.out + "-cg.png")
    if a.hacc:
        plot_hacc(a.hacc, a.out + "-hacc.png")
