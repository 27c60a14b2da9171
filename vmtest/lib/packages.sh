# SPDX-License-Identifier: GPL-2.0
# Host packages and Debian kernel packages.
#
# The machine's apt setup is never changed: kernel sources from Debian's
# newer suites are looked up with a private copy of the machine's own
# Debian source stanza, under the cache directory.
# shellcheck shell=bash disable=SC2034 # sets globals for vmtest.sh

APT_UPDATED=0

apt_install()
{
	is_root || die "missing packages: $* (run as root, or install them)"
	if [ "$APT_UPDATED" -eq 0 ]; then
		step "apt-get update" "$VMTEST_LOGS/apt-update.log" \
			apt-get update || die "apt-get update failed"
		APT_UPDATED=1
	fi
	# INITRD=No: the runner boots its own initramfs, so skip the slow
	# initramfs-tools run a kernel image install would trigger.
	step "installing $*" "$VMTEST_LOGS/apt-install.log" \
		env DEBIAN_FRONTEND=noninteractive INITRD=No \
		apt-get install -y --no-install-recommends "$@" ||
		die "apt-get install $* failed"
}

# Install the Debian packages providing what the runner needs on the host,
# every tool a kernel build uses among them, before the first build: the
# .config records pahole's version (CONFIG_PAHOLE_VERSION), and a pahole
# installed later (linux-kbuild-6.12 pulls it in for the distro target)
# makes every module build against that kernel warn.
ensure_host_tools()
{
	local need=() probe pkg

	while read -r probe pkg; do
		[ -e "$probe" ] || command -v "$probe" >/dev/null 2>&1 ||
			need+=("$pkg")
	done <<-EOF
	qemu-system-x86_64 qemu-system-x86
	/bin/busybox busybox-static
	make make
	gcc gcc
	flex flex
	bison bison
	bc bc
	perl perl
	python3 python3
	cpio cpio
	rsync rsync
	xz xz-utils
	insmod kmod
	/usr/include/libelf.h libelf-dev
	/usr/include/openssl/ssl.h libssl-dev
	pahole dwarves
	EOF
	[ "${#need[@]}" -eq 0 ] || apt_install "${need[@]}"
	# Not a pipe: under pipefail, grep -q quitting early could kill
	# busybox with SIGPIPE and fail the check at random.
	grep -qx reboot <(/bin/busybox --list) ||
		die "/bin/busybox lacks the reboot applet (need busybox-static)"
}

# The Debian distro kernel: image plus headers, installed on the host so
# that the guest, which sees the host's filesystem, finds its modules and
# /lib/modules/$(uname -r)/build.
DISTRO_KERNEL_PKGS="linux-image-6.12-amd64 linux-headers-6.12-amd64"

distro_kernel_release()
{
	local r

	for r in /lib/modules/6.12*-amd64; do
		[ -e "$r/build/Makefile" ] && [ -e "/boot/vmlinuz-${r##*/}" ] &&
			echo "${r##*/}"
	done | sort -V | tail -n 1
}

ensure_distro_kernel()
{
	# shellcheck disable=SC2086 # a list of package names
	[ -n "$(distro_kernel_release)" ] || apt_install $DISTRO_KERNEL_PKGS
	DISTRO_RELEASE=$(distro_kernel_release)
	[ -n "$DISTRO_RELEASE" ] ||
		die "no Debian 6.12 kernel with headers found after install"
}

# Write a sources file for SUITES using the host's own Debian mirror.
write_newer_sources()
{
	local suites=$1 out=$2 f

	: >"$out"
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		awk -v suites="$suites" '
			BEGIN { RS = ""; ORS = "\n\n" }
			/(^|\n)URIs:[^\n]*debian/ && !/security/ && !done {
				sub(/(^|\n)Suites:[^\n]*/, "\nSuites: " suites)
				print; done = 1
			}' "$f" >>"$out"
		[ -s "$out" ] && return 0
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -e "$f" ] || continue
		awk -v suites="$suites" '
			$1 == "deb" && $0 !~ /security/ && !done {
				printf "Types: deb\nURIs: %s\nSuites: %s\n", $2, suites
				print "Components: main"; done = 1
			}' "$f" >>"$out"
		[ -s "$out" ] && return 0
	done
	die "no Debian source found in /etc/apt to derive the newer suites from"
}

