#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run inside a guest by tests/figures/run_tests.sh (vmtest.sh -- this
# script). Each STEP runs the driver REPS times, each run's KTAP a sample
# of its own in WORK/STEP-N.tap (N counts on over the STEP's occurrences
# and boots); WORK/STEP.rc is 0 while every run of STEP passed.
#   a, b   the job's installed driver and module (built for the booted
#          kernel, not a stale one of the tree): A/A runs, alternated so
#          that drift falls on both, or one boot's and another's
#   slow   the slowed copy in WORK/slow (REPS_SLOW runs)
# usage: guest.sh WORK STEP...; FLAGS and LOOPS: the module's run_flags
# and loops.

work=$1
shift
job_bench=${vmtest_job:?not in a vmtest guest}/install/net/bench

for step in "$@"; do
	case $step in
	[ab]) bench=$job_bench reps=${REPS:?} ;;
	slow) bench=$work/slow/tools/testing/selftests/net/bench
	      reps=${REPS_SLOW:-$REPS} ;;
	*) echo "guest.sh: unknown step '$step'" >&2; exit 2 ;;
	esac
	echo "guest.sh: $step"
	[ -f "$work/$step.rc" ] || echo 0 >"$work/$step.rc"
	n=0
	for _ in $(seq "$reps"); do
		while [ -e "$work/$step-$((++n)).tap" ]; do :; done
		"$bench/test_bench_page_pool.sh" "run_flags=${FLAGS:?}" \
			"loops=${LOOPS:?}" >"$work/$step-$n.tap" 2>&1 ||
			echo 1 >"$work/$step.rc"
	done
done
