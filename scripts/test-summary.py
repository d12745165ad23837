#!/usr/bin/env python3
"""Prints one line per meson test and the closing 'N passed, N failed' line.

Takes one or more testlog.json files (one per build directory). A failed
test's FAIL lines (and the indented lines that explain them) are repeated
at the end, where a CI log cut in the middle still shows them.

The skip policy (tests/lib/check.sh): with FRING_E2E_NO_SKIP=1 in the
environment (scripts/test.sh exports it) or --no-skip, no skip is allowed:
a test meson reports SKIP fails the run, whatever let it through (a C test
program meson runs directly, a wrapper that forgot the policy), and is
listed with its reason."""
import json
import os
import sys

args = sys.argv[1:]
no_skip = os.environ.get("FRING_E2E_NO_SKIP", "0") == "1"
if "--no-skip" in args:
    no_skip = True
    args.remove("--no-skip")

passed = failed = skipped = 0
why = []
skips = []
for path in args:
    if not os.path.exists(path):
        # its tier never ran (scripts/test.sh goes on after a failed build
        # in the background): a failure, not a silence
        print(f"FAIL     {path}: missing (its tier did not run)")
        failed += 1
        why.append((path, ["FAIL: no test log: see the tier's output above"]))
        continue
    with open(path) as f:
        for line in f:
            t = json.loads(line)
            res = t.get("result", "?")
            print(f"{res:8} {t.get('name')} ({t.get('duration', 0):.1f}s)")
            if res in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif res == "SKIP":
                skipped += 1
                reason = [l for l in (t.get("stdout") or "").splitlines()
                          if l.startswith(("SKIP", "NOT OFFERED"))]
                skips.append((t.get("name"), reason[:3]))
            else:
                failed += 1
                lines = [l for l in (t.get("stdout") or "").splitlines()
                         if l.startswith(("FAIL", "#   ", "not ok"))]
                why.append((t.get("name"), lines[:60]))
for name, lines in why:
    print(f"--- {name}: what it said failed ---")
    for l in lines:
        print(l[:300])
if skips and no_skip:
    print(f"--- FRING_E2E_NO_SKIP=1: no skip is allowed, {len(skips)} test(s) skipped ---")
    for name, reason in skips:
        print(f"SKIP {name}: {'; '.join(reason) or 'no reason printed'}"[:300])
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed == 0 or (skips and no_skip) else 0)
