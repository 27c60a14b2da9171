#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The arm64 target's judgement and refusals, with the stand-in QEMU and
# no VM: an arm64 guest boots 'virt' on its PL011 console under TCG (no
# KVM probe on an x86 host), an oops on its console fails the run though
# the tests passed, and -t arm64 refuses at once, saying what is missing,
# when it cannot run.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d "$OUT/arm64.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Each guest: run_vm of an arm64 guest the stand-in plays (stage NAME
# boot FAKE_TARGET=arm64 ...), its messages, then 'rc=N boots=N'.
# 1. A guest that passes: the arm64 machine, console and emulation, and
# no KVM probe even where /dev/kvm exists and hangs.
touch "$work/kvm-dev"
start=$SECONDS
stage pass boot FAKE_TARGET=arm64 VMTEST_ACCEL=auto KVM_DEV="$work/kvm-dev" FAKE_KVM=hang \
	KVM_PROBE_SECS=20 FAKE_BOOTS=pass
args=$work/pass/qemu.args
check "arm64: a passing guest passes" grep -q '^rc=0 boots=1$' "$work/pass.log"
check "arm64: qemu-system-aarch64 -M virt under TCG, without a KVM probe ($((SECONDS - start)) s)" \
	grep -q -- '-M virt -accel tcg,thread=multi -cpu max' "$args"
check "arm64: the console is the PL011's (ttyAMA0)" \
	grep -q 'console=ttyAMA0' "$args"
check "arm64: the root is the guest's own, not the host's" \
	grep -q "path=$work/pass/root," "$args"

# 2. An oops on an arm64 console fails the run, though the job passed.
stage oops boot FAKE_TARGET=arm64 FAKE_BOOTS=oops-arm64
check "arm64: an oops fails the run, the tests' pass notwithstanding" \
	grep -q '^rc=1 boots=1$' "$work/oops.log"
check "arm64: the oops is shown" \
	grep -q 'the kernel reported 2 problem line' "$work/oops.log"
check "arm64: the oops's pc is shown" \
	grep -q 'pc : bench_page_pool_init' "$work/oops.log"

# 3. Refusals, before any work.
expect_rc "arm64: --accel kvm is refused on an x86 host" 2 \
	"$work/kvm.log" "$VMTEST" -t arm64 --accel kvm --cache "$work/cache" &&
	expect_grep "arm64: --accel kvm: says why" "$work/kvm.log" \
		'arm64 guest cannot run under KVM on this x86_64 machine'

for opt in "--how tree" -D; do
	# shellcheck disable=SC2086 # an option and its value
	expect_rc "arm64: $opt is refused" 2 "$work/opt.log" \
		"$VMTEST" -t arm64 $opt --cache "$work/cache" &&
		expect_grep "arm64: $opt: says why" "$work/opt.log" \
			'(no make or compiler|not an instruction count)'
done

# A machine without the cross compiler and QEMU's arm emulator, and a
# user who cannot install them: a PATH without them, an 'id' that is not
# root's. (A record query of fetch or tree needs neither.)
path_without "$work/path" 'aarch64-linux-gnu-*' qemu-system-aarch64 id
standin "$work/path/id" 'echo 1000'
expect_rc "arm64: missing tools are refused" 2 "$work/tools.log" \
	env PATH="$work/path" "$VMTEST" -t arm64 --stop-after build \
	--cache "$work/cache" &&
	expect_grep "arm64: the missing packages are named" "$work/tools.log" \
		'missing packages: ([a-z0-9.+-]+ )*qemu-system-arm gcc-aarch64-linux-gnu( [a-z0-9.+-]+)* \(run as root'
expect_no_grep "arm64: the refusal touches nothing" "$work/tools.log" \
	'apt-get|fetching|downloading|linking'

tests_done arm64
