# SPDX-License-Identifier: BSD-3-Clause
# Usage: python3 collective-calls-2026-11-29-compare.py DIR  (DIR holds gatherv-{before,after}-r{1..N}.csv, any N)
# Per section and op, geometric means over the 18 cases (b = 1, 10, 100), each run's ratios averaged over the runs:
# unchecked / MPI's v-collective, persistent / MPI, and unchecked / persistent (the per-call cost, within one run).
import csv, glob, math, sys
d = sys.argv[1]
def load(f):
    return {(r['section'], r['op'], r['problem'], r['b'], r['contender']): float(r['avg_us']) for r in csv.DictReader(open(f))}
def gm(x): return math.exp(sum(math.log(v) for v in x) / len(x))
runs = {n: [load(f) for f in sorted(glob.glob('%s/gatherv-%s-r*.csv' % (d, n)))] for n in ('before', 'after')}
keys = sorted(set(k[:4] for k in runs['after'][0]))
def ratio(n, ks, a, b):  # mean over runs of the run's geometric mean of a / b
    return sum(gm([D[k + (a,)] / D[k + (b,)] for k in ks]) for D in runs[n]) / len(runs[n])
def within(n, ks, a, b, limit):  # cases whose a / b, averaged over the runs, is <= limit
    return sum(1 for k in ks if sum(D[k + (a,)] / D[k + (b,)] for D in runs[n]) / len(runs[n]) <= limit)
print('| section, op | unchecked / MPI: before | after | cases <= 1.2x (of 18) | persistent / MPI: before | after | unchecked / persistent: before | after |')
print('|---|---:|---:|---|---:|---:|---:|---:|')
for sec in ('ints', 'strided'):
    for op in ('gather', 'scatter'):
        ks = [k for k in keys if k[0] == sec and k[1] == op]
        print('| %s, %s | %.2f | %.2f | %d -> %d | %.2f | %.2f | %.2f | %.2f |' % (
            sec, op, ratio('before', ks, 'kokkosddt_unchecked', 'mpi_v'), ratio('after', ks, 'kokkosddt_unchecked', 'mpi_v'),
            within('before', ks, 'kokkosddt_unchecked', 'mpi_v', 1.2), within('after', ks, 'kokkosddt_unchecked', 'mpi_v', 1.2),
            ratio('before', ks, 'kokkosddt_persistent', 'mpi_v'), ratio('after', ks, 'kokkosddt_persistent', 'mpi_v'),
            ratio('before', ks, 'kokkosddt_unchecked', 'kokkosddt_persistent'), ratio('after', ks, 'kokkosddt_unchecked', 'kokkosddt_persistent')))
print('| all 72 | %.2f | %.2f | %d -> %d | %.2f | %.2f | %.2f | %.2f |' % (
    ratio('before', keys, 'kokkosddt_unchecked', 'mpi_v'), ratio('after', keys, 'kokkosddt_unchecked', 'mpi_v'),
    within('before', keys, 'kokkosddt_unchecked', 'mpi_v', 1.2), within('after', keys, 'kokkosddt_unchecked', 'mpi_v', 1.2),
    ratio('before', keys, 'kokkosddt_persistent', 'mpi_v'), ratio('after', keys, 'kokkosddt_persistent', 'mpi_v'),
    ratio('before', keys, 'kokkosddt_unchecked', 'kokkosddt_persistent'), ratio('after', keys, 'kokkosddt_unchecked', 'kokkosddt_persistent')))
print('checked (auto) / MPI: before %.2f, after %.2f' % (ratio('before', keys, 'kokkosddt_auto', 'mpi_v'), ratio('after', keys, 'kokkosddt_auto', 'mpi_v')))
for n in ('before', 'after'):
    print('%s, geometric mean over the 72 cases per run (us): ' % n + '; '.join(
        'r%d MPI %.2f unchecked %.2f persistent %.2f' % (i + 1, gm([D[k + ('mpi_v',)] for k in keys]),
                                                       gm([D[k + ('kokkosddt_unchecked',)] for k in keys]),
                                                       gm([D[k + ('kokkosddt_persistent',)] for k in keys]))
        for i, D in enumerate(runs[n])))
