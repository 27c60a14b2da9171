#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every step of the series builds its kernel module: the committed patch
# files (series/virtio/, then series/net-next/) applied one at a time
# (patch -p1) to hard links of the pristine 7.x files they touch; after
# each that touches a module's directory (a Makefile with obj-m), that
# module built at W=1 against a built 7.x kernel, with no warning; the
# kernel's build directory only read. The kernel: SERIES_KDIR, else the
# runner's build of the current target (which a cold cache builds first).

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ksrc=$(runner_record current fetch | record_get src)
kdir=${SERIES_KDIR:-$(prepared current build | cut -d' ' -f2)}
if [ -z "$ksrc" ] || [ ! -f "$kdir/Module.symvers" ]; then
	not_ok "a pristine 7.x source and a built kernel" \
		"source '$ksrc', kernel '$kdir' (see $OUT/prepare.log)"
	tests_done series_build
	exit
fi

# The committed patch files: virtio's, then net-next's.
mapfile -t patches < <(python3 "$REPO/vmtest/lib/series_files.py" --series "$REPO" --patches)

# The tree: hard links of the pristine files the series touches (the
# patches write new files, so the source is not written through them).
tree=$work/linux
sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "${patches[@]}" | sort -u |
	while read -r p; do
		[ -e "$ksrc/$p" ] || continue
		mkdir -p "$(dirname "$tree/$p")" && ln "$ksrc/$p" "$tree/$p"
	done

# The module directories a patch touches, after it is applied.
module_dirs()
{
	local p d

	sed -n 's|^diff --git a/[^ ]* b/\(.*\)|\1|p' "$1" | while read -r p; do
		d=$(dirname "$p")
		while [ "$d" != . ]; do
			grep -qs '^obj-m' "$tree/$d/Makefile" && echo "$d" && break
			d=$(dirname "$d")
		done
	done | sort -u
}

touch "$work/stamp"
built=0
for p in "${patches[@]}"; do
	name=${p##*/}
	if ! apply_patch "$tree" "$p" >"$work/patch.log" 2>&1; then
		not_ok "$name applies" "$(cat "$work/patch.log")"
		break
	fi
	for d in $(module_dirs "$p"); do
		log=$work/build.log
		make -C "$tree/$d" W=1 KDIR="$kdir" >"$log" 2>&1
		rc=$?
		ko=$(find "$tree/$d" -maxdepth 1 -name '*.ko' -printf '%f ')
		if [ "$rc" -eq 0 ] && [ -n "$ko" ] && ! grep -q 'warning:' "$log"; then
			ok "after $name: $d builds at W=1 without a warning (${ko% })"
		else
			not_ok "after $name: $d builds at W=1 without a warning" \
				"exit $rc" "$(grep -E 'warning:|error:' "$log" | head -n 20)" \
				"$(tail -n 10 "$log")"
		fi
		make -C "$tree/$d" KDIR="$kdir" clean >/dev/null 2>&1
		built=$((built + 1))
	done
done
check "the patches build a module at least once ($built builds)" test "$built" -gt 0
written=$(find "$kdir" -newer "$work/stamp" -print | head -n 5)
if [ -z "$written" ]; then
	ok "the kernel's build directory is only read"
else
	not_ok "the kernel's build directory is only read" "written: $written"
fi

tests_done series_build
