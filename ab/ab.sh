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
#        ab/ab.sh --base-kdir DIR --change-kdir DIR [options]
#        ab/ab.sh --ptr-ring ...  ptr_ring.h natively (ab/ptr_ring.sh --help)
#   --change PATCH      a patch, an mbox or a directory of format-patch
#                       files, applied with patch -p1 (repeatable, in order)
#   --base-kdir DIR     the base kernel, built already (as vmtest.sh
#   --change-kdir DIR   --kdir takes it), instead of building either side
#   -n, --boots N       boots a side (default 3)
#   -j, --jobs N        boots at a time (default: the CPUs; with --timing 1)
#   --timing            timings (KVM, else TCG emulation: labelled so)
#                       instead of instruction counts
#   --attribute         also per function: each boot counted by QEMU's
#                       plugin (vmtest.sh --attribute), the functions
#                       that moved listed under the table
#   --profile P         the base's config: distro (default: Debian's
#                       options that change the timed paths) or tiny
#   --allow-config-diff compare kernels whose .config differ in options
#                       that change the figures (the change is one)
#   -p, --param K=V     benchmark module parameter (vmtest.sh -p)
#   --dma D             the DMA layer of the *_dma tests (vmtest.sh --dma)
#   --format F          text (default) or markdown
#   -o, --out DIR       where the boots' jobs, logs and the table go
#                       (default: CACHE/ab/DATE-PID)
# Exit: 0, 1 when a boot failed, 2 on bad input or a build that failed,
# 130 when interrupted (nothing is left running, the tree is restored).

set -u
self=$(realpath "$0")
ab=$(dirname "$self")
[ "${1:-}" != --ptr-ring ] || exec "$ab/ptr_ring.sh" "${@:2}"
# shellcheck source-path=SCRIPTDIR source=patches.sh
. "$ab/patches.sh"
repo=$(dirname "$ab")
# shellcheck source-path=SCRIPTDIR source=../vmtest/lib/record.sh
. "$repo/vmtest/lib/record.sh"
vmtest=${AB_VMTEST:-$repo/vmtest/vmtest.sh}	# tests give a stand-in
cache=${VMTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pp-bench-vmtest}
# Options whose difference between the sides would be the difference
CONFIG_RE='^# CONFIG_|^CONFIG_'
CONFIG_KEYS='DEBUG_[A-Z_]*|KASAN[A-Z_]*|KCSAN|KMSAN|UBSAN|KFENCE|LOCKDEP|PROVE_LOCKING|LOCK_STAT|PAGE_OWNER|PAGE_EXTENSION|SLUB_DEBUG[A-Z_]*|PREEMPT[A-Z_]*|CPU_MITIGATIONS|MITIGATION_[A-Z_0-9]*|PAGE_POOL_STATS|INIT_ON_[A-Z_]*|JUMP_LABEL|FUNCTION_TRACER|GCOV_KERNEL|KCOV'

die()
{
	echo "ab.sh: $*" >&2
	exit 2
}

usage()
{
	sed -n '3,35p' "$self" | cut -c3- >&2
	exit 2
}

patches=() params=() base_kdir='' change_kdir='' boots=3 jobs='' timing=0
profile=distro allow=0 format=text out='' attribute=0
while [ $# -gt 0 ]; do
	case $1 in
	--change) [ -e "${2:-}" ] || die "--change: no such patch: ${2:-}"
		  patches+=("$(realpath "$2")"); shift ;;
	--base-kdir) base_kdir=${2:-}; shift ;;
	--change-kdir) change_kdir=${2:-}; shift ;;
	-n | --boots) boots=${2:-}; shift ;;
	-j | --jobs) jobs=${2:-}; shift ;;
	--timing) timing=1 ;;
	--attribute) attribute=1 ;;
	--profile) profile=${2:-}; shift ;;
	--allow-config-diff) allow=1 ;;
	-p | --param) params+=(-p "${2:-}"); shift ;;
	--dma) params+=(--dma "${2:-}"); shift ;;
	--format) format=${2:-}; shift ;;
	-o | --out) out=${2:-}; shift ;;
	-h | --help) usage ;;
	*) echo "ab.sh: unknown argument '$1'" >&2; usage ;;
	esac
	shift
