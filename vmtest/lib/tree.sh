# SPDX-License-Identifier: GPL-2.0
# Kernel trees: a hard-link farm of the source with the series laid over.
#
# A tree the user names is never modified: the farm holds hard links to
# its files and lay_series.py replaces (never rewrites) the ones the series
# changes. Kernels are built out of tree (O=), so no build writes a source.
# shellcheck shell=bash disable=SC2034 # sets globals for vmtest.sh

# An identity that changes whenever the tree's content does.
tree_identity()
{
	local src=$1

	if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		printf 'git %s %s %s\n' "$(realpath "$src")" \
			"$(git -C "$src" rev-parse HEAD)" \
			"$({ git -C "$src" diff HEAD
			     git -C "$src" ls-files -o --exclude-standard; } | hash_of)"
	else
		printf 'dir %s %s\n' "$(realpath "$src")" \
			"$(find "$src" -xdev -type f -printf '%T@ %s %p\n' | hash_of)"
	fi
}

make_farm()
{
	local src=$1 farm=$2

	rm -rf "$farm"
	mkdir -p "$farm"
	if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		# Only source files: build products of an in-tree build stay out.
		(cd "$src" && git ls-files -z -co --exclude-standard |
			cpio -0 -pdl --quiet "$farm") || return 1
	else
		cp -al "$src/." "$farm/" || return 1
		# mrproper unlinks the farm's links to build products, the
		# user's own files stay as they are.
		make -C "$farm" -s mrproper || return 1
	fi
}

# prepare_tree SRC ID: sets KTREE to the farm of SRC with the series laid
# over it. The farm is relinked only when ID (the source's identity)
# changes; it keeps its place (and so its kernel build directory), and as
# hard links keep mtimes, a relinked farm rebuilds only what changed.
prepare_tree()
{
	local src=$1 id=$2 farm

	if [ ! -f "$src/Makefile" ] || [ ! -d "$src/tools/testing/selftests" ]; then
		die "$src does not look like a kernel tree"
	fi
	farm=$VMTEST_CACHE/trees/$(basename "$src")-$(realpath "$src" | hash_of)
	if [ "$(cat "$farm.id" 2>/dev/null)" != "$id" ]; then
		step "linking a work copy of $src" "$VMTEST_LOGS/farm.log" \
			make_farm "$src" "$farm" || die "cannot link $src"
		printf '%s\n' "$id" >"$farm.id"
	fi
	SERIES_TARGETS=$(python3 "$VMTEST_DIR/lib/lay_series.py" \
		--series "$VMTEST_SERIES" --farm "$farm") ||
		die "cannot lay the series over $src"
	KTREE=$farm
	KTREE_VERSION=$(make -s -C "$KTREE" kernelversion)
}
