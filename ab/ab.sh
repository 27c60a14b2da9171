#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What a kernel change costs, in one command: the runner's current kernel
# (the base: the pinned source with the series) and the base with PATCH
# applied, built incrementally from a copy of the base's objects, booted
# alternately (base, change, base, ...) in deterministic mode (QEMU
# -icount: instruction counts, which do not depend on the host's load, so
# boots run side by side), and one table: per test, both sides' figures
# per element, the difference and a verdict (ab/verdict.py).
#
# usage: ab/ab.sh --change PATCH [--change PATCH]... [options]
#        ab/ab.sh --change-config OPTION=VALUE... [options]
#        ab/ab.sh --base-kdir DIR --change-kdir DIR [options]
#        ab/ab.sh --ptr-ring ...  ptr_ring.h natively (ab/ptr_ring.sh --help)
#        ab/ab.sh --tree DIR ...  commits of a git tree (ab/git.sh --help)
#   --change PATCH      a patch, an mbox (its [PATCH] messages in series
#                       order) or a directory of format-patch files,
#                       applied as git applies them (repeatable, in order)
#   --change-config OPTION=VALUE, --base-config OPTION=VALUE
#                       that option so on that side (repeatable): what
#                       an option costs is --change-config OPTION=n
#   --base-kdir DIR     the base kernel, built already (as vmtest.sh
#   --change-kdir DIR   --kdir takes it), instead of building either side
#   -n, --boots N       boots a side (default 3; deterministic: at most,
#                       one a side while a row is unknown)
#   -j, --jobs N        boots at a time (default: the CPUs; with --timing 1)
#   --timing            timings (KVM, else TCG emulation: labelled so)
#                       instead of instruction counts
#   --no-attribute      boots without the per-function counts (faster):
#                       by default each boot is counted by QEMU's
#                       plugin (vmtest.sh --attribute), the functions
#                       that moved are listed under the table, and the
#                       verdicts are the change's, not its code
#                       placement's: "not covered", "placement"
#                       (ab/verdict.py --help); without, as built
#   --profile P         the base's config: distro (default: Debian's
#                       options that change the timed paths) or tiny
#   --allow-config-diff compare kernels whose .config differ in options
#                       that change the figures (the change is one)
#   -p, --param K=V     benchmark module parameter (vmtest.sh -p)
#   --dma D             the DMA layer of the *_dma tests (vmtest.sh --dma)
#   --format F          text (default), markdown or json (with the runs'
#                       samples and the manifest; --attribute's table
#                       is OUT/attribution.txt)
#   -o, --out DIR       where the boots' logs, KTAP and profiles (kept:
#                       the runner deletes its jobs after a day) and
#                       the table go (default: CACHE/ab/DATE-PID)
# The table goes to standard output (and OUT/table.FORMAT), what ab.sh
# does to standard error.
# Exit: 0, 1 when a boot failed, 2 on bad input or a build that failed,
# 130 when interrupted (nothing is left running).  The runner's trees are
# never written: a change is applied to a private copy of the base's
# (hard links), which its build sees at the base's path.

set -u
self=$(realpath "$0")
PROG=ab.sh
ab=$(dirname "$self")
[ "${1:-}" != --ptr-ring ] || exec "$ab/ptr_ring.sh" "${@:2}"
for a in "$@"; do [ "$a" != --tree ] || exec "$ab/git.sh" "$@"; done
# shellcheck source-path=SCRIPTDIR source=patches.sh
. "$ab/patches.sh"
# shellcheck source-path=SCRIPTDIR source=boots.sh
. "$ab/boots.sh"
repo=$(dirname "$ab")
# shellcheck source-path=SCRIPTDIR source=../vmtest/lib/record.sh
. "$repo/vmtest/lib/record.sh"
vmtest=${AB_VMTEST:-$repo/vmtest/vmtest.sh}	# tests give a stand-in
cache=${VMTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pp-bench-vmtest}
# Options whose difference between the sides would be the difference
CONFIG_RE='^# CONFIG_|^CONFIG_'
CONFIG_KEYS='DEBUG_[A-Z_]*|KASAN[A-Z_]*|KCSAN|KMSAN|UBSAN|KFENCE|LOCKDEP|PROVE_LOCKING|LOCK_STAT|PAGE_OWNER|PAGE_EXTENSION|SLUB_DEBUG[A-Z_]*|PREEMPT[A-Z_]*|CPU_MITIGATIONS|MITIGATION_[A-Z_0-9]*|PAGE_POOL_STATS|INIT_ON_[A-Z_]*|JUMP_LABEL|FUNCTION_TRACER|GCOV_KERNEL|KCOV'

