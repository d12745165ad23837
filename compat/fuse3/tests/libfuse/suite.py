#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""suite.py RUN_TESTS_PY [ARGS...]: runs libfuse's test runner unchanged but
for one check, the one that makes --io-uring impossible with libfuse 3.18.3.

The runner's io-uring preflight asks the example printcap for
FUSE_CAP_OVER_IO_URING and skips the whole run when it is not listed. The
printcap of 3.18.3 never lists it: its table of names ends before that
capability, so the suite of 3.18.3 skips every --io-uring run on every
kernel. Where the runner would skip for exactly that reason, we ask what
the capability stands for instead: the fuse module's enable_uring switch,
which is what makes a kernel that has FUSE-over-io_uring offer it in INIT.
Every other outcome of the preflight (no HAVE_URING in the build, no such
switch, the switch off) stands, and nothing else of the runner is touched:
it still exports FUSE_URING_ENABLE=1 to every daemon and still fails a
case whose daemon logs libfuse's "failed to start io-uring".

The runner re-executes itself under a systemd user scope when it has no
cgroup of its own to write; that would drop this change, so it is told it
already did (it then contains tests with killpg()).
"""
import importlib.util
import os
import sys
from pathlib import Path

ENABLE_URING = Path('/sys/module/fuse/parameters/enable_uring')


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    path = Path(sys.argv[1]).resolve()
    spec = importlib.util.spec_from_file_location('fuse_run_tests', path)
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    os.environ[runner.REEXEC_SENTINEL] = '1'

    preflight = runner.TestRunner.preflight_io_uring

    def preflight_io_uring(self) -> str:
        reason = preflight(self)
        if reason != f'the kernel did not offer {runner.IO_URING_CAP}':
            return reason
        try:
            enabled = ENABLE_URING.read_text().strip()
        except OSError:
            return reason
        if enabled in ('Y', '1'):
            print(f'note: printcap lists no {runner.IO_URING_CAP} (3.18.3 '
                  f'has no name for it); {ENABLE_URING} is {enabled}, so '
                  'the kernel offers it')
            return ''
        return reason

    runner.TestRunner.preflight_io_uring = preflight_io_uring
    return runner.main(sys.argv[2:])


if __name__ == '__main__':
    sys.exit(main())
