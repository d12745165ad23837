#!/usr/bin/env python3
"""Per-repetition tables of a bench/run.sh -B run (results.csv and
server_utime.csv in DIR): new = fring-pt-uring (this build), old =
fring-pt-uring-b (build B), libfuse = fuse-hp-uring. Per rep: throughput,
server CPU-us/op (utime+stime), user-us/op (utime alone, fio jobs only),
p99; then the ratios of that rep (the three ran back to back)."""
import csv, os, statistics as st, sys

d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "results.csv"))))
ut = {}
up = os.path.join(d, "server_utime.csv")
if os.path.exists(up):
    for r in csv.DictReader(open(up)):
        ut[(r["rep"], r["config"], r["job"])] = float(r["server_utime_s"])
confs = ["fring-pt-uring", "fring-pt-uring-b", "fuse-hp-uring"]
name = {"fring-pt-uring": "new", "fring-pt-uring-b": "old", "fuse-hp-uring": "libfuse"}
jobs = list(dict.fromkeys(r["job"] for r in rows))


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


for job in jobs:
    fio = not job.startswith("meta")
    cols = ["value", "CPU-µs/op"] + (["user-µs/op", "p99 µs"] if fio else [])
    ratios = ["new/old", "new/libfuse", "CPU new/old", "CPU new/libfuse"] + (
        ["user new/old", "user new/libfuse", "p99 new/libfuse"] if fio else [])
    print(f"\n### {job}\n")
    print("| rep | " + " | ".join(f"{name[c]} {k}" for c in confs for k in cols) + " | " + " | ".join(ratios) + " |")
    print("|---:" * (1 + len(confs) * len(cols) + len(ratios)) + "|")
    agg = {k: [] for k in ratios}
    for rep in sorted({r["rep"] for r in rows}, key=int):
        got = {c: next((r for r in rows if r["job"] == job and r["config"] == c and r["rep"] == rep), None) for c in confs}
        if None in got.values():
            continue
        cells, v = [], {}
        for c in confs:
            r = got[c]
            val, cpu = num(r["value"]), num(r["cpu_us_per_op"])
            v[c] = {"val": val, "cpu": cpu}
            cells += [f"{val:,.0f}", f"{cpu:.2f}"]
            if fio:
                ops = num(r["io_bytes"]) / 4096
                u = ut.get((rep, c, job))
                v[c]["user"] = u * 1e6 / ops if u is not None else None
                v[c]["p99"] = num(r["clat_p99_us"])
                cells += [f"{v[c]['user']:.3f}" if v[c]["user"] is not None else "–", f"{v[c]['p99']:,.0f}"]
        n, o, l = (v[c] for c in confs)
        rs = [n["val"] / o["val"], n["val"] / l["val"], n["cpu"] / o["cpu"], n["cpu"] / l["cpu"]]
        if fio:
            rs += [n["user"] / o["user"] if n["user"] and o["user"] else None,
                   n["user"] / l["user"] if n["user"] and l["user"] else None,
                   n["p99"] / l["p99"]]
        for k, x in zip(ratios, rs):
            if x is not None:
                agg[k].append(x)
        print(f"| {rep} | " + " | ".join(cells) + " | " + " | ".join("–" if x is None else f"{x:.2f}" for x in rs) + " |")
    print("| median | " + " | ".join([""] * (len(confs) * len(cols))) + " | " +
          " | ".join(f"{st.median(agg[k]):.2f}" if agg[k] else "–" for k in ratios) + " |")
