#!/usr/bin/env python3
"""Prints one line per meson test and the closing 'N passed, N failed' line.

Takes one or more testlog.json files (one per build directory)."""
import json
import sys

passed = failed = skipped = 0
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
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed == 0 else 0)
