import csv,sys,collections,os
f=sys.argv[1]
rows=list(csv.reader(open(f)))
cur_file=None; cur_line=None; src=None
sass=[]
for r in rows:
    if len(r)==2 and r[0]=='File Path': cur_file=os.path.basename(r[1]); continue
    if len(r)<10 or r[0]=='Line No': continue
    if r[0]!='':
        cur_line=r[0]; src=r[1]; continue
    if r[2] in ('...','-') : continue
    try: addr=int(r[2],16)
    except: continue
    ie=int(r[7]) if r[7] not in ('-','') else 0
    samp=int(r[4]) if r[4] not in ('-','') else 0
    sass.append((addr,cur_file,cur_line,src.strip()[:70],r[3].strip(),ie,samp))
sass.sort()
# dedupe by address (same sass may appear under multiple lines? keep first)
seen=set(); u=[]
for s in sass:
    if s[0] in seen: continue
    seen.add(s[0]); u.append(s)
tot_i=sum(s[5] for s in u); tot_s=sum(s[6] for s in u)
print(f, 'executed warp instr', tot_i, 'samples', tot_s, 'sass total', len(u))
byf=collections.Counter(); byfs=collections.Counter()
for s in u: byf[s[1]]+=s[5]; byfs[s[1]]+=s[6]
for k,v in byf.most_common(): print('  %-36s instr %5d  samples %5d'%(k,v,byfs[k]))
byl=collections.OrderedDict()
for s in u:
    if s[5]==0 and s[6]==0: continue
    k=(s[1],s[2],s[3])
    a=byl.setdefault(k,[0,0,s[0]]); a[0]+=s[5]; a[1]+=s[6]
print('--- lines in address order (instr, samples)')
for k,v in byl.items():
    if v[0]>=2 or v[1]>=3: print('  %5d %4d  %-28s %5s %s'%(v[0],v[1],k[0][:28],k[1],k[2]))
