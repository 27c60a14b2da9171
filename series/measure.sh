#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The cover letter's results, measured: two deterministic boots (vmtest.sh
# -D: QEMU -icount, instruction counts that repeat from boot to boot) of
# the same built 7.x kernel, one loading the base tree's own
# bench_page_pool.ko (upstream's, built here against that kernel) and
# printing its "Type:" lines, one running the series' selftests; then
# results.py --before JOB --fill series/net-next/0000-cover-letter.patch
# JOB writes the table into the committed cover letter (commit it; then
# series.sh send).
#
# usage: series/measure.sh [--kdir DIR] [--tree DIR]
#   --kdir DIR  the built kernel to boot (default: the runner's build of
#               the current target, 'vmtest.sh -t current --stop-after
#               build', which builds it when it is missing)
#   --tree DIR  the pristine tree the series applies to (default: the
#               runner's pinned source); upstream's module is its
#               tools/testing/selftests/net/bench/page_pool
#
# Upstream's module is built in VMTEST_CACHE/upstream-bench, which the
# guest can read (it replaces /tmp with its own).

set -eu
self=$(realpath "$0")
series=$(dirname "$self")
vmtest=$(dirname "$series")/vmtest/vmtest.sh
export VMTEST_CACHE=${VMTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pp-bench-vmtest}

usage()
{
	sed -n '3,20p' "$self" | cut -c3- >&2
	exit 2
}

die()
{
	echo "measure.sh: $*" >&2
	exit 1
}

kdir='' tree=''
while [ $# -gt 0 ]; do
	case $1 in
	--kdir) kdir=${2:?}; shift 2 ;;
	--tree) tree=${2:?}; shift 2 ;;
	-h | --help) usage ;;
	*) echo "measure.sh: unknown argument $1" >&2; usage ;;
	esac
done

# record PHASE KEY: KEY's value in the runner's record of the current
# target after PHASE (src= after fetch, kdir= after build).
record()
{
	"$vmtest" -t current --stop-after "$1" |
		sed -n "s/^current .*\\b$2=\\([^ ]*\\).*/\\1/p"
}
[ -n "$tree" ] || tree=$(record fetch src)
[ -n "$kdir" ] || kdir=$(record build kdir)
[ -f "$tree/tools/testing/selftests/net/bench/page_pool/Makefile" ] ||
	die "$tree has no tools/testing/selftests/net/bench/page_pool"
[ -f "$kdir/Module.symvers" ] || die "$kdir is no built kernel"
tree=$(realpath "$tree")
kdir=$(realpath "$kdir")

# boot LOG VMTEST-ARGS...: a deterministic boot of kdir; prints its job.
boot()
{
	local log=$1

	shift
	"$vmtest" -t current -D --kdir "$kdir" "$@" >"$log" 2>&1 ||
		die "the boot failed, see $log"
	sed -n 's/^vmtest: current: results in //p' "$log" | tail -n 1
}

# Upstream's module, with its own Makefile, against the kernel booted.
up=$VMTEST_CACHE/upstream-bench/$(basename "$kdir")
rm -rf "$up" && mkdir -p "$up"
cp -r "$tree/tools/testing/selftests/net/bench/page_pool" "$up/"
make -C "$up/page_pool" KDIR="$kdir" >"$up/build.log" 2>&1 ||
	die "upstream's module does not build, see $up/build.log"
ko=$up/page_pool/bench_page_pool.ko

# Upstream's script reads 'dmesg | tail'; its Type: lines are the figures.
before=$(boot "$up/boot.log" -- bash -c "insmod '$ko' && dmesg | grep 'Type:'")
[ -n "$before" ] || die "no job in $up/boot.log"
after=$(boot "$up/series-boot.log")
[ -n "$after" ] || die "no job in $up/series-boot.log"
echo "measure.sh: upstream's module in $before, the series in $after" >&2

cover=$series/net-next/0000-cover-letter.patch
python3 "$series/results.py" --before "$before" --fill "$cover" "$after"
echo "measure.sh: the table is in $cover" >&2
