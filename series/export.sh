#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Export the series as git format-patch files, against a pristine kernel
# tree: OUTDIR/0000-cover-letter.patch, 0001-....patch, ...
#
# usage: series/export.sh OUTDIR [--tree DIR] [--results JOB]... [--git DIR]
#                         [--before JOB] [--maintainers]
#   --tree DIR      the pristine tree (default: the newest Debian
#                   linux-source the runner unpacked, as
#                   'vmtest/vmtest.sh -t current --stop-after fetch' says)
#   --results JOB   a vmtest.sh job directory (e.g. CACHE/jobs/current),
#                   whose figures fill the cover letter's results table
#                   (series/results.py; repeat for one column per run)
#   --before JOB    with --results: a first column, upstream's own module
#                   measured in the job series/measure.sh ran
#   --git DIR       keep the repository the patches come from in DIR (a
#                   bare one: a base commit of the tree's files that the
#                   series touches, then one commit per patch on branch
#                   'series')
#   --maintainers   address each patch (To:, Cc:) to what get_maintainer.pl
#                   names for it, and the cover letter to all of them, as
#                   NIPA's cc_maintainers expects (series/recipients.py):
#                   then 'git send-email OUTDIR/*.patch' sends the series
#
# The patches are signed off by your git identity (git var
# GIT_COMMITTER_IDENT, as 'git format-patch -s' would). The tree is only
# read. A Debian source tree has no git commit, so no base-commit line is
# written: the cover letter names the tree's version instead.

set -eu
self=$(realpath "$0")
series=$(dirname "$self")
repo=$(dirname "$series")

usage()
{
	sed -n '3,28p' "$self" | cut -c3- >&2
	exit 2
}

out='' tree='' keep='' address=0 before=''
results=()
while [ $# -gt 0 ]; do
	case $1 in
	--tree) tree=${2:?}; shift 2 ;;
	--results) results+=("${2:?}"); shift 2 ;;
	--before) before=${2:?}; shift 2 ;;
	--git) keep=${2:?}; shift 2 ;;
	--maintainers) address=1; shift ;;
	-h | --help) usage ;;
	-*) echo "export.sh: unknown option $1" >&2; usage ;;
	*) [ -z "$out" ] || usage; out=$1; shift ;;
	esac
done
[ -n "$out" ] || usage
# The table first: a job that cannot give one stops the export early.
table='(no run given: export with --results JOB to fill this table)'
if [ ${#results[@]} -gt 0 ]; then
	table=$(python3 "$series/results.py" ${before:+--before "$before"} \
		"${results[@]}")
elif [ -n "$before" ]; then
	echo "export.sh: --before needs --results" >&2
	exit 2
fi

if [ -z "$tree" ]; then
	# Only unpacks the source (cached after the first time); builds nothing.
	tree=$("$repo/vmtest/vmtest.sh" -t current --stop-after fetch |
	       sed -n 's/^current src=\([^ ]*\).*/\1/p')
	[ -n "$tree" ] || { echo "export.sh: the runner named no source tree" >&2; exit 1; }
fi
tree=$(realpath "$tree")
if [ ! -f "$tree/Makefile" ] || [ ! -f "$tree/MAINTAINERS" ]; then
	echo "export.sh: $tree is not a kernel tree" >&2
	exit 1
fi

# The base's name: the kernel version, and the Debian package it came
# from when the directory says so (linux-source-7.2-7.2.13-1).
version=$(sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = \([0-9]*\)$/\2/p' \
	  "$tree/Makefile" | paste -sd. -)
base="Linux $version"
case ${tree##*/} in
linux-source-*-*)
	pkg=${tree##*/}
	base="$base (Debian ${pkg%-"${pkg#linux-source-*-}"} ${pkg#linux-source-*-}, unpacked source)"
	;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gitdir=${keep:-$work/git}
if [ -n "$keep" ]; then
	[ ! -e "$keep" ] || { echo "export.sh: $keep exists" >&2; exit 1; }
	gitdir=$(realpath -m "$keep")
fi

# Commit and patch under the exporting user's identity, also where git
# has no user configured (the repository below has no config of its own).
id=$(git -C "$repo" var GIT_COMMITTER_IDENT)
GIT_AUTHOR_NAME=${id% <*}
GIT_AUTHOR_EMAIL=${id#*<}
GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL%%>*}
GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL

base_commit=$(python3 "$series/series.py" build "$gitdir" "$tree" "$base")

mkdir -p "$out"
rm -f "$out"/[0-9][0-9][0-9][0-9]-*.patch
# format.useAutoBase off: no base-commit line, as the base has no
# upstream commit (a tarball's tree).
git --git-dir="$gitdir" -c format.useAutoBase=false -c core.abbrev=12 \
	format-patch -q -o "$out" --cover-letter --notes -s \
	--subject-prefix="PATCH net-next" "$base_commit..series"

python3 - "$out/0000-cover-letter.patch" "$series/cover-letter.txt" \
	"$base" "$table" <<'EOF'
import sys
cover, template, base, res = sys.argv[1:]
with open(template, encoding='utf-8') as f:
    subject, _, blurb = f.read().partition('\n\n')
subject = subject.replace('Subject: ', '', 1)
blurb = blurb.replace('@BASE@', base).replace('@RESULTS@', res).strip('\n')
with open(cover, encoding='utf-8') as f:
    text = f.read()
for old, new in (('*** SUBJECT HERE ***', subject),
                 ('*** BLURB HERE ***', blurb)):
    if old not in text:
        sys.exit('export.sh: no "%s" in %s' % (old, cover))
    text = text.replace(old, new)
with open(cover, 'w', encoding='utf-8') as f:
    f.write(text)
EOF
[ "$address" -eq 0 ] || python3 "$series/recipients.py" "$gitdir" "$tree" "$out"
ls "$out"/[0-9][0-9][0-9][0-9]-*.patch
