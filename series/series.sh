#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The two series, series/virtio/ and series/net-next/, as committed
# 'git format-patch --cover-letter' files against the pinned kernel
# source; series/README says how to edit them with these commands.
#
# usage: series/series.sh COMMAND ...
#   import SERIES DIR [--full | --with PATH...]
#       DIR a git repository of the base (tag 'base'; --full: the whole
#       tree, --with: PATH too) with SERIES' patches, notes as git notes
#   export SERIES DIR
#       DIR's base..HEAD into series/SERIES/, then the project's files
#   check
#       both series apply and give the project's files; diffstats
#   nipa [SERIES...]
#       NIPA's own patch tests (NIPA=DIR, its checkout) on each patch
#   send SERIES OUTDIR [--maintainers]
#       the files to post, as you; --maintainers addresses them anew
# The base tree is SERIES_BASE, else the runner's unpacked pinned source
# ('vmtest/vmtest.sh -t current --stop-after fetch', no build).
# Exit 1 when a check fails, 2 on wrong usage or a missing tool.

set -eu
self=$(realpath "$0")
series=$(dirname "$self")
repo=$(dirname "$series")
files=$repo/vmtest/lib/series_files.py
ORDER='virtio net-next'
# shellcheck source-path=SCRIPTDIR source=../vmtest/lib/record.sh
. "$repo/vmtest/lib/record.sh"
# shellcheck source-path=SCRIPTDIR source=../vmtest/lib/patch.sh
. "$repo/vmtest/lib/patch.sh"
SELFTESTS_MK=tools/testing/selftests/Makefile

usage()
{
	sed -n '3,/^$/p' "$self" | cut -c3- >&2
	exit 2
}

die()
{
	echo "series.sh: $*" >&2
	exit "${rc:-1}"
}

# patches_of [SERIES]: its patch files (no SERIES: both's, in the order
# they apply), the cover letters left out
patches_of()
{
	python3 "$files" --series "$repo" --patches "$@"
}

