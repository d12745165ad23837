#!/bin/sh
# SPDX-License-Identifier: MIT
#
# guest-stats.sh FILE [KEY]
#
# Reads a libfring --stats-file (JSON) without python: awk only (busybox awk
# in the vm guest; gawk or mawk on a host). Without KEY it prints every scalar
# as "PATH<TAB>VALUE", one a line, where PATH joins object keys and array
# indexes with dots (transport, requests, per_queue.1.ring_entries,
# by_opcode.READ, side_channel.requests, ...) and an array also gives
# PATH.length. With KEY it prints that value alone (strings unquoted), or
# exits 1 when there is no such key. Exit 2: the file is not valid JSON.
#
# Example: guest-stats.sh stats.json per_queue.length
set -u
[ $# -ge 1 ] || { echo "usage: $0 FILE [KEY]" >&2; exit 2; }
FILE=$1
KEY=${2-}
[ -r "$FILE" ] || { echo "guest-stats: cannot read $FILE" >&2; exit 2; }

awk -v want="$KEY" -v have_key="${2+1}" '
function fail(why) { if (!bad) print "guest-stats: not JSON: " why " at character " pos > "/dev/stderr"; bad = 1 }
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
' "$FILE"
