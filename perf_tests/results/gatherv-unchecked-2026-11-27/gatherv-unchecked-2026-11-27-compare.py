# SPDX-License-Identifier: BSD-3-Clause
# Usage: python3 gatherv-unchecked-2026-11-27-compare.py perf_tests/results/gatherv-unchecked-2026-11-27
# Geometric means per section and op (b = 1, 10, 100; the two rounds averaged): unchecked / MPI's v-collective, the
# checked call after / before (each against the MPI of its own run), persistent / MPI.
import csv,collections,math,sys
base=sys.argv[1]
def load(f):
    d={}
    for r in csv.DictReader(open(f)):
        d[(r['section'],r['op'],r['problem'],r['b'],r['contender'])]=float(r['avg_us'])
    return d
A=[load(base+'-after-r%d.csv'%i) for i in (1,2)]
B=[load(base+'-before-r%d.csv'%i) for i in (1,2)]
keys=sorted(set((k[0],k[1],k[2],k[3]) for k in A[0]))
def mean(ds,k,c):
    v=[d[k+(c,)] for d in ds if k+(c,) in d]; return sum(v)/len(v)
def gm(x): return math.exp(sum(math.log(v) for v in x)/len(x))
allu=[];allc=[]
for sec in ('ints','strided'):
  for op in ('gather','scatter'):
    u=[];c=[];p=[]
    for k in keys:
        if k[0]!=sec or k[1]!=op: continue
        mpi=mean(A,k,'mpi_v'); mpib=mean(B,k,'mpi_v')
        u.append(mean(A,k,'kokkosddt_unchecked')/mpi)
        c.append((mean(A,k,'kokkosddt_auto')/mpi)/(mean(B,k,'kokkosddt_auto')/mpib))
        p.append(mean(A,k,'kokkosddt_persistent')/mpi)
    allu+=u; allc+=c
    print('%-8s %-7s unchecked/MPI gm %.2f (min %.2f max %.2f, <=1.2 in %d of %d) | checked after/before (each vs its MPI) gm %.3f | persistent/MPI gm %.2f'%(sec,op,gm(u),min(u),max(u),sum(1 for x in u if x<=1.2),len(u),gm(c),gm(p)))
print('all: unchecked/MPI gm %.2f; checked after/before gm %.3f'%(gm(allu),gm(allc)))
