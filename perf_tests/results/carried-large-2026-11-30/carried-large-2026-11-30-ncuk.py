import csv,io,collections,sys,statistics
def load(f):
    lines=open(f).read().splitlines()
    s=[i for i,l in enumerate(lines) if l.startswith('"ID"')][0]
    k=collections.OrderedDict()
    for r in csv.DictReader(io.StringIO("\n".join(lines[s:]))):
        d=k.setdefault(r['ID'],{'name':r['Kernel Name']}); d[r['Metric Name']]=r['Metric Value']
    return list(k.values())
f2=lambda x: float(x.replace(',',''))
for f in sys.argv[1:]:
    ks=load(f); groups=[]; 
    for m in ks:
        key=(m['name'][:30],m['launch__grid_size'],m['smsp__inst_executed.sum'])
        if groups and groups[-1][0]==key: groups[-1][1].append(m)
        else: groups.append((key,[m]))
    print(f)
    for key,ms in groups:
        if 'fill' in key[0] or 'diff' in key[0] or 'query' in key[0] or 'lock' in key[0]: continue
        t=[f2(m['gpu__time_duration.sum'])/1000 for m in ms]
        st=lambda s: statistics.median(f2(m['smsp__average_warps_issue_stalled_%s_per_issue_active.ratio'%s]) for m in ms)
        print('  %-30s grid %4s inst %7s n %2d med %.2f min %.2f  lsb %.1f ssb %.1f'%(key[0],key[1],key[2],len(ms),statistics.median(t),min(t),st('long_scoreboard'),st('short_scoreboard')))
