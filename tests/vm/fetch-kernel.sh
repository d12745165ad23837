#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# fetch-kernel.sh [SERIES]: prints the path of a bzImage for the vm tier.
# fetch-kernel.sh --modules NAME[,NAME...] [SERIES]: prints a directory DIR
# holding those modules of that kernel and every module they depend on,
# uncompressed, in DIR/lib/modules/RELEASE/, with
# DIR/lib/modules/RELEASE/load-order naming them in the order insmod must
# take them (dependencies first). For what the kernel has as modules and
# the vm tier sometimes wants (bench/vm.sh -S ext4: virtio_blk, for a
# disk); cached in the kernel's cache directory as disk-modules/.
#
# SERIES is 7.3 (the default: Linux 7.3+, FUSE ABI 7.46, from
# trixie-backports), or one of the kernel matrix's older kernels: 6.12
# (Debian 13's, from trixie) or 6.1 (Debian 12's, from bookworm). When the
# kernel has FUSE as a module (6.1), fuse.ko is kept beside the image, in
# DIR/modules/lib/modules/RELEASE/ (DIR: the image's directory), for
# mkinitramfs.sh to add.
#
# FRING_VM_KERNEL=PATH: that file is used as it is (nothing is fetched).
# Otherwise Debian's cloud kernel from trixie-backports is fetched once into
# the cache directory ${FRING_VM_CACHE:-/var/cache/fring-vm} and reused:
#  - apt runs on a private state there (its own sources list, lists, package
#    cache and an empty dpkg status): the machine's apt configuration is read,
#    never changed;
#  - the archive URI is the one this machine's apt sources use for Debian
#    (FRING_VM_APT_URI overrides it), checked with the machine's Debian
#    archive keyring;
#  - the newest linux-binary-<7.3 or later>-cloud-amd64 is downloaded and its
#    vmlinuz extracted with dpkg-deb.
# Exit status: 0 with the path on stdout; 2 when no kernel can be had (the
# reason on stderr); 1 on a usage or unexpected error.
set -euo pipefail

die() { # STATUS MESSAGE
	echo "fetch-kernel: $2" >&2
	exit "$1"
}

MODULES=
if [[ ${1:-} == --modules ]]; then
	[[ $# -ge 2 && $2 =~ ^[A-Za-z0-9_,-]+$ ]] || die 1 "--modules takes NAME[,NAME...]"
	MODULES=$2
	shift 2
fi
SERIES=${1:-7.3}
if [[ -n ${FRING_VM_KERNEL:-} && $SERIES == 7.3 && -n $MODULES ]]; then
	die 2 "FRING_VM_KERNEL=$FRING_VM_KERNEL: modules come with the fetched kernel only (unset it)"
fi
if [[ -n ${FRING_VM_KERNEL:-} && $SERIES == 7.3 ]]; then
	[[ -f $FRING_VM_KERNEL && -r $FRING_VM_KERNEL ]] ||
		die 2 "FRING_VM_KERNEL=$FRING_VM_KERNEL is not a readable file"
	realpath "$FRING_VM_KERNEL"
	exit 0
fi

CACHE=${FRING_VM_CACHE:-/var/cache/fring-vm}
MIN_VERSION=7.3
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
SUITE=trixie-backports
NAME_RE=
case $SERIES in
7.3) ;;
6.12)
	CACHE=$CACHE/6.12 SUITE=trixie
	NAME_RE='^linux-image-6\.12\.[0-9]+\+[^ ]*-cloud-amd64$'
	;;
6.1)
	CACHE=$CACHE/6.1 SUITE=bookworm
	NAME_RE='^linux-image-6\.1\.0-[0-9]+-cloud-amd64$'
	;;
*) die 1 "unknown kernel series \"$SERIES\" (7.3, 6.12 or 6.1)" ;;
esac

if [[ -n $MODULES ]]; then
	# the kernel first (fetched if need be): its package names the modules'
	"$0" "$SERIES" >/dev/null || exit $?
	read -r KPKG KVERSION _ <"$CACHE/kernel-package" ||
		die 1 "no $CACHE/kernel-package beside the cached kernel"
	MDIR=$CACHE/disk-modules
	# cached for this kernel and this list: nothing to do
	if [[ -r $MDIR/wanted && $(<"$MDIR/wanted") == "$KPKG $KVERSION $MODULES" ]]; then
		echo "$MDIR"
		exit 0
	fi
