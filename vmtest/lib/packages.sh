# SPDX-License-Identifier: GPL-2.0
# Host packages and Debian kernel packages.
#
# The machine's apt setup is never changed: kernel sources from Debian's
# newer suites are looked up with a private copy of the machine's own
# Debian source stanza, under the cache directory.
# shellcheck shell=bash disable=SC2034 # sets globals for vmtest.sh

APT_UPDATED=0

# Seconds to wait for another apt or dpkg (a fresh machine's boot-time
# upgrades, a user's apt-get) to release the machine's apt locks.
APT_LOCK_TIMEOUT=${VMTEST_APT_LOCK_TIMEOUT:-600}
# The locks apt-get update and install take (a test points them elsewhere).
APT_LOCKS=${VMTEST_APT_LOCKS:-/var/lib/dpkg/lock-frontend /var/lib/apt/lists/lock}

# lock_holder FILE: the process holding a lock on FILE (/proc/locks), if
# any.
lock_holder()
{
	local ino

	ino=$(stat -c %i "$1" 2>/dev/null) || return 0
	awk -v ino="$ino" '$2 != "->" {
		n = split($6, id, ":"); if (id[n] == ino) { print $5; exit } }' \
		/proc/locks
}

# wait_apt_locks: while another process holds one of the apt locks, say
# so and wait, up to APT_LOCK_TIMEOUT s in all.
wait_apt_locks()
{
	local f pid who waited=0 said=0

	for f in $APT_LOCKS; do
		while pid=$(lock_holder "$f") && [ -n "$pid" ]; do
			who="process $pid ($(cat "/proc/$pid/comm" 2>/dev/null))"
			if [ "$said" -eq 0 ]; then
				msg "waiting for $f, held by $who, up to $APT_LOCK_TIMEOUT s"
				said=1
			fi
			[ "$waited" -lt "$APT_LOCK_TIMEOUT" ] ||
				die "$f is still held by $who after $APT_LOCK_TIMEOUT s: run again when it is done, or wait longer (VMTEST_APT_LOCK_TIMEOUT=SECONDS)"
			sleep 1
			waited=$((waited + 1))
		done
	done
	[ "$said" -eq 0 ] || msg "apt's locks are free after $waited s"
}

# apt_get WHAT LOG ARGS...: apt-get ARGS as a step, once the locks are
# free; apt itself waits for the dpkg lock, should another process take
# it meanwhile. Dies when it fails, saying so when a lock was the cause.
apt_get()
{
	local what=$1 log=$2

	shift 2
	wait_apt_locks
	step "$what" "$log" env DEBIAN_FRONTEND=noninteractive \
		apt-get -o "DPkg::Lock::Timeout=$APT_LOCK_TIMEOUT" "$@" && return 0
	! grep -q 'Could not get lock' "$log" ||
		die "$what: another process held apt's lock for $APT_LOCK_TIMEOUT s (log: $log)"
	die "$what failed (log: $log)"
}

# apt_update: the machine's apt index, once a run.
apt_update()
{
	apt_get "apt-get update" "$VMTEST_LOGS/apt-update.log" update
	APT_UPDATED=1
}

apt_install()
{
	is_root || die "missing packages: $* (run as root, or install them)"
	[ "$APT_UPDATED" -eq 1 ] || apt_update
	apt_get "installing $*" "$VMTEST_LOGS/apt-install.log" \
		install -y --no-install-recommends "$@"
}

# Install the Debian packages the runner needs on the host for ARCHES
# (the targets' architectures) before the first build: the .config
# records pahole's version, and a pahole installed later makes every
# module build against that kernel warn. A run that stops after fetch or
# tree (a record query) needs only what fetches and lays the sources.
ensure_host_tools()
{
	local arches=$1 query=0 need

	case ${STOP_AFTER:-} in fetch | tree) query=1 ;; esac
	mapfile -t need < <(if [ "$query" -eq 1 ]; then source_tools; else
		host_tools; [[ " $arches " != *" arm64 "* ]] || arm64_host_tools
		fi | missing_packages)
	[ "${#need[@]}" -eq 0 ] || apt_install "${need[@]}"
	[ "$query" -eq 0 ] || return 0
	# Not a pipe: under pipefail, grep -q quitting early could kill
	# busybox with SIGPIPE and fail the check at random.
	grep -qx reboot <(/bin/busybox --list) ||
		die "/bin/busybox lacks the reboot applet (need busybox-static)"
}

# missing_packages: of the "probe package" lines on stdin (a command or
# file, and the package providing it), the packages whose probe is not
# there.
missing_packages()
{
	local probe pkg

	while read -r probe pkg; do
		[ -e "$probe" ] || command -v "$probe" >/dev/null 2>&1 ||
			echo "$pkg"
	done
}

