import csv, collections, math, sys
# fusion_bench --only halo CSVs <prefix>fusion-{before,after}-r{1,2}.csv: best of the two rounds per tree; after/before
# per contender; plan/hand per tree; with a second argument, the cells.
#   python3 shared-levels-2026-11-29-compare.py shared-levels-2026-11-29-c1- cells
d=collections.defaultdict(lambda: collections.defaultdict(list))
prefix=sys.argv[1] if len(sys.argv)>1 else ''
for t in ['before','after']:
    for r in [1,2]:
        for row in csv.DictReader(open('%sfusion-%s-r%d.csv'%(prefix,t,r))):
            if row['section']!='halo': continue
            d[(int(row['n']),int(row['w']),int(row['fields']),row['contender'])][t].append(float(row['us']))
g=lambda x: math.exp(sum(map(math.log,x))/len(x))
cont=sorted(set(k[3] for k in d))
for c in cont:
    rs=[min(v['after'])/min(v['before']) for k,v in d.items() if k[3]==c and min(v['before'])>0]
    if rs: print('%-12s after/before geomean %.3f  min %.2f max %.2f'%(c,g(rs),min(rs),max(rs)))
cells=sorted(set(k[:3] for k in d))
for t in ['before','after']:
    rs=[]; worst=(0,None); le1=0
    for c in cells:
        p=min(d[c+('plan',)][t]); h=min(d[c+('hand',)][t]); rs.append(p/h); le1+= p/h<=1.0
        if p/h>worst[0]: worst=(p/h,c)
    print('%s: plan/hand geomean %.3f, %d of %d cells <= 1.0, worst %.2f at %s'%(t,g(rs),le1,len(cells),worst[0],worst[1]))
if len(sys.argv)>2:
    print('   n  w  F   hand_b  plan_b  hand_a  plan_a  plan a/b')
    for c in cells:
        hb=min(d[c+('hand',)]['before']); pb=min(d[c+('plan',)]['before']); ha=min(d[c+('hand',)]['after']); pa=min(d[c+('plan',)]['after'])
        print('%4d %2d %2d %8.2f %7.2f %7.2f %7.2f  %.2f'%(c+(hb,pb,ha,pa,pa/pb)))
