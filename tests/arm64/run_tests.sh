#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The arm64 target, end to end (on request: tier 'all'; a cold run cross-
# builds a kernel and boots it under full emulation): 'vmtest.sh -t
# arm64' passes with every module subtest and ptr_ring_test reported in
# its KTAP; the guest's counter frequency is found on its console; a
# second run rebuilds nothing.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

job=$VMTEST_CACHE/jobs/arm64
log=$OUT/arm64-first.log
start=$(date +%s)
expect_rc "vmtest.sh -t arm64 passes" 0 "$log" "$VMTEST" -t arm64
echo "# run: $(($(date +%s) - start)) s"
tr -d '\r' <"$log" | grep -E 'vmtest-guest: .* took|done in|summary|vmtest:  ' |
	sed 's/^/# phase: /'

check "the job's result is pass, under TCG" \
	grep -q '^target=arm64 result=pass .* accel=tcg ' "$job/result"
tap=$job/ktap/install.tap
subtests_passed "every page_pool subtest passed on arm64" "$tap"
expect_grep "ptr_ring_test passed on arm64" "$tap" \
	'^ok [0-9]+ selftests: ptr_ring: ptr_ring_test$'
expect_grep "test_bench_page_pool.sh passed on arm64" "$tap" \
	'^ok [0-9]+ selftests: net/bench: test_bench_page_pool.sh$'
expect_grep "the guest's counter is the arm64 generic timer, its rate shown" \
	"$job/console.log" '^vmtest-guest: counter: arch_timer: .* running at [0-9.]+MHz'
expect_grep "the summary names the counter and says the figures are emulated" \
	"$log" 'arm64 +pass .*generic timer ticks at [0-9.]+MHz, emulated'
tr -d '\r' <"$job/console.log" | grep -m 1 '^vmtest-guest: counter:' |
	sed 's/^/# /'

start=$(date +%s)
expect_rc "vmtest.sh -t arm64 --stop-after build again succeeds" 0 \
	"$OUT/arm64-again.log" "$VMTEST" -t arm64 --stop-after build
echo "# prepare again: $(($(date +%s) - start)) s"
expect_no_grep "preparing again rebuilds nothing" "$OUT/arm64-again.log" \
	'building kernel|downloading|unpacking|extracting|linking a work copy|configuring'

tests_done arm64
