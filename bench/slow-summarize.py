#!/usr/bin/env python3
"""Markdown summary of a bench/slow.sh results directory (results.csv).

Usage: bench/slow-summarize.py DIR [OVERLAY_DIR...] > summary.md

With more than one directory, a (configuration, job) measured in a later
directory replaces the same pair from the earlier ones.

Per job: one row per configuration with the median ops/s and its range
over the repetitions, the medians of fio's (or slowstat's) p50 and p99
completion latency, of the server's CPU per operation, of its thread count
and RSS in the middle of the job, and of the 1-minute load average when
the job started. Then the ratios the issue sets goals for (libfring's
slowfs on uring against the libfuse twin on io_uring, >= 4x, and on its
classic loop, >= 2x with fewer threads), with [min-max] of the
per-repetition ratios (rep i against rep i).
"""
import csv
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from summarize import fmt, med  # noqa: E402

CONF_ORDER = ["fring-slow-uring", "fring-slow-uring-thread", "fring-slow-dev",
              "fuse-slow-uring", "fuse-slow-classic", "fuse-slow-single"]
# (numerator, denominator, goal on ops/s, also fewer threads)
GOALS = [
    ("fring-slow-uring", "fuse-slow-uring", 4.0, False),
    ("fring-slow-uring", "fuse-slow-classic", 2.0, True),
    ("fring-slow-dev", "fuse-slow-classic", None, False),
]


def conf_key(c):
    base = c.split("-qd")[0]
    qd = int(c.split("-qd")[1]) if "-qd" in c else 0
    return (CONF_ORDER.index(base) if base in CONF_ORDER else 99, qd, c)


def job_key(j):
    kind = j.rstrip("0123456789")
    return (0 if kind == "randread" else 1, int(j[len(kind):] or 0), j)


def job_title(j):
    kind = j.rstrip("0123456789")
    n = j[len(kind):]
    if kind == "randread":
        return f"4 KiB random reads, O_DIRECT, psync, {n} readers (fio)"
    if kind == "stat":
        return f"stat of distinct files, {n} processes (bench/slowstat.c: one LOOKUP each)"
    return j


def fint(v):
    """a count: whole numbers without decimals"""
    if v is None:
        return "–"
    return f"{v:.0f}" if v == int(v) else f"{v:.1f}"


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def main():
    dirs = sys.argv[1:]
    if not dirs:
        sys.exit(__doc__)
    rows = []
    for d in dirs:
        new = list(csv.DictReader(open(os.path.join(d, "results.csv"))))
        keys = {(r["config"], r["job"]) for r in new}
        rows = [r for r in rows if (r["config"], r["job"]) not in keys] + new
    data = defaultdict(dict)  # (conf, job) -> {rep: row}
    for r in rows:
        data[(r["config"], r["job"])][int(r["rep"])] = r
    confs = sorted({c for c, _ in data}, key=conf_key)
    jobs = sorted({j for _, j in data}, key=job_key)

    def col(c, j, k):
        return {rep: num(r[k]) for rep, r in data.get((c, j), {}).items() if num(r[k]) is not None}

    out = []
    p = out.append
    p("# libfring slow-backend benchmark (bench/slow.sh)\n")
    for d in dirs:
        env = os.path.join(d, "env.txt")
        if os.path.exists(env):
            p("```")
            p(open(env).read().rstrip())
            p("```\n")
    p("Every LOOKUP, GETATTR and READ takes the backend's latency. Values are medians over "
      "the repetitions, ops/s with [min–max]; p50/p99: completion latency of one operation "
      "(fio clat percentiles; slowstat's own for stat); server CPU: utime+stime of the server "
      "process over the job per operation; threads and RSS: the server's, in the middle of "
      "the job; load: the 1-minute load average at the job's start (2 CPUs, shared).\n")
    for j in jobs:
        p(f"## {job_title(j)}\n")
        p("| configuration | ops/s | p50 µs | p99 µs | server CPU µs/op | threads | RSS MiB | n | load |")
        p("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for c in confs:
            v = list(col(c, j, "ops_per_s").values())
            if not v:
                continue
            m = statistics.median(v)
            rss = med(col(c, j, "rss_kib").values())
            p(f"| {c} | {fmt(m)} [{fmt(min(v))}–{fmt(max(v))}] "
              f"| {fmt(med(col(c, j, 'p50_us').values()))} "
              f"| {fmt(med(col(c, j, 'p99_us').values()))} "
              f"| {fmt(med(col(c, j, 'cpu_us_per_op').values()))} "
              f"| {fint(med(col(c, j, 'threads').values()))} "
              f"| {fmt(rss / 1024 if rss else None)} | {len(v)} "
              f"| {fmt(med(col(c, j, 'load1').values()))} |")
        p("")

    have = [g for g in GOALS if any((g[0], j) in data and (g[1], j) in data for j in jobs)]
    if have:
        p("## Ratios (of the medians; [min–max] of the per-repetition ratios)\n")
        p("| ratio | goal | " + " | ".join(jobs) + " |")
        p("|---|---|" + "---:|" * len(jobs))
        verdicts = []
        for a, b, goal, fewer in have:
            cells = []
            for j in jobs:
                va, vb = col(a, j, "ops_per_s"), col(b, j, "ops_per_s")
                if not va or not vb:
                    cells.append("–")
                    continue
                r = med(va.values()) / med(vb.values())
                per = [va[k] / vb[k] for k in va if k in vb and vb[k]]
                s = fmt(r, "ratio") + (f" [{min(per):.2f}–{max(per):.2f}]" if len(per) > 1 else "")
                if goal:
                    s += " ✓" if r >= goal else " ✗"
                    verdicts.append((a, b, j, r, goal))
                cells.append(s)
            g = f"≥ {goal:.0f}×" if goal else "–"
            p(f"| {a} / {b} ops/s | {g} | " + " | ".join(cells) + " |")
            cells = []
            for j in jobs:
                ca = med(col(a, j, "cpu_us_per_op").values())
                cb = med(col(b, j, "cpu_us_per_op").values())
                cells.append(fmt(ca / cb, "ratio") if ca and cb else "–")
            p(f"| {a} / {b} server CPU per op | – | " + " | ".join(cells) + " |")
            if fewer:
                cells = []
                for j in jobs:
                    ta, tb = med(col(a, j, "threads").values()), med(col(b, j, "threads").values())
                    cells.append(f"{fint(ta)} vs {fint(tb)}" + (" ✓" if ta and tb and ta < tb else " ✗")
                                 if ta and tb else "–")
                p(f"| {a} vs {b} threads | fewer | " + " | ".join(cells) + " |")
        p("")
        met = [v for v in verdicts if v[3] >= v[4]]
        p(f"Goals on ops/s met in {len(met)} of {len(verdicts)} (configuration pair, job) cells.\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
