#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The cover letter's figures: upstream's bench_page_pool.ko (by insmod)
# and the series' (by its test_bench_page_pool.sh), built against one
# kernel, in one deterministic boot (vmtest.sh -D), as ab/verdict.py's
# table. One boot a side gives no spread: its verdicts are "same" or
# "unknown", read the figures. The files are in VMTEST_CACHE/measure,
# which the guest can write (it replaces /tmp).
#
# usage: series/measure.sh [--kdir DIR] [--tree DIR] [--loops N]
#   --kdir DIR  the built kernel to boot (default: the runner's build of
#               the current target, which builds it when it is missing)
#   --tree DIR  the pristine tree the series applies to (default: the
#               runner's pinned source)
#   --loops N   the modules' loops parameter (default 1000000)

set -eu
self=$(realpath "$0")
repo=$(dirname "$(dirname "$self")")
vmtest=$repo/vmtest/vmtest.sh
# shellcheck source-path=SCRIPTDIR source=../vmtest/lib/record.sh
. "$repo/vmtest/lib/record.sh"
export VMTEST_CACHE=${VMTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pp-bench-vmtest}

usage()
{
	sed -n '3,/^$/p' "$self" | cut -c3- >&2
	exit 2
}

die()
{
	echo "measure.sh: $*" >&2
	exit 1
}

kdir='' tree='' loops=1000000
while [ $# -gt 0 ]; do
	case $1 in
	--kdir) kdir=${2:?}; shift 2 ;;
	--tree) tree=${2:?}; shift 2 ;;
	--loops) loops=${2:?}; shift 2 ;;
	-h | --help) usage ;;
	*) echo "measure.sh: unknown argument $1" >&2; usage ;;
	esac
done
[[ $loops =~ ^[1-9][0-9]*$ ]] || { echo "measure.sh: --loops takes a number" >&2; usage; }

[ -n "$tree" ] || tree=$(vmtest_record current fetch | record_get src)
[ -n "$kdir" ] || kdir=$(vmtest_record current build | record_get kdir)
bench=tools/testing/selftests/net/bench
[ -f "$tree/$bench/page_pool/Makefile" ] || die "$tree has no $bench/page_pool"
[ -f "$kdir/Module.symvers" ] || die "$kdir is no built kernel"
kdir=$(realpath "$kdir")

# Each side a selftests directory of its own: kselftest's helpers, the
# series' script, the side's module built against the kernel booted.
dir=$VMTEST_CACHE/measure/$(basename "$kdir")
rm -rf "$dir"
for side in upstream series; do
	src=$tree
	[ "$side" = upstream ] || src=$repo
	mkdir -p "$dir/$side/kselftest" "$dir/$side/net/bench"
	cp "$tree/tools/testing/selftests/kselftest/ktap_helpers.sh" "$dir/$side/kselftest/"
	cp "$repo/$bench/test_bench_page_pool.sh" "$dir/$side/net/bench/"
	cp -r "$src/$bench/page_pool" "$dir/$side/net/bench/"
	make -C "$dir/$side/net/bench/page_pool" KDIR="$kdir" >"$dir/$side.build.log" 2>&1 ||
		die "the $side module does not build, see $dir/$side.build.log"
done

# shellcheck disable=SC2016 # expanded by the guest's bash
"$vmtest" -t current -D --kdir "$kdir" -- bash -c '
	dmesg -C
	insmod "$0/upstream/net/bench/page_pool/bench_page_pool.ko" "loops=$1"
	dmesg >"$0/upstream.log"
	rmmod bench_page_pool
	"$0/series/net/bench/test_bench_page_pool.sh" "loops=$1" >"$0/series.tap"' \
	"$dir" "$loops" >"$dir/boot.log" 2>&1 || die "the boot failed, see $dir/boot.log"
echo "measure.sh: $dir/upstream.log and $dir/series.tap, loops=$loops" >&2
"$repo/ab/verdict.py" --deterministic --base "$dir/upstream.log" --change "$dir/series.tap"
