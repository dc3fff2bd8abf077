import csv, sys, collections, statistics
# Per-launch metrics from ncu --csv --page details: prints kernel, grid, time (ns), instructions, registers.
def launches(path):
    rows = list(csv.reader(open(path, errors='replace')))
    h = None; L = collections.OrderedDict()
    for r in rows:
        if r and r[0] == 'ID': h = r; continue
        if h and len(r) == len(h):
            d = dict(zip(h, r)); e = L.setdefault(d['ID'], {'name': d['Kernel Name'], 'grid': d['Grid Size'], 'block': d['Block Size']})
            e[d['Metric Name']] = d['Metric Value'].replace(',', '')
    return list(L.values())

# ncu launches before/after, grouped by kernel and grid: python3 shared-levels-2026-11-29-ncu.py shared-levels-2026-11-29-c2-fusion-ncu-%s.csv (gunzip first)
def key(e):
    n=e['name']
    k = 'Uniform<'+n.split('UniformFusedKernel<')[1].split('>')[0].replace('Kokkos::Cuda, ','').replace('(KokkosDDT::Impl::Direction)','D') + '>' if 'UniformFusedKernel<' in n else ('General' if 'FusedKernel' in n else 'hand')
    return (k, e['grid'])
res={}
for t in ['before','after']:
    g=collections.OrderedDict()
    for e in launches(sys.argv[1]%t):
        g.setdefault(key(e),[]).append((float(e['gpu__time_duration.sum']), float(e['smsp__inst_executed.sum'])))
    res[t]=g
print('| kernel | grid | launches | time before: min–max (median), ns | after | warp instructions before → after |')
print('|---|---|---:|---|---|---|')
for k in res['before']:
    b=res['before'][k]; a=res['after'].get(k)
    if not a: continue
    tb=sorted(x[0] for x in b); ta=sorted(x[0] for x in a)
    print('| %s | %s | %d | %.0f–%.0f (%.0f) | %.0f–%.0f (%.0f) | %.0f → %.0f (%.2f) |'%(k[0],k[1].replace(', 1, 1)',')'),len(b),tb[0],tb[-1],statistics.median(tb),ta[0],ta[-1],statistics.median(ta),b[0][1],a[0][1],a[0][1]/b[0][1]))
