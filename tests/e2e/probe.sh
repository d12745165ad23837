#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# probe.sh FRING_PROBE
#
# fring-probe on this machine, against what the ladder must say here (as
# root; the fuse module's enable_uring is switched and put back):
#  - enable_uring=N: every ring rung refused for it, auto -> dev, an
#    explicit transport=uring exits 1;
#  - enable_uring=Y: auto -> uring on Linux 6.14 to 7.2, the pool rungs
#    refused for the ABI ("kernel ABI 7.45 < 7.46" on 6.18 to 7.2); auto ->
#    zerocopy on 7.3+;
#  - the --json output (parsed with python3 where there is one, else its
#    fixed fields are matched) against the machine and the options given;
#  - what-if (--abi 7.46) as root, and as nobody with a small
#    RLIMIT_MEMLOCK: no zero-copy, no registered pool, auto -> bufpool;
#  - bad command lines exit 2.
set -uo pipefail
# (meson copies this script and tests/lib into the build tree: the vm tier
# names it there)
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
PROBE=${1:?usage: probe.sh FRING_PROBE}
PARAM=/sys/module/fuse/parameters/enable_uring
if [[ $(id -u) != 0 ]]; then
	skip "needs root (switches enable_uring)"
fi

kv=$(uname -r | awk -F. '{print $1 * 1000 + $2}')
if [[ ! -e $PARAM ]] && ((kv < 6014)); then
	# before Linux 6.14 (Debian 12's 6.1, 13's 6.12; the vm tier's kernel
	# matrix): every ring rung refused for the kernel, auto -> dev
	TMP=$(mktemp -d /tmp/fring-probe.XXXXXX)
	trap 'rm -rf "$TMP"' EXIT
	NO_RING='refused: uring: this kernel has no FUSE-over-io_uring \(Linux 6\.14\+ with CONFIG_FUSE_IO_URING\)'
	"$PROBE" >"$TMP/old" 2>&1
	check old.exit0 "expected 0 got $?" test $? = 0
	check old.abi "got \"$(grep '^FUSE ABI' "$TMP/old")\"" \
		grep -qE '^FUSE ABI +< 7\.42 \(inferred from the kernel version' "$TMP/old"
	for r in zerocopy bufpool-registered bufpool uring; do
		check "old.${r}_refused" "got \"$(grep -E "^  $r " "$TMP/old")\"" \
			grep -qE "^  $r +$NO_RING\$" "$TMP/old"
	done
	check old.auto_dev "got \"$(grep '^transport=auto' "$TMP/old")\"" \
		grep -qE '^transport=auto -> dev \(.*uring: kernel ABI < 7\.42\)$' "$TMP/old"
	"$PROBE" -o transport=uring >"$TMP/uring" 2>&1
	check old.asked_uring_exit1 "expected 1 got $?" test $? = 1
	"$PROBE" --json >"$TMP/json" 2>&1
	check old.json_exit0 "expected 0 got $?" test $? = 0
	check old.json_auto "got $(cat "$TMP/json")" \
		grep -qE '"auto":\{"asked":"auto","refused":false,"transport":"dev",' "$TMP/json"
	check_done
elif [[ ! -w $PARAM ]]; then
	skip "no $PARAM: this kernel has no FUSE-over-io_uring"
fi

if ((kv >= 7003)); then
	abi=46 auto_y=zerocopy
elif ((kv >= 6018)); then
	abi=45 auto_y=uring
elif ((kv >= 6014)); then
	abi=42 auto_y=uring
else
	skip "Linux $(uname -r): no FUSE-over-io_uring expected"
fi

old=$(cat "$PARAM")
TMP=$(mktemp -d /tmp/fring-probe.XXXXXX)
# shellcheck disable=SC2317 # (run by the trap)
cleanup() {
	echo "$old" >"$PARAM"
	rm -rf "$TMP"
}
trap cleanup EXIT

# run NAME ARGS...: fring-probe's stdout in $TMP/NAME, its status in $rc
run() {
	local name=$1
	shift
	"$PROBE" "$@" >"$TMP/$name" 2>"$TMP/$name.err"
	rc=$?
}
# shellcheck disable=SC2317 # (run through check)
has() { grep -qE -- "$2" "$TMP/$1"; }
line() { grep -E -- "$2" "$TMP/$1" | head -n1; }

REFUSED_N='refused: uring: enable_uring=N \(as root: echo Y > /sys/module/fuse/parameters/enable_uring\)'

# ---------------------------------------------------------------- N
echo N >"$PARAM"
run n
check n.exit0 "expected 0 got $rc" test "$rc" = 0
check n.abi "expected \"FUSE ABI 7.$abi\"... got \"$(line n '^FUSE ABI')\"" \
	has n "^FUSE ABI +7\\.$abi\\+? \\(inferred from the kernel version"
check n.enable_uring "expected enable_uring N got \"$(line n '^enable_uring')\"" \
	has n '^enable_uring +N: '
