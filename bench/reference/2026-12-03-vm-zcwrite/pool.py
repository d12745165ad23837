"""pool.py DIR...: per-repetition ratios of zerocopy to bufpool-registered and
to libfuse (hp, libfuse-uring) in each bench/vm.sh output directory, the
directories whose names end in "old" pooled apart from those ending in
"new"; prints the medians per job and file system."""
import csv,sys,statistics as st,collections
for job in ['randwrite','randread']:
  for v in ['old','new']:
    r=collections.defaultdict(list)
    for d in sys.argv[1:]:
        if not d.endswith(v): continue
        rows=list(csv.DictReader(open(d+'/results.csv')))
        val={(x['rep'],x['fs'],x['transport'],x['job']):x for x in rows}
        for (rep,fs,t,j),x in val.items():
            if j!=job or t!='zerocopy': continue
            b=val[(rep,fs,'bufpool-registered',j)]
            h=val[(rep,'hp','libfuse-uring',j)]
            r[fs+' zc/bpr'].append(float(x['value'])/float(b['value']))
            r[fs+' zc/hp'].append(float(x['value'])/float(h['value']))
            r[fs+' cpu zc/bpr'].append(float(x['cpu_s_per_gib'])/float(b['cpu_s_per_gib']))
            r[fs+' cpu zc/hp'].append(float(x['cpu_s_per_gib'])/float(h['cpu_s_per_gib']))
    print(job,v,' '.join(f"{k}={st.median(l):.2f}" for k,l in sorted(r.items())))
