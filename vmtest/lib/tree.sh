# SPDX-License-Identifier: GPL-2.0
# Kernel trees: a hard-link farm of the source with the series' committed
# patch files applied (patch -p1 replaces, never rewrites, a file; builds
# are out of tree), so the source is never modified. Nothing here calls
# series/: a clone builds a kernel.
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

# apply_series SRC FARM PATCH...: the paths these and the last patches
# applied touch back to SRC's content (or gone), as copies with a new
# mtime so that make rebuilds what another series' version built; then
# the patches applied (GNU patch writes each file anew, never through a
# link to SRC).
apply_series()
{
	local src=$1 farm=$2 p

	shift 2
	{
		cat "$farm.paths" 2>/dev/null
		sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$@"
	} | sort -u >"$farm.paths.new" || return 1
	while read -r p; do
		if [ -e "$src/$p" ]; then
			mkdir -p "$(dirname "$farm/$p")" &&
				cp --remove-destination "$src/$p" "$farm/$p"
		else
			rm -f "$farm/$p"
		fi || return 1
	done <"$farm.paths.new"
	mv "$farm.paths.new" "$farm.paths" || return 1
	for p in "$@"; do
		apply_patch "$farm" "$p" ||
			{ echo "${p#"$VMTEST_SERIES"/} does not apply to $src"; return 1; }
	done
	echo "applied $# patches"
}

# A farm is one run's from its patching until its selftests are in the
# job (the guest's end, when the guest builds in it): a run from another
# checkout sharing the cache waits, then patches it with its own series.
TREE_LOCK_FD=
TREE_LOCK_WAIT=${TREE_LOCK_WAIT:-3600}

# hold_tree FARM: take FARM's lock, saying so when another run has it.
hold_tree()
{
	mkdir -p "$(dirname "$1")" || die "cannot create $(dirname "$1")"
	exec {TREE_LOCK_FD}>"$1.lock" || die "cannot open $1.lock"
	flock -n "$TREE_LOCK_FD" && return
	msg "waiting for another run using $1 (up to $TREE_LOCK_WAIT s)"
	flock -w "$TREE_LOCK_WAIT" "$TREE_LOCK_FD" ||
		die "another run has used $1 for $TREE_LOCK_WAIT s"
}

release_tree()
{
	[ -z "$TREE_LOCK_FD" ] || exec {TREE_LOCK_FD}>&-
	TREE_LOCK_FD=
}

# prepare_tree SRC ID TARGET: sets KTREE to TARGET's farm of SRC, patched.
# It is relinked when ID (the source's identity) changes, patched when the
# patches do; it keeps its place and, as links keep mtimes, rebuilds only
# what changed. A farm per target: the module is built in the tree
# (TEST_GEN_MODS_DIR), and targets with other kernels rebuilt it each run.
prepare_tree()
{
	local src=$1 id=$2 target=$3 farm key
	local -a patches

	if [ ! -f "$src/Makefile" ] || [ ! -d "$src/tools/testing/selftests" ]; then
		die "$src does not look like a kernel tree"
	fi
	# One farm per source and target; the current target's name has no suffix
	farm=$VMTEST_CACHE/trees/$(basename "$src")-$(realpath "$src" | hash_of)
	[ "$target" = current ] || farm+=-$target
	hold_tree "$farm"
	if [ "$(cat "$farm.id" 2>/dev/null)" != "$id" ]; then
		rm -rf "$farm.series" "$farm.paths" "$farm.build"
		step "linking a work copy of $src" "$VMTEST_LOGS/farm.log" \
			make_farm "$src" "$farm" || die "cannot link $src"
		printf '%s\n' "$id" >"$farm.id"
	fi
	mapfile -t patches < <(python3 "$VMTEST_DIR/lib/series_files.py" \
		--series "$VMTEST_SERIES" --patches)
	[ ${#patches[@]} -gt 0 ] ||
		die "no patch files in $VMTEST_SERIES/series/{virtio,net-next}"
	key=$(cat "${patches[@]}" | hash_of)
	if [ "$(cat "$farm.series" 2>/dev/null)" != "$key" ]; then
		rm -f "$farm.series"
		step "applying the series' patches to a work copy of $src" \
			"$VMTEST_LOGS/apply.log" \
			apply_series "$src" "$farm" "${patches[@]}" ||
			fail "the series does not apply to $src: $(tail -n 1 "$VMTEST_LOGS/apply.log")"
		echo "$key" >"$farm.series"
	fi
	SERIES_TARGETS=$(python3 "$VMTEST_DIR/lib/series_files.py" \
		--series "$VMTEST_SERIES" --targets) ||
		die "cannot read the series' selftest targets"
	KTREE=$farm
	# make kernelversion, without make (a record query needs none)
	KTREE_VERSION=$(awk '$2 == "=" && $1 ~ /^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)$/ {
		v[$1] = $3 } END { printf "%s.%s.%s%s\n", v["VERSION"],
		v["PATCHLEVEL"], v["SUBLEVEL"], v["EXTRAVERSION"] }' "$KTREE/Makefile")
}
