#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What commits of a kernel git tree cost: each commit built (the runner's
# profile config, incrementally, in a clone in the cache: the tree is
# never written), booted in deterministic mode with the project's own
# benchmark built against it (the runner's --kdir), and its figures kept
# in a store in the cache, so that a commit is measured once.
#
# usage: ab/ab.sh --tree DIR --base REV --change REV [options]
#        ab/ab.sh --tree DIR --range A..B [options]
#        ab/ab.sh --tree DIR --bisect A..B [--test NAME] [options]
#        ab/ab.sh --tree DIR --report A..B [options]
#   --tree DIR        a kernel git tree; REVs are anything git rev-parse
#                     takes there; only committed states are measured
#   --base/--change   two commits: the before/after table; --change
#                     PATCH (repeatable: a patch, an mbox or a directory
#                     of format-patch files, as ab.sh takes them): the
#                     base commit with the patches applied
#   --base-config, --change-config OPTION=VALUE
#                     a side built with the option set (repeatable;
#                     with --base alone, what the option costs there)
#   --range A..B      A and every commit of A..B, cumulative: a column
#                     per commit, what each changed, and the plot
#                     (OUT/range.png, .svg)
#   --bisect A..B     the first commit of A..B whose figures differ from
#                     A's (on --test NAME, or on any test), in about
#                     log2 of the commits' builds; a commit that does not
#                     build is skipped; one that moved only code
#                     placement (thunks) is no difference, unless
#                     --placement is given
#   --report A..B     the range's table and plot from the store, nothing
#                     built or booted
#   --no-attribute    boots without the per-function counts (faster):
#                     by default (vmtest.sh --attribute) the verdicts are
#                     the commit's, not its code placement's
#                     (ab/verdict.py --attribution: ~ placement), and
#                     under the table, per step, are the functions and
#                     events that moved and the model cycles (an estimate)
#   -n, --boots N     boots a commit (default 3; with the per-function
#                     counts at most: one, and one more while a row a
#                     commit's difference from the one compared is
#                     unknown)
#   -j, --jobs N      boots at a time (default: the CPUs)
#   --profile P       the config: distro (default) or tiny, as the runner's
#   -p, --param K=V   benchmark module parameter (vmtest.sh -p)
#   --dma D           the DMA layer of the *_dma tests (vmtest.sh --dma)
#   -o, --out DIR     the boots' logs and the tables (default:
#                     CACHE/ab/DATE-PID)
# Exit: 0; 1 when a boot failed; 2 on bad input, before anything is built.

set -u
# a table's failure is the command's, whatever tee did
set -o pipefail
self=$(realpath "$0")
PROG=ab.sh	# it runs as ab.sh --tree
ab=$(dirname "$self")
repo=$(dirname "$ab")
# shellcheck source-path=SCRIPTDIR source=boots.sh
. "$ab/boots.sh"
# The runner's configuration steps (make_config, missing_options, hash_of)
VMTEST_DIR=$repo/vmtest KARCH=x86_64
# shellcheck source-path=SCRIPTDIR source=../vmtest/lib/common.sh
. "$repo/vmtest/lib/common.sh"
# shellcheck source-path=SCRIPTDIR source=../vmtest/lib/kbuild.sh
. "$repo/vmtest/lib/kbuild.sh"
# after the runner's: its die is the command's
# shellcheck source-path=SCRIPTDIR source=patches.sh
. "$ab/patches.sh"
# git never writes the tree's index when it only reads
export GIT_OPTIONAL_LOCKS=0
vmtest=${AB_VMTEST:-$repo/vmtest/vmtest.sh}	# tests give a stand-in
cache=${VMTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pp-bench-vmtest}
BENCH=(tools/testing/selftests/net/bench tools/testing/selftests/ptr_ring)

tree='' base='' change='' range='' mode='' test='' boots=3 jobs=''
profile=distro params=() out='' attribute=1 patches=() placement=()
base_config=() change_config=()
while [ $# -gt 0 ]; do
	case $1 in
	--tree) tree=${2:-}; shift ;;
	--base) base=${2:-}; shift ;;
	--change)
		if [ -e "${2:-}" ]; then patches+=("$(realpath "$2")")
		else change=${2:-}; fi
		shift ;;
	--range | --bisect | --report)
		[ -z "$mode" ] || die "$1: one of --range, --bisect, --report"
		mode=${1#--} range=${2:-}; shift ;;
	--test) test=${2:-}; shift ;;
	--attribute) attribute=1 ;;	# the default
	--no-attribute) attribute=0 ;;
	--placement) placement=(--placement) ;;
	*) boot_option "$1" "${2:-}"; shift ;;
	esac
	shift
