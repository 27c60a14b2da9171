#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What a change to include/linux/ptr_ring.h costs: the base's
# ptr_ring_test (tools/testing/selftests/ptr_ring, on ringtest's shim)
# built on each side's ptr_ring.h, so only the header differs; run
# natively, base and change alternately, pinned as ptr_ring_test pins
# itself (consumer on the last CPU, producer on the last but one); then,
# deterministic, each mode under callgrind: instructions per item of the
# whole run but its waits (runs of 2N and N items differenced: start-up
# cancels), the ring inlined in the harness's loops as its users have
# it. Two tables (ab/verdict.py); where the instructions moved, ring
# (ptr_ring.h's lines), shims or harness, and the rows that moved, by
# file and function (ab/cgsplit.py); how the change moved struct
# ptr_ring's fields (ab/layout.py).
#
# usage: ab/ptr_ring.sh [--base-src DIR] --change PATCH... [options]
#        ab/ptr_ring.sh [--base-src DIR] --change-src DIR [options]
#   --base-src DIR      the base kernel tree (default: the runner's current
#                       tree: the pinned source with the series); the
#                       benchmark is its own, or the runner's tree's
#   --change PATCH      a patch, an mbox (its [PATCH] messages) or a
#                       directory of format-patch files, applied as git
#                       applies them to a copy of the base (repeatable)
#   --change-src DIR    the change's tree: its include/linux/ptr_ring.h
#   -n, --runs N        native runs a side (default 5)
#   --callgrind-runs N  callgrind runs a side (default 2; 0: none)
#   -m, --mode LIST     ptr_ring_test's modes (default: all it has)
#   --format F          text (default) or markdown
#   -o, --out DIR       where the builds, the runs' KTAP and the tables go
#                       (default: CACHE/ab/ptr_ring-DATE-PID)
#   -- ARGS             more ptr_ring_test options for the native runs
# Exit: 0, 1 when a run failed, 2 on bad input or a failed build, 130 when
# interrupted.

set -u
self=$(realpath "$0")
PROG=ptr_ring.sh
ab=$(dirname "$self")
repo=$(dirname "$ab")
# link_tree; patches.sh's die then replaces common.sh's
# shellcheck source-path=SCRIPTDIR source=../vmtest/lib/common.sh
. "$repo/vmtest/lib/common.sh"
# shellcheck source-path=SCRIPTDIR source=patches.sh
. "$ab/patches.sh"
# shellcheck source-path=SCRIPTDIR source=../vmtest/lib/record.sh
. "$repo/vmtest/lib/record.sh"
cache=${VMTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pp-bench-vmtest}
CG_ITEMS=${PTR_RING_CG_ITEMS:-50000}	# the tests make it small

base='' change_src='' patches=() runs=5 cg_runs=2 modes='' format=text
out='' args=()
while [ $# -gt 0 ]; do
	case $1 in
	--base-src) base=${2:-}; shift ;;
	--change) [ -e "${2:-}" ] || die "--change: no such patch: ${2:-}"
		  patches+=("$(realpath "$2")"); shift ;;
	--change-src) change_src=${2:-}; shift ;;
	-n | --runs) runs=${2:-}; shift ;;
	--callgrind-runs) cg_runs=${2:-}; shift ;;
	-m | --mode) modes=${2:-}; shift ;;
	--format) format=${2:-}; shift ;;
	-o | --out) out=${2:-}; shift ;;
	-h | --help) usage ;;
	--) shift; args=("$@"); break ;;
	*) echo "ptr_ring.sh: unknown argument '$1'" >&2; usage ;;
	esac
	shift
