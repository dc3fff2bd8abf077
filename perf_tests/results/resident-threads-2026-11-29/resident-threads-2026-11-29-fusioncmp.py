#!/usr/bin/env python3
# fusion_bench --only halo CSVs of two trees, two rounds each: best of the rounds per cell; after/before per contender;
# plan/hand per tree; per-cell table.  Usage: python3 THIS PREFIX BEFORE AFTER   (reads PREFIX-fusion-NAME-r{1,2}.csv)
import csv, collections, math, sys
prefix, before, after = sys.argv[1:4]
d = collections.defaultdict(lambda: collections.defaultdict(list))
for t in (before, after):
    for r in (1, 2):
        for row in csv.DictReader(open('%s-fusion-%s-r%d.csv' % (prefix, t, r))):
            if row['section'] == 'halo' and float(row['us']) >= 0:
                d[(int(row['n']), int(row['w']), int(row['fields']), row['contender'])][t].append(float(row['us']))
g = lambda x: math.exp(sum(map(math.log, x)) / len(x))
for c in sorted(set(k[3] for k in d)):
    rs = [min(v[after]) / min(v[before]) for k, v in d.items() if k[3] == c and min(v[before]) > 0]
    if rs: print('%-14s %s/%s geomean %.3f  min %.2f max %.2f' % (c, after, before, g(rs), min(rs), max(rs)))
cells = sorted(set(k[:3] for k in d))
for t in (before, after):
    rs = [min(d[c + ('plan',)][t]) / min(d[c + ('hand',)][t]) for c in cells]
    worst = max(zip(rs, cells))
    print('%s: plan/hand geomean %.3f, %d of %d cells <= 1.0, worst %.2f at %s' %
          (t, g(rs), sum(r <= 1.0 for r in rs), len(cells), worst[0], worst[1]))
print('   n  w  F   hand_b  plan_b  hand_a  plan_a  plan a/b')
for c in cells:
    hb, pb = min(d[c + ('hand',)][before]), min(d[c + ('plan',)][before])
    ha, pa = min(d[c + ('hand',)][after]), min(d[c + ('plan',)][after])
    print('%4d %2d %2d %8.2f %7.2f %7.2f %7.2f  %.2f' % (c + (hb, pb, ha, pa, pa / pb)))
