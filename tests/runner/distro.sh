#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The distro target's kernel is extracted into the cache, never installed
# (no VM, no network: an apt-cache and an apt-get that play Debian's
# packages, built here with dpkg-deb).

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d "$OUT/distro.XXXXXX")
trap 'rm -rf "$work"' EXIT
export FAKE_REL=6.12.99+deb12-amd64 FAKE_VER=6.12.99-1~deb12u1
export FAKE_APT_LOG=$work/apt.log
rel=$FAKE_REL ver=$FAKE_VER

mkdir -p "$work/bin" "$work/job"
standin "$work/bin/apt-cache" <<'STANDIN'
# apt-cache show --no-all-versions PACKAGE, as Debian's index answers.
r=$FAKE_REL v=$FAKE_VER p=${*: -1}
echo "Package: $p"
echo "Version: $v"
case $p in
linux-image-6.12-amd64) echo "Depends: linux-image-$r (= $v)" ;;
linux-image-$r) ;;
linux-headers-$r)
	echo "Depends: linux-base (>= 4.12~), linux-headers-${r%-amd64}-common (= $v), linux-image-$r (= $v) | linux-image-$r-unsigned (= $v), linux-kbuild-${r%-amd64}, gcc-12" ;;
*) exit 100 ;;
esac
STANDIN
standin "$work/bin/apt-get" <<'STANDIN'
# apt-get [-o X=Y]... download PACKAGE=VERSION...: Debian's kernel
# packages, as far as the runner uses them, built with dpkg-deb; update
# does nothing.
echo "apt-get $*" >>"$FAKE_APT_LOG"
r=$FAKE_REL
while [ "$1" = -o ]; do shift 2; done
[ "$1" != update ] || exit 0
[ "$1" = download ] || exit 100
shift
for p in "$@"; do
	name=${p%%=*} d=$(mktemp -d)
	mkdir -p "$d/DEBIAN"
	printf 'Package: %s\nVersion: %s\nArchitecture: amd64\nMaintainer: x <x@x>\nDescription: stand-in\n' \
		"$name" "${p#*=}" >"$d/DEBIAN/control"
	case $name in
	linux-image-*)
		mkdir -p "$d/boot" "$d/lib/modules/$r/kernel/net/9p" \
			"$d/lib/modules/$r/kernel/fs/9p"
		echo kernel >"$d/boot/vmlinuz-$r"
		: >"$d/lib/modules/$r/kernel/net/9p/9pnet.ko"
		: >"$d/lib/modules/$r/kernel/net/9p/9pnet_virtio.ko"
		: >"$d/lib/modules/$r/kernel/fs/9p/9p.ko"
		;;
	linux-headers-*-common)
		mkdir -p "$d/usr/src/$name"
		printf 'all:\n\t@echo common headers\n' >"$d/usr/src/$name/Makefile"
		;;
	linux-headers-*)
		mkdir -p "$d/usr/src/$name" "$d/lib/modules/$r"
		echo "include /usr/src/linux-headers-${r%-amd64}-common/Makefile" \
			>"$d/usr/src/$name/Makefile"
		ln -s "/usr/src/$name" "$d/lib/modules/$r/build"
		ln -s "/usr/src/linux-headers-${r%-amd64}-common" \
			"$d/lib/modules/$r/source"
		;;
	linux-kbuild-*) mkdir -p "$d/usr/lib/$name/scripts" ;;
	esac
	dpkg-deb -b --root-owner-group "$d" "${name}_${p#*=}_amd64.deb" >/dev/null ||
		exit 1
	rm -rf "$d"
done
STANDIN

touch "$work/stamp"
sleep 1
echo "linux-image-$rel $ver" >"$work/lock"
distro()
{
	env PATH="$work/bin:$PATH" SOURCES_LOCK="$work/lock" \
		"$TESTS_DIR/runner/stage.sh" distro "$work/job" >"$work/$1.log" 2>&1
}
distro first
root=$work/job/distro/$rel-$ver
check "the distro kernel is extracted into the cache" \
	grep -q "DISTRO_KERNEL=\"$root/boot/vmlinuz-$rel\"" "$work/first.log"
check "its headers are KDIR, in the cache" \
	grep -q "DISTRO_KDIR=\"$root/lib/modules/$rel/build\"" "$work/first.log"
check "the headers build from where they are (make -C KDIR)" \
	make -s -C "$root/lib/modules/$rel/build"
check "build is a link within the cache" \
	test "$(realpath "$root/lib/modules/$rel/build")" = "$root/usr/src/linux-headers-$rel"
check "the four packages are downloaded, at the index's version" \
	grep -qx "apt-get .* download linux-image-$rel=$ver linux-headers-$rel=$ver linux-headers-${rel%-amd64}-common=$ver linux-kbuild-${rel%-amd64}=$ver" \
	"$FAKE_APT_LOG"
check "the initramfs has the extracted kernel's 9p modules" \
	test "$(zcat "$work/job/initrd" | cpio -t --quiet |
		grep -cE '^modules/9p(net_virtio)?\.ko$')" -eq 2
check "nothing is installed (no apt-get install)" \
	test -z "$(grep -v ' download ' "$FAKE_APT_LOG")"
: >"$FAKE_APT_LOG"
distro second
check "a second run downloads nothing" test ! -s "$FAKE_APT_LOG"
check "a second run has the same kernel" \
	grep -q "DISTRO_KERNEL=\"$root/boot/vmlinuz-$rel\"" "$work/second.log"
echo "linux-image-6.12.1+deb12-amd64 6.12.1-1" >"$work/lock"
expect_rc "a pinned image the index lacks: exit 2" 2 /dev/null distro gone
expect_grep "... naming the index's image and update-lock.sh" "$work/gone.log" \
	"linux-image-6.12.1\+deb12-amd64 6.12.1-1 \(pinned in .*names linux-image-${rel//+/\\+} $ver: run vmtest/update-lock.sh"
# shellcheck disable=SC2016 # the script reads its own argument
check "nothing was written under /boot, /lib/modules or /usr/src" sh -c \
	'! find /boot /lib/modules /usr/src -newer "$1" 2>/dev/null | grep .' _ "$work/stamp"

tests_done distro