# the cached kernel: nothing to do
elif [[ -s $CACHE/vmlinuz ]]; then
	realpath "$CACHE/vmlinuz"
	exit 0
fi

for tool in apt-get apt-cache dpkg-deb; do
	command -v "$tool" >/dev/null ||
		die 2 "no $tool on this machine: set FRING_VM_KERNEL to a Linux $MIN_VERSION+ bzImage instead"
done
[[ -r $KEYRING ]] ||
	die 2 "no $KEYRING (package debian-archive-keyring): cannot check the archive; set FRING_VM_KERNEL instead"
mkdir -p "$CACHE" 2>/dev/null || true
[[ -d $CACHE && -w $CACHE ]] ||
	die 2 "cannot write the cache directory $CACHE: set FRING_VM_CACHE to a writable directory (or FRING_VM_KERNEL)"

# ---------------------------------------------------------------------------
# The Debian archive URI, from this machine's apt sources.
debian_suite_re='^(bookworm|trixie|forky|duke|stable|oldstable|testing|unstable|sid)(-updates)?$'

uri_from_deb822() { # FILE...: URIs of the first stanza with a Debian suite
	awk -v re="$debian_suite_re" '
		function flush() {
			if (!done && uris != "" && types ~ /(^| )deb( |$)/) {
				n = split(suites, s, /[ \t]+/)
				for (i = 1; i <= n; i++)
					if (s[i] ~ re) { split(uris, u, /[ \t]+/); print u[1]; done = 1; break }
			}
			uris = ""; suites = ""; types = ""; enabled = 1
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		tolower($1) == "types:" { $1 = ""; types = $0 }
		tolower($1) == "uris:" { $1 = ""; sub(/^[ \t]+/, ""); uris = $0 }
		tolower($1) == "suites:" { $1 = ""; sub(/^[ \t]+/, ""); suites = $0 }
		tolower($1) == "enabled:" && tolower($2) == "no" { types = "" }
		END { flush() }
	' "$@" 2>/dev/null
}

uri_from_list() { # FILE...: the URI of the first "deb" line with a Debian suite
	awk -v re="$debian_suite_re" '
		/^[ \t]*deb[ \t]/ {
			i = 2
			if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
			if ($(i + 1) ~ re) { print $i; exit }
		}
	' "$@" 2>/dev/null
}

find_uri() {
	local uri='' f
	local -a sources=() lists=()
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -r $f ]] && sources+=("$f")
	done
	[[ -r /etc/apt/sources.list ]] && lists+=(/etc/apt/sources.list)
	for f in /etc/apt/sources.list.d/*.list; do
		[[ -r $f ]] && lists+=("$f")
	done
	if ((${#sources[@]})); then
		uri=$(uri_from_deb822 "${sources[@]}" | head -n 1)
	fi
	if [[ -z $uri ]] && ((${#lists[@]})); then
		uri=$(uri_from_list "${lists[@]}" | head -n 1)
	fi
	echo "$uri"
}

URI=${FRING_VM_APT_URI:-$(find_uri)}
[[ -n $URI ]] ||
	die 2 "found no Debian archive in /etc/apt/sources.list{,.d/*.sources,.d/*.list} (an entry for bookworm, trixie, stable, ...): set FRING_VM_APT_URI or FRING_VM_KERNEL"

# ---------------------------------------------------------------------------
# A private apt state under $CACHE/apt.
A=$CACHE/apt
mkdir -p "$A/lists/partial" "$A/archives/partial" "$A/pkgcache" "$A/deb"
echo "deb [signed-by=$KEYRING] $URI $SUITE main" >"$A/sources.list"
: >"$A/status"
apt_opts=(
	-o "Dir::State::Lists=$A/lists"
	-o "Dir::State::status=$A/status"
	-o "Dir::Etc::SourceList=$A/sources.list"
	-o "Dir::Etc::SourceParts=/dev/null"
	-o "Dir::Etc::Preferences=/dev/null"
	-o "Dir::Etc::PreferencesParts=/dev/null"
	-o "Dir::Cache=$A/pkgcache"
	-o "Dir::Cache::pkgcache=$A/pkgcache/pkgcache.bin"
	-o "Dir::Cache::srcpkgcache=$A/pkgcache/srcpkgcache.bin"
	-o "Dir::Cache::Archives=$A/archives"
	-o "APT::Get::List-Cleanup=false"
	-o "Acquire::Languages=none"
)
if [[ $(id -u) == 0 ]]; then
	# the files are root's and private: no need to drop to _apt
	apt_opts+=(-o "APT::Sandbox::User=root")
fi

echo "fetch-kernel: apt-get update of '$SUITE main' from $URI (private state in $A)" >&2
if ! apt-get "${apt_opts[@]}" -q --error-on=any update >"$A/update.log" 2>&1; then
	sed 's/^/fetch-kernel:   /' "$A/update.log" >&2
	die 2 "apt-get update of $SUITE from $URI failed (see above); set FRING_VM_KERNEL to use a kernel of your own"
fi
if grep -qE '^(W|E): ' "$A/update.log"; then
	grep -E '^(W|E): ' "$A/update.log" | sed 's/^/fetch-kernel:   /' >&2
fi

# PACKAGE VERSION: downloaded into $A/deb and unpacked into X=$A/extract
# (sets deb and X)
fetch_deb() {
	rm -f "$A/deb/"*.deb
	if ! (cd "$A/deb" && apt-get "${apt_opts[@]}" -q download "$1=$2") >"$A/download.log" 2>&1; then
		sed 's/^/fetch-kernel:   /' "$A/download.log" >&2
		die 2 "apt-get download $1=$2 failed (see above)"
	fi
	deb=$(find "$A/deb" -maxdepth 1 -name '*.deb' | head -n 1)
	[[ -n $deb ]] || die 2 "apt-get download $1 left no .deb in $A/deb"
	X=$A/extract
	rm -rf "$X"
	mkdir -p "$X"
	dpkg-deb -x "$deb" "$X"
}

unpack_ko() { # KO OUT: the module uncompressed (the guest's insmod reads it as is)
	case $1 in
	*.xz) xz -dc "$1" >"$2" ;;
	*.zst) zstd -dcq "$1" >"$2" ;;
	*.gz) gzip -dc "$1" >"$2" ;;
	*) cp "$1" "$2" ;;
	esac
}

# ---------------------------------------------------------------------------
# --modules: the modules' package, not the kernel's
modinfo_depends() { # KO: the modules it needs, one a line (its .modinfo)
	tr '\0' '\n' <"$1" | sed -n 's/^depends=//p' | head -n 1 | tr ',' '\n' | sed '/^$/d'
}

fetch_modules() {
	local rel pkg deb root name out
	local -a wanted order=()
	local -A placed=() seen=()
	rel=${KPKG#linux-binary-}
	rel=${rel#linux-image-}
	rel=${rel#unsigned-}
	# since 7.x Debian ships the modules apart (linux-modules-RELEASE);
	# the older linux-image packages hold them themselves
	pkg=linux-modules-$rel
	if ! apt-cache "${apt_opts[@]}" show "$pkg=$KVERSION" >/dev/null 2>&1; then
		pkg=$KPKG
	fi
	echo "fetch-kernel: downloading $pkg $KVERSION for the modules $MODULES" >&2
	fetch_deb "$pkg" "$KVERSION"
	root=$(find "$X" -type d -path "*/lib/modules/$rel" | head -n 1)
	[[ -n $root ]] || die 2 "$pkg has no lib/modules/$rel"
	out=$MDIR.new/lib/modules/$rel
	rm -rf "$MDIR.new"
	mkdir -p "$out"
	# depth first, a module after what it depends on (no modules.dep
	# in the package: depmod writes it at installation)
	place() { # NAME
		local n=${1//-/_} ko dep
		[[ -z ${placed[$n]:-} ]] || return 0
		[[ -z ${seen[$n]:-} ]] || die 1 "module $n depends on itself (through others)"
		seen[$n]=1
		ko=$(find "$root" \( -name "$n.ko*" -o -name "${n//_/-}.ko*" \) -type f | head -n 1)
		[[ -n $ko ]] || die 2 "$pkg has no module $n (built into the kernel?)"
		unpack_ko "$ko" "$out/$n.ko"
		while read -r dep; do
			place "$dep"
		done < <(modinfo_depends "$out/$n.ko")
		placed[$n]=1
		order+=("$n.ko")
	}
	IFS=, read -r -a wanted <<<"$MODULES"
	for name in "${wanted[@]}"; do
		place "$name"
	done
	printf '%s\n' "${order[@]}" >"$out/load-order"
	echo "$KPKG $KVERSION $MODULES" >"$MDIR.new/wanted"
	rm -rf "$MDIR"
	mv "$MDIR.new" "$MDIR"
	rm -rf "$X" "$A/deb/"*.deb
	echo "fetch-kernel: $MDIR: ${order[*]}" >&2
	echo "$MDIR"
}
if [[ -n $MODULES ]]; then
	fetch_modules
	exit 0