done
[[ $boots =~ ^[1-9][0-9]*$ ]] || die "--boots needs a number, not '$boots'"
[ "$timing" -eq 0 ] || jobs=1
[ "$timing" -eq 0 ] || [ "$attribute" -eq 0 ] ||
	die "--attribute counts instructions: not with --timing"
jobs=${jobs:-$(nproc)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs needs a number, not '$jobs'"
case $format in text | markdown) ;; *) die "--format: text or markdown" ;; esac
if [ -n "$change_kdir" ]; then
	[ ${#patches[@]} -eq 0 ] || die "--change and --change-kdir exclude each other"
	[ -n "$base_kdir" ] || die "--change-kdir needs --base-kdir"
elif [ ${#patches[@]} -eq 0 ]; then
	die "nothing to compare: give --change PATCH, or --base-kdir and --change-kdir"
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

# Ctrl-C: the boots stop (the runner stops its QEMU on SIGTERM), a
# patched tree gets its files back.
children=() restore=''
# shellcheck disable=SC2317 # a trap handler
stop()
{
	trap '' INT TERM
	[ ${#children[@]} -eq 0 ] || kill "${children[@]}" 2>/dev/null
	wait
	[ -z "$restore" ] || restore_tree "$restore"
	echo "ab.sh: interrupted" >&2
	exit 130
}
trap stop INT TERM

# restore_tree TREE: the files patch replaced back to their own inodes
# (and mtimes: the base's objects stay up to date)
restore_tree()
{
	local p

	while read -r p; do
		if [ -e "$out/orig/$p" ]; then
			ln -f "$out/orig/$p" "$1/$p"
		else
			rm -f "$1/$p"
		fi
	done <"$out/paths"
	restore=''
}

# build_change TREE BASE-KDIR KDIR: the base's objects copied, the tree
# patched (patch writes new files: the pristine source is not touched),
# the kernel rebuilt incrementally, the tree restored. One kernel build
# at a time on the machine, as the runner's.
build_change()
{
	local tree=$1 base=$2 kdir=$3 p

	patch_paths "${patches[@]}" >"$out/paths"
	if grep -q '^tools/testing/selftests/' "$out/paths"; then
		die "the patches change the benchmark itself (tools/testing/selftests): ab.sh compares kernels, the same benchmark on both"
	fi
	for p in "${patches[@]}"; do
		patch_input "$p" | patch -p1 -d "$tree" --dry-run -s -f >/dev/null ||
			die "$p does not apply to the base ($tree)"
	done
	rm -rf "$out/orig" "$kdir.tmp"
	while read -r p; do
		[ -e "$tree/$p" ] || continue
		mkdir -p "$out/orig/$(dirname "$p")" || die "cannot keep $p"
		ln "$tree/$p" "$out/orig/$p" || die "cannot keep $p"
	done <"$out/paths"
	mkdir -p "$(dirname "$kdir")" || die "cannot make $(dirname "$kdir")"
	echo "ab.sh: copying the base's objects ($base)"
	cp -a "$base" "$kdir.tmp" || die "cannot copy $base"
	restore=$tree
	for p in "${patches[@]}"; do
		patch_input "$p" | patch -p1 -d "$tree" -s -f --no-backup-if-mismatch ||
			{ restore_tree "$tree"; die "$p does not apply"; }
	done
	echo "ab.sh: building the change incrementally (log: $out/build-change.log)"
	SECONDS=0
	flock "${VMTEST_KBUILD_LOCK:-/run/lock/vmtest-kbuild.lock}" \
		make -C "$tree" O="$kdir.tmp" ARCH=x86_64 -j"$(nproc)" bzImage modules \
		>"$out/build-change.log" 2>&1
	p=$?
	restore_tree "$tree"
	[ "$p" -eq 0 ] || die "the change does not build (see $out/build-change.log)"
	echo "ab.sh: built in $SECONDS s"
	mv "$kdir.tmp" "$kdir"
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
	tree=$(record_get tree <<<"$rec")
	base_kdir=$(record_get kdir <<<"$rec")
	if [ -z "$tree" ] || [ -z "$base_kdir" ]; then
		die "the runner named no tree or kdir: $rec"
	fi
	echo "ab.sh: base: $base_kdir"
fi
if [ -z "$change_kdir" ]; then
	change_kdir=$cache/ab/build-$({ realpath "$base_kdir"
		for p in "${patches[@]}"; do patch_input "$p"; done; } |
		sha256sum | cut -c1-16)
	if [ -f "$change_kdir/arch/x86/boot/bzImage" ]; then
		echo "ab.sh: change: $change_kdir (built before)"
	else
		build_change "$tree" "$base_kdir" "$change_kdir"
		echo "ab.sh: change: $change_kdir"
	fi
fi

for k in "$base_kdir" "$change_kdir"; do
	[ -f "$k/.config" ] || die "$k/.config: not recorded: cannot tell whether the sides are comparable"
done
diffs=$(config_diff "$base_kdir/.config" "$change_kdir/.config")
if [ -n "$diffs" ]; then
	printf '%s\n' "$diffs" | sed 's/^</  base:  /; s/^>/  change:/' >"$out/config-diff"
	if [ "$allow" -eq 0 ]; then
		echo "ab.sh: the sides' configs differ in options that change the figures:" >&2
		cat "$out/config-diff" >&2
		die "refusing to compare (--allow-config-diff when the change is this)"
	fi
	echo "ab.sh: compared despite config differences (--allow-config-diff):"
	cat "$out/config-diff"
fi

# boot SIDE N: one boot of the side's kernel; its job directory in
# $out/SIDE-N.job
boot()
{
	local kdir=$base_kdir

	[ "$1" = base ] || kdir=$change_kdir
	"$vmtest" -t current --kdir "$kdir" "${mode[@]}" "${params[@]}" \
		>"$out/$1-$2.log" 2>&1
	sed -n 's/^vmtest: current: results in //p' "$out/$1-$2.log" |
		tail -n 1 >"$out/$1-$2.job"
}

# started SIDE N PID: the boot is past building its selftests (the
# module is built in the tree, for its side's kernel: one at a time) or
# has ended
started()
{
	until grep -q 'booting \|error' "$out/$1-$2.log" 2>/dev/null ||
	      ! kill -0 "$3" 2>/dev/null; do
		sleep 1
	done
}

mode=(-D) what='deterministic: QEMU -icount, instruction counts'
[ "$attribute" -eq 0 ] || mode+=(--attribute)
if [ "$timing" -eq 1 ]; then
	mode=() what='timings: KVM where it works, else QEMU TCG emulation (not hardware figures)'
fi
queue=()
for i in $(seq "$boots"); do queue+=("base $i" "change $i"); done
echo "ab.sh: $boots boots a side, $jobs at a time, $what"
SECONDS=0
failed=0
while [ ${#queue[@]} -gt 0 ]; do
	children=()
	for _ in $(seq "$jobs"); do
		[ ${#queue[@]} -gt 0 ] || break
		# shellcheck disable=SC2086 # SIDE N
		boot ${queue[0]} &
		children+=($!)
		# shellcheck disable=SC2086
		started ${queue[0]} "$!"
		queue=("${queue[@]:1}")
	done
	for c in "${children[@]}"; do wait "$c" || failed=1; done
done
children=()
echo "ab.sh: booted in $SECONDS s"
[ "$failed" -eq 0 ] ||
	echo "ab.sh: a boot failed; its log is in $out (the table is of what ran)" >&2

sides=()
for side in base change; do
	mapfile -t j < <(cat "$out/$side"-*.job 2>/dev/null)
	[ ${#j[@]} -gt 0 ] || die "no $side boot left a job (see $out/$side-*.log)"
	sides+=("--$side" "${j[@]}")
done
det=(--deterministic)
[ "$timing" -eq 1 ] && det=()
{
	echo "# $what"
	"$ab/verdict.py" "${sides[@]}" "${det[@]}" --format "$format" &&
	if [ "$attribute" -eq 1 ]; then
		"$repo/vmtest/lib/insn_profile.py" "${sides[@]}"
	fi
} | tee "$out/table.$format"
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || exit "$rc"
echo "ab.sh: $out"
exit "$failed"