check n.uring_refused "expected \"uring $REFUSED_N\" got \"$(line n '^  uring ')\"" \
	has n "^  uring +$REFUSED_N\$"
for r in zerocopy bufpool-registered bufpool; do
	check "n.${r}_refused" "got \"$(line n "^  $r ")\"" has n "^  $r +$REFUSED_N\$"
done
check n.dev_yes "got \"$(line n '^  dev ')\"" has n '^  dev +yes$'
check n.auto_dev "expected \"transport=auto -> dev (...)\" got \"$(line n '^transport=auto')\"" \
	has n '^transport=auto -> dev \(.*; not uring: enable_uring=N '
run n_uring -o transport=uring
check n.asked_uring_exit1 "expected 1 got $rc" test "$rc" = 1
check n.asked_uring_line "got \"$(line n_uring '^transport=uring')\"" \
	has n_uring "^transport=uring -> $REFUSED_N\$"
run n_dev -o transport=dev
check n.asked_dev_exit0 "expected 0 got $rc" test "$rc" = 0
run n_json --json
check n.json_exit0 "expected 0 got $rc" test "$rc" = 0
check n.json_auto "got $(cat "$TMP/n_json")" \
	has n_json '"enable_uring":"N",.*"auto":\{"asked":"auto","refused":false,"transport":"dev",'

# ---------------------------------------------------------------- Y
echo Y >"$PARAM"
run y
check y.exit0 "expected 0 got $rc" test "$rc" = 0
check y.enable_uring "got \"$(line y '^enable_uring')\"" has y '^enable_uring +Y: '
check y.uring_yes "got \"$(line y '^  uring ')\"" has y '^  uring +yes$'
if [[ $auto_y == uring ]]; then
	pools="zerocopy, bufpool-registered, bufpool: kernel ABI 7\\.$abi < 7\\.46"
	# the rung taken and why each better one is not; an asked-for rung
	# says why it is refused (not "refused: dev (...)") and what auto takes
	check y.auto_uring "expected \"transport=auto -> uring (not $pools)\" got \"$(line y '^transport=auto')\"" \
		has y "^transport=auto -> uring \\(not $pools\\)\$"
	for r in zerocopy bufpool-registered bufpool; do
		check "y.${r}_refused_abi" "got \"$(line y "^  $r ")\"" \
			has y "^  $r +refused: $r: kernel ABI 7\\.$abi < 7\\.46; transport=auto takes uring\$"
	done
	run y_pool -o transport=bufpool
	check y.asked_bufpool_exit1 "expected 1 got $rc" test "$rc" = 1
else
	check y.auto_zerocopy "got \"$(line y '^transport=auto')\"" \
		has y '^transport=auto -> zerocopy \(pools 8192 KiB per queue'
	run y_pool -o transport=bufpool
	check y.asked_bufpool_exit0 "expected 0 got $rc" test "$rc" = 0
fi
run y_uring -o transport=uring
check y.asked_uring_exit0 "expected 0 got $rc" test "$rc" = 0
check y.asked_uring_line "got \"$(line y_uring '^transport=uring')\"" \
	has y_uring '^transport=uring -> uring \('

# --json, default options and explicit ones
run y_json --json
check y.json_exit0 "expected 0 got $rc" test "$rc" = 0
run y_json_opts --json -o transport=bufpool,queue_depth=4,pool_bufs=2,max_write=65536
want_rc=1
[[ $auto_y == zerocopy ]] && want_rc=0
check y.json_opts_exit "expected $want_rc got $rc" test "$rc" = "$want_rc"
possible=$(cat /sys/devices/system/cpu/possible)
release_re=$(uname -r | sed 's/[][\\.*^$+?(){}|]/\\&/g')
if command -v python3 >/dev/null; then
	python3 - "$TMP/y_json" "$TMP/y_json_opts" "$(uname -r)" "$abi" \
		"$auto_y" "$possible" <<'PY'
import json, sys
plain, opts = (json.load(open(p)) for p in sys.argv[1:3])
release, abi, auto_y, possible = sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
nq = sum(int(b or a) - int(a) + 1
         for a, _, b in (p.partition("-") for p in possible.split(",")))
fails = []
def check(name, ok, detail):
    print("ok " + name if ok else f"FAIL {name}: {detail}")
    if not ok:
        fails.append(name)
s = plain
check("json.kernel", s["kernel"] == release, s["kernel"])
check("json.abi", s["abi"]["minor"] == abi and s["abi"]["source"] == "kernel version", s["abi"])
check("json.dev_fuse", s["dev_fuse"]["present"] and s["dev_fuse"]["opens"], s["dev_fuse"])
check("json.enable_uring", s["enable_uring"] == "Y", s["enable_uring"])
check("json.ring", s["io_uring"]["ring"] is True and s["io_uring"]["error"] is None, s["io_uring"])
check("json.root", s["cap_sys_admin"] is True and s["mount"] == "mount(2)", (s["cap_sys_admin"], s["mount"]))
check("json.queues", s["queues"] == nq and s["possible_cpus"] == possible, (s["queues"], nq))
check("json.options", s["options"] == {"queue_depth": 8, "pool_bufs": 8, "max_write": 1 << 20}, s["options"])
check("json.sizes", s["max_payload"] == 1 << 20 and s["pool_bytes"] == 8 * nq << 20
      and s["entry_buffer_bytes"] == 8 * nq << 20, (s["max_payload"], s["pool_bytes"]))