patches=() params=() base_kdir='' change_kdir='' boots=3 jobs='' timing=0
base_config=() change_config=()
profile=distro allow=0 format=text out='' attribute=1 cmdline=$*
while [ $# -gt 0 ]; do
	case $1 in
	--change) [ -e "${2:-}" ] || die "--change: no such patch: ${2:-}"
		  patches+=("$(realpath "$2")"); shift ;;
	--base-kdir) base_kdir=${2:-}; shift ;;
	--change-kdir) change_kdir=${2:-}; shift ;;
	--timing) timing=1 ;;
	--attribute) attribute=1 ;;	# the default
	--no-attribute) attribute=0 ;;
	--allow-config-diff) allow=1 ;;
	--format) format=${2:-}; shift ;;
	*) boot_option "$1" "${2:-}"; shift ;;
	esac
	shift
done
# timings are not counted per function
[ "$timing" -eq 0 ] || jobs=1 attribute=0
check_counts
case $format in text | markdown | json) ;; *) die "--format: text, markdown or json" ;; esac
changes=$((${#patches[@]} + ${#base_config[@]} + ${#change_config[@]}))
if [ -n "$change_kdir" ]; then
	[ "$changes" -eq 0 ] ||
		die "--change and --*-config build on the runner's base: not with --change-kdir"
	[ -n "$base_kdir" ] || die "--change-kdir needs --base-kdir"
elif [ "$changes" -eq 0 ]; then
	die "nothing to compare: give --change PATCH, --change-config OPTION=VALUE, or --base-kdir and --change-kdir"
elif [ -n "$base_kdir" ]; then
	die "--change builds on the runner's base: --base-kdir goes with --change-kdir"
fi
for k in "$base_kdir" "$change_kdir"; do
	[ -z "$k" ] || [ -f "$k/arch/x86/boot/bzImage" ] ||
		die "$k: no built kernel (arch/x86/boot/bzImage)"
done
out=${out:-$cache/ab/$(date +%Y%m%d-%H%M%S)-$$}
mkdir -p "$out" || die "cannot make $out"
out=$(realpath "$out")

trap stop_boots INT TERM
# The change builds in a private mount namespace (build_variant): one that
# cannot be made is said before anything is built
if [ -z "$change_kdir" ] &&
   ! unshare --mount --propagation private true 2>"$out/unshare.log"; then
	die "no private mount namespace for the change's build ($(tail -n 1 "$out/unshare.log")): it needs root, and a root directory that is a mount point (a chroot: bind-mount it onto itself)"
fi

# build_variant SIDE TREE BASE-KDIR KDIR PATCH-DIR SETTING...: a copy of
# TREE (hard links, under its lock) with PATCH-DIR's patches (or none)
# applied (new inodes), the base's objects copied with the SETTINGs, and
# the kernel rebuilt incrementally in a mount namespace that shows the
# copies at TREE's and BASE-KDIR's paths (objtool's commands name their
# output's absolute path: a new path would rebuild everything), and the
# layout probe with it, in KDIR.probe: only there do the change's headers
# lie at TREE's path. One kernel build at a time on the machine,
# as the runner's.
build_variant()
{
	local side=$1 tree=$2 base=$3 kdir=$4 pdir=$5 priv=$out/tree rc c

	shift 5
	rm -rf "$priv" "$kdir.tmp"
	flock "$tree.lock" cp -al "$tree" "$priv" || die "cannot copy $tree"
	[ "$pdir" = none ] || apply_patches "$pdir" "$priv"
	mkdir -p "$(dirname "$kdir")" || die "cannot make $(dirname "$kdir")"
	echo "ab.sh: copying the base's objects ($base)" >&2
	cp -a "$base" "$kdir.tmp" || die "cannot copy $base"
	for c in "$@"; do
		c=${c#CONFIG_}
		"$priv/scripts/config" --file "$kdir.tmp/.config" \
			--set-val "${c%%=*}" "${c#*=}" || die "cannot set $c"
	done
	echo "ab.sh: building the $side incrementally (log: $out/build-$side.log)" >&2
	SECONDS=0
	# shellcheck disable=SC2016 # the script reads its own arguments
	flock "${VMTEST_KBUILD_LOCK:-/run/lock/vmtest-kbuild.lock}" \
		unshare --mount --propagation private sh -c \
		'mount --bind "$1" "$2" && mount --bind "$3" "$4" &&
		make -C "$2" O="$4" ARCH=x86_64 -j"$5" bzImage modules || exit
		rm -rf "$7" && cp -r "$6" "$7" &&
		make -C "$2" O="$4" M="$7" KCFLAGS=-g modules >"$7/build.log" 2>&1
		exit 0' sh "$priv" "$tree" "$kdir.tmp" "$base" "$(nproc)" \
		"$ab/layout_probe" "$kdir.probe" >"$out/build-$side.log" 2>&1
	rc=$?
	rm -rf "$priv"
	[ "$rc" -eq 0 ] || die "the $side does not build (see $out/build-$side.log)"
	for c in "$@"; do
		setting_holds "$kdir.tmp/.config" "$c" ||
			die "$c did not hold in the $side's .config (its dependencies?)"
	done
	echo "ab.sh: built in $SECONDS s" >&2
	mv "$kdir.tmp" "$kdir"
}

# variant SIDE BASE-KDIR PATCH-DIR SETTING...: the build directory of the
# base with PATCH-DIR's patches and SETTINGs, built unless it was before
variant()
{
	local side=$1 base=$2 pdir=$3 kdir

	shift 3
	kdir=$cache/ab/build-$({ build_key "$base"
		[ "$pdir" = none ] || cat "$pdir"/[0-9]*.diff
		printf '%s\n' "$@"; } | sha256sum | cut -c1-16)
	if [ -f "$kdir/arch/x86/boot/bzImage" ]; then
		echo "ab.sh: $side: $kdir (built before)" >&2
	else
		build_variant "$side" "$tree" "$base" "$kdir" "$pdir" "$@" >&2
		echo "ab.sh: $side: $kdir" >&2
	fi
	echo "$kdir"
}

# build_key KDIR: what a build of KDIR is, for the change's build key: its
# .config, compiler and linker (the kernel records both) and the image
build_key()
{
	cat "$1/.config" "$1/include/generated/compile.h" \
		"$1/arch/x86/boot/bzImage" 2>/dev/null | sha256sum | cut -c1-16
}

# The change split and checked before anything is built, and printed
patch_dir=none
if [ ${#patches[@]} -gt 0 ]; then
	patch_dir=$out/patches
	split_patches "$patch_dir" "${patches[@]}"
	echo "ab.sh: the change (NNNN sha256 subject):" >&2
	sed 's/^/  /' "$patch_dir/list" >&2
	patch_paths "$patch_dir" >"$patch_dir/paths"
	! grep -q '^tools/testing/selftests/' "$patch_dir/paths" ||
		die "the patches change the benchmark itself (tools/testing/selftests): ab.sh compares kernels, the same benchmark on both"
fi
[ ${#base_config[@]} -eq 0 ] || echo "ab.sh: the base's config: ${base_config[*]}" >&2
[ ${#change_config[@]} -eq 0 ] || echo "ab.sh: the change's config: ${change_config[*]}" >&2
if [ "$changes" -gt 0 ]; then
	rec=$(VMTEST=$vmtest vmtest_record current tree --profile "$profile" \
		2>"$out/tree-base.log") ||
		die "the base's tree cannot be made (see $out/tree-base.log)"
	tree=$(record_get tree <<<"$rec")
	[ -d "$tree" ] || die "the runner named no tree: $rec"
	[ "$patch_dir" = none ] || check_patches "$patch_dir" "$tree"
fi

# facts SIDE KDIR: what the side was built with, for the manifest
facts()
{
	echo "$1: $2"
	echo "$1 compiler: $(sed -n 's/^CONFIG_\(CC_VERSION_TEXT\|LD_VERSION\|PAHOLE_VERSION\)=//p' "$2/.config" | paste -sd ' ')"
	echo "$1 .config: $(sha256sum <"$2/.config" | cut -c1-16)"
}

# kept_boots SIDE: the side's boots that ran, as boot_one kept them, in order
kept_boots()
{
	find "$out" -mindepth 1 -maxdepth 1 -type d -name "$1-[0-9]*" | sort -V
}

# boot_facts SIDE: on what its boots ran (their qemu files)
boot_facts()
{
	local key

	for key in cpu version; do
		echo "$1 qemu $key: $(kept_boots "$1" | while read -r b; do
			sed -n "s/^$key=//p" "$b/qemu" 2>/dev/null
		done | sort -u | paste -sd ' ')"
	done
}

# refuse_differences KEY...: exit 2 when a manifest fact differs between
# the sides (a compiler or CPU model changes the figures as a config does)
refuse_differences()
{
	local key b c

	for key in "$@"; do
		b=$(sed -n "s/^base $key: //p" "$out/manifest")
		c=$(sed -n "s/^change $key: //p" "$out/manifest")
		[ "$b" = "$c" ] ||
			die "the sides differ in $key: base '$b', change '$c'"
	done
}

# config_diff A B: the figure-changing options that differ, one a line
config_diff()
{
	diff <(grep -E "$CONFIG_RE($CONFIG_KEYS)[= ]" "$1" | sort) \
	     <(grep -E "$CONFIG_RE($CONFIG_KEYS)[= ]" "$2" | sort) |
		sed -n 's/^\([<>]\) /\1 /p'
}

if [ -z "$base_kdir" ]; then
	rec=$(VMTEST=$vmtest vmtest_record current build --profile "$profile" \
		2>"$out/build-base.log") ||
		die "the base does not build (see $out/build-base.log)"
	tree=$(record_get tree <<<"$rec") base_kdir=$(record_get kdir <<<"$rec")
	[[ -n $tree && -n $base_kdir ]] || die "the runner named no tree or kdir: $rec"
	echo "ab.sh: base: $base_kdir" >&2
fi
if [ -z "$change_kdir" ]; then
	change_kdir=$(variant change "$base_kdir" "$patch_dir" "${change_config[@]}") ||
		exit 2
	[ ${#base_config[@]} -eq 0 ] ||
		base_kdir=$(variant base "$base_kdir" none "${base_config[@]}") || exit 2
fi

for k in "$base_kdir" "$change_kdir"; do
	[ -f "$k/.config" ] || die "$k/.config: not recorded: cannot tell whether the sides are comparable"
done
# The options the --*-config settings name differ by intent
intended=$(printf '%s\n' "${base_config[@]}" "${change_config[@]}" |
	sed -n 's/^CONFIG_\([A-Z0-9_]*\)=.*/\1/p' | sort -u | paste -sd '|')
diffs=$(config_diff "$base_kdir/.config" "$change_kdir/.config" |
	grep -vE "CONFIG_(${intended:-^})[= ]")
[ -z "$intended" ] ||
	echo "ab.sh: the sides differ in $(tr '|' ' ' <<<"$intended") by intent" >&2
if [ -n "$diffs" ]; then
	printf '%s\n' "$diffs" | sed 's/^</  base:  /; s/^>/  change:/' >"$out/config-diff"
	if [ "$allow" -eq 0 ]; then
		echo "ab.sh: the sides' configs differ in options that change the figures:" >&2
		cat "$out/config-diff" >&2
		die "refusing to compare (--allow-config-diff when the change is this)"
	fi
	echo "ab.sh: compared despite config differences (--allow-config-diff):" >&2
	cat "$out/config-diff" >&2
fi

{
	echo "command: ab.sh $cmdline"
	echo "project: $(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)"
	facts base "$base_kdir"
	facts change "$change_kdir"
	[ ! -f "$out/patches/list" ] || sed 's/^/patch: /' "$out/patches/list"
	for c in "${base_config[@]}"; do echo "base config: $c"; done
	for c in "${change_config[@]}"; do echo "change config: $c"; done
} >"$out/manifest"
refuse_differences compiler
# What the change did to the code: the functions whose built code differs
"$ab/objdiff.py" "$base_kdir" "$change_kdir" >"$out/changed-functions" ||
	die "cannot compare the sides' built objects"
n=$(wc -l <"$out/changed-functions")
code="$n functions differ: $(cut -d' ' -f2 "$out/changed-functions" | head -n 6 | paste -sd ' ')"
[ "$n" -le 6 ] || code+=' ...'
[ "$n" -gt 0 ] || code='no built function differs between the sides'
echo "ab.sh: code: $code" >&2
echo "code: $code" >>"$out/manifest"

# layout_probe SIDE KDIR: the object of ab/layout_probe, built with debug
# information, that has the structs page_pool's paths touch as SIDE lays
# them out: the one a variant's build made beside the change's headers,
# else one built against KDIR (a kernel built in its own tree)
layout_probe()
{
	if [ -d "$2.probe" ]; then
		echo "$2.probe/layout_probe.o"
		return
	fi
	case $2 in
	"$cache"/ab/build-*)
		echo "$2 was built without its probe (rm -rf it to rebuild)" >&2
		return 1 ;;
	esac
	rm -rf "$out/probe-$1" && cp -r "$ab/layout_probe" "$out/probe-$1" &&
	make -C "$2" O="$2" M="$out/probe-$1" KCFLAGS=-g modules \
		>"$out/probe-$1/build.log" 2>&1 &&
	echo "$out/probe-$1/layout_probe.o"
}
probes=("$(layout_probe base "$base_kdir" 2>>"$out/layout.err")"
	"$(layout_probe change "$change_kdir" 2>>"$out/layout.err")")
if [ -f "${probes[0]}" ] && [ -f "${probes[1]}" ]; then
	"$ab/layout.py" "${probes[@]}" page_pool page_pool_params page \
		netmem_desc ptr_ring napi_struct >"$out/layout.txt" 2>&1
else
	echo "not compared: a side's layout probe did not build ($(
		cat "$out/layout.err" 2>/dev/null)its build.log in $out/probe-SIDE or KDIR.probe)" \
		>"$out/layout.txt"
fi

mode=(-D) what='deterministic: QEMU -icount, instruction counts'
[ "$attribute" -eq 0 ] || mode+=(--attribute)
[ "$timing" -eq 0 ] ||
	mode=() what='timings: KVM where it works, else QEMU TCG emulation (not hardware figures)'
det=(--deterministic)
[ "$timing" -eq 0 ] || det=()

# judge_boots: the boots each side kept (sides: verdict.py's --base and
# --change) and, with the per-function counts, the functions that moved
# and the change's attribution (covered: verdict.py's --attribution)
judge_boots()
{
	local side j changed=()

	sides=()
	for side in base change; do
		mapfile -t j < <(kept_boots "$side")
		[ ${#j[@]} -gt 0 ] || die "no $side boot left its KTAP (see $out/$side-*.log)"
		sides+=("--$side" "${j[@]}")
	done
	covered=()
	[ "$attribute" -eq 1 ] || return 0
	# Sides whose built code is the same (an A/A): no test ran changed
	# code, nor is it "not covered"
	[ ! -s "$out/changed-functions" ] ||
		changed=(--changed "$out/changed-functions")
	"$repo/vmtest/lib/insn_profile.py" "${sides[@]}" "${changed[@]}" \
		--attribution "$out/attribution" >"$out/attribution.txt" ||
		die "the boots' profiles cannot be read"
	covered=(--attribution "$out/attribution")
}

# undecided: a row of the table so far that the boots should decide
# reads "unknown" (verdict.py --undecided: with the per-function counts,
# one of the tests they cover; ptr_ring_test's, which ab.sh --ptr-ring
# prices natively, take the verdict of the boots these needed)
undecided()
{
	"$ab/verdict.py" "${sides[@]}" "${det[@]}" "${covered[@]}" --undecided
}

# Instruction counts repeat from boot to boot: one boot a side decides
# the rows whose difference is far from the resolution, where no task
# switched in their timed chunks (verdict.py); a boot a side more while
# a row is unknown, up to --boots
first=$boots
[ "$timing" -eq 1 ] || first=1
how="$boots boots a side"
[ "$first" -eq "$boots" ] || how="a boot a side while a row needs one, up to $boots"
echo "ab.sh: $how, $jobs at a time, $what" >&2
SECONDS=0
failed=0
boot_all "$out" 1 "$first" "$jobs" base="$base_kdir" change="$change_kdir" -- \
	"${mode[@]}" "${params[@]}" || failed=1
judge_boots
for n in $(seq $((first + 1)) "$boots"); do
	undecided || break
	echo "ab.sh: a row is unknown after $((n - 1)) boot(s) a side: one more" >&2
	boot_all "$out" "$n" "$n" "$jobs" base="$base_kdir" \
		change="$change_kdir" -- "${mode[@]}" "${params[@]}" || failed=1
	judge_boots
done
echo "ab.sh: booted in $SECONDS s" >&2
[ "$failed" -eq 0 ] ||
	echo "ab.sh: a boot failed; its log is in $out (the table is of what ran)" >&2
{ boot_facts base; boot_facts change; } >>"$out/manifest"
refuse_differences 'qemu cpu' 'qemu version'
{
	if [ "$format" != json ]; then
		echo "# $what"
		[ ! -f "$out/patches/list" ] || sed 's/^/# change: /' "$out/patches/list"
		[ ${#base_config[@]} -eq 0 ] || echo "# base config: ${base_config[*]}"
		[ ${#change_config[@]} -eq 0 ] || echo "# change config: ${change_config[*]}"
		echo "# code: $code"
	fi
	"$ab/verdict.py" "${sides[@]}" "${det[@]}" "${covered[@]}" \
		--format "$format" --manifest "$out/manifest" || exit
	[ "$format" != json ] || exit 0
	if [ "$attribute" -eq 1 ]; then
		model_table "$format" "${covered[@]}" "${sides[@]}"
		cat "$out/attribution.txt"
	fi &&
	if [ -s "$out/layout.txt" ]; then sed 's/^/# layout: /' "$out/layout.txt"; fi
} | tee "$out/table.$format"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || exit "$rc"
echo "ab.sh: $out" >&2
exit "$failed"