# "probe package" lines of what fetches and lays a source tree.
source_tools()
{
	cat <<-EOF
	patch patch
	xz xz-utils
	cpio cpio
	dpkg-deb dpkg
	python3 python3
	EOF
}

# "probe package" lines: a command or file, and the package providing it.
host_tools()
{
	source_tools
	cat <<-EOF
	qemu-system-x86_64 qemu-system-x86
	/bin/busybox busybox-static
	make make
	gcc gcc
	flex flex
	bison bison
	bc bc
	perl perl
	rsync rsync
	pgrep procps
	insmod kmod
	/usr/include/libelf.h libelf-dev
	/usr/include/openssl/ssl.h libssl-dev
	pahole dwarves
	EOF
}

# The arm64 target's: QEMU's arm emulators, the cross compiler and its C
# library (ptr_ring_test).
arm64_host_tools()
{
	cat <<-EOF
	qemu-system-aarch64 qemu-system-arm
	aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
	/usr/aarch64-linux-gnu/include/stdio.h libc6-dev-arm64-cross
	EOF
}

# write_sources SUITES OUT [TYPES]: a sources file, OUT, of the host's own
# Debian mirror for SUITES; SUITES "": every Debian source of the host's
# (security's too) with its own suites. TYPES: deb (default) or deb-src.
write_sources()
{
	local suites=$1 out=$2 types=${3:-deb} f

	: >"$out"
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		awk -v suites="$suites" -v types="$types" '
			BEGIN { RS = ""; ORS = "\n\n" }
			/(^|\n)URIs:[^\n]*debian/ && !done &&
			(suites == "" || !/security/) {
				sub(/Types:[^\n]*/, "Types: " types)
				if (suites != "") {
					sub(/(^|\n)Suites:[^\n]*/, "\nSuites: " suites)
					done = 1
				}
				print
			}' "$f" >>"$out"
		[ -z "$suites" ] || [ ! -s "$out" ] || return 0
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -e "$f" ] || continue
		awk -v suites="$suites" -v types="$types" '
			$1 == "deb" && $2 ~ /debian/ && !done &&
			(suites == "" || $0 !~ /security/) {
				printf "Types: %s\nURIs: %s\nSuites: %s\n", types,
					$2, suites == "" ? $3 : suites
				print "Components: main\n"; done = suites != ""
			}' "$f" >>"$out"
		[ -z "$suites" ] || [ ! -s "$out" ] || return 0
	done
	[ -s "$out" ] || die "no Debian source found in /etc/apt to read ${suites:-its sources} from"
}

# private_apt_opts DIR: apt-get/apt-cache options that use only the
# sources, index and cache under DIR (DIR/etc, lists, cache), one a line.
private_apt_opts()
{
	printf '%s\n' -o "Dir::Etc::SourceList=/dev/null" \
		-o "Dir::Etc::SourceParts=$1/etc" \
		-o "Dir::State::Lists=$1/lists" \
		-o "Dir::Cache=$1/cache" \
		-o "Debug::NoLocking=1" \
		-o "APT::Sandbox::User=root"
}

newer_apt_opts()
{
	private_apt_opts "$VMTEST_CACHE/apt"
}

newer_apt_update()
{
	private_apt_update newer_apt_opts "$VMTEST_CACHE/apt" newer \
		"trixie trixie-backports sid" "newer suites" "${1:-}"
}

# private_apt_update OPTS DIR NAME SUITES WHAT [force|deb-src]: the
# private apt setup in DIR (OPTS prints its options) reads this machine's
# mirror for SUITES (DIR/etc/NAME.sources, write_sources; deb-src: of
# source packages); its index, "Debian's WHAT", is updated unless a day
# old (force: anyway), so that a warm run needs no network.
private_apt_update()
{
	local d=$2 name=$3 suites=$4 what=$5 types=deb
	local -a opts

	[ "${6:-}" != deb-src ] || types='deb-src'
	mapfile -t opts < <("$1")
	mkdir -p "$d/etc" "$d/state" "$d/lists/partial" \
		"$d/cache/archives/partial"
	write_sources "$suites" "$d/etc/$name.sources" "$types"
	if [ "${6:-}" = force ] ||
	   [ -z "$(find "$d/lists" -maxdepth 1 \( -name '*Packages*' -o \
		-name '*Sources*' \) -mmin -1440 2>/dev/null)" ]; then
		step "updating the index of Debian's $what" \
			"$VMTEST_LOGS/apt-$name-update.log" \
			apt-get "${opts[@]}" update || die "cannot read Debian's $what"
	fi
}

# newer_apt_cache ARGS...: apt-cache ARGS on the newer suites' index.
newer_apt_cache()
{
	local -a opts

	mapfile -t opts < <(newer_apt_opts)
	apt-cache "${opts[@]}" "$@"
}

