import csv, sys, collections
# Aggregates ncu's source page (cuda view): per file and per line, warp instructions executed and stall samples.
def parse(path):
    rows = list(csv.reader(open(path, errors='replace')))
    out = []  # (file, line, source, inst, samples)
    f = None; hdr = None
    for r in rows:
        if len(r) >= 2 and r[0] == 'File Path': f = r[1].split('/')[-1]; hdr = None; continue
        if len(r) >= 2 and r[0] == 'Function Name': continue
        if r and r[0] == 'Line No': hdr = r; continue
        if hdr and f and len(r) == len(hdr) and r[0].isdigit():
            try: inst = float(r[hdr.index('Instructions Executed')] or 0)
            except ValueError: inst = 0
            try: s = float(r[hdr.index('Warp Stall Sampling (All Samples)')] or 0)
            except ValueError: s = 0
            out.append((f, int(r[0]), r[1].strip()[:110], inst, s))
    return out
rows = parse(sys.argv[1]); warps = float(sys.argv[2])
tot = sum(r[3] for r in rows)
print("total warp instructions %.0f, per warp %.1f" % (tot, tot / warps))
byf = collections.Counter()
for r in rows: byf[r[0]] += r[3]
for f, v in byf.most_common(): print("  %-36s %7.1f" % (f, v / warps))
print()
for r in sorted(rows, key=lambda r: -r[3])[:int(sys.argv[3]) if len(sys.argv) > 3 else 60]:
    if r[3] == 0: break
    print("%-30s %4d %7.1f %6.0f  %s" % (r[0][:30], r[1], r[3] / warps, r[4], r[2]))
