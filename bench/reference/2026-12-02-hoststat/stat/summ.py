#!/usr/bin/env python3
"""summ.py DIR...: the stat.csv of stat.sh runs, per repetition and as
medians of the per-repetition ratios (new = this branch, old = main,
hp = passthrough_hp). user/sys: server utime/stime ticks (10 ms) over the
stat windows, per lookup; forget: utime over the drops."""
import csv, statistics as st, sys

reps = []
for d in sys.argv[1:]:
    rows = list(csv.DictReader(open(f"{d}/stat.csv")))
    for rep in sorted({r["rep"] for r in rows}, key=int):
        g = {r["conf"]: r for r in rows if r["rep"] == rep}
        if len(g) == 3:
            reps.append((d, rep, g))

def us(r, k):
    return int(r[k]) * 10000 / int(r["ops"])

print("| run | rep | load | stats/s new / old / hp | user µs/lookup new / old / hp | sys µs/lookup new / old / hp | forget user ticks new / old / hp |")
print("|---|---:|---:|---|---|---|---|")
rat = {k: [] for k in ("rate new/old", "rate new/hp", "user new/old", "user new/hp")}
for d, rep, g in reps:
    rate = {c: int(g[c]["ops"]) / float(g[c]["seconds_sum"]) for c in g}
    print(f"| {d} | {rep} | {g['new']['load1']} | {rate['new']:,.0f} / {rate['old']:,.0f} / {rate['hp']:,.0f} | "
          + " / ".join(f"{us(g[c], 'utime_ticks'):.2f}" for c in ("new", "old", "hp")) + " | "
          + " / ".join(f"{us(g[c], 'stime_ticks'):.2f}" for c in ("new", "old", "hp")) + " | "
          + " / ".join(g[c]["forget_utime"] for c in ("new", "old", "hp")) + " |")
    rat["rate new/old"].append(rate["new"] / rate["old"])
    rat["rate new/hp"].append(rate["new"] / rate["hp"])
    rat["user new/old"].append(int(g["new"]["utime_ticks"]) / int(g["old"]["utime_ticks"]))
    rat["user new/hp"].append(int(g["new"]["utime_ticks"]) / int(g["hp"]["utime_ticks"]))
print()
for k, v in rat.items():
    print(f"- {k}: median {st.median(v):.2f} [{min(v):.2f}–{max(v):.2f}]")
for k in ("utime_ticks", "forget_utime"):
    s = {c: sum(int(g[c][k]) for _, _, g in reps) for c in ("new", "old", "hp")}
    print(f"- {k} summed over all repetitions: new {s['new']}, old {s['old']}, hp {s['hp']}")
