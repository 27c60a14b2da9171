#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run inside a guest by tests/figures/run_tests.sh and
# tests/determinism/run_tests.sh (vmtest.sh -- this script), from the top
# of a tree where the selftests are built. Each STEP runs the benchmark
# driver once and leaves WORK/STEP.json, .tap and .rc (the driver's exit
# code) for the host to judge:
#
#   a1, b1, a2 ...  the tree's driver and module (sides a and b: A/A
#                   runs alternated so that drift falls on both, or
#                   one kernel's boots and another's)
#   slow       the slowed copy in WORK/slow, gated on WORK/a1.json
#   slowxfail  the same with KSFT_MACHINE_SLOW=yes, fast paths only
#
# usage: guest.sh WORK STEP...
# The environment gives the driver's options: FLAGS (-f), REPS (-r;
# REPS_SLOW for the slowed steps, default REPS) and
# SIZE ("-l LOOPS").

work=$1
shift
tree_bench=$PWD/tools/testing/selftests/net/bench
slow_bench=$work/slow/tools/testing/selftests/net/bench
flags=${FLAGS:?}
read -ra size <<<"${SIZE:?}"

for step in "$@"; do
	case $step in
	[ab][1-9]) cmd=("$tree_bench/test_bench_page_pool.sh" -f "$flags") ;;
	slow) cmd=("$slow_bench/test_bench_page_pool.sh" -f "$flags"
		   -b "$work/a1.json") ;;
	slowxfail) cmd=(env KSFT_MACHINE_SLOW=yes
			"$slow_bench/test_bench_page_pool.sh" -f 0x12
			-b "$work/a1.json") ;;
	*) echo "guest.sh: unknown step '$step'" >&2; exit 2 ;;
	esac
	echo "guest.sh: $step"
	reps=${REPS:?}
	[ "${step#slow}" = "$step" ] || reps=${REPS_SLOW:-$REPS}
	"${cmd[@]}" "${size[@]}" -r "$reps" -j "$work/$step.json" \
		>"$work/$step.tap" 2>&1
	echo $? >"$work/$step.rc"
done