done
[[ $runs =~ ^[0-9]+$ ]] || die "--runs needs a number, not '$runs'"
[[ $cg_runs =~ ^[0-9]+$ ]] || die "--callgrind-runs needs a number, not '$cg_runs'"
[ "$runs" -gt 0 ] || [ "$cg_runs" -gt 0 ] || die "nothing to run: --runs and --callgrind-runs are 0"
case $format in text | markdown) ;; *) die "--format: text or markdown" ;; esac
[ -z "$change_src" ] || [ ${#patches[@]} -eq 0 ] ||
	die "--change and --change-src exclude each other"
[ -n "$change_src" ] || [ ${#patches[@]} -gt 0 ] ||
	die "nothing to compare: give --change PATCH or --change-src DIR"
[ "$cg_runs" -eq 0 ] || command -v valgrind >/dev/null ||
	die "valgrind is not installed (Debian package valgrind), or give --callgrind-runs 0"
# The trees given, before the runner is asked for its (a download)
for t in "$base" "$change_src"; do
	[ -z "$t" ] || [ -f "$t/include/linux/ptr_ring.h" ] ||
		die "$t: no include/linux/ptr_ring.h"
done
# The benchmark: the base's, else the runner's tree's (the default base)
bench=$base
if [ -z "$base" ] || [ ! -f "$base/tools/testing/selftests/ptr_ring/ptr_ring_test.c" ]; then
	bench=$(vmtest_record current tree 2>/dev/null | record_get tree)
	[ -n "$bench" ] || die "the runner prepared no tree (vmtest/vmtest.sh -t current --stop-after tree)"
fi
base=${base:-$bench}
out=${out:-$cache/ab/ptr_ring-$(date +%Y%m%d-%H%M%S)-$$}
mkdir -p "$out" || die "cannot make $out"
out=$(realpath "$out")
base=$(realpath "$base") bench=$(realpath "$bench")
# Ctrl-C: every process of the run names $out on its command line
trap 'trap "" INT TERM; pgrep -f "$out/" | grep -vx $$ | xargs -r kill
      wait; echo "ptr_ring.sh: interrupted" >&2; exit 130' INT TERM

# The change's tree: the files the patches touch, copied from the base
# (a tree of links, maybe: never written through) and patched
if [ ${#patches[@]} -gt 0 ]; then
	change_src=$out/change-tree
	rm -rf "$change_src"
	mkdir -p "$change_src" || die "cannot make $change_src"
	split_patches "$out/patches" "${patches[@]}"
	echo "ptr_ring.sh: the change (NNNN sha256 subject):"
	sed 's/^/  /' "$out/patches/list"
	for p in include/linux/ptr_ring.h $(patch_paths "$out/patches"); do
		[ -e "$base/$p" ] || continue
		{ mkdir -p "$change_src/$(dirname "$p")" &&
			cp -L "$base/$p" "$change_src/$p"; } || die "cannot copy $p"
	done
	apply_patches "$out/patches" "$change_src" "the base ($base)"
fi
change_src=$(realpath "$change_src")
cmp -s "$base/include/linux/ptr_ring.h" "$change_src/include/linux/ptr_ring.h" &&
	echo "ptr_ring.sh: the sides' ptr_ring.h are the same: an A/A comparison"

# overlay SIDE DIR: the benchmark's tree in links, the directories of
# its sources real (link_tree: their relative includes resolve inside
# DIR), on SIDE's ptr_ring.h
overlay()
{
	link_tree "$bench" "$2" tools/virtio/ringtest \
		tools/testing/selftests/ptr_ring include/linux &&
		ln -sfn "$1/include/linux/ptr_ring.h" "$2/include/linux/"
}

for side in base change; do
	src=$base
	[ "$side" = base ] || src=$change_src
	rm -rf "${out:?}/$side"
	{ overlay "$src" "$out/$side" && mkdir "$out/$side/bin"; } ||
		die "cannot lay out $out/$side"
	make -C "$out/$side/tools/testing/selftests/ptr_ring" OUTPUT="$out/$side/bin" \
		"$out/$side/bin/ptr_ring_test" >"$out/build-$side.log" 2>&1 ||
		die "the $side's ptr_ring_test does not build (see $out/build-$side.log)"
done

# The modes both sides run: a short run of each, which must pass
mode_args=()
[ -z "$modes" ] || mode_args=(-m "$modes")
for side in base change; do
	"$out/$side/bin/ptr_ring_test" "${mode_args[@]}" -n 10000 -r 1 \
		>"$out/smoke-$side.tap" 2>&1 ||
		die "the $side's ptr_ring_test fails (see $out/smoke-$side.tap)"
done
[ -n "$("$repo/vmtest/lib/ktap.py" passed "$out/smoke-base.tap")" ] ||
	die "ptr_ring_test ran no mode (see $out/smoke-base.tap)"

failed=0
SECONDS=0
mkdir -p "$out/native" "$out/callgrind"
for i in $(seq "$runs"); do
	for side in base change; do
		"$out/$side/bin/ptr_ring_test" "${mode_args[@]}" "${args[@]}" \
			>"$out/native/$side-$i.tap" 2>&1 &
		wait $! || failed=1
	done
done
[ "$runs" -eq 0 ] || echo "ptr_ring.sh: $runs native runs a side in $SECONDS s"

# ir BIN MODE N RUN: the events of a run of MODE, N items a repetition,
# but the waits (wait_*() toggles collection off), in a line: instructions, locked operations
# (bus events: smp_mb(), atomics), L1 misses that hit the last level,
# last-level misses, mispredicted branches, in the caches of the
# deterministic mode's CPU (Skylake-Server: 32 KiB 8-way L1s, a 1 MiB
# 16-way L2 last); one cache for both threads: no coherence misses (the
# layout shows false sharing). -P 1: one thread at a time, fairly (a
# spinning thread would starve the other). Its file, SIDE-RUN.MODE.N, is
# kept for ab/cgsplit.py.
ir()
{
	local side=${1%/bin/ptr_ring_test}
	local f=$out/callgrind/${side##*/}-$4.$2.$3

	valgrind --tool=callgrind --fair-sched=yes --toggle-collect='wait_*' \
		--collect-atstart=yes --collect-bus=yes --cache-sim=yes \
		--branch-sim=yes --I1=32768,8,64 --D1=32768,8,64 \
		--LL=1048576,16,64 --callgrind-out-file="$f" \
		"$1" -m "$2" -P 1 -n "$3" -r 1 >/dev/null 2>&1 &&
	awk '/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i }
	     /^(summary|totals):/ {
		for (e in col) v[e] = $col[e] + 0
		l1 = v["I1mr"] + v["D1mr"] + v["D1mw"]
		ll = v["ILmr"] + v["DLmr"] + v["DLmw"]
		if (v["Ir"] > 0)
			print v["Ir"], v["Ge"], l1 - ll, ll, v["Bcm"] + v["Bim"]
		exit }' "$f"
}

# callgrind SIDE RUN: KTAP, per mode the side's short run passed, of
# instructions, locked operations (MODE:locked, ops) and model cycles
# (MODE:model, vmtest/lib/cycles.py's estimate, cyc) per item; the runs of
# N and 2N items in turn (side by side, each moves the other's counts)
callgrind()
{
	local bin=$out/$1/bin/ptr_ring_test t=$out/callgrind/ir k=0 m a b d

	for m in $("$repo/vmtest/lib/ktap.py" passed "$out/smoke-$1.tap"); do
		# in the background: a signal's trap runs within wait
		ir "$bin" "$m" "$CG_ITEMS" "$2" >"$t.a" &
		wait $!
		ir "$bin" "$m" $((2 * CG_ITEMS)) "$2" >"$t.b" &
		wait $!
		read -r -a a <"$t.a" && read -r -a b <"$t.b" || a=()
		if [ ${#a[@]} -eq 5 ] && [ ${#b[@]} -eq 5 ]; then
			# -r 1: a warm-up and one repetition, 2N items
			read -r -a d < <(echo "${a[*]} ${b[*]}" | awk -v n="$CG_ITEMS" \
				'{ for (i = 1; i <= 5; i++) printf "%.4f ", ($(i + 5) - $i) / (2 * n) }')
			printf 'ok %d %s # perf=%.3finsn\n' $((k + 1)) "$m" "${d[0]}"
			printf 'ok %d %s:locked # perf=%.3fops\n' $((k + 2)) "$m" "${d[1]}"
			printf 'ok %d %s:model # perf=%.3fcyc\n' $((k + 3)) "$m" \
				"$("$repo/vmtest/lib/cycles.py" --total insn="${d[0]}" \
				locked="${d[1]}" "l1 misses=${d[2]}" "ll misses=${d[3]}" \
				mispredicts="${d[4]}")"
		else
			echo "not ok $((k + 1)) $m # callgrind failed"
		fi
		k=$((k + 3))
	done
	rm -f "$t.a" "$t.b"
}

SECONDS=0
for i in $(seq "$cg_runs"); do
	for side in base change; do
		callgrind "$side" "$i" >"$out/callgrind/$side-$i.tap"
		! grep -q '^not ok' "$out/callgrind/$side-$i.tap" || failed=1
	done
done
[ "$cg_runs" -eq 0 ] || echo "ptr_ring.sh: $cg_runs callgrind runs a side in $SECONDS s"

# The ring's layout on each side (the binaries have DWARF)
"$ab/layout.py" "$out/base/bin/ptr_ring_test" "$out/change/bin/ptr_ring_test" \
	ptr_ring >"$out/layout.txt" 2>"$out/layout.err" ||
	cp "$out/layout.err" "$out/layout.txt"
{
	if [ "$runs" -gt 0 ]; then
		echo "# native timings on this machine ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)), $runs alternated runs a side, ns per item"
		"$ab/verdict.py" --base "$out"/native/base-*.tap \
			--change "$out"/native/change-*.tap --format "$format"
	fi
	if [ "$cg_runs" -gt 0 ]; then
		echo "# deterministic: callgrind, instructions per item of the whole run but its waits, $cg_runs runs a side; MODE:model, cycles estimated from them and callgrind's caches (vmtest/lib/cycles.py; calls and returns not counted), not measured"
		"$ab/verdict.py" --base "$out"/callgrind/base-*.tap \
			--change "$out"/callgrind/change-*.tap --deterministic --format "$format"
		echo "# where they moved: instructions per item by source file (callgrind_annotate --inclusive=no; the inlined ring keeps ptr_ring.h's name): ring, ptr_ring.h; shims, the stand-ins for the kernel's locks and READ_ONCE(); harness, the rest; then the file-in-function rows that moved"
		mapfile -t cg_modes < <("$repo/vmtest/lib/ktap.py" passed "$out/smoke-base.tap")
		"$ab/cgsplit.py" "$out/callgrind" "$CG_ITEMS" --format "$format" \
			"${cg_modes[@]}"
	fi
	[ ! -s "$out/layout.txt" ] || sed 's/^/# layout: /' "$out/layout.txt"
} | tee "$out/table.$format"
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 2
echo "ptr_ring.sh: $out"
exit "$failed"