fi

if [[ -n $NAME_RE ]]; then
	# an older series: the newest image package of that name
	pick=$(apt-cache "${apt_opts[@]}" pkgnames linux-image-"$SERIES" 2>/dev/null |
		grep -E "$NAME_RE" | sort -V | tail -n 1 || true)
	[[ -n $pick ]] ||
		die 2 "the archive $URI $SUITE has no package matching $NAME_RE"
fi
# The newest linux-binary-X.Y.Z+...-cloud-amd64 with X.Y >= 7.3 (the signed
# one; the -unsigned twin only if there is no other).
[[ -n $NAME_RE ]] || names=$(apt-cache "${apt_opts[@]}" pkgnames linux-binary- 2>/dev/null |
	grep -E '^linux-binary-(unsigned-)?[0-9]+\.[0-9]+(\.[0-9]+)?\+[^ ]*-cloud-amd64$' || true)
[[ -n $NAME_RE || -n $names ]] ||
	die 2 "the archive $URI $SUITE has no linux-binary-*-cloud-amd64 package (is it a Debian mirror with $SUITE?); set FRING_VM_KERNEL"
[[ -n $NAME_RE ]] || pick=
for want_unsigned in 0 1; do
	[[ -z $NAME_RE ]] || break
	pick=$(while read -r n; do
		v=${n#linux-binary-}
		unsigned=0
		if [[ $v == unsigned-* ]]; then
			unsigned=1
			v=${v#unsigned-}
		fi
		[[ $unsigned == "$want_unsigned" ]] || continue
		v=${v%%+*}
		# keep versions >= MIN_VERSION
		if [[ $(printf '%s\n%s\n' "$MIN_VERSION" "$v" | sort -V | head -n 1) == "$MIN_VERSION" ]]; then
			echo "$v $n"
		fi
	done <<<"$names" | sort -V -k1,1 | tail -n 1 | cut -d' ' -f2)
	[[ -n $pick ]] && break
done
if [[ -z $pick && -z $NAME_RE ]]; then
	newest=$(sed -E 's/^linux-binary-(unsigned-)?//; s/\+.*//' <<<"$names" | sort -V | tail -n 1)
	die 2 "the archive $URI $SUITE has no cloud kernel $MIN_VERSION or later (newest: $newest); set FRING_VM_KERNEL"
fi
version=$(apt-cache "${apt_opts[@]}" show "$pick" 2>/dev/null | awk '/^Version:/ { print $2; exit }')
echo "fetch-kernel: downloading $pick $version" >&2

fetch_deb "$pick" "$version"
img=$(find "$X/boot" "$X/usr/lib/modules" "$X/lib/modules" \
	\( -name 'vmlinuz-*' -o -name vmlinuz \) -type f 2>/dev/null | head -n 1 || true)
[[ -n $img ]] || die 2 "$pick has no /boot/vmlinuz-* nor /usr/lib/modules/*/vmlinuz"

# FUSE as a module (6.1): its fuse.ko (uncompressed) for the initramfs
rm -rf "$CACHE/modules"
ko=$(find "$X" -path '*/kernel/fs/fuse/fuse.ko*' -type f | head -n 1 || true)
if [[ -n $ko ]]; then
	rel=$(basename "$(dirname "$(dirname "$(dirname "$(dirname "$ko")")")")")
	mkdir -p "$CACHE/modules/lib/modules/$rel"
	unpack_ko "$ko" "$CACHE/modules/lib/modules/$rel/fuse.ko"
fi
# keep the image under its package name, point $CACHE/vmlinuz at it
cp "$img" "$CACHE/$pick.vmlinuz.tmp"
mv "$CACHE/$pick.vmlinuz.tmp" "$CACHE/$pick.vmlinuz"
echo "$pick $version $(basename "$deb")" >"$CACHE/kernel-package"
ln -sfn "$pick.vmlinuz" "$CACHE/vmlinuz"
rm -rf "$X" "$A/deb/"*.deb
echo "fetch-kernel: cached $CACHE/$pick.vmlinuz ($pick $version)" >&2
realpath "$CACHE/vmlinuz"