# apt-get/apt-cache options using only the private newer-suite setup.
newer_apt_opts()
{
	local d=$VMTEST_CACHE/apt

	printf '%s\n' -o "Dir::Etc::SourceList=/dev/null" \
		-o "Dir::Etc::SourceParts=$d/etc" \
		-o "Dir::State::Lists=$d/lists" \
		-o "Dir::Cache=$d/cache" \
		-o "Debug::NoLocking=1" \
		-o "APT::Sandbox::User=root"
}

newer_apt_update()
{
	local d=$VMTEST_CACHE/apt
	local -a opts

	mapfile -t opts < <(newer_apt_opts)
	mkdir -p "$d/etc" "$d/lists/partial" "$d/cache/archives/partial"
	write_newer_sources "trixie sid" "$d/etc/newer.sources"
	# A day-old index is fine; a warm run must not need the network.
	if [ -z "$(find "$d/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null)" ]; then
		step "updating the index of Debian's newer suites" \
			"$VMTEST_LOGS/apt-newer-update.log" \
			apt-get "${opts[@]}" update ||
			die "cannot read Debian's newer suites"
	fi
}

# Print "package version" of the newest linux-source-X.Y in newer suites.
newest_linux_source()
{
	local -a opts

	mapfile -t opts < <(newer_apt_opts)
	apt-cache "${opts[@]}" search --names-only '^linux-source-[0-9.]+$' |
		awk '{ print $1 }' | sort -V | tail -n 1 |
		while read -r pkg; do
			printf '%s %s\n' "$pkg" "$(apt-cache "${opts[@]}" show "$pkg" |
				awk '/^Version:/ { print $2 }' | sort -V | tail -n 1)"
		done
}

# Download PKG=VER with apt-get (extra apt options follow) and unpack its
# source tarball; sets KSRC_PRISTINE and KSRC_ID. Cached by version.
fetch_source_pkg()
{
	local pkg=$1 ver=$2 dir deb tarball

	shift 2
	dir=$VMTEST_CACHE/src/$pkg-$ver
	KSRC_PRISTINE=$dir
	KSRC_ID="debian-$pkg-$ver"
	[ -e "$dir.unpacked" ] && return 0

	rm -rf "$dir" "$dir.deb"
	mkdir -p "$dir.deb" "$dir"
	(cd "$dir.deb" && step "downloading $pkg $ver" \
		"$VMTEST_LOGS/download.log" apt-get "$@" download "$pkg=$ver") ||
		die "cannot download $pkg $ver"
	deb=$(echo "$dir".deb/*.deb)
	dpkg-deb -x "$deb" "$dir.deb/x" || die "cannot unpack $deb"
	tarball=$(echo "$dir".deb/x/usr/src/linux-source-*.tar.*)
	[ -f "$tarball" ] || die "no source tarball in $deb"
	step "extracting $pkg" "$VMTEST_LOGS/extract.log" \
		tar -xaf "$tarball" -C "$dir" --strip-components=1 ||
		die "cannot extract $tarball"
	rm -rf "$dir.deb"
	touch "$dir.unpacked"
}

# The current target's default tree: the newest Debian kernel source.
fetch_newest_source()
{
	local pkg ver
	local -a opts

	newer_apt_update
	mapfile -t opts < <(newer_apt_opts)
	read -r pkg ver < <(newest_linux_source)
	[ -n "$pkg" ] || die "no linux-source-X.Y package in Debian's newer suites"
	fetch_source_pkg "$pkg" "$ver" "${opts[@]}"
}

# The distro target's selftests run in the matching Debian source tree, so
# the series is checked against that tree's lib.mk and ptr_ring.h too.
fetch_distro_source()
{
	local ver

	ver=$(dpkg-query -W -f='${Version}' "linux-image-$DISTRO_RELEASE") ||
		die "cannot tell the version of linux-image-$DISTRO_RELEASE"
	if [ ! -e "$VMTEST_CACHE/src/linux-source-6.12-$ver.unpacked" ] &&
	   [ "$APT_UPDATED" -eq 0 ] && is_root; then
		step "apt-get update" "$VMTEST_LOGS/apt-update.log" apt-get update
		APT_UPDATED=1
	fi
	fetch_source_pkg linux-source-6.12 "$ver"
}
