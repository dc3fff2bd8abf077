#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Before/after comparison of two builds' benchmark CSVs (pack_bench_host or fusion_bench), runs alternated.

  compare_runs.py --key family,block_bytes,packed_bytes --value ddt_1t_us,ddt_2t_us \
      --before base-run1.csv base-run2.csv --after new-run1.csv new-run2.csv [--markdown out.md]

For each case and value column: the median over the runs of each build, their ratio (after / before: < 1 faster),
and the run-to-run spread within each build (max/min), so that a difference can be told from noise. Prints a summary:
the geometric mean ratio and the cases whose ratio leaves both builds' spread.
"""
import argparse
import csv
import math
import statistics


def load(paths, keys, values):
    out = {}
    for path in paths:
        with open(path) as f:
            for row in csv.DictReader(f):
                k = tuple(row[x] for x in keys)
                for v in values:
                    if row.get(v) not in (None, "", "nan"):
                        out.setdefault((k, v), []).append(float(row[v]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--key", required=True)
    ap.add_argument("--value", required=True)
    ap.add_argument("--before", nargs="+", required=True)
    ap.add_argument("--after", nargs="+", required=True)
    ap.add_argument("--filter", default="", help="key=value: only rows whose key has this value")
    ap.add_argument("--markdown")
    a = ap.parse_args()
    keys, values = a.key.split(","), a.value.split(",")
    before, after = load(a.before, keys, values), load(a.after, keys, values)
    rows, ratios, outside = [], [], []
    for case in before:
        if case not in after:
            continue
        if a.filter:
            fk, fv = a.filter.split("=")
            if case[0][keys.index(fk)] != fv:
                continue
        b, n = before[case], after[case]
        mb, mn = statistics.median(b), statistics.median(n)
        if mb <= 0 or mn <= 0:
            continue
        ratio = mn / mb
        spread = max(max(b) / min(b), max(n) / min(n))
        ratios.append(ratio)
        noisy = ratio > spread or ratio < 1 / spread
        if noisy:
            outside.append(case)
        rows.append((case, mb, mn, ratio, spread, noisy))
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    lines = ["| case | value | before | after | after/before | run spread |", "| --- | --- | ---: | ---: | ---: | ---: |"]
    for (k, v), mb, mn, ratio, spread, noisy in rows:
        mark = " **" if noisy else ""
        lines.append(f"| {' '.join(k)} | {v} | {mb:.3f} | {mn:.3f} | {ratio:.3f}{mark} | {spread:.3f} |")
    summary = (f"{len(rows)} cases; geometric mean after/before {geo:.3f}; "
               f"{len(outside)} cases outside both builds' run-to-run spread (marked **)")
    print(summary)
    for line in lines:
        if "**" in line:
            print(line)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(summary + "\n\n" + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
