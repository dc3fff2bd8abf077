import csv,glob,collections,math,sys
# pack_bench_gpu CSVs pack-SECTION-{before,after}[-r2].csv: min over rounds per tree; after/before for kokkosddt rows
d=collections.defaultdict(lambda: collections.defaultdict(list))
for f in glob.glob('pack-*-*.csv'):
    tree='after' if '-after' in f else 'before'
    for r in csv.DictReader(open(f)):
        k=(r['section'],r['type'],int(r['block_bytes']),int(r['packed_bytes']),r['contender'])
        d[k][tree].append(float(r['us']))
g=lambda x: math.exp(sum(map(math.log,x))/len(x))
bycont=collections.defaultdict(list)
rows=[]
for k,v in sorted(d.items()):
    if not v['before'] or not v['after'] or min(v['before'])<=0: continue
    r=min(v['after'])/min(v['before']); bycont[k[4]].append(r)
    if k[4] in ('kokkosddt','library') : rows.append((k,min(v['before']),min(v['after']),r))
for c,rs in bycont.items(): print('%-14s geomean %.3f min %.2f max %.2f n=%d'%(c,g(rs),min(rs),max(rs),len(rs)))
big=[x for x in rows if x[0][3]>=(1<<20)]
for k,b,a,r in rows:
    if k[3]>=(1<<20) or abs(r-1)>0.1: print('%-9s %-14s %5d %10d  %9.2f -> %9.2f  %.3f'%(k[0],k[1],k[2],k[3],b,a,r))
