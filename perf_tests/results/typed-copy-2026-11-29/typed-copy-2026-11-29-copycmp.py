import csv,io,collections,sys
def load(f):
    lines=open(f).read().splitlines()
    start=[i for i,l in enumerate(lines) if l.startswith('"ID"')][0]
    rows=list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))
    k=collections.OrderedDict()
    for r in rows: k.setdefault(r['ID'],{'name':r['Kernel Name']})[r['Metric Name']]=r['Metric Value']
    out=[]
    for i,m in k.items():
        n=m['name']
        kind='copy' if 'TypedCopy' in n else 'hand' if 'hand_face' in n else None
        if not kind: continue
        g=int(m['launch__grid_size'].replace(',',''));b=int(m['launch__block_size'].replace(',',''))
        st={kk.split('stalled_')[1].split('_per')[0]:float(m[kk]) for kk in m if 'stalled' in kk}
        out.append((kind,g*b/32,float(m['smsp__inst_executed.sum'].replace(',','')),float(m['gpu__time_duration.sum'].replace(',',''))/1000,st))
    grp=[]
    for o in out:
        if grp and grp[-1][0]==o[0] and abs(grp[-1][1][0][2]-o[2])<1e-9 and len(grp[-1][1])<(12 if o[0]=='copy' else 6): grp[-1][1].append(o)
        else: grp.append((o[0],[o]))
    return grp
labels=['face64 x0','face64 x1','face64 x2','face128 x0','face128 x1','face128 x2','face256 x0','face256 x1','face256 x2']+['random %d'%i for i in range(8)]
res={}
for t in sys.argv[1:]:
    g=load('copy-ncu-%s.csv'%t)
    copies=[x for x in g if x[0]=='copy']; hands=[x for x in g if x[0]=='hand']
    res[t]=(copies,hands)
print('%-11s'%'case', ' | '.join('%-34s'%t for t in sys.argv[1:]))
for i in range(len(labels)):
    row=[]
    for t in sys.argv[1:]:
        c=res[t][0][i][1]; ts=sorted(o[3] for o in c)
        row.append('%6.1f/w min %5.2f med %5.2f ssb %4.1f'%(c[0][2]/c[0][1],ts[0],ts[len(ts)//2],c[0][4]['short_scoreboard']))
    h=''
    if i<9:
        hs=res[sys.argv[-1]][1][i][1]; h='hand %4.1f/w %5.2f'%(hs[0][2]/hs[0][1],min(o[3] for o in hs))
    print('%-11s'%labels[i],' | '.join(row),h)
