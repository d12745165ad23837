#!/usr/bin/env bash
# The main job on a fresh machine: set up, build, mount examples/memfs and
# show it working with ordinary programs, then unmount and print the stats.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-deps.sh
command -v git >/dev/null || { apt-get install -y -q git >/dev/null; }
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null

mnt=$(mktemp -d /tmp/fring-demo.XXXXXX)
stats=$(mktemp /tmp/fring-demo-stats.XXXXXX)
transport=${TRANSPORT:-auto}
build/examples/memfs/memfs -f -o "transport=$transport" --stats-file="$stats" "$mnt" &
pid=$!
cleanup() { mountpoint -q "$mnt" && umount "$mnt"; wait "$pid" 2>/dev/null || true; rmdir "$mnt" 2>/dev/null || true; }
trap cleanup EXIT
for _ in $(seq 100); do mountpoint -q "$mnt" && break; sleep 0.1; done
mountpoint -q "$mnt" || { echo "memfs did not mount" >&2; exit 1; }
grep " $mnt " /proc/mounts

set -x
mkdir "$mnt/work"
cp -a /usr/include "$mnt/work/include"
diff -r --no-dereference /usr/include "$mnt/work/include"
du -sh "$mnt/work/include"
cd "$mnt/work"
git init -q repo && cd repo
echo "hello, libfring" > README
git add README && git -c user.name=demo -c user.email=demo@example.invalid commit -qm "first commit"
git log --oneline
cd /
rm -rf "$mnt/work"
ls -la "$mnt"
df -h "$mnt"
set +x
umount "$mnt"
wait "$pid"
trap - EXIT
rmdir "$mnt"
echo "statistics:"
cat "$stats"
rm -f "$stats"