check("json.rungs", list(s["rungs"]) == ["zerocopy", "bufpool-registered", "bufpool", "uring", "dev"],
      list(s["rungs"]))
check("json.uring_ok", s["rungs"]["uring"]["ok"] and s["rungs"]["dev"]["ok"], s["rungs"])
check("json.auto", s["auto"]["transport"] == auto_y and not s["auto"]["refused"]
      and s["auto"]["reason"].startswith(auto_y + " ("), s["auto"])
check("json.result_is_auto", s["result"] == s["auto"], s["result"])
if auto_y == "uring":
    why = f"kernel ABI 7.{abi} < 7.46"
    check("json.auto_names_abi", why in s["auto"]["reason"], s["auto"]["reason"])
    check("json.pools_refused", all(not s["rungs"][r]["ok"] and why in s["rungs"][r]["reason"]
          for r in ("zerocopy", "bufpool-registered", "bufpool")), s["rungs"])
s = opts
check("json.opts", s["options"] == {"queue_depth": 4, "pool_bufs": 2, "max_write": 65536}, s["options"])
check("json.opts_sizes", s["max_payload"] == 65536 and s["pool_bytes"] == 65536 * 2 * nq
      and s["entry_buffer_bytes"] == 65536 * 4 * nq, (s["max_payload"], s["pool_bytes"], s["entry_buffer_bytes"]))
check("json.opts_result", s["result"]["asked"] == "bufpool"
      and s["result"]["refused"] == (auto_y == "uring")
      and s["result"]["transport"] == (None if auto_y == "uring" else "bufpool"), s["result"])
print(f"# json: {len(fails)} failed")
sys.exit(1 if fails else 0)
PY
	check json.python3 "the JSON checks above failed" test $? = 0
else
	echo "# no python3: the JSON's fixed fields are matched instead"
	check json.fields "got $(cat "$TMP/y_json")" has y_json \
		"^\\{\"libfring\":\"[^\"]+\",\"kernel\":\"$release_re\",\"abi\":\\{\"minor\":$abi,.*\"enable_uring\":\"Y\",.*\"mount\":\"mount\\(2\\)\",.*\"auto\":\\{\"asked\":\"auto\",\"refused\":false,\"transport\":\"$auto_y\",.*\\}\$"
	check json.opts_fields "got $(cat "$TMP/y_json_opts")" has y_json_opts \
		'"options":\{"queue_depth":4,"pool_bufs":2,"max_write":65536\},.*"result":\{"asked":"bufpool",'
fi

# ---------------------------------------------------------------- what-if
run abi46 --abi 7.46
check whatif.root_zerocopy "got \"$(line abi46 '^transport=auto')\"" \
	has abi46 '^transport=auto -> zerocopy \('
check whatif.source "got \"$(line abi46 '^FUSE ABI')\"" has abi46 '^FUSE ABI +7\.46 \(given with --abi'
NOBODY=65534
if command -v setpriv >/dev/null &&
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups test -x "$PROBE"; then
	nobody() { (ulimit -l 1024 && setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups --inh-caps=-all "$PROBE" "$@"); }
	nobody --abi 7.46 >"$TMP/nobody" 2>&1
	rc=$?
	check whatif.nobody_exit0 "expected 0 got $rc" test "$rc" = 0
	check whatif.nobody_bufpool "got \"$(line nobody '^transport=auto')\"" has nobody \
		'^transport=auto -> bufpool \(not zerocopy: no CAP_SYS_ADMIN .*; not bufpool-registered: RLIMIT_MEMLOCK 1024 KiB is below the [0-9]+ KiB io_uring pins for [0-9]+ pools? of'
	nobody --abi 7.46 -o transport=zerocopy >"$TMP/nobody_zc" 2>&1
	rc=$?
	check whatif.nobody_zerocopy_exit1 "expected 1 got $rc" test "$rc" = 1
	check whatif.nobody_zerocopy_line "got \"$(line nobody_zc '^transport=zerocopy')\"" \
		has nobody_zc '^transport=zerocopy -> refused: zerocopy: no CAP_SYS_ADMIN'
else
	echo "# no setpriv, or uid $NOBODY cannot run $PROBE: the unprivileged what-if is left out"
fi

# ---------------------------------------------------------------- usage
run bad_abi --abi 8.1
check usage.bad_abi "expected 2 got $rc" test "$rc" = 2
run bad_opt -o transport=fast
check usage.bad_transport "expected 2 got $rc" test "$rc" = 2
check usage.bad_transport_says "got \"$(cat "$TMP/bad_opt.err")\"" has bad_opt.err 'transport=fast'

check_done
