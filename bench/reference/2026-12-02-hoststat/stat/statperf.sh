#!/bin/bash
# statperf.sh OUT 1 NEW OLD: stat.sh with one repetition, the server under
# `perf record -F 2000 -e cpu-clock -p PID` from the names' first lookup to
# the end of the 8 rounds (drops and stats). Made from stat.sh by this sed
# and run as such (perf/ is its output).
here=$(dirname "$0")
sed -e 's|^for rep in $(seq $REPS); do for conf in new old hp; do|for rep in 1; do for conf in new old hp; do|' \
    -e 's|^\t\$H/statdrv \$MNT \$N >/dev/null$|\t$H/statdrv $MNT $N >/dev/null\n\tperf record -F 2000 -e cpu-clock -p $PID -o $out/$conf.perf.data 2>>$out/perf.err \&\n\tPP=$!|' \
    -e 's|^\techo "\$rep,\$conf|\tkill -INT $PP; wait $PP\n\techo "$rep,$conf|' \
    "$here/stat.sh" > /tmp/hoststat-stat/statperf-run.sh
exec bash /tmp/hoststat-stat/statperf-run.sh "$@"
