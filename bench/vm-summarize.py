#!/usr/bin/env python3
"""Markdown summary of a bench/vm.sh results directory.

Usage: bench/vm-summarize.py DIR > DIR/summary.md

Reads DIR/guest.log (the guest's serial console), whose lines
  @@FRING-BENCH rep=R fs=F transport=T job=J ticks=N fio=TERSE@@
  @@FRING-BENCH-REFUSED rep=R fs=F transport=T REASON@@
bench/vm-guest.sh printed; writes DIR/results.csv (one row per repetition,
file system, transport and job) and prints, per file system: the medians,
the server's CPU-seconds per GiB, fio's completion latency p50 and p99
(from the terse line's clat percentiles, when it has them), the ratios of each transport to uring and
of each rung to the one before it in the transport list, with [min-max] of
the per-repetition ratios (rep i against rep i, measured minutes apart).
File system hp (libfuse's passthrough_hp, transport "libfuse-uring") gets
its own rows and, when passthrough or hpfring (the same passthrough_hp on
libfring-fuse3) ran too, the ratios of each of their transports to it; so
does hpbg (the same passthrough_hp, max_background 256 as libfring's
default).
"""
import csv
import os
import re
import statistics
import sys
from collections import defaultdict

from summarize import fmt, med

JOBS = {  # job: (title, unit, fio direction)
    "seqread": ("1 MiB read, O_DIRECT", "MiB/s", "read"),
    "seqwrite": ("1 MiB write, O_DIRECT", "MiB/s", "write"),
    "randread": ("4 KiB random read, io_uring QD32, O_DIRECT", "IOPS", "read"),
    "randwrite": ("4 KiB random write, io_uring QD32, O_DIRECT", "IOPS", "write"),
    "bufread": ("1 MiB read, buffered", "MiB/s", "read"),
    "bufwrite": ("1 MiB write, buffered (+fsync)", "MiB/s", "write"),
}
USER_HZ = 100  # /proc/PID/stat ticks on x86 Linux
LINE = re.compile(r"@@FRING-BENCH rep=(\d+) fs=(\S+) transport=(\S+) job=(\S+) ticks=(\d+) fio=(.*)@@")
REFUSED = re.compile(r"@@FRING-BENCH-REFUSED rep=(\d+) fs=(\S+) transport=(\S+) (.*)@@")
ORDER = ["dev", "uring", "bufpool", "bufpool-registered", "zerocopy"]
HP = ("hp", "libfuse-uring")  # libfuse's passthrough_hp -o io_uring (vm-guest.sh)
# hp again with max_background 256 (libfring's default) set in fusectl
HPS = {"hp": "libfuse passthrough_hp (io_uring)",
       "hpbg": "libfuse passthrough_hp (io_uring, max_background 256)"}


def parse_terse(terse, direction):
    """fio terse v3: read KiB, KiB/s, IOPS at fields 6-8, write at 47-49;
    each direction's 20 clat percentile fields ("P%=usec") 13 fields after
    its KiB. Returns bytes, MiB/s, IOPS, seconds, clat p50 and p99 in µs
    (None when the line has no such percentile)."""
    f = terse.split(";")
    base = 5 if direction == "read" else 46
    kib, bw, iops = float(f[base]), float(f[base + 1]), float(f[base + 2])
    pct = {}
    for field in f[base + 12:base + 32]:
        k, eq, v = field.partition("%=")
        if eq:
            try:
                pct[float(k)] = float(v)
            except ValueError:
                pass
    return (kib * 1024, bw / 1024, iops, (kib / bw if bw else 0.0),
            pct.get(50.0), pct.get(99.0))


