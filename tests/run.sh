#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the project's tests: every tests/*/run_tests.sh, in order, then
# print the totals as 'N passed, N failed'. Exit 1 when any check failed.
#
# usage: tests/run.sh [GROUP...]   (default: all groups, e.g. static vm)

set -u
cd "$(dirname "$(realpath "$0")")" || exit 1

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(static lay_series module driver ptr_ring compare figures vm)
out=${TESTS_OUT:-$PWD/out}
mkdir -p "$out"

for g in "${groups[@]}"; do
	[ -x "$g/run_tests.sh" ] || { echo "not ok - $g: no such test group"; continue; }
	echo "# ---- $g ----"
	start=$(date +%s)
	"$g/run_tests.sh" 2>&1
	echo "# $g took $(($(date +%s) - start)) s"
done | tee "$out/run.log"

passed=$(grep -c '^ok - ' "$out/run.log")
failed=$(grep -c '^not ok - ' "$out/run.log")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
