import sys,collections
src=open('/work/scratch/ncugen.py').read().split("for f in sys.argv")[0]
exec(src)
def seq(f):
    out=[]
    for m in load(f):
        gs=int(m['launch__grid_size'].replace(',',''));b=int(m['launch__block_size'].replace(',',''))
        n=m['name']; kind='copy' if 'TypedCopy' in n else 'hand' if 'hand_face' in n else 'pack' if 'DeviceInterleave<Kokkos::Cuda, 0' in n else 'unpk' if 'DeviceInterleave' in n else n[:30]
        out.append((kind,gs*b/32,float(m['smsp__inst_executed.sum'].replace(',','')),float(m['gpu__time_duration.sum'].replace(',',''))/1000,
                    float(m['smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio'])))
    return out
A=seq(sys.argv[1]); B=seq(sys.argv[2]); print(len(A),len(B))
# section boundaries: consecutive launches of same kind+warps form a group; align by index
ga=collections.OrderedDict()
cases=[]; cur=None
for i,(a,b) in enumerate(zip(A,B)):
    key=(a[0],a[1])
    if cur is None or cur[0]!=key: cur=[key,[],[]]; cases.append(cur)
    cur[1].append(a); cur[2].append(b)
for key,a,b in cases:
    ta=min(x[3] for x in a); tb=min(x[3] for x in b)
    print('%-5s warps %6d  inst/warp %6.1f -> %6.1f  min %7.2f -> %7.2f us (%.3f) ssb %.1f->%.1f n=%d'%(key[0],key[1],a[0][2]/key[1],b[0][2]/b[0][1],ta,tb,tb/ta,a[0][4],b[0][4],len(a)))