# known SERIES [ARG]: SERIES is one of ORDER; with ARG: usage unless
# ARG is given.
known()
{
	[ $# -lt 2 ] || [ -n "$2" ] || usage
	[[ " $ORDER " == *" $1 "* ]] || rc=2 die "no series '$1' (one of: $ORDER)"
}

base_tree()
{
	local t=${SERIES_BASE:-}

	[ -n "$t" ] || t=$(vmtest_record current fetch | record_get src)
	{ [ -f "$t/Makefile" ] && [ -f "$t/MAINTAINERS" ]; } ||
		die "no pristine kernel tree (SERIES_BASE '${SERIES_BASE:-}', runner: '$t')"
	realpath "$t"
}

# touched PATCH...: the paths the patches change, sorted.
touched()
{
	[ $# -eq 0 ] || sed -n 's|^diff --git a/[^ ]* b/\(.*\)|\1|p' "$@" | sort -u
}

# project_files: the project's kernel-tree files (the series' result).
project_files()
{
	git -C "$repo" ls-files -co --exclude-standard -- tools Documentation MAINTAINERS
}

# identity PATCH: the 'Name <address>' a committed patch is From.
identity()
{
	unfold_from <"$1" | sed -n '/^$/q; s/^From: //p' | head -n 1
}

# unfold_from: the mail on stdin with its From: header on one line.
unfold_from()
{
	awk '
		!body && from && /^[ \t]/ { sub(/^[ \t]+/, " "); line = line $0; next }
		from { print line; from = 0 }
		!body && /^From: / { line = $0; from = 1; next }
		!body && /^$/ { body = 1 }
		{ print }
		END { if (from) print line }'
}

# base_files TREE: the base commit's files but for --full: the paths the
# series touch or the project has, their directories' other files, and
# what checkpatch.pl, get_maintainer.pl and the selftests want.
base_files()
{
	local tree=$1 p d

	{
		# shellcheck disable=SC2046 # a list of files
		touched $(patches_of)
		project_files
		echo "$SELFTESTS_MK"
		[ ${#EXTRA[@]} -eq 0 ] || printf '%s\n' "${EXTRA[@]}"
	} | sort -u | while read -r p; do
		echo "$p"
		d=$(dirname "$p")
		[ "$d" = . ] || [ ! -d "$tree/$d" ] ||
			find "$tree/$d" -maxdepth 1 -type f -printf "$d/%f\n"
		case $p in
		Documentation/*.rst) echo "$d/index.rst" ;;
		esac
	done
	(cd "$tree" && find . -maxdepth 1 -type f -printf '%P\n' &&
		# kernel-doc is a link to tools/docs', which needs tools/lib/python
		find scripts tools/docs tools/lib/python -type f -o -type l &&
		find . -mindepth 2 -maxdepth 2 \( -name Kconfig -o -name Makefile \) -printf '%P\n' &&
		find include/linux/ptr_ring.h include/net/page_pool -type f &&
		# what the selftests' scripts source (shellcheck follows it)
		find tools/testing/selftests/kselftest -type f)
}

# copy_in TREE DIR: the files named on stdin that TREE has, copied into
# DIR with their directories.
copy_in()
{
	local p dest

	dest=$(realpath "$2")
	while read -r p; do
		[ -f "$1/$p" ] && printf '%s\0' "$p"
	done | (cd "$1" && cpio -0 -pdm --quiet "$dest")
}

# make_base TREE DIR [--full]: DIR a git repository whose commit 'base'
# is TREE's files (copies: an edit in DIR never reaches the cache).
make_base()
{
	local tree=$1 dir=$2 full=${3:-} who

	[ ! -e "$dir" ] || [ -z "$(ls -A "$dir")" ] || die "$dir exists and is not empty"
	mkdir -p "$dir"
	git -C "$dir" init -q
	if [ -n "$full" ]; then
		cp -a "$tree/." "$dir/"
	else
		base_files "$tree" | sort -u | copy_in "$tree" "$dir"
	fi
	# The committed patches' From:, kept by what is made here.
	who=$(patches_of | head -n 1)
	who=${who:+$(identity "$who")}
	[ -n "$who" ] || who=$(git -C "$repo" var GIT_COMMITTER_IDENT | sed 's/> .*/>/')
	git -C "$dir" config user.name "${who% <*}"
	who=${who#* <}
	git -C "$dir" config user.email "${who%>}"
	git -C "$dir" config format.useAutoBase false
	# Debian's .gitignore ends with "/*" (its packaging), hiding every new
	# file: only upstream's part goes to the exclude file.
	if [ -f "$dir/.gitignore" ]; then
		{ sed '/^# Debian packaging/,$d' "$dir/.gitignore"
		  echo '!.gitignore'; } >>"$dir/.git/info/exclude"
		rm "$dir/.gitignore"
	fi
	git -C "$dir" add -A -f
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		git -C "$dir" commit -q -m "base: $(basename "$tree")"
	git -C "$dir" tag base
}

# notes PATCH: the text below the patch's '---' before its diffstat (as
# format-patch --notes writes it, "Notes:" and indented, or as is), from
# its first non-blank line (the caller's $(...) drops trailing ones).
notes()
{
	awk '
		!body && /^$/ { body = 1; next }
		body && !cut && /^---$/ { cut = 1; next }
		cut && (/^ [^ ].* \| / || /^ [0-9]+ files? changed/ || /^diff --git /) { exit }
		cut { print }
	' "$1" | sed '/^Notes:$/d; s/^    //' | sed '/./,$!d'
}

# am DIR PATCH...: git am, one commit each, notes restored.
am()
{
	local dir=$1 p n log
	shift

	for p in "$@"; do
		if ! log=$(git -C "$dir" am -q --keep-cr "$p" 2>&1); then
			git -C "$dir" am --abort 2>/dev/null || true
			printf 'series.sh: %s does not apply:\n%s\n' "${p#"$repo"/}" "$log" >&2
			return 1
		fi
		n=$(notes "$p")
		[ -z "$n" ] || git -C "$dir" notes add -f -m "$n" HEAD
	done
}

cmd_import()
{
	local name=${1:-} dir=${2:-} full=''

	known "$name" "$dir"
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		--full) full=1; shift ;;
		--with) EXTRA+=("${2:?}"); shift 2 ;;
		*) usage ;;
		esac
	done
	mapfile -t list < <(patches_of "$name")
	make_base "$(base_tree)" "$dir" "$full"
	am "$dir" "${list[@]}" || exit 1
	echo "series.sh: $dir: base plus ${#list[@]} patches of $name (git log base..)"
}

# fill_cover NEW OLD: NEW's subject and blurb placeholders get OLD's
# subject and text, and OLD's Date: (so an unchanged cover letter stays
# the same file).
fill_cover()
{
	python3 - "$1" "$2" <<-'EOF'
	import email, pathlib, re, sys
	new_file, old_file = (pathlib.Path(a) for a in sys.argv[1:])
	new = new_file.read_text(encoding='utf-8')
	head, _, body = old_file.read_text(encoding='utf-8').partition('\n\n')
	msg = email.message_from_string(head + '\n\n')
	subject = re.sub(r'^\[[^]]*\]\s*', '', ' '.join(msg['Subject'].split()))
	author = ' '.join(msg['From'].split()).split(' <')[0].strip('"')
	blurb = re.split(r'^%s \(\d+\):$' % re.escape(author), body, 1,
	                 flags=re.M)[0].strip('\n')
	if 'Date' in msg:
	    new = re.sub(r'^Date: .*$', 'Date: ' + msg['Date'], new, 1, re.M)
	new = new.replace('*** SUBJECT HERE ***', subject, 1)
	new = new.replace('*** BLURB HERE ***', blurb, 1)
	new_file.write_text(new, encoding='utf-8')
	EOF
}

# result TREE WORK: WORK/base is the pristine TREE's paths both series
# touch (listed in WORK/paths), WORK/a the same with both series applied
# by patch -p1 (no git); fails at a patch that does not apply.
result()
{
	local tree=$1 work=$2 p
	local -a all

	mapfile -t all < <(patches_of)
	mkdir -p "$work/a" "$work/base"
	touched "${all[@]}" | tee "$work/paths" | copy_in "$tree" "$work/base"
	cp -a "$work/base/." "$work/a/"
	for p in "${all[@]}"; do
		apply_patch "$work/a" "$p" >&2 ||
			{ echo "series.sh: ${p#"$repo"/} does not apply" >&2; return 1; }
	done
}

cmd_export()
{
	local name=${1:-} dir=${2:-} prefix p n old

	known "$name" "$dir"
	git -C "$dir" rev-parse -q --verify base >/dev/null ||
		die "$dir has no 'base' tag: make it with series.sh import"
	[ -z "$(git -C "$dir" status --porcelain --untracked-files=no)" ] ||
		die "$dir has uncommitted changes"
	old=$series/$name/0000-cover-letter.patch
	prefix="PATCH $name"
	[ ! -f "$old" ] || prefix=$(sed -n 's/^Subject: \[\(.*\) 0*0\/[0-9]*\].*/\1/p' "$old")
	[ -n "$(git -C "$dir" rev-list base..HEAD)" ] || die "$dir has no commit after base"
	git -C "$dir" format-patch -q --zero-commit --no-signature --notes \
		--cover-letter --subject-prefix="$prefix" -o "$work/out" base..HEAD
	[ ! -f "$old" ] || fill_cover "$work/out/0000-cover-letter.patch" "$old"
	# To: and Cc: as get_maintainer.pl gives them, as b4 would set them
	python3 "$series/recipients.py" "$dir" "$work/out" ||
		die "cannot address series/$name's patches"
	mkdir -p "$series/$name"
	rm -f "$series/$name"/[0-9][0-9][0-9][0-9]-*.patch
	cp "$work/out"/*.patch "$series/$name/"
	n=$(patches_of "$name" | wc -l)
	echo "series.sh: series/$name: a cover letter and $n patches"

	# The project's files: what the base plus both series give.
	for p in $ORDER; do
		[ -n "$(patches_of "$p")" ] ||
			{ echo "series.sh: series/$p has no patches yet: the project's files are left as they are until it has"; return 0; }
	done
	result "$(base_tree)" "$work" || die "the series do not apply to the base"
	while read -r p; do
		case $p in
		MAINTAINERS)
			python3 "$files" --entries "$work/base/MAINTAINERS" \
				"$work/a/MAINTAINERS" --header "$repo/MAINTAINERS" \
				>"$work/MAINTAINERS" && cp "$work/MAINTAINERS" "$repo/MAINTAINERS"
			;;
		"$SELFTESTS_MK" | Documentation/*index.rst) ;;
		*)
			rm -f "$repo/$p"
			[ ! -f "$work/a/$p" ] ||
				install -D -m "$(stat -c %a "$work/a/$p")" "$work/a/$p" "$repo/$p"
			;;
		esac
	done <"$work/paths"
	# A project file no patch carries any more goes (check would fail).
	project_files | grep -vxF -f "$work/paths" -e MAINTAINERS | while read -r p; do
		echo "series.sh: removing $p: no patch carries it"
		rm -f "$repo/$p"
	done
	echo "series.sh: the project's files are what the base and both series give"
}

# undone DIR RANGE: the lines a patch of RANGE removes or rewrites which
# an earlier one added. A moved line (removed, added as it was) is no
# removal, and keeps the patch that added it (blame -C follows it).
undone()
{
	local dir=$1 range=$2 c i=0 f a n moved line
	local -A num

	moved=$(mktemp)
	for c in $(git -C "$dir" rev-list --reverse "$range"); do
		i=$((i + 1))
		num[$c]=$i
		[ "$i" -gt 1 ] || continue
		git -C "$dir" diff -U0 --no-color "$c^" "$c" >"$moved.diff"
		sed -n 's/^+\([^+]\|$\)/\1/p' "$moved.diff" | sort -u >"$moved"
		# what it removes, for a later patch to tell the lines it moved
		sed -n 's/^-\([^-]\|$\)/\1/p' "$moved.diff" | sort -u >"$moved.$i"
		awk '
			/^--- a\// { f = substr($0, 7) }
			/^--- \/dev\/null/ { f = "" }
			/^@@ / && f != "" {
				split($2, r, ",")
				a = substr(r[1], 2); n = (2 in r) ? r[2] : 1
				if (n > 0) print f, a, n
			}' "$moved.diff" | while read -r f a n; do
			git -C "$dir" blame -M5 -C5 -C5 -l -s -L "$a,+$n" "$c^" -- "$f" |
				while read -r sha rest; do
					[ -n "${num[$sha]:-}" ] || continue
					line=${rest#*)}
					line=${line# }
					grep -Fxq -- "$line" "$moved" && continue
					grep -Fxqs -- "$line" "$moved.${num[$sha]}" && continue
					printf 'patch %d removes or rewrites a line patch %d added: %s:%s\n' \
						"$i" "${num[$sha]}" "$f" "$rest"
				done
		done
	done
	rm -f "$moved" "$moved".*
}

cmd_check()
{
	local tree s p bad=0 prev=base out
	local -a list

	tree=$(base_tree)
	for s in $ORDER; do
		mapfile -t list < <(patches_of "$s")
		[ ${#list[@]} -gt 0 ] || { echo "not ok - series/$s has patches"; bad=1; continue; }
		make_base "$tree" "$work/$s" >/dev/null
		if am "$work/$s" "${list[@]}"; then
			echo "ok - series/$s: its ${#list[@]} patches apply to the base alone"
		else
			echo "not ok - series/$s applies to the base alone"; bad=1
		fi
	done
	# Both, in order, in one repository.
	make_base "$tree" "$work/both" >/dev/null
	for s in $ORDER; do
		mapfile -t list < <(patches_of "$s")
		if am "$work/both" "${list[@]}"; then
			echo "ok - series/$s: every patch applies in order${prev:+ after $prev}"
			git -C "$work/both" tag "$s"
		else
			echo "not ok - series/$s: every patch applies in order"; bad=1
			break
		fi
		prev=$s
	done
	[ "$bad" -eq 0 ] || exit 1

	# base + patches == the project's files; the selftests Makefile
	# lists the series' targets, an index.rst the series' pages.
	result "$tree" "$work/r" || exit 1
	out=$(
		{ cat "$work/r/paths"; project_files; echo "$SELFTESTS_MK"; } |
		sort -u | while read -r p; do
			a=$work/r/a/$p
			case $p in
			MAINTAINERS)
				python3 "$files" --entries "$work/r/base/MAINTAINERS" "$a" |
					diff -u --label "MAINTAINERS (the patches' entries)" \
					--label "MAINTAINERS (the project's)" - \
					<(python3 "$files" --entries /dev/null "$repo/MAINTAINERS") ||
					true
				;;
			"$SELFTESTS_MK")
				# a target the series create (the base's,
				# as net/bench, stay as the base has them)
				[ -f "$a" ] || a=$tree/$p
				for t in $(python3 "$files" --series "$repo" --targets); do
					[ -d "$tree/tools/testing/selftests/$t" ] ||
						grep -qx "TARGETS += $t" "$a" ||
						echo "$p: no 'TARGETS += $t'"
				done
				;;
			Documentation/*index.rst)
				for d in "$repo/${p%/index.rst}"/*.rst; do
					[ ! -e "$d" ] || [ "${d##*/}" = index.rst ] ||
						grep -qx "[[:space:]]*$(basename "$d" .rst)" "$a" ||
						echo "$p: no toctree line for ${d##*/}"
				done
				;;
			*)
				if [ -f "$a" ] && [ -f "$repo/$p" ]; then
					diff -u --label "$p (patched)" --label "$p (project)" \
						"$a" "$repo/$p" || true
					[ "$(stat -c %A "$a" | cut -c4)" = "$(stat -c %A "$repo/$p" | cut -c4)" ] ||
						echo "$p: executable in one only"
				elif [ -f "$repo/$p" ]; then
					echo "$p: the project has it, the patches delete it or do not carry it"
				elif [ -f "$a" ]; then
					echo "$p: the patches give it, the project has none"
				fi
				;;
			esac
		done
	)
	if [ -z "$out" ]; then
		echo "ok - base + virtio + net-next == the project's files ($(wc -l <"$work/r/paths") paths)"
	else
		echo "not ok - base + virtio + net-next == the project's files"
		printf '%s\n' "$out" | sed 's/^/# /'
		bad=1
	fi

	prev=base
	for s in $ORDER; do
		out=$(undone "$work/both" "$prev..$s")
		if [ -z "$out" ]; then
			echo "ok - series/$s: no patch removes or rewrites a line an earlier one added"
		else
			echo "not ok - series/$s: a patch removes or rewrites what an earlier one added"
			printf '%s\n' "$out" | sed 's/^/# /'
			bad=1
		fi
		echo "# diffstat of series/$s:"
		git -C "$work/both" diff --stat=72 "$prev" "$s" | sed 's/^/#   /'
		echo "# series/$s: $(git -C "$work/both" rev-list --count "$prev..$s") patches,$(
			git -C "$work/both" diff --shortstat "$prev" "$s" | cut -d, -f2-)"
		prev=$s
	done
	exit "$bad"
}

