# SPDX-License-Identifier: GPL-2.0
# The distro target's kernel: Debian's 6.12 image and headers, extracted
# into the cache (dpkg-deb -x, no maintainer script, nothing in /boot,
# /lib/modules or /usr/src), once per version. The guest boots the image
# from there, the initramfs takes its 9p modules from there, and the
# selftests' module builds against the headers there (KDIR).
# shellcheck shell=bash disable=SC2034 # sets globals for vmtest.sh

# apt_field PACKAGE FIELD: FIELD of PACKAGE's candidate in the machine's
# apt index.
apt_field()
{
	apt-cache show --no-all-versions "$1" 2>/dev/null |
		awk -v f="$2:" '$1 == f { sub(/^[^:]*: */, ""); print; exit }'
}

# newest_distro_image: "image version" of the 6.12 image the machine's
# index names through the metapackage (what vmtest/update-lock.sh pins)
newest_distro_image()
{
	local image

	image=$(apt_field linux-image-6.12-amd64 Depends | sed 's/[ ,(].*//')
	[ -n "$image" ] && echo "$image $(apt_field "$image" Version)"
}

# distro_packages REL VER: the packages to extract, one a line: the
# image, its headers, and the headers' common part and kbuild tools;
# nothing when the index lacks the image at VER.
distro_packages()
{
	local dep

	[ "$(apt_field "linux-image-$1" Version)" = "$2" ] || return 1
	echo "linux-image-$1"
	echo "linux-headers-$1"
	apt_field "linux-headers-$1" Depends | tr ',|' '\n' |
		sed 's/^ *//; s/[ (].*//' | while read -r dep; do
			case $dep in
			linux-headers-*-common | linux-kbuild-*) echo "$dep" ;;
			esac
		done
}

# extract_distro_kernel DIR REL DEB...: the packages unpacked into DIR,
# made to work where they are: the headers' Makefile includes the common
# headers by their absolute path, build and source are absolute links,
# and modules.dep is made by depmod in the package's postinst.
extract_distro_kernel()
{
	local dir=$1 rel=$2 deb mk

	shift 2
	rm -rf "$dir"
	mkdir -p "$dir" || return 1
	for deb in "$@"; do
		dpkg-deb -x "$deb" "$dir" || return 1
	done
	mk=$dir/usr/src/linux-headers-$rel/Makefile
	[ -f "$mk" ] && [ -f "$dir/boot/vmlinuz-$rel" ] || return 1
	sed -i "s|^include /usr/src/|include $dir/usr/src/|" "$mk" &&
	ln -sfn "../../../usr/src/linux-headers-$rel" "$dir/lib/modules/$rel/build" &&
	ln -sfn "../../../usr/src/$(basename "$(sed -n 's|^include .*/usr/src/\([^/]*\)/Makefile$|\1|p' "$mk")")" \
		"$dir/lib/modules/$rel/source" &&
	depmod -b "$dir" "$rel"
}

# ensure_distro_kernel: sets DISTRO_RELEASE, DISTRO_ROOT (the extracted
# packages), DISTRO_KERNEL (the image) and DISTRO_KDIR (its headers); the
# pinned version is downloaded and extracted once (then no network).
ensure_distro_kernel()
{
	local rel ver dir
	local -a pkgs

	read -r rel ver < <(awk '$1 ~ /^linux-image-6\.12/ {
		sub(/^linux-image-/, "", $1); print $1, $2 }' "$SOURCES_LOCK")
	[ -n "$ver" ] || die "no linux-image-6.12 line in $SOURCES_LOCK"
	dir=$VMTEST_CACHE/distro/$rel-$ver
	if [ ! -e "$dir.unpacked" ]; then
		mapfile -t pkgs < <(distro_packages "$rel" "$ver")
		if [ "${#pkgs[@]}" -lt 3 ] && is_root && [ "$APT_UPDATED" -eq 0 ]; then
			apt_update
			mapfile -t pkgs < <(distro_packages "$rel" "$ver")
		fi
		if [ "${#pkgs[@]}" -lt 3 ]; then
			msg "error: linux-image-$rel $ver (pinned in $SOURCES_LOCK) is not in this machine's apt index, which names $(newest_distro_image || echo none): run vmtest/update-lock.sh to move the pin"
			exit 2
		fi
		rm -rf "$dir.deb"
		mkdir -p "$dir.deb" || die "cannot create $dir.deb"
		(cd "$dir.deb" && step "downloading Debian's kernel $rel" \
			"$VMTEST_LOGS/distro-download.log" \
			apt-get -o APT::Sandbox::User=root download \
			"${pkgs[@]/%/=$ver}") ||
			die "cannot download ${pkgs[*]} $ver"
		step "extracting Debian's kernel $rel into the cache" \
			"$VMTEST_LOGS/distro-extract.log" \
			extract_distro_kernel "$dir" "$rel" "$dir".deb/*.deb ||
			die "cannot extract Debian's kernel $rel into $dir"
		rm -rf "$dir.deb"
		echo "$rel $ver" >"$dir.unpacked"
	fi
	DISTRO_RELEASE=$rel
	DISTRO_ROOT=$dir
	DISTRO_KERNEL=$dir/boot/vmlinuz-$rel
	DISTRO_KDIR=$dir/lib/modules/$rel/build
}
