#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The runner's logic that takes seconds of waiting, with tests/runner's
# stand-ins for QEMU and make: boots retried after an early crash, a KVM
# that cannot run a guest (TCG instead), guests that hang, Ctrl-C and
# SIGTERM at each stage; a run's job and result (state.sh), Ctrl-C on
# tests/run.sh (interrupt_run.sh), apt's locks (apt_lock.sh). Hermetic:
# no network, an empty cache.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

# What the checks find processes with (a minimal root lacks it)
need_tools "pgrep procps"
STAGE=$TESTS_DIR/runner/stage.sh
work=$(mktemp -d "$OUT/runner_timing.XXXXXX")
trap 'rm -rf "$work"' EXIT
# What a stand-in leaves running, should the runner fail to stop it.
export FAKE_SLEEP=$((100000 + $$))

# A kernel that crashes before userspace starts is booted again (and each
# crash shown), at most three times; a crash once userspace ran fails the
# run at once.
boot_retry()
{
	stage once boot FAKE_BOOTS='crash pass'
	expect_grep "a crash while booting is booted again and the run passes" \
		"$work/once.log" '^rc=0 boots=2$'
	expect_grep "the crash while booting is shown" "$work/once.log" \
		'crashed while booting, before any test ran \(boot 1 of 3\)'
	expect_grep "the crash while booting shows the kernel's report" \
		"$work/once.log" 'RIP: 0010:sched_clock_cpu'
	check "the crashed boot's console is kept" test -s "$work/once/console.boot-1.log"

	stage always boot FAKE_BOOTS='crash crash crash pass'
	expect_grep "a kernel that always crashes booting fails after 3 boots" \
		"$work/always.log" '^rc=1 boots=3$'
	expect_grep "giving up is said" "$work/always.log" 'giving up'

	stage after boot FAKE_BOOTS='oops-after pass'
	expect_grep "a crash once userspace ran fails without booting again" \
		"$work/after.log" '^rc=1 boots=1$'
	expect_grep "a crash once userspace ran is shown" "$work/after.log" \
		'the kernel reported .* problem line'
}
beside boot_retry
subtests "$TESTS_DIR"/runner_timing/{state,interrupt_run,apt_lock}.sh

# 1. Acceleration: a /dev/kvm whose guest prints nothing means TCG.
touch "$work/kvm-dev"
start=$SECONDS
stage kvm boot VMTEST_ACCEL=auto KVM_DEV="$work/kvm-dev" FAKE_KVM=hang \
	KVM_PROBE_SECS=3 FAKE_BOOTS=pass
secs=$((SECONDS - start))
check "a KVM that cannot run a guest: TCG, and the run passes" \
	grep -q '^rc=0 ' "$work/kvm.log"
check "the fallback is said in one line" \
	grep -q 'cannot run a guest .* using TCG' "$work/kvm.log"
check "the guest ran under TCG" grep -q -- '-accel tcg' "$work/kvm/qemu.args"
check "the job keeps the QEMU command line" \
	grep -q -- "^qemu-system-x86_64 .*-kernel /boot/fake-kernel " "$work/kvm/qemu.cmd"
check "the fallback took under 15 s ($secs s)" test "$secs" -lt 15
stage kvm-forced boot VMTEST_ACCEL=kvm FAKE_BOOTS=pass
check "--accel kvm is obeyed without a probe" \
	grep -q -- '-accel kvm' "$work/kvm-forced/qemu.args"

# 2. Guests that hang.
start=$SECONDS
stage no-userspace boot FAKE_BOOTS=hang VMTEST_BOOT_TIMEOUT=3
secs=$((SECONDS - start))
check "a guest that never reaches userspace fails ($secs s)" \
	grep -q '^rc=1 boots=1$' "$work/no-userspace.log"
check "it is said to have not reached userspace" \
	grep -q 'did not reach userspace' "$work/no-userspace.log"
stage slow boot FAKE_BOOTS=hang-after VM_TIMEOUT=3
check "a guest past its time is killed and said so" \
	grep -q 'guest timed out after 3 s' "$work/slow.log"
check "no process is left by a killed guest" no_process "sleep $FAKE_SLEEP"
pkill -f "sleep $FAKE_SLEEP"

# 3. Interrupts: SIGNAL to the stage's process group (Ctrl-C) or to the
# runner alone (kill), at each stage.
# interrupt NAME STAGE SIGNAL WHOM [VAR=VALUE...]
interrupt()
{
	local name=$1 what=$2 sig=$3 whom=$4 pid rc start

	shift 4
	mkdir -p "$work/$name"
	foreground env VMTEST_ACCEL=tcg "$@" "$STAGE" "$what" "$work/$name" \
		>"$work/$name.log" 2>&1
	pid=$!
	sleep 3
	start=$SECONDS
	signal_wait "$whom" "$sig" "$pid"
	rc=$?
	check "$name: stops within 5 s, exit $rc" \
		test $((SECONDS - start)) -le 5 -a "$rc" -ge 128
	check "$name: no process left" no_process "sleep $FAKE_SLEEP"
	pkill -f "sleep $FAKE_SLEEP"
}
interrupt "Ctrl-C while building" step INT group
interrupt "SIGTERM while building" step TERM runner
interrupt "Ctrl-C while configuring (a function)" stepfn INT group
interrupt "Ctrl-C while booting" boot INT group FAKE_BOOTS=hang
interrupt "Ctrl-C while testing" boot INT group FAKE_BOOTS=hang-after
interrupt "SIGTERM while testing" boot TERM runner FAKE_BOOTS=hang-after

tests_done runner_timing
