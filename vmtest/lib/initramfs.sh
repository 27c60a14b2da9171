# SPDX-License-Identifier: GPL-2.0
# The initramfs: static busybox, the modules a kernel needs to mount the
# host's root over 9p (none for kernels built here, 9p is built in), and an
# /init that mounts it read-only and switches to vmtest/guest/init.
# shellcheck shell=bash

# Modules, in load order, that RELEASE's kernel (its lib/modules below
# ROOT) needs for a 9p root.
ninep_modules()
{
	local release=$1 root=$2

	modprobe -d "$root" -S "$release" --show-depends 9pnet_virtio 2>/dev/null
	modprobe -d "$root" -S "$release" --show-depends 9p 2>/dev/null
}

# The initramfs's first words: the kernel finished booting and userspace
# runs (lib/vm.sh looks for them).
BOOT_MARKER='vmtest-initramfs: userspace started'

write_initramfs_init()
{
	printf '#!/bin/busybox sh\necho "%s"\n' "$BOOT_MARKER"
	cat <<'EOF'
/bin/busybox --install -s /bin
# The runner's settings, given to init after the kernel's "--"
export "$@"
mount -t proc proc /proc
mount -t devtmpfs dev /dev
for m in $(cat /modules.list); do
	insmod "/modules/$m" || echo "vmtest-initramfs: insmod $m failed"
done
if ! mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 \
	root /newroot; then
	echo "vmtest-initramfs: cannot mount the host's root over 9p"
	reboot -f
fi
umount /proc /dev
exec switch_root /newroot /bin/bash "$vmtest_init"
EOF
}

# make_initramfs OUT [RELEASE ROOT]: RELEASE names a distro kernel whose
# 9p modules (ROOT/lib/modules/RELEASE) go in. Made anew each run: it
# takes well under a second.
make_initramfs()
{
	local out=$1 release=${2:-} root=${3:-/} dir mod name

	dir=$(mktemp -d "$VMTEST_CACHE/initramfs.XXXXXX") ||
		die "cannot create a staging directory in $VMTEST_CACHE"
	# Gone however the runner exits (a die below, Ctrl-C).
	CLEANUP_DIRS+=("$dir")
	mkdir -p "$dir/bin" "$dir/proc" "$dir/dev" "$dir/newroot" "$dir/modules"
	# The guest's busybox: the host's, or the arm64 root's.
	cp "${GUEST_ROOT%/}/bin/busybox" "$dir/bin/busybox"
	write_initramfs_init >"$dir/init"
	chmod 755 "$dir/init"
	: >"$dir/modules.list"
	if [ -n "$release" ]; then
		ninep_modules "$release" "$root" | awk '$1 == "insmod" { print $2 }' |
		awk '!seen[$0]++' | while read -r mod; do
			name=$(basename "$mod")
			name=${name%.xz}
			name=${name%.zst}
			case $mod in
			*.xz) xz -dc "$mod" >"$dir/modules/$name" ;;
			*.zst) zstd -qdc "$mod" >"$dir/modules/$name" ;;
			*) cp "$mod" "$dir/modules/$name" ;;
			esac
			echo "$name" >>"$dir/modules.list"
		done
		[ -s "$dir/modules.list" ] ||
			die "no 9p modules found for kernel $release"
	fi
	(cd "$dir" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp" &&
		mv "$out.tmp" "$out"
	rm -rf "$dir"
}
