# SPDX-License-Identifier: GPL-2.0
# Kernel trees: a hard-link farm of the source with the series applied as
# patches (series/apply.sh), or with its files laid over (lay_series.py).
#
# A tree the user names is never modified: the farm holds hard links to
# its files, and both patch -p1 and lay_series.py replace (never rewrite)
# the ones the series changes. Kernels are built out of tree (O=), so no
# build writes a source.
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

# export_series BASE DIR: the series as patches against BASE, in DIR.
# A step (a shell of its own): the identity it may set stays there.
export_series()
{
	local base=$1 dir=$2

	# The patches are signed off by the user's git identity; a runner
	# (CI, a container) may have none configured.
	if ! git -C "$VMTEST_SERIES" var GIT_COMMITTER_IDENT >/dev/null 2>&1; then
		export GIT_AUTHOR_NAME=vmtest GIT_AUTHOR_EMAIL=vmtest@localhost
		export GIT_COMMITTER_NAME=vmtest GIT_COMMITTER_EMAIL=vmtest@localhost
	fi
	rm -rf "$dir.tmp"
	"$VMTEST_SERIES/series/export.sh" "$dir.tmp" --tree "$base" &&
		mv "$dir.tmp" "$dir"
}

# exported_series BASE: prints the directory of the series' patches
# against BASE, exported into the cache once per series (series.py key:
# the patch files, their Steps' commits, the series files).
exported_series()
{
	local base=$1 key dir

	key=$({ python3 "$VMTEST_SERIES/series/series.py" key &&
		realpath "$base"; } | hash_of) || return 1
	dir=$VMTEST_CACHE/series/$key
	if [ ! -d "$dir" ]; then
		# Only the newest export is kept.
		rm -rf "$VMTEST_CACHE/series"
		mkdir -p "$VMTEST_CACHE/series" || return 1
		step "exporting the series against $base" \
			"$VMTEST_LOGS/export.log" export_series "$base" "$dir" ||
			return 1
	fi
	echo "$dir"
}

# apply_series SRC FARM PATCHES: the paths the patches touch, and those
# the last ones applied touched, back to links to SRC (or gone, where SRC
# has none), then the patches applied.
apply_series()
{
	local src=$1 farm=$2 patches=$3 p

	{
		cat "$farm.paths" 2>/dev/null
		sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$patches"/[0-9]*.patch
	} | sort -u >"$farm.paths.new" || return 1
	while read -r p; do
		if [ -e "$src/$p" ]; then
			mkdir -p "$(dirname "$farm/$p")" && ln -f "$src/$p" "$farm/$p"
		else
			rm -f "$farm/$p"
		fi || return 1
	done <"$farm.paths.new"
	mv "$farm.paths.new" "$farm.paths" &&
		"$VMTEST_SERIES/series/apply.sh" "$farm" --patches "$patches"
}

# prepare_tree SRC ID lay|BASE: sets KTREE to the farm of SRC with the
# series applied as patches exported against BASE (a pristine tree), or
# with its files laid over. The farm is relinked only when ID (the
# source's identity) changes, and the patches are applied only when they
# change; the farm keeps its place (and so its kernel build directory),
# and as hard links keep mtimes, a relinked farm rebuilds only what
# changed.
prepare_tree()
{
	local src=$1 id=$2 base=$3 farm patches

	if [ ! -f "$src/Makefile" ] || [ ! -d "$src/tools/testing/selftests" ]; then
		die "$src does not look like a kernel tree"
	fi
	farm=$VMTEST_CACHE/trees/$(basename "$src")-$(realpath "$src" | hash_of)
	if [ "$(cat "$farm.id" 2>/dev/null)" != "$id" ]; then
		rm -f "$farm.series" "$farm.paths"
		step "linking a work copy of $src" "$VMTEST_LOGS/farm.log" \
			make_farm "$src" "$farm" || die "cannot link $src"
		printf '%s\n' "$id" >"$farm.id"
	fi
	if [ "$base" = lay ]; then
		SERIES_TARGETS=$(python3 "$VMTEST_DIR/lib/lay_series.py" \
			--series "$VMTEST_SERIES" --farm "$farm") ||
			die "cannot lay the series over $src"
	else
		patches=$(exported_series "$base") ||
			die "cannot export the series as patches against $base (log: $VMTEST_LOGS/export.log)"
		if [ "$(cat "$farm.series" 2>/dev/null)" != "$patches" ]; then
			rm -f "$farm.series"
			step "applying the series' patches to a work copy of $src" \
				"$VMTEST_LOGS/apply.log" \
				apply_series "$src" "$farm" "$patches" ||
				die "the series, exported against $base, does not apply to $src (patches: $patches)"
			echo "$patches" >"$farm.series"
		fi
		SERIES_TARGETS=$(python3 "$VMTEST_DIR/lib/lay_series.py" \
			--series "$VMTEST_SERIES" --targets) ||
			die "cannot read the series' selftest targets"
	fi
	KTREE=$farm
	KTREE_VERSION=$(make -s -C "$KTREE" kernelversion)
}