# NIPA's patch tests that cannot run here: the kernel builds (hours on a
# small machine; tests/static builds the module W=1), device-tree and YAML
# checks (nothing of either is touched), an AI review service, YNL, and
# 'signed' (NIPA's own default for netdev's trees)
NIPA_SKIP='patch/build_32bit patch/build_allmodconfig_warn patch/build_clang
patch/build_clang_rust patch/build_tools patch/dt_binding_check
patch/dtbs_check patch/yamllint patch/signed series/ai-review series/ynl'

# nipa_judge SERIES RESULTS: NIPA's results of SERIES (RESULTS/N/TEST for
# patch N, RESULTS/TEST for the series) a line each; a warning or failure
# passes when a note "NIPA: TEST: why" excuses it (a patch's in its own
# notes, a series test's in any patch's or the cover letter's)
nipa_judge()
{
	local s=$1 res=$2 d rc n t what why bad=0
	local -a list

	mapfile -t list < <(patches_of "$s")
	for d in "$res"/*/retcode "$res"/*/*/retcode; do
		[ -f "$d" ] || continue
		d=${d%/retcode} rc=$(cat "$d/retcode") t=${d##*/} n=${d#"$res"/}
		n=${n%/*}
		case $n in
		"$t") n='' what="series/$s $t" ;;
		*) what="${list[n - 1]##*/} $t" ;;
		esac
		[ "$t" != tree_selection ] || continue
		why=$(if [ -n "$n" ]; then notes "${list[n - 1]}"; else
			for p in "$series/$s"/0*.patch; do notes "$p"; done; fi |
			sed -n "s/^NIPA: $t: *//p" | head -n 1)
		case $rc in
		0) echo "ok - $what: $(head -n 1 "$d/desc" 2>/dev/null)" ;;
		*)
			if [ -n "$why" ]; then
				echo "ok - $what: excused ($why)"
			else
				echo "not ok - $what: $([ "$rc" = 250 ] && echo warning || echo "failed ($rc)")"
				bad=1
			fi
			sed 's/^/#   /' "$d/desc" 2>/dev/null
			;;
		esac
	done
	return "$bad"
}

