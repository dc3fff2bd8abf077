#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where the time of each timed operation goes, from kokkosddt_timeline's per-rank traces of a benchmark that wraps
each timed run in a Kokkos profiling region (halo_vs_cabana: "hvc <n> <w> <what>").

    python3 region_summary.py PREFIX [--match REGEX] [--skip 1] [--csv out.csv]

reads PREFIX.<rank>.csv (every rank's file). For each region name matching REGEX, each rank, the medians over its
occurrences (after the first --skip) of: the region's wall time; when the GPU first starts work in it (its first
kernel, copy or memset, from the region's start: the host's time to its first launch plus the launch's latency); the
GPU's busy time (the union of those activities' intervals) and its idle gaps inside the region; the tail (from the
GPU's last activity to the region's end: the host learning it ended); the activities' count; and for each kernel
name (shortened) and each copy kind its median duration. CUPTI's timestamps share one clock on a host, so the ranks'
lines compare.
"""
import argparse
import bisect
import collections
import csv
import glob
import re
import statistics
import sys

from step_timeline import load  # (the traces' reader, beside this script)

COPY_KINDS = {"1": "HtoD", "2": "DtoH", "8": "DtoD", "10": "PtoP"}


def short(name):
    """A kernel's name without its template arguments' detail: the label Kokkos or we gave it where there is one."""
    for key in ("UniformFusedKernel", "FusedKernel", "cuda_flat_kernel", "TypedCopy", "nccl"):
        if key.lower() in name.lower():
            return key
    head = re.sub(r"<.*", "", name)
    return head[-48:]


def activity_name(a):
    if a["what"] == "kernel":
        return short(a["name"])
    if a["what"] == "memcpy":
        return "memcpy " + COPY_KINDS.get(a["name"], a["name"])
    return "memset"


def union_ns(intervals):
    total, end = 0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def summarize(rows, region_re, skip):
    """{region name: [per occurrence dict]}."""
    activities = sorted(rows["kernel"] + rows["memcpy"] + rows["memset"], key=lambda a: a["start_ns"])
    starts = [a["start_ns"] for a in activities]
    out = collections.defaultdict(list)
    seen = collections.Counter()
    for r in rows["region"]:
        if not region_re.search(r["name"]):
            continue
        seen[r["name"]] += 1
        if seen[r["name"]] <= skip:
            continue
        lo, hi = r["start_ns"], r["end_ns"]
        inside = activities[bisect.bisect_left(starts, lo):bisect.bisect_right(starts, hi)]
        occ = {"wall": hi - lo, "count": len(inside), "by": collections.defaultdict(list)}
        if inside:
            busy = union_ns([(a["start_ns"], min(a["end_ns"], hi)) for a in inside])
            last = max(a["end_ns"] for a in inside)
            occ.update(first=inside[0]["start_ns"] - lo, busy=busy, tail=max(0, hi - last),
                       gaps=max(0, min(last, hi) - inside[0]["start_ns"] - busy))
            for a in inside:
                occ["by"][activity_name(a)].append(a["end_ns"] - a["start_ns"])
        out[r["name"]].append(occ)
    return out


def med(values):
    return statistics.median(values) / 1000.0 if values else float("nan")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("prefix")
    p.add_argument("--match", default=".")
    p.add_argument("--skip", type=int, default=1, help="occurrences of each region left out first (warm-up)")
    p.add_argument("--csv")
    args = p.parse_args()
    files = sorted(glob.glob(args.prefix + ".*.csv"))
    if not files:
        sys.exit(f"no {args.prefix}.<rank>.csv")
    region_re = re.compile(args.match)
    table = []
    for path in files:
        rank = path[len(args.prefix) + 1:-4]
        for name, occs in sorted(summarize(load(path), region_re, args.skip).items()):
            by = collections.defaultdict(list)
            for o in occs:
                for k, v in o["by"].items():
                    by[k].append(sum(v))
            table.append({
                "region": name, "rank": rank, "runs": len(occs),
                "wall_us": med([o["wall"] for o in occs]),
                "first_us": med([o["first"] for o in occs if "first" in o]),
                "busy_us": med([o["busy"] for o in occs if "busy" in o]),
                "gaps_us": med([o["gaps"] for o in occs if "gaps" in o]),
                "tail_us": med([o["tail"] for o in occs if "tail" in o]),
                "activities": statistics.median([o["count"] for o in occs]) if occs else 0,
                "by": "; ".join(f"{k} {med(v):.1f}" for k, v in sorted(by.items(), key=lambda kv: -max(kv[1]))),
            })
    print(f"{'region':28s} {'rank':>4s} {'runs':>4s} {'wall':>8s} {'first':>7s} {'busy':>7s} {'gaps':>7s} {'tail':>7s} "
          f"{'acts':>4s}  per activity (median us, summed in a run)")
    for t in table:
        print(f"{t['region'][:28]:28s} {t['rank']:>4s} {t['runs']:4d} {t['wall_us']:8.1f} {t['first_us']:7.1f} "
              f"{t['busy_us']:7.1f} {t['gaps_us']:7.1f} {t['tail_us']:7.1f} {t['activities']:4g}  {t['by']}")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(table[0].keys()) if table else ["region"])
            w.writeheader()
            w.writerows(table)


if __name__ == "__main__":
    main()
