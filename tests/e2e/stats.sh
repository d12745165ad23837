#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# stats.sh: reads a libfring --stats-file (JSON) with awk alone, so that the
# same e2e scripts run on a host and in the vm tier's busybox guest, which has
# no python (busybox awk there; gawk or mawk on a host).
#
# As a command:
#   stats.sh FILE        every scalar as "PATH<TAB>VALUE", one a line, where
#                        PATH joins object keys and array indexes with dots
#                        (transport, requests, per_queue.1.ring_entries,
#                        by_opcode.READ, side_channel.requests, ...); an array
#                        also gives PATH.length
#   stats.sh FILE KEY    that value alone (strings unquoted); exit 1 when
#                        there is no such key
#   Exit 2: FILE cannot be read or is not valid JSON.
#
# Sourced (run-suite.sh, uring-queues.sh, teardown.sh, lifecycle.sh):
#   stats_read FILE [KEY]   the command above, as a function
#   stats_get FILE KEY      the value, or "(none)" (always exit 0)
#   stats_checks FILE TRANSPORT NAME
#       with the caller's ok/fail functions ("ok NAME", "fail NAME WHY"):
#       NAME.stats_file (FILE is there and not empty), NAME.stats_transport
#       (the transport is TRANSPORT; any when TRANSPORT is "auto"),
#       NAME.stats_requests (requests > 0), NAME.stats_expect[E] for each
#       expectation E of FRING_E2E_STATS_EXPECT, then prints the whole JSON as
#       one line "@@FRING-STATS {...}@@" (run-vm.sh reads it). Returns 1 when
#       a check failed.
#   FRING_E2E_STATS_EXPECT (FRING_VM_STATS_EXPECT, its older name, too):
#       space-separated KEY>N, KEY>=N, KEY=V or KEY!=V, keys as stats.sh
#       prints them, e.g. "pool_requests>0 per_queue.1.requests>0": what a
#       rung must show beyond its name.

stats_read() { # FILE [KEY]
	[[ -r $1 ]] || { echo "stats.sh: cannot read $1" >&2; return 2; }
	awk -v want="${2-}" -v have_key="${2+1}" '
function fail(why) { if (!bad) print "stats.sh: not JSON: " why " at character " pos > "/dev/stderr"; bad = 1 }
function ch() { return substr(s, pos, 1) }
function ws() { while (pos <= n && index(" \t\r\n", ch()) > 0) pos++ }
function emit(path, v) {
	if (have_key) { if (path == want) { print v; found = 1 } }
	else print path "\t" v
}
function str(    out, c, d) {
	if (ch() != "\"") { fail("expected a string"); return "" }
	pos++
	out = ""
	while (pos <= n) {
		c = ch()
		if (c == "\\") {
			d = substr(s, pos + 1, 1)
			if (d == "n") out = out "\n"
			else if (d == "t") out = out "\t"
			else if (d == "r") out = out "\r"
			else if (d == "u") { out = out "?"; pos += 4 }
			else out = out d
			pos += 2
			continue
		}
		if (c == "\"") { pos++; return out }
		out = out c
		pos++
	}
	fail("unterminated string")
	return out
}
function join(path, k) { return path == "" ? k : path "." k }
function val(path,    c, k, i, v) {
	if (bad) return
	ws()
	if (pos > n) { fail("unexpected end"); return }
	c = ch()
	if (c == "{") {
		pos++
		ws()
		if (ch() == "}") { pos++; return }
		while (!bad) {
			ws()
			k = str()
			ws()
			if (ch() != ":") { fail("expected :"); return }
			pos++
			val(join(path, k))
			ws()
			c = ch()
			pos++
			if (c == "}") return
			if (c != ",") { fail("expected , or }"); return }
		}
		return
	}
	if (c == "[") {
		pos++
		ws()
		i = 0
		if (ch() == "]") { pos++; emit(join(path, "length"), 0); return }
		while (!bad) {
			val(join(path, i))
			i++
			ws()
			c = ch()
			pos++
			if (c == "]") { emit(join(path, "length"), i); return }
			if (c != ",") { fail("expected , or ]"); return }
		}
		return
	}
	if (c == "\"") { v = str(); emit(path, v); return }
	v = ""
	while (pos <= n && index(",}] \t\r\n", ch()) == 0) { v = v ch(); pos++ }
	if (v == "") { fail("expected a value"); return }
	emit(path, v)
}
{ s = s $0 "\n" }
END {
	n = length(s)
	pos = 1
	val("")
	if (bad) exit 2
	if (have_key && !found) exit 1
	exit 0
}
' "$1"
}

stats_get() { # FILE KEY
	local v
	v=$(stats_read "$1" "$2" 2>/dev/null) || v="(none)"
	echo "$v"
}

stats_expect() { # FILE EXPECTATION NAME: one check of FRING_E2E_STATS_EXPECT
	local file=$1 e=$2 name=$3 key op want got r=0
	if [[ ! $e =~ ^([A-Za-z0-9_.]+)(\>=|\>|!=|=)(.*)$ ]]; then
		fail "$name.stats_expect" "expected KEY>N, KEY>=N, KEY=V or KEY!=V in FRING_E2E_STATS_EXPECT got \"$e\""
		return 1
	fi
	key=${BASH_REMATCH[1]} op=${BASH_REMATCH[2]} want=${BASH_REMATCH[3]}
	got=$(stats_get "$file" "$key")
	case $op in
	'>' | '>=')
		if [[ $got =~ ^[0-9]+$ && $want =~ ^[0-9]+$ ]]; then
			if [[ $op == '>' ]]; then ((got > want)) && r=1; else ((got >= want)) && r=1; fi
		fi
		;;
	'=') [[ $got == "$want" ]] && r=1 ;;
	'!=') [[ $got != "$want" ]] && r=1 ;;
	esac
	if [[ $r == 1 ]]; then
		ok "$name.stats_expect[$e]"
	else
		fail "$name.stats_expect[$e]" "expected $key $op $want got $got"
		return 1
	fi
}

stats_checks() { # FILE TRANSPORT NAME
	local file=$1 transport=$2 name=$3 got e bad=0
	if [[ ! -s $file ]]; then
		fail "$name.stats_file" "expected the daemon to write $file at exit"
		return 1
	fi
	ok "$name.stats_file"
	got=$(stats_get "$file" transport)
	if [[ $transport == auto || $got == "$transport" ]]; then
		ok "$name.stats_transport"
	else
		fail "$name.stats_transport" "expected \"$transport\" got \"$got\""
		bad=1
	fi
	got=$(stats_get "$file" requests)
	if [[ $got =~ ^[0-9]+$ && $got -gt 0 ]]; then
		ok "$name.stats_requests"
	else
		fail "$name.stats_requests" "expected requests > 0 got $got"
		bad=1
	fi
	for e in ${FRING_E2E_STATS_EXPECT:-${FRING_VM_STATS_EXPECT:-}}; do
		stats_expect "$file" "$e" "$name" || bad=1
	done
	echo "@@FRING-STATS $(tr -d '\n' <"$file")@@"
	return "$bad"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -u
	[[ $# == 1 || $# == 2 ]] || { echo "usage: $0 FILE [KEY]" >&2; exit 2; }
	stats_read "$@"
fi
