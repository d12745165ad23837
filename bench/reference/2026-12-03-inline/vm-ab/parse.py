import re,sys,gzip,statistics as st
f=sys.argv[1]
txt=(gzip.open(f,'rt') if f.endswith('.gz') else open(f)).read()
res={}
for m in re.finditer(r'@@FRING-BEGIN (r(\d+)-(new|old)-(\S+))@@(.*?)@@FRING-END \1 rc=(\d+)@@',txt,re.S):
    rep,b,t,body,rc=m.group(2),m.group(3),m.group(4),m.group(5),m.group(6)
    for l in re.finditer(r'@@FRING-BENCH rep=\S+ fs=\S+ transport=\S+ job=(\S+) ticks=(\d+) fio=([^@]*)@@',body):
        job,ticks,terse=l.group(1),int(l.group(2)),l.group(3).split(';')
        if 'write' in job: bw,iops,kb=float(terse[47]),float(terse[48]),float(terse[46])
        else: bw,iops,kb=float(terse[6]),float(terse[7]),float(terse[5])
        v=bw/1024 if job.startswith('seq') else iops
        res.setdefault((t,job,b),{})[rep]=(v,ticks/ (kb/1048576) if kb else 0)
jobs=['seqread','seqwrite','randread','randwrite']
for t in ['bufpool-registered','zerocopy']:
    print(f'## passthrough {t}: new / old (one boot); median [min-max of per-rep ratios]; CPU ticks/GiB ratio')
    for j in jobs:
        n=res.get((t,j,'new'),{}); o=res.get((t,j,'old'),{})
        reps=sorted(set(n)&set(o))
        if not reps: print(j,'missing'); continue
        r=[n[i][0]/o[i][0] for i in reps]; c=[n[i][1]/o[i][1] for i in reps if o[i][1]]
        print(f'{j}: new {st.median([n[i][0] for i in reps]):.0f} old {st.median([o[i][0] for i in reps]):.0f}  ratio {st.median(r):.2f} [{min(r):.2f}-{max(r):.2f}] cpu {st.median(c):.2f}  n={len(reps)}')
