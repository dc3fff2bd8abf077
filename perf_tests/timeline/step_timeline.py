#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The timeline of one jacobi_bench iteration, from kokkosddt_timeline's per-rank traces.

    python3 step_timeline.py PREFIX --region "jacobi_bench plan-peer ahead" [--skip 20] [--csv out.csv]
    python3 step_timeline.py PREFIX --region "jacobi_bench plan-nccl alone" --cut FusedKernel --per 2

reads PREFIX.<rank>.csv (every rank's file), keeps the kernels launched inside the region (by their launch call's host
time: a graph's kernels share its cudaGraphLaunch) and cuts each rank's GPU work into iterations at the end of its
boundary sweep. jacobi_bench's sweeps are one kernel (jacobi::sweep) launched twice per iteration, interior then
boundary, in one stream: they alternate. Every other kernel of an iteration is named by its kind (FusedKernel, an NCCL
kernel, ...) and its order within the iteration. For each event it prints the median over the iterations (after
--skip) of its start and end, in microseconds from t0 = the end of the rank's previous boundary sweep; a peer's events
are also placed on this rank's t0 (CUPTI's timestamps share one clock on a host). Then the host: per iteration, how
long the driver and runtime calls took, by function (KOKKOSDDT_TIMELINE_API=1 only).
"""
import argparse
import collections
import csv
import glob
import re
import statistics
import sys

LAUNCHES = re.compile(r"cuLaunch|cuGraphLaunch")


def load(path):
    rows = collections.defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            for k in ("a", "b", "start_ns", "end_ns", "correlation", "extra"):
                r[k] = int(r[k])
            rows[r["what"]].append(r)
    return rows


def kind(name):
    if "jacobi::sweep" in name or "jacobi3d::sweep" in name:
        return "sweep"
    for key in ("FusedKernel", "nccl", "TypedCopy", "DeviceInterleave", "HostWalk"):
        if key.lower() in name.lower():
            return key
    return re.sub(r"[^A-Za-z0-9_:]", "", name)[:40]


def iterations(rows, region, cut, per):
    """[(t0, [(event, start, end)...], launch_host_ns)] per iteration, kernels of the region's launches."""
    regions = [r for r in rows["region"] if r["name"] == region]
    if not regions:
        sys.exit(f"no region '{region}' (have: {sorted({r['name'] for r in rows['region']})})")
    lo, hi = regions[0]["start_ns"], regions[0]["end_ns"]
    # (every jacobi_bench row ends with a fence: its kernels ran inside its region, on the GPU too)
    launch = {a["correlation"]: a for a in rows["api"] if LAUNCHES.search(a["name"]) and lo <= a["start_ns"] <= hi}
    kernels = sorted((k for k in rows["kernel"] if lo <= k["start_ns"] <= hi), key=lambda k: k["start_ns"])
    marks = [k for k in kernels if kind(k["name"]) == cut]
    out = []
    for i in range(per, len(marks) - per + 1, per):  # marks[i:i + per]: an iteration's; marks[i - 1]: the previous
        t0, mine = marks[i - 1]["end_ns"], marks[i:i + per]
        events, seen = [], collections.Counter()
        for k in kernels:
            if t0 <= k["start_ns"] < mine[-1]["end_ns"]:
                name = kind(k["name"])
                if cut == "sweep" and name == "sweep" and any(k is m for m in mine):
                    name = "interior" if k is mine[0] else "boundary"
                else:
                    seen[name] += 1
                    name = f"{name}#{seen[name]}"
                events.append((name, k["start_ns"], k["end_ns"]))
        host = launch.get(mine[0]["correlation"])
        out.append((t0, events, host["start_ns"] if host else None))
    return out, (lo, hi)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("prefix")
    ap.add_argument("--region", required=True)
    ap.add_argument("--skip", type=int, default=20)
    ap.add_argument("--cut", default="sweep", help="the kernel kind that ends an iteration (sweep: jacobi's two)")
    ap.add_argument("--per", type=int, default=0, help="kernels of that kind per iteration (sweep: 2; else 1)")
    ap.add_argument("--csv")
    a = ap.parse_args()
    files = sorted(glob.glob(a.prefix + ".*.csv"), key=lambda p: int(p.rsplit(".", 2)[1]))
    ranks = [load(p) for p in files]
    per = a.per or (2 if a.cut == "sweep" else 1)
    its = [iterations(r, a.region, a.cut, per) for r in ranks]
    n = min(len(i[0]) for i in its)
    if n <= a.skip:
        sys.exit(f"{a.region}: {n} iterations traced, no more than --skip {a.skip}")
    table = []
    print(f"{a.region}: {len(ranks)} ranks, {n} iterations traced, medians over iterations {a.skip}..{n - 1}")
    for me, (mine, window) in enumerate(its):
        period = statistics.median(mine[k][1][-1][2] - mine[k][0] for k in range(a.skip, n))
        print(f"\nrank {me}: iteration {period / 1e3:.2f} us (from the end of an iteration's last {a.cut} kernel to the "
              "next's); events in us from t0 = the end of the previous iteration")
        print(f"  {'event':<28} {'start':>8} {'end':>8} {'length':>8}")
        for who, (theirs, _) in enumerate(its):
            names = [e[0] for e in theirs[a.skip][1]]
            for name in names:
                s, e = [], []
                for k in range(a.skip, n):
                    got = [x for x in theirs[k][1] if x[0] == name]
                    if got:
                        s.append((got[0][1] - mine[k][0]) / 1e3)
                        e.append((got[0][2] - mine[k][0]) / 1e3)
                if not s:
                    continue
                label = name if who == me else f"rank {who}: {name}"
                ms, me_ = statistics.median(s), statistics.median(e)
                print(f"  {label:<28} {ms:8.2f} {me_:8.2f} {me_ - ms:8.2f}")
                table.append((a.region, me, who, name, ms, me_))
        host = [(mine[k][2] - mine[k][0]) / 1e3 for k in range(a.skip, n) if mine[k][2] is not None]
        if host:
            print(f"  {'host launches interior':<28} {statistics.median(host):8.2f}   (negative: the host runs ahead)")
        lo, hi = window
        calls = collections.defaultdict(lambda: [0, 0])
        for c in ranks[me]["api"]:
            if lo <= c["start_ns"] <= hi:
                calls[c["name"]][0] += 1
                calls[c["name"]][1] += c["end_ns"] - c["start_ns"]
        if not calls:
            continue
        total_its = max(1, len(mine))
        busy = sum(v[1] for v in calls.values()) / total_its / 1e3
        print(f"  host: driver calls per iteration {sum(v[0] for v in calls.values()) / total_its:.1f}, "
              f"{busy:.2f} us inside them; the largest:")
        for name, (count, ns) in sorted(calls.items(), key=lambda kv: -kv[1][1])[:8]:
            print(f"    {name:<40} {count / total_its:6.2f} calls {ns / total_its / 1e3:7.2f} us")
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("region,rank,of_rank,event,start_us,end_us\n")
            for r in table:
                f.write(f"{r[0]},{r[1]},{r[2]},{r[3]},{r[4]:.3f},{r[5]:.3f}\n")


if __name__ == "__main__":
    main()