def main():
    d = sys.argv[1]
    res = {}           # (fs, transport, job) -> {rep: (value, cpu_s_per_gib, p50, p99)}
    refused = {}       # (fs, transport) -> reason
    rows = []
    for line in open(os.path.join(d, "guest.log"), errors="replace"):
        m = LINE.search(line)
        if m:
            rep, fs, t, job, ticks, terse = m.groups()
            unit, direction = JOBS[job][1], JOBS[job][2]
            nbytes, mibs, iops, secs, p50, p99 = parse_terse(terse, direction)
            value = iops if unit == "IOPS" else mibs
            cpu = int(ticks) / USER_HZ
            per_gib = cpu / (nbytes / 2**30) if nbytes else None
            res.setdefault((fs, t, job), {})[int(rep)] = (value, per_gib, p50, p99)
            rows.append([rep, fs, t, job, f"{value:.1f}", unit, int(nbytes), f"{secs:.3f}",
                         f"{cpu:.2f}", "" if per_gib is None else f"{per_gib:.4f}",
                         "" if p50 is None else f"{p50:.0f}", "" if p99 is None else f"{p99:.0f}"])
            continue
        m = REFUSED.search(line)
        if m:
            refused[(m.group(2), m.group(3))] = m.group(4)
    with open(os.path.join(d, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["rep", "fs", "transport", "job", "value", "unit", "io_bytes", "seconds",
                    "server_cpu_s", "cpu_s_per_gib", "clat_p50_us", "clat_p99_us"])
        w.writerows(rows)

    env = os.path.join(d, "env.txt")
    settings = {}
    if os.path.exists(env):
        for line in open(env):
            k, _, v = line.partition(": ")
            settings[k] = v.strip()
    wanted = settings.get("transports", ",".join(ORDER)).split(",")
    fss = settings.get("file systems", "memfs,passthrough").split(",")
    jobs = [j for j in settings.get("jobs", ",".join(JOBS)).split(",") if j in JOBS]

    out = []
    p = out.append
    p("# libfring VM benchmark (bench/vm.sh)\n")
    if settings:
        p("```")
        p(open(env).read().rstrip())
        p("```\n")
    p("qemu TCG: absolute numbers are those of an emulated CPU and mean little; compare "
      "transports within this boot. Values: median over the repetitions (min–max). "
      "Server CPU: utime+stime of the daemon (all threads, io_uring workers included) "
      "per GiB moved, in the guest's ticks. p50/p99: fio's completion latency of one "
      "operation, µs (medians). Ratios: of the medians, [min–max] of the "
      "per-repetition ratios.\n")

    def vals(fs, t, j, i):
        return {r: v[i] for r, v in res.get((fs, t, j), {}).items() if v[i]}

    def ratio_cell(fs, a, b, j, i, fs_b=None):
        va, vb = vals(fs, a, j, i), vals(fs_b or fs, b, j, i)
        if not va or not vb:
            return "–"
        per = [va[r] / vb[r] for r in va if r in vb]
        s = fmt(med(va.values()) / med(vb.values()), "ratio")
        return s + (f" [{min(per):.2f}–{max(per):.2f}]" if len(per) > 1 else "")

    head = "| {} | " + " | ".join(jobs) + " |"
    rule = "|---|" + "---:|" * len(jobs)
    for fs in fss:
        p(f"## {fs}\n")
        # hp has one pseudo-transport of its own, not the -T list
        fs_wanted = [HP[1]] if fs in HPS else wanted
        ts = [t for t in fs_wanted if any((fs, t, j) in res for j in jobs)]
        for t in fs_wanted:
            if t not in ts:
                why = refused.get((fs, t))
                p(f"- **{t}**: " + (f"refused: {why}" if why else "no result (see run-vm.txt)"))
        if len(ts) < len(fs_wanted):
            p("")
        if not ts:
            continue
        p("| transport | " + " | ".join(f"{j} ({JOBS[j][1]})" for j in jobs) + " |")
        p(rule)
        for t in ts:
            cells = []
            for j in jobs:
                xs = list(vals(fs, t, j, 0).values())
                cells.append(f"{fmt(statistics.median(xs))} ({fmt(min(xs))}–{fmt(max(xs))})" if xs else "–")
            p(f"| {t} | " + " | ".join(cells) + " |")
        p("")
        p("Server CPU-s per GiB (median):\n")
        p(head.format("transport"))
        p(rule)
        for t in ts:
            p(f"| {t} | " + " | ".join(fmt(med(vals(fs, t, j, 1).values())) for j in jobs) + " |")
        p("")
        if any(vals(fs, t, j, 2) for t in ts for j in jobs):
            p("Completion latency p50 / p99, µs (median):\n")
            p(head.format("transport"))
            p(rule)
            for t in ts:
                p(f"| {t} | " + " | ".join(
                    f"{fmt(med(vals(fs, t, j, 2).values()))} / {fmt(med(vals(fs, t, j, 3).values()))}"
                    if vals(fs, t, j, 2) else "–" for j in jobs) + " |")
            p("")
        pairs = [(t, "uring") for t in ts if t != "uring" and "uring" in ts]
        pairs += [(b, a) for a, b in zip(ts, ts[1:]) if (b, a) not in pairs and (a, b) not in pairs]
        if not pairs:  # one transport measured: nothing to compare
            continue
        for i, what in ((0, "throughput (higher: the first is faster)"),
                        (1, "server CPU per GiB (lower: the first costs less)")):
            p(f"Ratios of {what}:\n")
            p(head.format("ratio"))
            p(rule)
            for a, b in pairs:
                p(f"| {a} / {b} | " + " | ".join(ratio_cell(fs, a, b, j, i) for j in jobs) + " |")
            p("")

    # libfring's passthrough, and passthrough_hp on libfring-fuse3 (hpfring),
    # against libfuse's passthrough_hp on the same source and jobs
    for hp, hp_title in HPS.items():
        for lf, title in (("passthrough", "passthrough"),
                          ("hpfring", "hpfring (passthrough_hp on libfring-fuse3)")):
            pt = [t for t in wanted if any((lf, t, j) in res for j in jobs)]
            if not pt or not any((hp, HP[1], j) in res for j in jobs):
                continue
            p(f"## {title} / {hp_title}\n")
            for i, what in ((0, "throughput (higher: libfring is faster)"),
                            (1, "server CPU per GiB (lower: libfring costs less)")):
                p(f"Ratios of {what}:\n")
                p(head.format("ratio"))
                p(rule)
                for t in pt:
                    p(f"| {lf} {t} / {hp} | "
                      + " | ".join(ratio_cell(lf, t, HP[1], j, i, hp) for j in jobs) + " |")
                p("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
