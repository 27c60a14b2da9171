# SPDX-License-Identifier: GPL-2.0
# The changes the before/after commands take: patches, mboxes (their
# "[PATCH ...]" messages in series order, no cover letter or reply) or
# directories of format-patch files, split a diff a patch and applied as
# git applies them (a/ b/ or none, renames, deletions, no fuzz); config
# settings; the commands' bad-input line and usage.
# shellcheck shell=bash disable=SC2154 # self, PROG: the caller's

# die MESSAGE: bad input, one line as the command run (PROG), exit 2
die()
{
	echo "$PROG: $*" >&2
	exit 2
}

# usage: the caller's header from its third line, exit 2
usage()
{
	sed -n '3,/^$/{/^$/d;p}' "$self" | cut -c3- >&2
	exit 2
}

# config_setting OPT=VALUE: CONFIG_OPT=VALUE, checked
config_setting()
{
	[[ $1 =~ ^(CONFIG_)?([A-Z0-9_]+)=([ynm]|-?[0-9]+|0x[0-9a-f]+|\".*\")$ ]] ||
		die "a config setting is OPTION=y, n, m, a number or a \"string\", not '$1'"
	echo "CONFIG_${BASH_REMATCH[2]}=${BASH_REMATCH[3]}"
}

# setting_holds CONFIG SETTING: a .config has a config_setting (=n: unset)
setting_holds()
{
	if [[ $2 == *=n ]]; then ! grep -q "^${2%=n}=[^n]" "$1"; else grep -qxF "$2" "$1"; fi
}

# git_apply ARGS...: git apply as outside any repository (inside one, it
# takes paths from its top and skips those outside the current directory)
git_apply()
{
	GIT_DIR=/nonexistent git apply "$@"
}

# split_patches OUT PATCH...: OUT/NNNN.diff, one per patch in order, and
# OUT/list, "NNNN SHA256 SUBJECT" a line; dies on a patch with no change
split_patches()
{
	local out=$1 p f n=0 subject
	local -a files

	shift
	rm -rf "$out"
	mkdir -p "$out/mail" || die "cannot make $out"
	: >"$out/list"
	for p in "$@"; do
		if [ -d "$p" ]; then
			files=("$p"/[0-9]*.patch)
			[ -e "${files[0]}" ] || die "$p: no NNNN-*.patch file"
		else
			files=("$p")
		fi
		for f in "${files[@]}"; do
			while IFS=$'\x1f' read -r subject msg; do
				n=$((n + 1))
				printf -v name '%04d' "$n"
				mv "$msg" "$out/$name.diff"
				# git's own reason when it cannot read the diff
				{ git_apply --numstat "$out/$name.diff" ||
				  git_apply --numstat -p0 "$out/$name.diff"; } \
					2>"$out/why" | grep -q . ||
					die "$f: ${subject:-a patch} $(grep -m1 -v \
						'No valid patches' "$out/why" || echo changes nothing)"
				echo "$name $(sha256sum <"$out/$name.diff" | cut -c1-12) ${subject:-$(basename "$f")}" >>"$out/list"
			done < <(messages "$f" "$out/mail")
		done
	done
	rm -rf "$out/mail"
	[ "$n" -gt 0 ] || die "no patch in $*"
}

# messages FILE DIR: "SUBJECT<US>DIFF" a line (US: ASCII's unit separator),
# each diff a file in DIR, in series order: a plain diff, or an mbox's
# [PATCH] messages
messages()
{
	local file=$1 dir=$2 m subject k=0

	if ! head -n 1 "$file" | grep -q '^From '; then
		cp "$file" "$dir/plain" && printf '\x1f%s\n' "$dir/plain"
		return
	fi
	git mailsplit -o"$dir" "$file" >/dev/null || die "$file: not an mbox"
	for m in "$dir"/[0-9]*; do
		[ -f "$m" ] || continue
		subject=$(git mailinfo -k "$m.msg" "$m.diff" <"$m" |
			sed -n 's/^Subject: //p')
		# a patch, not a reply or the cover letter (0/N)
		if ! [[ $subject =~ ^\[[^]]*PATCH[^]]*\] ]] ||
		   [[ $subject =~ ^\[[^]]*[^0-9]0+/[0-9]+\] ]]; then
			continue
		fi
		k=$((k + 1))
		# the n of "n/m", else the mbox's order
		printf '%s\x1f%s\x1f%s\n' \
			"$(sed -n 's|^\[[^]]*[^0-9]\([0-9][0-9]*\)/[0-9][0-9]*\].*|\1|p' <<<"$subject" |
			grep . || echo "$k")" "$subject" "$m.diff"
	done | sort -t $'\x1f' -n -s -k1,1 | cut -d $'\x1f' -f2-
}

# check_patches OUT TREE: the diffs of OUT apply to TREE in order (to a
# scratch copy of the files they touch); dies naming the first that fails
check_patches()
{
	local out=$1 tree=$2 scratch=$1/check p

	rm -rf "$scratch"
	mkdir -p "$scratch" || die "cannot make $scratch"
	patch_paths "$out" | while read -r p; do
		[ ! -e "$tree/$p" ] ||
			{ mkdir -p "$scratch/$(dirname "$p")" &&
			  cp -L "$tree/$p" "$scratch/$p"; }
	done
	apply_patches "$out" "$scratch" "the base ($tree)"
	rm -rf "$scratch"
}

# apply_patches OUT TREE [WHAT]: the diffs applied to TREE in order (a file
# is written anew: a tree of links keeps its sources); dies naming the
# first that does not apply to WHAT (TREE), with git's reason
apply_patches()
{
	local d

	# -p1, else -p0 (no a/ b/): git apply writes nothing when it fails
	for d in "$1"/[0-9]*.diff; do
		(cd "$2" && { git_apply -p1 "$d" || git_apply -p0 "$d"; } 2>/dev/null) &&
			continue
		die "$(grep "^$(basename "$d" .diff) " "$1/list") does not apply to ${3:-$2}: $(cd "$2" && git_apply -p1 "$d" 2>&1 | head -n 1)"
	done
}

# patch_paths OUT: the paths the diffs of OUT touch (both sides of a
# rename), without a/ b/
patch_paths()
{
	sed -n -E -e 's#^rename (from|to) ##p' -e 's#^(---|\+\+\+) ([^	]*).*#\2#p' \
		"$1"/[0-9]*.diff | grep -vx /dev/null | sed 's#^[ab]/##' | sort -u
}