# Print "package version" of the newest linux-source-X.Y in newer suites.
newest_linux_source()
{
	newer_apt_cache search --names-only '^linux-source-[0-9.]+$' |
		awk '{ print $1 }' | sort -V | tail -n 1 |
		while read -r pkg; do
			printf '%s %s\n' "$pkg" "$(newer_apt_cache show "$pkg" |
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

# The lock file: NAME VERSION lines (vmtest/sources.lock).
SOURCES_LOCK=${SOURCES_LOCK:-$(dirname "${BASH_SOURCE[0]}")/../sources.lock}

# locked_source: "package version" of the current target's kernel source,
# the newest linux-source-X.Y the lock names.
locked_source()
{
	awk '$1 ~ /^linux-source-[0-9.]+$/ { print $1, $2 }' "$SOURCES_LOCK" |
		sort -V | tail -n 1
}

# locked_version PKG: the version the lock pins PKG to, if any.
locked_version()
{
	awk -v p="$1" '$1 == p { print $2; exit }' "$SOURCES_LOCK"
}

# newest_version PKG: the newest version of PKG in the machine's index and
# the newer suites'.
newest_version()
{
	{ newer_apt_cache show "$1"; apt-cache show "$1"; } 2>/dev/null |
		awk '/^Version:/ { print $2 }' | sort -V | tail -n 1
}

# has_version PKG VER: the newer suites' index has PKG at VER.
has_version()
{
	newer_apt_cache madison "$1" 2>/dev/null |
		awk -F ' [|] ' -v v="$2" '$2 == v { found = 1 } END { exit !found }'
}

# The current target's default tree: the kernel source the lock pins.
# Once unpacked it needs no network. A pinned version Debian no longer
# has exits 2, naming the newest and the command that moves the pin.
fetch_current_source()
{
	local pkg ver new
	local -a opts

	read -r pkg ver < <(locked_source)
	[ -n "$ver" ] || die "no linux-source-X.Y line in $SOURCES_LOCK"
	if [ -e "$VMTEST_CACHE/src/$pkg-$ver.unpacked" ]; then
		fetch_source_pkg "$pkg" "$ver"
		return
	fi
	newer_apt_update
	mapfile -t opts < <(newer_apt_opts)
	if ! has_version "$pkg" "$ver"; then
		newer_apt_update force
		if ! has_version "$pkg" "$ver"; then
			read -r new < <(newest_linux_source)
			msg "error: $pkg $ver (pinned in $SOURCES_LOCK) is gone from Debian's index; the newest is ${new:-none}: run vmtest/update-lock.sh to move the pin"
			exit 2
		fi
	fi
	fetch_source_pkg "$pkg" "$ver" "${opts[@]}"
}

# update_lock: the lock's lines moved to the newest version in Debian's
# index (linux-source-X.Y: the newer suites' newest X.Y; the 6.12 image:
# the one this machine's index names; any other: its own newest); a
# package no index has stays. Prints what moved.
update_lock()
{
	local name ver new cur tmp=$SOURCES_LOCK.new

	newer_apt_update force
	read -r cur _ < <(locked_source)
	: >"$tmp"
	while read -r name ver; do
		new="$name $ver"
		case $name in
		'' | '#'*) new="$name${ver:+ $ver}" ;;
		"$cur") new=$(newest_linux_source) ;;
		linux-image-6.12*) new=$(newest_distro_image) || new="$name $ver" ;;
		*) [ -z "$(newest_version "$name")" ] ||
			new="$name $(newest_version "$name")" ;;
		esac
		[ "$new" = "$name $ver" ] || [ -z "$ver" ] || msg "$name $ver -> $new"
		printf '%s\n' "$new" >>"$tmp"
	done <"$SOURCES_LOCK"
	mv "$tmp" "$SOURCES_LOCK"
}

# The arm64 guest's root: what kselftest, the series' driver and
# vmtest/guest run (coreutils' timeout and stdbuf, getconf; kmod's
# modinfo, which reads a module file where busybox's wants the running
# kernel's), busybox for the rest. Of this machine's release, so its
# glibc is the one libc6-dev-arm64-cross matches.
ARM64_ROOT_PKGS="busybox-static bash coreutils grep sed gawk findutils libc-bin kmod"

# apt-get options of the private arm64 setup: its own sources, index,
# package cache and an empty dpkg status, so that dependencies resolve as
# for an empty arm64 system and nothing of the machine's apt is used.
arm64_apt_opts()
{
	local d=$VMTEST_CACHE/arm64/apt

	printf '%s\n' -o "APT::Architecture=arm64" \
		-o "APT::Architectures=arm64" \
		-o "Dir::Etc::Preferences=/dev/null" \
		-o "Dir::Etc::PreferencesParts=$d/etc" \
		-o "Dir::State=$d/state" \
		-o "Dir::State::status=$d/status"
	private_apt_opts "$d"
}

