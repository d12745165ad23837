#!/bin/bash
# hostprobe.sh DIR PROBE2: probe2 five times on the host, on a fresh ext4 on
# a loop device in DIR (root), its output in DIR/host-probe-5.txt
set -e
D=${1:?scratch directory} P=${2:?path of probe2}
mkdir -p "$D/mnt"
truncate -s 1G "$D/disk.img" && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$D/disk.img"
mount -o loop "$D/disk.img" "$D/mnt"
dd if=/dev/zero of="$D/mnt/f" bs=1M count=32 2>/dev/null; sync
{ date -Is; uname -r; uptime; for i in 1 2 3 4 5; do echo "# run $i"; "$P" "$D/mnt/f"; done; uptime; } > "$D/host-probe-5.txt" 2>&1
umount "$D/mnt"; rm -f "$D/disk.img"
