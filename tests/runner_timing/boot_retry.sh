#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The runner's judgement of a boot, with a stand-in QEMU that plays back
# consoles: a kernel that crashes before userspace starts is booted again
# (and each crash shown), at most three times; a crash once userspace ran
# fails the run at once. No VM needed.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d "$OUT/boot-retry.XXXXXX")
trap 'rm -rf "$work"' EXIT

# boot NAME PLAN: run_vm with the stand-in playing PLAN; prints its
# messages, then 'rc=N boots=N'.
boot()
{
	mkdir -p "$work/$1"
	FAKE_BOOTS=$2 VMTEST_ACCEL=tcg "$TESTS_DIR/runner/stage.sh" boot \
		"$work/$1" 2>&1
}

out=$(boot once 'crash pass')
check "a crash while booting is booted again and the run passes" \
	grep -q '^rc=0 boots=2$' <<<"$out"
check "the crash while booting is shown" \
	grep -q 'crashed while booting, before any test ran (boot 1 of 3)' <<<"$out"
check "the crash while booting shows the kernel's report" \
	grep -q 'RIP: 0010:sched_clock_cpu' <<<"$out"
check "the crashed boot's console is kept" test -s "$work/once/console.boot-1.log"

out=$(boot always 'crash crash crash pass')
check "a kernel that always crashes booting fails after 3 boots" \
	grep -q '^rc=1 boots=3$' <<<"$out"
check "giving up is said" grep -q 'giving up' <<<"$out"

out=$(boot after 'oops-after pass')
check "a crash once userspace ran fails without booting again" \
	grep -q '^rc=1 boots=1$' <<<"$out"
check "a crash once userspace ran is shown" \
	grep -q 'the kernel reported .* problem line' <<<"$out"

tests_done boot_retry
