#!/usr/bin/env python3
"""Per kernel of an ncu report exported as `--page raw --csv` (gzip) and `--page source --csv --print-source sass`
(gzip): duration, teams, DRAM bytes, and the SASS global load with the most L2 sectors against its ideal (coalesced)
count. Usage: summarize_ncu.py PREFIX... (reads PREFIX.raw.csv.gz and PREFIX.source.csv.gz)."""
import csv, gzip, re, sys


def kernel_tag(name):
    m = re.search(r'UniformFusedKernel<[^,]*, \(?[^)]*\)?(\d+), \(int\)(\d+), \(KokkosDDT::Impl::Locating\)(\d)', name)
    if m:
        return 'Dir %s W %s Loc %s' % m.groups()
    m = re.search(r'UniformFusedKernel<Cuda, (\d+), (\d+), (\d+)>', name)
    return ('Dir %s W %s Loc %s' % m.groups()) if m else name[:60]


def raw_rows(prefix):
    rows = list(csv.reader(gzip.open(prefix + '.raw.csv.gz', 'rt')))
    head, units, data = rows[0], rows[1], rows[2:]
    col = {h: i for i, h in enumerate(head)}
    scale = {'byte': 1, 'Kbyte': 1e3, 'Mbyte': 1e6, 'Gbyte': 1e9, 'usecond': 1, 'nsecond': 1e-3, 'msecond': 1e3}

    def num(r, k):
        return float(r[col[k]].replace(',', '')) * scale.get(units[col[k]], 1)

    return [(kernel_tag(r[col['Kernel Name']]), int(num(r, 'launch__grid_size')), num(r, 'gpu__time_duration.sum'),
             num(r, 'dram__bytes_read.sum'), num(r, 'dram__bytes_write.sum')) for r in data]


def worst_loads(prefix):
    out, cur = [], None
    for r in csv.reader(gzip.open(prefix + '.source.csv.gz', 'rt')):
        if r and r[0] == 'Kernel Name':
            cur = None
            out.append(None)
        elif r and r[0] == 'Address':
            head = {h: i for i, h in enumerate(r)}
            cur = head
        elif cur and r and 'LD' in r[1] and not 'LDL' in r[1] and not 'LDC' in r[1]:
            sectors = int(r[cur['L2 Theoretical Sectors Global']] or 0)
            ideal = int(r[cur['L2 Theoretical Sectors Global Ideal']] or 0)
            if out[-1] is None or sectors > out[-1][0]:
                out[-1] = (sectors, ideal, r[1].strip())
    return out


for prefix in sys.argv[1:]:
    print(prefix)
    print('  %-18s %6s %9s %12s %12s | %s' % ('kernel', 'teams', 'us', 'DRAM read', 'DRAM write',
                                             'the global load with most L2 sectors: sectors / ideal'))
    for (tag, teams, us, rd, wr), load in zip(raw_rows(prefix), worst_loads(prefix)):
        lo = '%d / %d  %s' % load if load else '-'
        print('  %-18s %6d %9.2f %9.2f MB %9.2f MB | %s' % (tag, teams, us, rd / 1e6, wr / 1e6, lo))
