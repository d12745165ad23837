#!/usr/bin/env python3
"""Markdown summary of a bench/run.sh results directory (results.csv).

Usage: bench/summarize.py RESULTS_DIR [OVERLAY_DIR...] > summary.md

With more than one directory, a (configuration, job) measured in a later
directory replaces the same pair from the earlier ones (to re-run a subset).

Per job and configuration: median, min and max over the repetitions, the
spread, the server's CPU time per GiB moved (data jobs) and per operation
(a data job's fio operations, a metadata phase's files), fio's completion
latency p50 and p99 (data jobs; results.csv from before these columns
shows "–"), and the ratios asked for in doc/benchmarks.md: uring/dev,
each/tmpfs, libfring/libfuse (passthrough uring vs passthrough_hp -o io_uring,
passthrough dev vs passthrough_hp classic), checked against the project's
targets.
"""
import csv
import os
import statistics
import sys
from collections import defaultdict

JOB_ORDER = ["seqread", "seqwrite", "randread", "randwrite", "meta-create", "meta-stat", "meta-unlink"]
CONF_ORDER = ["tmpfs", "fring-pt-dev", "fring-pt-uring", "fring-pt-dev-passthrough",
              "fring-pt-uring-passthrough", "fring-memfs-dev",
              "fring-memfs-uring", "fring-null-dev", "fring-null-uring", "fring-hpdrop-dev",
              "fring-hpdrop-uring", "fuse-hp-classic",
              "fuse-hp-single", "fuse-hp-uring"]
JOB_TITLE = {
    "seqread": "1 MiB sequential read, O_DIRECT, 2 jobs (MiB/s)",
    "seqwrite": "1 MiB sequential write, O_DIRECT, 2 jobs (MiB/s)",
    "randread": "4 KiB random read, io_uring QD32, O_DIRECT, 2 jobs (IOPS)",
    "randwrite": "4 KiB random write, io_uring QD32, O_DIRECT, 2 jobs (IOPS)",
    "meta-create": "metadata: create (open O_CREAT|O_EXCL + close), 2 procs (ops/s)",
    "meta-stat": "metadata: stat after dropping dentries, 2 procs (ops/s)",
    "meta-unlink": "metadata: unlink, 2 procs (ops/s)",
}
# (numerator, denominator, label, target on throughput, target on CPU)
PAIRS = [
    ("fring-pt-uring", "fring-pt-dev", "libfring passthrough uring/dev", None, None),
    ("fring-memfs-uring", "fring-memfs-dev", "libfring memfs uring/dev", None, None),
    ("fuse-hp-uring", "fuse-hp-classic", "libfuse passthrough_hp io_uring/classic", None, None),
    ("fring-pt-uring", "fuse-hp-uring", "libfring/libfuse on uring (passthrough vs passthrough_hp -o io_uring)", 1.2, 1.0),
    ("fring-pt-dev", "fuse-hp-classic", "libfring/libfuse on dev (passthrough vs passthrough_hp classic)", 1.0, 1.0),
    ("fring-hpdrop-uring", "fuse-hp-uring", "passthrough_hp, one binary: on libfring's drop-in / on libfuse, -o io_uring", None, None),
    ("fring-hpdrop-dev", "fuse-hp-classic", "passthrough_hp, one binary: on libfring's drop-in / on libfuse, /dev/fuse", None, None),
    ("fring-null-uring", "fuse-hp-uring", "ceiling: libfring nullfs uring / passthrough_hp -o io_uring", None, None),
    ("fring-pt-uring", "fring-pt-uring-b", "libfring passthrough uring: this build / build B (run.sh -B)", None, None),
    ("fring-pt-uring-b", "fuse-hp-uring", "build B (run.sh -B) passthrough uring / passthrough_hp -o io_uring", None, None),
]


def conf_key(c):
    b = c.endswith("-b")  # run.sh -B: the second build, next to the first
    name = c[:-2] if b else c
    base = name.split("-qd")[0]
    qd = int(name.split("-qd")[1]) if "-qd" in name else 0
    return (CONF_ORDER.index(base) if base in CONF_ORDER else 99, qd, b, c)


