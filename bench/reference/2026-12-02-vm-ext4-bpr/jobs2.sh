# shellcheck shell=bash
# The copy probe in the 7.3 guest (tests/vm/run-vm.sh with FRING_VM_JOBS=this,
# FRING_VM_GUESTS=1, FRING_VM_DISK=a fresh ext4 image, BUILD holding probe2):
# the same 32 MiB file on ext4 (the virtio disk), on the guest's tmpfs /tmp
# and on a tmpfs with huge=always (2 MiB folios); probe2.c.
# shellcheck disable=SC2016 # $1 is the guest shell's, not this one's
job probe2 - bash -c 'mkdir -p /bs /th && mount -t ext4 /dev/vda /bs && mount -t tmpfs -o huge=always,size=200m none /th && dd if=/dev/zero of=/bs/f bs=1M count=32 2>/dev/null && dd if=/dev/zero of=/tmp/f bs=1M count=32 2>/dev/null && dd if=/dev/zero of=/th/f bs=1M count=32 2>/dev/null && sync && echo 3 > /proc/sys/vm/drop_caches && grep -i "huge\|filepmd\|shmempmd" /proc/meminfo; "$1" /bs/f /tmp/f /th/f; grep -i "filepmd\|shmempmd\|FileHuge" /proc/meminfo' _ "$BUILD/probe2"
