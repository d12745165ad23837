#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# summ.py DIR: per-repetition and median counts per operation from measure.sh's
# files (stat_*: per lookup in the stat windows; rr_*: per fio operation).
import json, sys, glob, statistics as st
d = sys.argv[1]
def perf(f):
    r = {}
    for l in open(f):
        if l.startswith('#') or not l.strip(): continue
        p = l.split(',')
        r[p[2]] = float(p[0])
    return r
rows = {}
for conf in ('pt', 'hp'):
    for rep in range(1, 10):
        b = f"{d}/{conf}.{rep}"
        try:
            sp = perf(b + ".stat.perf")
        except FileNotFoundError:
            continue
        lines = open(b + ".stat.rounds").read().split('\n')
        rates = [float(l.split()[3]) for l in lines if l.startswith('round')]
        last = [l for l in lines if l.startswith('utime')][0].split()
        u, s, ops = int(last[1]), int(last[3]), int(last[5])
        rr = perf(b + ".rr.perf")
        j = json.load(open(b + ".rr.json"))["jobs"][0]["read"]
        rops = j["total_ios"]
        ru, rs = [int(x) for x in open(b + ".rr.cpu").read().split()[1::2]]
        pc = j["clat_ns"]["percentile"]
        rows.setdefault(conf, []).append(dict(
            stat_rate=st.median(rates), stat_rate_min=min(rates), stat_rate_max=max(rates),
            stat_cpu_us=sp['task-clock'] * 1000 / ops, stat_usr_us=u * 1e4 / ops, stat_sys_us=s * 1e4 / ops,
            stat_sc=sp['raw_syscalls:sys_enter'] / ops, stat_ue=sp['syscalls:sys_enter_io_uring_enter'] / ops,
            stat_cs=sp['context-switches'] / ops, stat_pf=sp['page-faults'],
            rr_iops=j["iops"], rr_p50=pc["50.000000"] / 1000, rr_p99=pc["99.000000"] / 1000,
            rr_cpu_us=rr['task-clock'] * 1000 / rops, rr_usr_us=ru * 1e4 / rops, rr_sys_us=rs * 1e4 / rops,
            rr_sc=rr['raw_syscalls:sys_enter'] / rops, rr_ue=rr['syscalls:sys_enter_io_uring_enter'] / rops,
            rr_cs=rr['context-switches'] / rops, rr_pf=rr['page-faults']))
keys = list(rows['pt'][0].keys())
print("| metric | " + " | ".join(f"{c} rep{i+1}" for c in rows for i in range(len(rows[c]))) + " | pt median | hp median | pt/hp |")
for k in keys:
    vals = [rows[c][i][k] for c in rows for i in range(len(rows[c]))]
    print(f"| {k} | " + " | ".join(f"{v:,.3g}" if v < 1000 else f"{v:,.0f}" for v in vals) +
          f" | {st.median(r[k] for r in rows['pt']):,.3f} | {st.median(r[k] for r in rows['hp']):,.3f} | {st.median(r[k] for r in rows['pt'])/max(st.median(r[k] for r in rows['hp']),1e-9):.2f} |")
