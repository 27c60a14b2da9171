#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Apply the exported series to a pristine kernel tree: with 'git am' when
# TREE is the top of a git work tree, else with 'patch -p1' (GNU patch
# writes each patched file anew, so a hard-link farm of a cached source
# stays a farm: the cache is not written through the links).
#
# usage: series/apply.sh TREE [--patches DIR | --base DIR]
#   --patches DIR  the patches export.sh wrote (0001-*.patch ...; the
#                  cover letter is skipped)
#   --base DIR     export first, against DIR (the pristine tree TREE was
#                  made from); default: export.sh's default tree
#
# TREE must not have the series already: a patch that does not apply
# stops the run with exit 1, naming it.

set -eu
self=$(realpath "$0")
series=$(dirname "$self")
repo=$(dirname "$series")

usage()
{
	sed -n '3,15p' "$self" | cut -c3- >&2
	exit 2
}

tree='' patches='' base=''
while [ $# -gt 0 ]; do
	case $1 in
	--patches) patches=${2:?}; shift 2 ;;
	--base) base=${2:?}; shift 2 ;;
	-h | --help) usage ;;
	-*) echo "apply.sh: unknown option $1" >&2; usage ;;
	*) [ -z "$tree" ] || usage; tree=$1; shift ;;
	esac
done
if [ -z "$tree" ] || [ ! -d "$tree" ]; then
	usage
fi
tree=$(realpath "$tree")

if [ -z "$patches" ]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	patches=$work/patches
	"$series/export.sh" "$patches" ${base:+--tree "$base"} >/dev/null
fi
mapfile -t list < <(find "$patches" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		    ! -name '0000-*' | sort)
[ ${#list[@]} -gt 0 ] || { echo "apply.sh: no patches in $patches" >&2; exit 1; }

if [ "$(git -C "$tree" rev-parse --show-toplevel 2>/dev/null)" = "$tree" ]; then
	# git am records the applier as committer: fall back on the
	# project's identity where git has none configured.
	if ! git -C "$tree" var GIT_COMMITTER_IDENT >/dev/null 2>&1; then
		id=$(git -C "$repo" var GIT_COMMITTER_IDENT)
		GIT_COMMITTER_NAME=${id% <*}
		GIT_COMMITTER_EMAIL=${id#*<}
		GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL%%>*}
		export GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
	fi
	if ! git -C "$tree" am -q "${list[@]}"; then
		git -C "$tree" am --abort 2>/dev/null || true
		echo "apply.sh: git am failed in $tree" >&2
		exit 1
	fi
else
	for p in "${list[@]}"; do
		if ! patch -p1 -N -s -f --no-backup-if-mismatch -d "$tree" <"$p"; then
			echo "apply.sh: ${p##*/} does not apply to $tree" >&2
			exit 1
		fi
	done
fi
echo "apply.sh: applied ${#list[@]} patches to $tree"
