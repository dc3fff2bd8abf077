import csv,math,sys
def load(f):
    rows=list(csv.reader(open(f)))[1:]
    return {(r[0],r[1]):r for r in rows}
B=[load(f'before-r{i}.csv') for i in (1,2,3)]; A=[load(f'after-r{i}.csv') for i in (1,2,3)]
keys=list(B[0].keys())
lp=[];lu=[];rows=[]
for k in keys:
    bp=sorted(float(x[k][8]) for x in B)[1]; ap=sorted(float(x[k][8]) for x in A)[1]
    bu=sorted(float(x[k][12]) for x in B)[1]; au=sorted(float(x[k][12]) for x in A)[1]
    lp.append(math.log(ap/bp)); lu.append(math.log(au/bu)); rows.append((k, round(ap/bp,3), round(au/bu,3)))
print('after/before time (median of 3 per case), geometric mean over', len(lp), 'cases: pack', round(math.exp(sum(lp)/len(lp)),3), 'unpack', round(math.exp(sum(lu)/len(lu)),3))
print('largest after/before:', sorted(rows,key=lambda r:-max(r[1],r[2]))[:5])
for name,S in (('before',B),('after',A)):
    rs=[]
    for x in S:
        for k,r in x.items():
            if r[2]=='1':
                rs.append((round(float(r[7])/float(r[8]),2),k[0],'pack')); rs.append((round(float(r[11])/float(r[12]),2),k[0],'unpack'))
    below=sorted(x for x in rs if x[0]<1.0)
    print(name,': default sizes, MPI/KokkosDDT over 3 runs:',len(rs),'ratios, geometric mean',round(math.exp(sum(math.log(x[0]) for x in rs)/len(rs)),2),'below 1.0:',len(below), below)