arm64_apt_update()
{
	local d=$VMTEST_CACHE/arm64/apt release

	mkdir -p "$d" && : >"$d/status"
	release=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$release" ] || die "cannot tell this machine's Debian release"
	private_apt_update arm64_apt_opts "$d" arm64 "$release" "arm64 packages"
}

# busybox_applets ROOT: link every applet of busybox that the packages did
# not provide to ROOT's /bin/busybox. The applets are listed by the host's
# busybox-static (the same release, so the same applets): the arm64 one
# cannot run here.
busybox_applets()
{
	local root=$1 path name

	/bin/busybox --list-full | while read -r path; do
		name=${path##*/}
		[ -e "$root/bin/$name" ] || [ -e "$root/sbin/$name" ] ||
			[ -e "$root/$path" ] || ln -s /bin/busybox "$root/$path"
	done
}

# make_guest_root DIR DEB...: an arm64 root from the packages, merged /usr
# as Debian's own: every package is unpacked (no maintainer scripts run)
# through the bin, sbin and lib links.
make_guest_root()
{
	local dir=$1 deb d

	shift
	rm -rf "$dir"
	mkdir -p "$dir/usr/bin" "$dir/usr/sbin" "$dir/usr/lib" || return 1
	for d in bin sbin lib; do
		ln -s "usr/$d" "$dir/$d" || return 1
	done
	for deb in "$@"; do
		dpkg-deb --fsys-tarfile "$deb" |
			tar -x --keep-directory-symlink -C "$dir" || return 1
	done
	# No maintainer script runs: make the one alternative the tests
	# need (gawk's postinst makes awk), before busybox claims its name.
	ln -s gawk "$dir/usr/bin/awk" || return 1
	busybox_applets "$dir"
	# Mount points of vmtest/guest/init, and who root is.
	mkdir -p "$dir/proc" "$dir/sys" "$dir/dev" "$dir/tmp" "$dir/run" \
		"$dir/var/tmp" "$dir/root" "$dir/etc" || return 1
	echo 'root:x:0:0:root:/root:/bin/bash' >"$dir/etc/passwd"
	echo 'root:x:0:' >"$dir/etc/group"
	[ -x "$dir/bin/bash" ] && [ -x "$dir/bin/busybox" ]
}

# ensure_guest_root: sets GUEST_ROOT to the arm64 root, made when the
# packages it resolves to (names and versions) changed. The runner's
# guest scripts and the mount point of its cache are put in it each run,
# at their host paths, as an x86 guest finds them on the host's root.
ensure_guest_root()
{
	local d=$VMTEST_CACHE/arm64 key root
	local -a opts pkgs

	arm64_apt_update
	mapfile -t opts < <(arm64_apt_opts)
	# What an install on an empty system would unpack: "name=version".
	# shellcheck disable=SC2086 # a list of package names
	mapfile -t pkgs < <(apt-get "${opts[@]}" install -s -y \
		--no-install-recommends $ARM64_ROOT_PKGS |
		awk '$1 == "Inst" { print $2 "=" substr($3, 2) }' | sort)
	[ "${#pkgs[@]}" -gt 0 ] ||
		die "cannot resolve the arm64 root's packages ($ARM64_ROOT_PKGS)"
	# Keyed on how it is made, too.
	key=$({ printf '%s\n' "$ARM64_ROOT_PKGS" "${pkgs[@]}"
		declare -f make_guest_root busybox_applets; } | hash_of)
	root=$d/root
	if [ "$(cat "$root.key" 2>/dev/null)" != "$key" ]; then
		rm -rf "$d/debs" "$root.key"
		mkdir -p "$d/debs" || die "cannot create $d/debs"
		(cd "$d/debs" && step "downloading Debian's arm64 packages for the guest" \
			"$VMTEST_LOGS/apt-arm64-download.log" \
			apt-get "${opts[@]}" download "${pkgs[@]}") ||
			die "cannot download the arm64 root's packages"
		step "unpacking the arm64 root" "$VMTEST_LOGS/arm64-root.log" \
			make_guest_root "$root" "$d"/debs/*.deb ||
			die "cannot make the arm64 root"
		echo "$key" >"$root.key"
	fi
	if ! mkdir -p "$root$VMTEST_CACHE" "$root$VMTEST_DIR" ||
	   ! rsync -a --delete "$VMTEST_DIR/" "$root$VMTEST_DIR/"; then
		die "cannot put the runner's guest scripts in $root"
	fi
	GUEST_ROOT=$root
}