def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def fmt(v, unit=""):
    if v is None:
        return "–"
    if unit == "ratio":
        return f"{v:.2f}×"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) >= 100:
        return f"{v:.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.3f}" if abs(v) < 1 else f"{v:.2f}"


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def main():
    dirs = sys.argv[1:]
    rows = []
    for d in dirs:
        new = list(csv.DictReader(open(os.path.join(d, "results.csv"))))
        keys = {(r["config"], r["job"]) for r in new}
        rows = [r for r in rows if (r["config"], r["job"]) not in keys] + new
    val = defaultdict(dict)     # (conf, job) -> {rep: value}
    cpu = defaultdict(dict)     # (conf, job) -> {rep: cpu per GiB or per op}
    unit = {}
    cpu_op = defaultdict(dict)  # (conf, job) -> {rep: CPU-µs per operation}
    p50 = defaultdict(dict)     # (conf, job) -> {rep: clat p50 µs}
    p99 = defaultdict(dict)
    for r in rows:
        k = (r["config"], r["job"])
        rep = int(r["rep"])
        val[k][rep] = fnum(r["value"])
        unit[r["job"]] = r["unit"]
        c = fnum(r["cpu_s_per_gib"]) if not r["job"].startswith("meta-") else fnum(r["cpu_us_per_op"])
        cpu[k][rep] = c
        op = fnum(r.get("cpu_us_per_op"))
        if op is None and not r["job"].startswith("meta-"):
            # older results.csv: per operation from the bytes moved
            secs, nbytes = fnum(r.get("server_cpu_s")), fnum(r.get("io_bytes"))
            bs = 4096 if r["job"].startswith("rand") else 1048576
            if secs is not None and nbytes and r["config"] != "tmpfs":
                op = secs * 1e6 / (nbytes / bs)
        cpu_op[k][rep] = op
        p50[k][rep] = fnum(r.get("clat_p50_us"))
        p99[k][rep] = fnum(r.get("clat_p99_us"))
    confs = sorted({c for c, _ in val}, key=conf_key)
    jobs = [j for j in JOB_ORDER if any((c, j) in val for c in confs)]
    jobs += sorted({j for _, j in val} - set(jobs))

    out = []
    p = out.append
    p("# libfring benchmark summary\n")
    for d in dirs:
        env = os.path.join(d, "env.txt")
        if os.path.exists(env):
            if len(dirs) > 1:
                p(f"{os.path.basename(os.path.normpath(d))}:\n")
            p("```")
            p(open(env).read().rstrip())
            p("```\n")
    p("Values are the median over the repetitions, with min and max; spread = (max−min)/median. "
      "Server CPU is utime+stime of the daemon process (all its threads, io_uring workers "
      "included) during the job: CPU-seconds per GiB moved for data jobs, and CPU-µs per "
      "operation (a data job's fio operations, a metadata phase's files). p50 and p99: fio's "
      "completion latency percentiles of one operation, or for a metadata phase the time of one "
      "call as bench/metaops measures it (a create is its open and close; medians over the "
      "repetitions; results from before 2026-12-03 have none for the metadata job). The machine "
      "is shared: read the spread before the medians.\n")

    for j in jobs:
        data = not j.startswith("meta-")
        p(f"## {JOB_TITLE.get(j, j)}\n")
        base = med(val[("tmpfs", j)].values()) if ("tmpfs", j) in val else None
        if data:
            p("| configuration | median | min | max | spread | n | /tmpfs | server CPU-s/GiB | "
              "server CPU-µs/op | p50 µs | p99 µs |")
            p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        else:
            p("| configuration | median | min | max | spread | n | /tmpfs | server CPU-µs/op | "
              "p50 µs | p99 µs |")
            p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for c in confs:
            if (c, j) not in val:
                continue
            xs = [x for x in val[(c, j)].values() if x is not None]
            if not xs:
                continue
            m = statistics.median(xs)
            spread = (max(xs) - min(xs)) / m * 100 if m else 0
            rel = fmt(m / base, "ratio") if base and c != "tmpfs" else "–"
            cm = med(cpu[(c, j)].values())
            row = f"| {c} | {fmt(m)} | {fmt(min(xs))} | {fmt(max(xs))} | {spread:.0f}% | {len(xs)} | {rel} | {fmt(cm)} |"
            if data:
                row += f" {fmt(med(cpu_op[(c, j)].values()))} |"
            row += f" {fmt(med(p50[(c, j)].values()))} | {fmt(med(p99[(c, j)].values()))} |"
            p(row)
        p("")

    # ratios
    have = [(a, b, lab, tt, tc) for a, b, lab, tt, tc in PAIRS
            if any((a, j) in val and (b, j) in val for j in jobs)]
    if have:
        p("## Ratios (of medians; [min–max] of the per-repetition ratios, rep i vs rep i)\n")
        p("| ratio | " + " | ".join(jobs) + " |")
        p("|---|" + "---:|" * len(jobs))
        for a, b, lab, tt, tc in have:
            cells = []
            for j in jobs:
                if (a, j) not in val or (b, j) not in val:
                    cells.append("–")
                    continue
                ma, mb = med(val[(a, j)].values()), med(val[(b, j)].values())
                per = [val[(a, j)][r] / val[(b, j)][r] for r in val[(a, j)]
                       if r in val[(b, j)] and val[(a, j)][r] and val[(b, j)][r]]
                s = fmt(ma / mb, "ratio") if ma and mb else "–"
                if per:
                    s += f" [{min(per):.2f}–{max(per):.2f}]"
                cells.append(s)
            p(f"| {lab} | " + " | ".join(cells) + " |")
        p("")
        p("Server CPU ratio (CPU per GiB or per op; lower is better for the numerator):\n")
        p("| ratio | " + " | ".join(jobs) + " |")
        p("|---|" + "---:|" * len(jobs))
        for a, b, lab, tt, tc in have:
            cells = []
            for j in jobs:
                ca = med(cpu[(a, j)].values()) if (a, j) in cpu else None
                cb = med(cpu[(b, j)].values()) if (b, j) in cpu else None
                cells.append(fmt(ca / cb, "ratio") if ca and cb else "–")
            p(f"| {lab} | " + " | ".join(cells) + " |")
        p("")

        targets = [(a, b, lab, tt, tc) for a, b, lab, tt, tc in have if tt]
        if targets:
            p("## Project targets\n")
            p("| target | job | measured | met? |")
            p("|---|---|---:|---|")
            for a, b, lab, tt, tc in targets:
                for j in jobs:
                    if (a, j) not in val or (b, j) not in val:
                        continue
                    ma, mb = med(val[(a, j)].values()), med(val[(b, j)].values())
                    if ma and mb:
                        r = ma / mb
                        p(f"| {a} ≥ {tt:.1f}× {b} | {j} | {r:.2f}× | {'yes' if r >= tt else '**no**'} |")
                    ca, cb = med(cpu[(a, j)].values()), med(cpu[(b, j)].values())
                    if ca and cb:
                        r = ca / cb
                        p(f"| {a} server CPU ≤ {b} | {j} | {r:.2f}× | {'yes' if r <= tc else '**no**'} |")
            p("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