cmd_nipa()
{
	local tree s bad=0 nipa=${NIPA:-}
	local -A pid

	# shellcheck disable=SC2086 # a list of names
	[ $# -gt 0 ] || set -- $ORDER
	for s in "$@"; do known "$s"; done
	[ -f "$nipa/ingest_mdir.py" ] ||
		rc=2 die "nipa: NIPA=DIR names a checkout of NIPA (https://github.com/linux-netdev/nipa), not '$nipa'"
	nipa=$(realpath "$nipa")
	tree=$(base_tree)
	# The series side by side, reported in order.
	for s in "$@"; do
		(
			make_base "$tree" "$work/$s" >/dev/null
			mkdir -p "$work/$s.res" "$work/$s.mdir"
			cp "$series/$s"/0*.patch "$work/$s.mdir/"
			# Debian's codespell and python3-ply for checkpatch.pl;
			# a test that dies leaves NIPA waiting: timeout
			# shellcheck disable=SC2086 # a list of names
			(cd "$nipa" && PATH=/usr/bin:/bin:$PATH timeout 1800 \
				python3 ingest_mdir.py --noninteractive \
				--tree "$work/$s" --mdir "$work/$s.mdir" \
				--result-dir "$work/$s.res" -d $NIPA_SKIP) \
				>"$work/$s.log" 2>&1 ||
				{ echo "not ok - series/$s: NIPA's ingest_mdir.py failed:"; tail -n 5 "$work/$s.log" | sed 's/^/# /'; exit 1; }
			echo "# series/$s, NIPA at $(git -C "$nipa" rev-parse --short=12 HEAD)"
			nipa_judge "$s" "$work/$s.res/1"
		) >"$work/$s.nipa" 2>&1 &
		pid[$s]=$!
	done
	for s in "$@"; do
		wait "${pid[$s]}" || bad=1
		cat "$work/$s.nipa"
	done
	exit "$bad"
}

# reserved ADDRESS: the address is in a domain that is never a person's.
reserved()
{
	local d=${1##*@}

	case ${d,,} in
	localhost | *.localhost | example | *.example | invalid | *.invalid | \
	example.com | example.net | example.org | test | *.test) return 0 ;;
	esac
	[ "$d" = "$1" ]
}

cmd_send()
{
	local name=${1:-} out=${2:-} opt=${3:-} me addr them p
	local -a list

	known "$name" "$out"
	[ -z "$opt" ] || [ "$opt" = --maintainers ] || usage
	me=$(git -C "$repo" var GIT_COMMITTER_IDENT 2>/dev/null | sed 's/> .*/>/')
	addr=$(sed -n 's/.*<\(.*\)>$/\1/p' <<<"$me")
	if [ -z "$addr" ] || reserved "$addr"; then
		rc=2 die "refusing to post as '${me:-nobody}': set your own identity, e.g.
  git -C $repo config user.name 'Your Name'
  git -C $repo config user.email you@your.domain
(or GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL); .example, .invalid, .test and localhost are reserved"
	fi
	mapfile -t list < <(patches_of "$name")
	[ ${#list[@]} -gt 0 ] || die "series/$name has no patches"
	them=$(identity "${list[0]}")
	mkdir -p "$out"
	rm -f "$out"/[0-9][0-9][0-9][0-9]-*.patch
	for p in "$series/$name/0000-cover-letter.patch" "${list[@]}"; do
		[ -f "$p" ] || continue
		unfold_from <"$p" | awk -v them="$them" -v me="$me" -v re="${opt:+1}" '
			# --maintainers: addressed anew, from MAINTAINERS as it is
			!body && re && /^(To|Cc): / { to = 1; next }
			!body && to && /^[ \t]/ { next }
			{ to = 0 }
			!body && $0 == "From: " them { $0 = "From: " me }
			!body && /^$/ { body = 1 }
			body && $0 == "Signed-off-by: " them { $0 = "Signed-off-by: " me }
			{ print }' >"$out/${p##*/}"
	done
	if [ "$opt" = --maintainers ]; then
		make_base "$(base_tree)" "$work/git" >/dev/null
		am "$work/git" "${list[@]}" || exit 1
		python3 "$series/recipients.py" "$work/git" "$out"
	fi
	ls "$out"/[0-9][0-9][0-9][0-9]-*.patch
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
EXTRA=()
cmd=${1:-}
[ $# -eq 0 ] || shift
case $cmd in
import | export | nipa | send) "cmd_$cmd" "$@" ;;
check) [ $# -eq 0 ] || usage; cmd_check ;;
*) usage ;;
esac
