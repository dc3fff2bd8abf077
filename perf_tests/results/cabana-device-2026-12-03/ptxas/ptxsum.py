import re,subprocess,sys
def load(f):
    t=open(f).read()
    ents=re.findall(r"Compiling entry function '([^']+)' for 'sm_90'\s*\nptxas info\s*: Function properties for \S+\n\s*(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads\nptxas info\s*: Used (\d+) registers",t)
    out={}
    for name,stack,ss,sl,reg in ents:
        d=subprocess.run(['c++filt'],input=name,capture_output=True,text=True).stdout.strip()
        m=re.search(r'UniformFusedKernel<Kokkos::Cuda, \(KokkosDDT::Impl::Direction\)(\d), (\d+), \(KokkosDDT::Impl::Locating\)(\d)>',d)
        key=('U',m.group(1),m.group(2),m.group(3)) if m else ('F',) if 'FusedKernel' in d else (d[:50],)
        out[key]=(int(stack),int(ss),int(sl),int(reg))
    return out
a=load(sys.argv[1] if len(sys.argv)>1 else '/tmp/ptx-fb0.log'); b=load(sys.argv[2] if len(sys.argv)>2 else '/tmp/ptx-head.log')
print(len(a),len(b))
for k in sorted(set(a)|set(b)):
    if a.get(k)!=b.get(k): print(k,'fb0',a.get(k),'head',b.get(k))
