#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# passthrough-hp.sh PASSTHROUGH_HP -f -o OPTS --stats-file=FILE SOURCE MNT
#
# libfuse's passthrough_hp (built unmodified on libfring-fuse3:
# tests/vm/build-fuse3-hp.sh) under run-suite.sh / run-passthrough.sh, as
# their FRING_E2E_WRAPPER: they start a daemon with fring_main()'s command
# line, which passthrough_hp does not take. This turns it into
#
#   PASSTHROUGH_HP --foreground --nopassthrough -o OPTS,stats_fd=3 SOURCE MNT 3>FILE
#
# and execs it (the daemon keeps this process's pid): the same mount
# options reach libfring through the layer's -o handling, and the layer
# writes libfring's statistics to descriptor 3 as the session ends, where
# run-suite.sh reads its --stats-file. --nopassthrough: the data goes
# through the daemon (READ and WRITE), not the kernel's FUSE passthrough.
# FRING_HP_ARGS: more of passthrough_hp's own options (e.g. --nocache).
set -euo pipefail
usage() { echo "usage: $0 PASSTHROUGH_HP -f -o OPTS --stats-file=FILE SOURCE MNT" >&2; exit 1; }
[[ $# == 7 && $2 == -f && $3 == -o && $5 == --stats-file=* ]] || usage
hp=$1 opts=$4 stats=${5#--stats-file=} src=$6 mnt=$7
read -r -a more <<<"${FRING_HP_ARGS:-}"
echo "# $hp --foreground --nopassthrough ${more[*]} -o $opts,stats_fd=3 $src $mnt 3>$stats"
exec "$hp" --foreground --nopassthrough "${more[@]}" -o "$opts,stats_fd=3" "$src" "$mnt" 3>"$stats"
