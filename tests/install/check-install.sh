#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check-install.sh BUILDDIR SOURCEDIR: `meson install` into a scratch
# DESTDIR, then build examples/hello outside the tree with pkg-config, once
# against the shared library and once against the static archive, and run
# both. Also checks that the shared object and the static archive export
# only fring_* symbols, that a program linked with the archive may use the
# library's internal names (static-names.c), and that the installed
# fring-probe runs.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/check.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"
build=$(realpath "$1")
src=$(realpath "$2")
tmp=$(mktemp -d /tmp/fring-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >/dev/null
pc=$(find "$tmp/root" -name fring.pc | head -n1)
[[ -n $pc ]] && ok install.pc || { fail install.pc "no fring.pc installed"; check_done; }
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$tmp/root
libdir=$(dirname "$(dirname "$pc")")
[[ -f $(find "$tmp/root" -path '*/include/fring/fring.h' | head -n1) ]] && ok install.header || fail install.header "fring/fring.h missing"

cp "$src/examples/hello/hello.c" "$tmp/hello.c"
if cc -Wall -Wextra -Werror "$tmp/hello.c" $(pkg-config --cflags --libs fring) \
	-Wl,-rpath,"$libdir" -o "$tmp/hello-shared" && "$tmp/hello-shared" --version | grep -q libfring; then
	ok install.shared_build_and_run
else
	fail install.shared_build_and_run "cc \$(pkg-config --cflags --libs fring) failed"
fi
if cc "$tmp/hello.c" $(pkg-config --cflags fring) "$libdir/libfring.a" \
	$(pkg-config --libs-only-other --static fring) -luring -o "$tmp/hello-static" &&
	"$tmp/hello-static" --version | grep -q libfring && ! ldd "$tmp/hello-static" | grep -q libfring; then
	ok install.static_build_and_run
else
	fail install.static_build_and_run "linking libfring.a failed"
fi
# libfring.a keeps its internals to itself: its only global symbols are
# fring_*, the names libfring.so exports (no more, no fewer), and a program
# linked statically against it (with pkg-config --static) may define the
# library's internal names for its own functions (static-names.c)
archive=$libdir/libfring.a
if ! syms=$(nm -g --defined-only "$archive" | awk 'NF == 3 {print $3}' | sort -u); then
	fail install.static_exports_only_fring "nm $archive failed"
elif ! grep -q '^fring_' <<<"$syms"; then
	fail install.static_exports_only_fring "no fring_ symbol in $archive"
elif bad=$(grep -v '^fring_' <<<"$syms"); then
	fail install.static_exports_only_fring "$(wc -l <<<"$bad") other global symbols: $(tr '\n' ' ' <<<"$bad")"
else
	ok install.static_exports_only_fring
fi
# (nm -D names them with their version node, fring_x@@FRING_0.1)
shared=$(nm -D --defined-only "$libdir/libfring.so" | awk '$2 ~ /[TDBR]/ {sub(/@.*/, "", $3); print $3}' | sort -u)
if [[ -n $syms && $syms == "$shared" ]]; then
	ok install.static_matches_shared
else
	fail install.static_matches_shared "only in libfring.a: $(comm -23 <(echo "$syms") <(echo "$shared") | tr '\n' ' '); only in libfring.so: $(comm -13 <(echo "$syms") <(echo "$shared") | tr '\n' ' ')"
fi
# (-Bstatic: libfring.a, not libfring.so, and liburing.a, which liburing-dev
# has; libc stays shared)
mkdir "$tmp/names"
if ! cc -Wall -Wextra -Werror "$src/tests/install/static-names.c" $(pkg-config --cflags fring) \
	-Wl,-Bstatic $(pkg-config --static --libs fring) -Wl,-Bdynamic \
	-o "$tmp/static-names" >"$tmp/names/link.log" 2>&1; then
	fail install.static_names "linking static-names.c against libfring.a failed: $(grep -c 'multiple definition' "$tmp/names/link.log") multiple definitions; $(head -c 1500 "$tmp/names/link.log")"
elif ldd "$tmp/static-names" | grep -q 'libfring'; then
	fail install.static_names "static-names links libfring.so, not libfring.a"
elif ! "$tmp/static-names" "$tmp/names/missing" >"$tmp/names/out" 2>&1 ||
	! grep -qx "own: [0-9]* sentinels ok" "$tmp/names/out" || ! grep -qx 'library: ok' "$tmp/names/out"; then
	fail install.static_names "static-names: $(grep -v '^own .*() = ' "$tmp/names/out" | tr '\n' ' ')"
else
	ok install.static_names
fi
# fring-probe: installed, runs without the build tree, says something valid
probe=$(find "$tmp/root" -path '*/bin/fring-probe' | head -n1)
if [[ -z $probe ]]; then
	fail install.fring_probe "bin/fring-probe not installed"
elif ! "$probe" --json >"$tmp/probe.json"; then
	fail install.fring_probe "fring-probe --json failed"
elif command -v python3 >/dev/null &&
	! python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); assert s["auto"]["transport"] in ("zerocopy", "bufpool-registered", "bufpool", "uring", "dev")' "$tmp/probe.json"; then
	fail install.fring_probe "fring-probe --json: not JSON, or no auto transport: $(cat "$tmp/probe.json")"
else
	ok install.fring_probe
fi
bad=$(nm -D --defined-only "$libdir/libfring.so" | awk '$2 ~ /[TDBR]/ {print $3}' | grep -v '^fring_' || true)
[[ -z $bad ]] && ok install.exports_only_fring || fail install.exports_only_fring "also exports: $bad"
soname=$(objdump -p "$libdir/libfring.so" | awk '/SONAME/ {print $2}')
[[ $soname == libfring.so.0 ]] && ok install.soname || fail install.soname "soname $soname"
# man pages: the library's, and a link per function they describe
mandir=$(find "$tmp/root" -type d -path '*/share/man' | head -n1)
if [[ -n $mandir && -f $mandir/man3/fring.3 && -f $mandir/man1/fring-probe.1 &&
	$(readlink "$mandir/man3/fring_main_ext.3") == fring_main.3 ]]; then
	ok install.man
else
	fail install.man "fring.3, fring-probe.1 or the fring_main_ext.3 link missing under ${mandir:-share/man}"
fi
check_done
