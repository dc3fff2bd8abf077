import csv,io,collections,sys
# per-kernel summary of an ncu --csv details file: name, grid warps, inst/warp, us (min, count)
def load(f):
    lines=open(f).read().splitlines()
    start=[i for i,l in enumerate(lines) if l.startswith('"ID"')][0]
    k=collections.OrderedDict()
    for r in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        k.setdefault(r['ID'],{'name':r['Kernel Name']})[r['Metric Name']]=r['Metric Value']
    return list(k.values())
for f in sys.argv[1:]:
    g=collections.OrderedDict()
    for m in load(f):
        gs=int(m['launch__grid_size'].replace(',',''));b=int(m['launch__block_size'].replace(',',''))
        key=(m['name'][:60],gs,b,float(m['smsp__inst_executed.sum'].replace(',','')))
        g.setdefault(key,[]).append(float(m['gpu__time_duration.sum'].replace(',',''))/1000)
    print('==',f)
    for (n,gs,b,i),ts in g.items():
        print('%-60s grid %6d x %4d inst %10.0f  min %7.2f us  n=%d'%(n,gs,b,i,min(ts),len(ts)))
