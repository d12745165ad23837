#!/usr/bin/env python3
"""Prints one line per meson test and the closing 'N passed, N failed' line.

Takes one or more testlog.json files (one per build directory). A failed
test's FAIL lines (and the indented lines that explain them) are repeated
at the end, where a CI log cut in the middle still shows them."""
import json
import sys

passed = failed = skipped = 0
why = []
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            t = json.loads(line)
            res = t.get("result", "?")
            print(f"{res:8} {t.get('name')} ({t.get('duration', 0):.1f}s)")
            if res in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif res == "SKIP":
                skipped += 1
            else:
                failed += 1
                lines = [l for l in (t.get("stdout") or "").splitlines()
                         if l.startswith(("FAIL", "#   ", "not ok"))]
                why.append((t.get("name"), lines[:60]))
for name, lines in why:
    print(f"--- {name}: what it said failed ---")
    for l in lines:
        print(l[:300])
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed == 0 else 0)