done

# Every input checked before anything is built
top=$(git -C "$tree" rev-parse --show-toplevel 2>/dev/null)
[[ -n $top && $top == "$(realpath "$tree")" ]] ||
	die "--tree: not a git tree (the top of one): '$tree'"
tree=$top
check_counts
case $profile in distro | tiny) ;; *) die "--profile: distro or tiny" ;; esac

# resolve REV: its commit's full hash
resolve()
{
	git -C "$tree" rev-parse --verify --quiet "$1^{commit}" ||
		die "'$1' is no commit in $tree"
}

configs=$((${#base_config[@]} + ${#change_config[@]}))
if [ -z "$mode" ]; then
	if [ -z "$base" ] ||
	   [ -z "$change" ] && [ ${#patches[@]} -eq 0 ] && [ "$configs" -eq 0 ]; then
		die "give --base REV and --change REV, PATCH or --change-config OPTION=VALUE, or --range, --bisect or --report A..B"
	fi
	[ -z "$change" ] || [ ${#patches[@]} -eq 0 ] ||
		die "--change: a REV or patches, not both"
	commits=("$(resolve "$base")") || exit 2
	commits+=("${commits[0]}")
	[ -z "$change" ] || commits[1]=$(resolve "$change") || exit 2
else
	[[ -z $base$change && $((${#patches[@]} + configs)) -eq 0 ]] ||
		die "--$mode takes A..B, not --base, --change or config settings"
	[[ $range == ?*..?* ]] || die "--$mode needs A..B, not '$range'"
	first=$(resolve "${range%%..*}") && last=$(resolve "${range#*..}") ||
		exit 2
	mapfile -t commits < <(git -C "$tree" rev-list --reverse "$first..$last")
	[ ${#commits[@]} -gt 0 ] || die "$range: no commits"
	commits=("$first" "${commits[@]}")
fi
[ -z "$test" ] || [ "$mode" = bisect ] || die "--test goes with --bisect"
[ -z "$test" ] || grep -rqF -- "\"$test\"" "${BENCH[@]/#/$repo/}" ||
	die "--test: no test of the benchmark is named '$test'"
[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
	echo "ab.sh: $tree has uncommitted changes: not measured (committed states only)"

out=${out:-$cache/ab/$(date +%Y%m%d-%H%M%S)-$$}
mkdir -p "$out" || die "cannot make $out"
out=$(realpath "$out")
# Patches: each applies to the base commit's files, none touches the
# benchmark (the project's own); the change is the commit and their bytes
if [ ${#patches[@]} -gt 0 ]; then
	split_patches "$out/patches" "${patches[@]}"
	echo "ab.sh: the change (NNNN sha256 subject), on ${commits[0]:0:12}:"
	sed 's/^/  /' "$out/patches/list"
	mapfile -t paths < <(patch_paths "$out/patches")
	for d in "${BENCH[@]}"; do
		! printf '%s\n' "${paths[@]}" | grep -q "^$d/" ||
			die "the patches change the benchmark ($d), which is the project's own: change the project instead"
	done
	rm -rf "$out/check"
	mkdir -p "$out/check" || die "cannot make $out/check"
	mapfile -t paths < <(git -C "$tree" ls-tree -r --name-only \
		"${commits[0]}" -- "${paths[@]}")
	[ ${#paths[@]} -eq 0 ] ||
		git -C "$tree" archive "${commits[0]}" -- "${paths[@]}" |
		tar -x -C "$out/check" || die "cannot read the base's files"
	apply_patches "$out/patches" "$out/check" "${commits[0]:0:12}"
	rm -rf "$out/check"
	commits[1]+=+p$(cut -d' ' -f2 "$out/patches/list" | hash_of)
fi
trap stop_boots INT TERM

# The store: a commit's figures under what else made them (the profile's
# fragments and tools, which key the build directory too, the benchmark,
# the parameters, QEMU)
mapfile -t frags < <(KTREE=$repo SERIES_TARGETS="net/bench ptr_ring" \
	config_fragments "${profile/tiny/normal}")
kernel_key=$({ cat "${frags[@]}"; build_tools 2>/dev/null; } | hash_of)
env_key=$({ echo "$kernel_key"
	find "${BENCH[@]/#/$repo/}" "$VMTEST_DIR/guest" -type f | sort | xargs cat
	echo "${params[*]}"
	qemu-system-x86_64 --version 2>/dev/null | head -n 1; } | hash_of)
store=$cache/ab/store/$env_key
# Config settings: a side is its commit (and patches) built with them
# (SHA...+cHASH, the settings kept with its figures)
for side in 0 1; do
	settings=("${base_config[@]}")
	[ "$side" -eq 0 ] || settings=("${change_config[@]}")
	[ ${#settings[@]} -gt 0 ] || continue
	commits[side]+=+c$(printf '%s\n' "${settings[@]}" | sort | hash_of)
	mkdir -p "$store/${commits[side]}" || die "cannot make $store"
	printf '%s\n' "${settings[@]}" | sort >"$store/${commits[side]}/settings"
done
[ -n "$mode" ] || [ "${commits[0]}" != "${commits[1]}" ] ||
	die "--base and --change are the same commit, patches and config: nothing to compare"
work=$cache/ab/git/$(echo "$tree" | hash_of)-$profile
src=$work/src kdir=$work/build

# describe POINT: a commit's short hash and subject, in one line; with
# patches (SHA+pHASH) their subjects, with settings (+cHASH) those
describe()
{
	local line

	line=$(git -C "$tree" log -1 --format='%h %s' "${1%%+*}")
	[ ! -f "$store/$1/patches/list" ] ||
		line+=" + $(cut -d' ' -f3- "$store/$1/patches/list" | paste -sd ';' | sed 's/;/; /g')"
	[ ! -f "$store/$1/settings" ] ||
		line+=" with $(paste -sd ' ' "$store/$1/settings")"
	echo "$line"
}

# stored SHA: how many boots of SHA the store has (with --attribute,
# boots with their profiles)
stored()
{
	local want=ktap

	[ "$attribute" -eq 0 ] || want=profile.json
	find "$store/$1" -mindepth 2 -maxdepth 2 -path '*/boot-*' \
		-name "$want" 2>/dev/null | wc -l
}

# measured SHA [N]: whether the store has N boots of SHA (default: first)
measured()
{
	[ "$(stored "$1")" -ge "${2:-$first}" ]
}

# steps SHA...: per commit after the first, the functions and events
# that moved from the one before (the boots' profiles, --attribute)
steps()
{
	local prev='' sha

	[ "$attribute" -eq 1 ] || return 0
	for sha in "$@"; do
		if [ -n "$prev" ] && measured "$prev" && measured "$sha"; then
			echo "step $(describe "$sha"):"
			"$repo/vmtest/lib/insn_profile.py" \
				--base "$store/$prev"/boot-*/profile.json \
				--change "$store/$sha"/boot-*/profile.json | sed 1d
		fi
		prev=$sha
	done
}

# build SHA: the commit built in kdir, incrementally from the last commit
# built there; fails (its log kept in the store) when it does not build
build()
{
	local sha=$1 log=$store/$1/build.log missing line settings=()

	mkdir -p "$store/$sha"
	if [[ $sha == *+p* ]]; then
		rm -rf "$store/$sha/patches" &&
		cp -r "$out/patches" "$store/$sha/patches" || return 1
	fi
	describe "$sha" | cut -d' ' -f2- >"$store/$sha/subject"
	if [ ! -d "$src/.git" ]; then
		rm -rf "$work"
		git clone -q --shared --no-checkout "$tree" "$src" ||
			die "cannot clone $tree into $work"
	fi
	rm -f "$kdir/.ab-sha"
	git -C "$src" checkout -q --force --detach "${sha%%+*}" 2>"$log" &&
	git -C "$src" clean -fdq >>"$log" 2>&1 || return 1
	[[ $sha != *+p* ]] ||
		apply_patches "$store/$sha/patches" "$src" "${sha:0:12}"
	echo "ab.sh: building $(describe "$sha")"
	SECONDS=0
	if [ "$(cat "$kdir/.ab-frags" 2>/dev/null)" != "$kernel_key" ]; then
		rm -rf "$kdir" && mkdir -p "$kdir" &&
		echo "$kernel_key" >"$kdir/.ab-frags" || return 1
	fi
	# The settings as the last fragment; the config made again only when
	# they change (the objects they do not touch stay built)
	[ ! -f "$store/$sha/settings" ] || settings=("$store/$sha/settings")
	if [ ! -f "$kdir/.config" ] ||
	   ! cmp -s "$kdir/.ab-settings" "${settings[0]:-/dev/null}"; then
		make_config "$src" "$kdir" "ARCH=$KARCH" "${frags[@]}" \
			"${settings[@]}" >>"$log" 2>&1 &&
		cp "${settings[0]:-/dev/null}" "$kdir/.ab-settings" || return 1
	fi
	make -C "$src" O="$kdir" ARCH="$KARCH" olddefconfig >>"$log" 2>&1 ||
		return 1
	while read -r line; do
		setting_holds "$kdir/.config" "$line" ||
			die "$line does not hold in $(describe "$sha") (an option it depends on?)"
	done < <(cat "${settings[@]}" /dev/null)
	flock "$KBUILD_LOCK" make -C "$src" O="$kdir" ARCH="$KARCH" \
		-j"$(nproc)" bzImage modules >>"$log" 2>&1 || return 1
	missing=$(KTREE=$src missing_options "$kdir/.config" "${frags[@]}" | xargs)
	[ -z "$missing" ] ||
		echo "ab.sh:   not in its .config (the tree lacks them): $missing"
	cp "$kdir/.config" "$store/$sha/config"
	echo "$sha" >"$kdir/.ab-sha"
	echo "ab.sh:   built in $SECONDS s"
}

# measure SHA [N]: N boots of the commit in the store (default: first),
# those it lacks booted, the commit built unless it is the one in kdir;
# fails when it does not build or a boot left no job
measure()
{
	local sha=$1 want=${2:-$first} have i

	have=$(stored "$sha")
	[ "$have" -lt "$want" ] || return 0
	[ ! -f "$store/$sha/no-build" ] || return 1
	if [ "$(cat "$kdir/.ab-sha" 2>/dev/null)" != "$sha" ]; then
		if ! build "$sha"; then
			touch "$store/$sha/no-build"
			echo "ab.sh:   does not build: skipped (see $store/$sha/build.log)"
			return 1
		fi
		builds=$((builds + 1))
	fi
	for i in $(seq $((have + 1)) "$want"); do
		rm -rf "$out/${sha:0:12}-$i.job" "$store/$sha/boot-$i"
	done
	boot_all "$out" $((have + 1)) "$want" "$jobs" "${sha:0:12}=$kdir" -- \
		-D "${params[@]}" "${attr[@]}" || failed=1
	for i in $(seq $((have + 1)) "$want"); do
		[ ! -d "$out/${sha:0:12}-$i" ] ||
			cp -r "$out/${sha:0:12}-$i" "$store/$sha/boot-$i"
	done
	measured "$sha" "$want" || { failed=1; return 1; }
}

# more N SHA...: the commits' Nth boots, in order (their kernels built
# again where another's is in kdir)
more()
{
	local n=$1 sha

	shift
	echo "ab.sh: a row is unknown after $((n - 1)) boot(s) a commit: one more for $(printf '%s\n' "$@" | cut -c1-12 | paste -sd ' ')"
	for sha in "$@"; do measure "$sha" "$n" || return 1; done
}

mkdir -p "$(dirname "$work")" || die "cannot make $(dirname "$work")"
exec 9>"$work.lock"
flock 9
builds=0 failed=0 attr=()
# One boot a commit decides the rows its profile covers where no task
# switched in their chunks (ab/verdict.py); without the profiles, --boots
first=$boots
[ "$attribute" -eq 0 ] || attr=(--attribute) first=1
case $mode in
'')
	for sha in "${commits[@]}"; do
		measure "$sha" || die "$(describe "$sha"): not measured"
	done
	for n in $(seq $((first + 1)) "$boots"); do
		"$ab/range.py" unsure "${commits[@]/#/$store/}" || break
		more "$n" "${commits[@]}" || die "not measured"
	done
	# --attribute: the verdicts the change's, not its placement's
	own=()
	if [ "$attribute" -eq 1 ]; then
		"$repo/vmtest/lib/insn_profile.py" \
			--base "$store/${commits[0]}"/boot-*/profile.json \
			--change "$store/${commits[1]}"/boot-*/profile.json \
			--attribution "$out/attribution" >/dev/null ||
			die "the boots' profiles cannot be read"
		own=(--attribution "$out/attribution")
	fi
	{
		"$ab/verdict.py" --base "$store/${commits[0]}"/boot-* \
			--change "$store/${commits[1]}"/boot-* --deterministic \
			"${own[@]}" &&
		if [ "$attribute" -eq 1 ]; then
			model_table text "${own[@]}" \
				--base "$store/${commits[0]}"/boot-* \
				--change "$store/${commits[1]}"/boot-*
		fi &&
		steps "${commits[@]}"
	} | tee "$out/table.text" || exit
	;;
range | report)
	[ "$mode" != range ] || for sha in "${commits[@]}"; do measure "$sha"; done
	# Commits whose difference from the one before is unknown: a boot
	# more of both
	for n in $(seq $((first + 1)) "$boots"); do
		[ "$mode" = range ] || break
		unsure=() prev=''
		for sha in "${commits[@]}"; do
			measured "$sha" || continue
			[ -z "$prev" ] || ! "$ab/range.py" unsure "$store/$prev" \
				"$store/$sha" || unsure+=("$prev" "$sha")
			prev=$sha
		done
		[ ${#unsure[@]} -gt 0 ] || break
		mapfile -t unsure < <(printf '%s\n' "${unsure[@]}" | awk '!seen[$0]++')
		more "$n" "${unsure[@]}"
	done
	{
		"$ab/range.py" table --out "$out" "${commits[@]/#/$store/}" &&
		steps "${commits[@]}"
	} | tee "$out/table.text" || exit
	;;
bisect)
	# The first commit whose figures differ from the first's: lo is
	# known the same, hi differs (the last is taken to until a commit
	# is seen to differ, then measured to be sure)
	measure "${commits[0]}" || die "${range%%..*} itself cannot be measured"
	lo=0 hi=$((${#commits[@]} - 1)) seen=0 skip=()
	short() { git -C "$tree" log -1 --format=%h "${commits[$1]}"; }
	while :; do
		mid=$(((lo + hi) / 2))
		if [ $((hi - lo)) -le 1 ]; then
			[ "$seen" -eq 0 ] || break
			mid=$hi
		fi
		# a commit that does not build: the nearest one between that
		# does, as git bisect skip
		found=''
		for step in 0 1 -1 2 -2 3 -3 4 -4; do
			i=$((mid + step))
			[[ $i -gt $lo && $i -le $hi ]] || continue
			measure "${commits[i]}" && found=$i && break
			skip+=("$(short "$i")")
		done
		[ -n "$found" ] ||
			die "no commit after $(short "$lo") up to $(short "$hi") could be measured"
		mid=$found
		"$ab/range.py" differs ${test:+--test "$test"} "${placement[@]}" \
			"$store/${commits[0]}" "$store/${commits[mid]}"
		case $? in
		0) hi=$mid seen=1 ;;
		1) [ "$mid" -lt "$hi" ] || { echo "ab.sh: no commit of $range moves ${test:-any test}"; exit 0; }
		   lo=$mid ;;
		*)
			# the boots cannot tell: more of both, the same step again
			n=$(($(stored "${commits[mid]}") + 1))
			if [ "$n" -gt "$boots" ] ||
			   ! more "$n" "${commits[0]}" "${commits[mid]}"; then
				die "$(short "$mid"): its figures neither differ from nor equal the first's: run with more --boots"
			fi
			continue ;;
		esac
	done
	echo "ab.sh: first commit that moves ${test:-a test}: $(git -C "$tree" log -1 --format='%H %s' "${commits[hi]}")"
	echo "ab.sh: $builds builds${skip[*]:+, skipped (do not build): ${skip[*]}}"
	{
		"$ab/range.py" table --out "$out" "$store/${commits[lo]}" \
			"$store/${commits[hi]}" &&
		steps "${commits[lo]}" "${commits[hi]}"
	} | tee "$out/table.text" || exit
	;;
esac
echo "ab.sh: $out"
exit "$failed"
