#!/usr/bin/env python3
# One line per ncu --csv details file: grid, registers, best kernel time, warp instructions, two stall ratios.
import csv,io,collections,glob,sys
def load(f):
    lines=open(f).read().splitlines()
    s=[i for i,l in enumerate(lines) if l.startswith('"ID"')]
    if not s: return []
    k=collections.OrderedDict()
    for r in csv.DictReader(io.StringIO("\n".join(lines[s[0]:]))):
        k.setdefault(r['ID'],{'name':r['Kernel Name']})[r['Metric Name']]=r['Metric Value']
    return list(k.values())
f2=lambda x: float(x.replace(',',''))
for f in sys.argv[1:]:
    ms=load(f)
    if not ms: print(f,'none'); continue
    t=min(f2(m['gpu__time_duration.sum']) for m in ms)/1000; m=ms[0]
    print('%-40s grid %5d reg %s t %6.2f inst %9.0f lsb %.1f bar %.1f' % (f.split('/')[-1], f2(m['launch__grid_size']), m['launch__registers_per_thread'], t, f2(m['smsp__inst_executed.sum']), f2(m['smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio']), f2(m['smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio'])))
