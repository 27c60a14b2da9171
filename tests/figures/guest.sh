#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run inside a guest by tests/figures/run_tests.sh and
# tests/determinism/run_tests.sh (vmtest.sh -- this script), from the top
# of a tree where the selftests are built. Each STEP runs the benchmark
# driver REPS times and leaves WORK/STEP.tap (its KTAP), .rc (0 when
# every run passed) and .json: the module's lines, which the driver
# shows as diagnostics, read by the tooling's ab/bench_compare.py, each
# run one repetition:
#
#   a1, b1, a2 ...  the tree's driver and module (sides a and b: A/A
#                   runs alternated so that drift falls on both, or
#                   one kernel's boots and another's)
#   slow            the slowed copy in WORK/slow (REPS_SLOW runs)
#
# usage: guest.sh WORK STEP...
# The environment gives the module's run_flags (FLAGS) and loops (LOOPS);
# DETERMINISTIC=1 says the counts are instructions (vmtest.sh -D).

work=$1
shift
tree_bench=$PWD/tools/testing/selftests/net/bench
cmp=$(dirname "$(realpath "$0")")/../../ab/bench_compare.py

for step in "$@"; do
	case $step in
	[ab][1-9]) bench=$tree_bench reps=${REPS:?} ;;
	slow) bench=$work/slow/tools/testing/selftests/net/bench
	      reps=${REPS_SLOW:-$REPS} ;;
	*) echo "guest.sh: unknown step '$step'" >&2; exit 2 ;;
	esac
	echo "guest.sh: $step"
	rc=0
	for _ in $(seq "$reps"); do
		"$bench/test_bench_page_pool.sh" "run_flags=${FLAGS:?}" \
			"loops=${LOOPS:?}" || rc=1
	done >"$work/$step.tap" 2>&1
	echo "$rc" >"$work/$step.rc"
	sed -n 's/^# //p' "$work/$step.tap" >"$work/$step.log"
	"$cmp" --report "$work/$step.log" ${DETERMINISTIC:+--deterministic} \
		--tests "$(sed -n 's/^ok [0-9]* \([^ ]*\) # perf=.*/\1/p' \
			"$work/$step.tap" | awk '!seen[$0]++' | xargs)" \
		--json "$work/$step.json" >"$work/$step.report" 2>&1
done
