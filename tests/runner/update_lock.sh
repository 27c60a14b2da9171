#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest/update-lock.sh on a canned package index (no network: an
# apt-cache and an apt-get that answer from it); every Debian source a
# test fetches (tests/lib.sh's debian_source) is one the lock pins; the
# private apt's sources written from a machine's deb822 or one-line ones.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d "$OUT/update-lock.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
# INDEX PACKAGE VERSION [DEPENDS]: "newer" is the private index of the
# newer suites (apt-cache called with -o Dir::State::Lists=...),
# "machine" the machine's own
export FAKE_INDEX=$work/index
cat >"$FAKE_INDEX" <<'EOF'
newer linux-source-7.3 7.3.4-1~bpo13+1
newer linux-source-7.3 7.3.9-1~bpo13+1
newer linux-source-7.4 7.4.1-1
newer linux-source-7.2 7.2.13-1
newer linux-source-7.2 7.2.15-1
machine linux-source-6.12 6.12.118-1~deb12u1
machine linux-source-6.12 6.12.120-1~deb12u1
machine linux-image-6.12-amd64 6.12.120-1~deb12u1 linux-image-6.12.120+deb12-amd64 (= 6.12.120-1~deb12u1)
machine linux-image-6.12.120+deb12-amd64 6.12.120-1~deb12u1
EOF
standin "$work/bin/apt-cache" <<'STANDIN'
# apt-cache [-o X=Y]... search --names-only RE | show [--no-all-versions]
# PKG | madison PKG, answered from $FAKE_INDEX
idx=machine
while [ "$1" = -o ]; do
	[[ $2 != Dir::State::Lists=* ]] || idx=newer
	shift 2
done
cmd=$1
shift
[ "$1" != --names-only ] && [ "$1" != --no-all-versions ] || { one=$1; shift; }
lines=$(awk -v i="$idx" '$1 == i' "$FAKE_INDEX")
case $cmd in
search) awk -v re="$1" '$2 ~ re { print $2 " - stand-in" }' <<<"$lines" | sort -u ;;
show | madison)
	out=$(awk -v p="$1" '$2 == p' <<<"$lines" | sort -k3,3Vr)
	[ -n "$out" ] || exit 100
	[ "${one:-}" != --no-all-versions ] || out=$(head -n 1 <<<"$out")
	while read -r _ p v d; do
		if [ "$cmd" = madison ]; then
			echo " $p | $v | stand-in"
		else
			printf 'Package: %s\nVersion: %s\n' "$p" "$v"
			[ -z "$d" ] || echo "Depends: $d"
			echo
		fi
	done <<<"$out" ;;
*) exit 100 ;;
esac
STANDIN
standin "$work/bin/apt-get" <<'STANDIN'
# apt-get [-o X=Y]... update: nothing to fetch
[ "${*: -1}" = update ] || exit 100
STANDIN

cat >"$work/lock" <<'EOF'
# a comment
linux-source-7.3 7.3.4-1~bpo13+1
linux-image-6.12.117+deb12-amd64 6.12.117-1~deb12u1
linux-source-6.12 6.12.118-1~deb12u1
linux-source-7.2 7.2.13-1
EOF
expect_rc "update-lock.sh on a canned index: exit 0" 0 "$work/out" \
	env PATH="$work/bin:$PATH" SOURCES_LOCK="$work/lock" \
	VMTEST_CACHE="$work/cache" "$REPO/vmtest/update-lock.sh"
check "... every pin moved, comments kept" diff -u - "$work/lock" <<'EOF'
# a comment
linux-source-7.4 7.4.1-1
linux-image-6.12.120+deb12-amd64 6.12.120-1~deb12u1
linux-source-6.12 6.12.120-1~deb12u1
linux-source-7.2 7.2.15-1
EOF
expect_grep "... saying what moved" "$work/out" \
	'linux-source-7.3 7.3.4-1~bpo13\+1 -> linux-source-7.4 7.4.1-1'

# The private apt's sources from a machine's own: deb822 or one-line
# (an /etc/apt of each shown in a mount namespace of its own), for the
# newer suites and for the machine's source packages, security's too.
cat >"$work/sources.sh" <<'EOF'
. "$REPO/vmtest/lib/common.sh" && . "$REPO/vmtest/lib/packages.sh" &&
	write_sources "$1" /dev/stdout "$2"
EOF
# sources ETC SUITES TYPES: write_sources' file, with ETC as /etc/apt
sources()
{
	# shellcheck disable=SC2016 # the inner shell's arguments
	env REPO="$REPO" VMTEST_DIR="$REPO/vmtest" unshare --mount sh -c \
		'mount --bind "$1" /etc/apt && exec bash "$2" "$3" "$4"' _ \
		"$1" "$work/sources.sh" "$2" "$3" 2>&1
}
if unshare --mount true 2>/dev/null; then
	mkdir -p "$work/etc822/sources.list.d" "$work/etclist/sources.list.d"
	printf '%s\n' 'Types: deb' 'URIs: http://mirror.test/debian' \
		'Suites: bookworm bookworm-updates' 'Components: main' '' \
		'Types: deb' 'URIs: http://mirror.test/debian-security' \
		'Suites: bookworm-security' 'Components: main' \
		>"$work/etc822/sources.list.d/debian.sources"
	printf '%s\n' 'deb http://mirror.test/debian bookworm main' \
		'deb http://mirror.test/debian-security bookworm-security main' \
		>"$work/etclist/sources.list"
	for etc in etc822 etclist; do
		got=$(sources "$work/$etc" 'trixie sid' deb | grep -E '^(Types|URIs|Suites):' | paste -sd ' ')
		check "$etc: the newer suites from the machine's mirror, not security's ($got)" \
			test "$got" = 'Types: deb URIs: http://mirror.test/debian Suites: trixie sid'
		got=$(sources "$work/$etc" '' deb-src | grep -E '^(Types|URIs|Suites):' | paste -sd ' ')
		check "$etc: the machine's source packages, security's too ($got)" \
			test "$got" = "Types: deb-src URIs: http://mirror.test/debian Suites: $([ $etc = etc822 ] && echo 'bookworm bookworm-updates' || echo bookworm) Types: deb-src URIs: http://mirror.test/debian-security Suites: bookworm-security"
	done
else
	skip_check write_sources "no mount namespace (not root?)"
fi

# Every debian_source a test calls names a package the lock pins.
missing=$(grep -ho 'debian_source linux-source-[0-9][0-9.]*' "$TESTS_DIR"/*/*.sh |
	awk '{ print $2 }' | sort -u | while read -r pkg; do
		grep -q "^$pkg " "$REPO/vmtest/sources.lock" || echo "$pkg"
	done)
check "every Debian source the tests fetch is pinned in sources.lock${missing:+ (not: $missing)}" \
	test -z "$missing"
