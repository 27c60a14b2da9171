#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The runner's own logic, with stand-ins for QEMU and make (tests/runner/
# bin), no VM and no kernel: subtests' reports, the job sweep, -v and -s;
# 'vmtest.sh judge JOB' on canned consoles (every kind of kernel report,
# kmemleak's dump) and KTAP files (no plan, a short plan, an XFAIL);
# --dma, target files, the runner-only patches of the module; the arm64
# target (arm64.sh), the distro kernel (distro.sh), update-lock.sh
# (update_lock.sh). Hermetic (the unit tier): no network, an empty cache.
# Waits are tests/runner_timing's; phases that need a kernel source,
# tests/runner_tree's.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

STAGE=$TESTS_DIR/runner/stage.sh
work=$(mktemp -d "$OUT/runner.XXXXXX")
trap 'rm -rf "$work"' EXIT
# What a stand-in leaves running, should the runner fail to stop it.
export FAKE_SLEEP=$((100000 + $$))

beside "$TESTS_DIR/runner/arm64.sh"
beside "$TESTS_DIR/runner/distro.sh"
beside "$TESTS_DIR/runner/update_lock.sh"

# A script that stops early is not a smaller pass.
standin "$work/early.sh" 'echo "ok - one"' 'exit 3'
standin "$work/silent.sh" 'echo "# nothing"'
sub=$(subtests "$work/early.sh" "$work/silent.sh")
check "subtests: exit 3 after a passed check is a failed check" \
	grep -q '^not ok - early.sh: exits 0 or with a failed check' <<<"$sub"
check "subtests: a script that prints no check is a failed check" \
	grep -q '^not ok - silent.sh: reports its checks' <<<"$sub"
standin "$work/err.sh" 'echo "ok - one"' no_such_command_here
check "subtests: a shell error is passed on, for tests/run.sh to fail" \
	grep -qE '^/[^ ]+/err.sh: line 3: no_such_command_here: ' \
	<<<"$(subtests "$work/err.sh")"
# Every run sweeps the jobs: a day-old one goes, a kept one (--keep)
# and a new one stay.
mkdir -p "$work/jobs/"{old,kept,new}.x && touch "$work/jobs/kept.x/keep" &&
	touch -d '2 days ago' "$work/jobs/"{old,kept}.x
# shellcheck disable=SC2016 # that bash expands them
bash -c '. "$1/vmtest/lib/common.sh" && sweep_jobs "$2"' _ "$REPO" "$work/jobs"
check "jobs: a day-old job is deleted, a kept one and a new one stay" \
	test "$(cd "$work/jobs" && echo *)" = "kept.x new.x"
check "subtests in a subshell leave the group's own running ones be" \
	test -d "$SUBTEST_DIR" -a "${#SUBTEST_NAMES[@]}" -eq 3

# -v shows a step's output as it comes and keeps it in the step's log,
# for shell functions too.
stage verbose stepfn VMTEST_VERBOSE=1 FAKE_SLEEP=0
check "-v: a step that is a shell function succeeds" \
	grep -q '^rc=0 ' "$work/verbose.log"
check "-v: its output is shown and kept in its log" test "$(grep -lx \
	configuring "$work/verbose.log" "$work/verbose/step.log" | wc -l)" -eq 2

# 4. -s: QEMU gets the terminal (it sets it raw) and reads what is typed.
mkdir -p "$work/shell"
printf 'hello\n' | timeout 20 script -qec \
	"env SHELL_MODE=1 VMTEST_ACCEL=tcg FAKE_BOOTS=shell '$STAGE' boot '$work/shell'" \
	/dev/null >"$work/shell.log" 2>&1
check "-s: the guest reads the terminal (exit $?)" \
	grep -q 'guest read: hello' "$work/shell.log"

# 5. Verdicts on canned jobs (vmtest.sh judge JOB, lib/judge.py): a
# console of a booted guest whose job passed; each report appended to it
# fails the run.
# judged JOB: the judge's exit code, its words in JOB.log.
judged()
{
	[ -f "$1/qemu" ] || [ ! -d "$1" ] || echo rc=0 >"$1/qemu"
	"$VMTEST" judge "$1" >"$1.log" 2>&1
	echo $?
}
# judge NAME RC [CONSOLE-LINE...]: the code of a job whose guest exited RC.
judge()
{
	local job=$work/judge-$1 rc=$2

	shift 2
	mkdir -p "$job"
	printf '%s\n' "[    1.000000] Linux version 7.2.13" \
		"vmtest-initramfs: userspace started" \
		"ok 1 selftests: net/bench: test_bench_page_pool.sh" \
		"# WARNING: a test's own line is no kernel report" \
		"[    0.089123] RETBleed: WARNING: Spectre v2 mitigation leaves CPU vulnerable to RETBleed attacks, data leaks possible!" \
		"$@" >"$job/console.log"
	echo "$rc" >"$job/rc"
	judged "$job"
}
check "a clean console passes" test "$(judge clean 0)" = 0
check "a clean console, all skipped: 4" test "$(judge skip 4)" = 4
check "a failed job fails" test "$(judge failed 1)" = 1
# --attribute's profile: the run's verdict and judge's are one
judge profiled 0 >/dev/null
good='{"no-softirq-page_pool01": [100, 85.0, 1.0, {"page_pool_alloc_netmems": [14.0, 1.0], "page_pool_put_unrefed_netmem": [44.0, 1.0]}, null]}'
echo "$good" >"$work/judge-profiled/profile.json"
check "a job whose profile has the paths' calls passes" \
	test "$(judged "$work/judge-profiled")" = 0
echo "${good/page_pool_put_unrefed_netmem/other}" >"$work/judge-profiled/profile.json"
check "one whose page_pool test never puts its pages fails" \
	test "$(judged "$work/judge-profiled")" = 1
expect_grep "... saying what its path lacks" "$work/judge-profiled.log" \
	'no-softirq-page_pool01: its counted path has \^page_pool_put_unrefed_\(netmem\|page\)\$ 0\.000 calls/elem'
while IFS= read -r report; do
	check "fails the run: ${report#*] }" test "$(judge report 0 "$report")" = 1
done <<'REPORTS'
[   12.345678] WARNING: CPU: 1 PID: 310 at net/core/page_pool.c:1200 page_pool_release+0x1c/0x30
[   12.345678] BUG: KASAN: slab-use-after-free in page_pool_put_unrefed_netmem+0x3c/0x90
[   12.345678] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [insmod:310]
[   12.345678] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
[   12.345678] WARNING: possible circular locking dependency detected
[   12.345678] BUG: sleeping function called from invalid context at mm/page_alloc.c:4400
[   12.345678] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)
[   12.345678] UBSAN: array-index-out-of-bounds in net/core/page_pool.c:42:1
REPORTS
mkdir -p "$work/judge-kmemleak"
cat >"$work/judge-kmemleak/kmemleak" <<'DUMP'
unreferenced object 0xffff888004c1e000 (size 4096):
  comm "insmod", pid 310, jiffies 4294893123
  hex dump (first 32 bytes):
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................
  backtrace (crc 0):
    kmalloc_trace+0x25/0x60
    splat_init+0x1e/0x1000 [splat]
DUMP
check "a kmemleak dump fails the run" test "$(judge kmemleak 0)" = 1
check "the kmemleak report is shown" \
	grep -q 'kmemleak reported 1 suspected leak' "$work/judge-kmemleak.log"
check "the leaked object's backtrace is shown" \
	grep -q 'splat_init' "$work/judge-kmemleak.log"
job=$work/judge-noguest
mkdir -p "$job"
echo "vmtest-initramfs: userspace started" >"$job/console.log"
check "a guest that wrote no exit code fails" test "$(judged "$job")" = 1
expect_grep "and says so" "$job.log" 'the guest ended without a result'
printf 'rc=124\ntimeout=45\n' >"$job/qemu"
check "a guest killed at the timeout fails" test "$(judged "$job")" = 1
expect_grep "and says after how long" "$job.log" 'guest timed out after 45 s'
check "vmtest.sh judge: no such job: exit 2" test "$(judged "$work/none")" = 2

# 6. The host's verdict from the guest's KTAP files: selftests.sh with a
# run_kselftest.sh stand-in, then the job judged.
# guest_rc NAME KTAP-LINE...: the judge's code for an installation whose
# run_kselftest.sh prints these lines (its words in guest-NAME.log).
guest_rc()
{
	local dir=$work/guest-$1

	shift
	mkdir -p "$dir/install"
	standin "$dir/install/run_kselftest.sh" "cat <<'KTAP'" 'TAP version 13' \
		"$@" KTAP
	"$REPO/vmtest/guest/selftests.sh" install "$REPO" "net/bench ptr_ring" \
		"$dir" "$dir/install" >"$dir.guest.log" 2>&1
	echo $? >"$dir/rc"
	echo "vmtest-initramfs: userspace started" >"$dir/console.log"
	judged "$dir"
}
NB='selftests: net/bench: test_bench_page_pool.sh'
PR='selftests: ptr_ring: ptr_ring_test'
# t HEADER RESULT NESTED-LINE...: one test as runner.sh prints it.
t()
{
	echo "# timeout set to 45"
	echo "# $1"
	[ $# -le 2 ] || printf '# %s\n' "${@:3}"
	echo "$2"
}
# A test's own KTAP: two results that passed; all skipped.
ok2=('TAP version 13' '1..2' 'ok 1 one # perf=5.4ns' 'ok 2 two')
skip0=('TAP version 13' '1..0 # SKIP bench_page_pool.ko is for another kernel')
both()
{
	t "$NB" "ok 1 $NB" "${ok2[@]}"
	t "$PR" "${1:-ok 2 $PR}" "${@:2}"
}
check "guest: both passed: 0" \
	test "$(guest_rc pass "$(both "ok 2 $PR" "${ok2[@]}")")" = 0
check "guest: the KTAP is kept as a file" \
	grep -q "^ok 2 $PR" "$work/guest-pass/ktap/install.tap"
# The runner needs none of its callers' files: vmtest/ alone judges it.
cp -r "$REPO/vmtest" "$work/alone"
check "judge: the runner's directory alone, without ab/, judges it: 0" \
	"$work/alone/vmtest.sh" judge "$work/guest-pass"
check "guest: one failed: 1" test "$(guest_rc fail "$(both "not ok 2 $PR # exit=1" \
	'TAP version 13' '1..2' 'ok 1 one' 'not ok 2 two')")" = 1
check "guest: all skipped: 4" test "$(guest_rc skip "$(t "$NB" "ok 1 $NB # SKIP" \
	"${skip0[@]}"; t "$PR" "ok 2 $PR # SKIP" "${skip0[@]}")")" = 4
check "guest: one skipped, one passed: 0" test "$(guest_rc half "$(t "$NB" \
	"ok 1 $NB # SKIP" "${skip0[@]}"; t "$PR" "ok 2 $PR" "${ok2[@]}")")" = 0
check "guest: a target without a result: 1" \
	test "$(guest_rc missing "$(t "$NB" "ok 1 $NB" "${ok2[@]}")")" = 1
# Each test is judged by its own KTAP (the arm64 guest that got an x86
# ptr_ring_test: a shell's syntax error, exit 2, kselftest's XFAIL).
check "guest: a test that prints no KTAP fails: 1" \
	test "$(guest_rc noktap "$(both "ok 2 $PR" 'ran, said nothing')")" = 1
expect_grep "guest: says which test printed no KTAP" "$work/guest-noktap.log" \
	'^vmtest: KTAP of ptr_ring: ptr_ring_test: printed no KTAP plan and no result$'
check "guest: results without a plan (KTAP allows it) pass: 0" \
	test "$(guest_rc noplan "$(both "ok 2 $PR" 'TAP version 13' 'ok 1 one' \
	'ok 2 two')")" = 0
check "guest: a short plan fails: 1" test "$(guest_rc short "$(both "ok 2 $PR" \
	'TAP version 13' '1..3' 'ok 1 one' 'ok 2 two')")" = 1
expect_grep "guest: says the plan is short" "$work/guest-short.log" \
	'ptr_ring_test: planned 3 results, reported 2'
check "guest: an XFAIL exit (2) fails: 1" test "$(guest_rc xfail "$(both \
	"ok 2 $PR # XFAIL" './ptr_ring_test: line 1: syntax error: unexpected ")"')")" = 1
expect_grep "guest: says why the XFAIL fails" "$work/guest-xfail.log" \
	'ptr_ring_test: exited 2 \(XFAIL\), which no test of the series gives'
check "guest: a nested XFAIL without a reason fails: 1" test "$(guest_rc \
	xfail-nested "$(both "ok 2 $PR" 'TAP version 13' '1..2' 'ok 1 one' \
	'ok 2 two # XFAIL')")" = 1
check "guest: a nested XFAIL with its reason passes: 0" test "$(guest_rc \
	xfail-reason "$(both "ok 2 $PR" 'TAP version 13' '1..2' 'ok 1 one' \
	'ok 2 two # XFAIL needs 4 CPUs')")" = 0
check "guest: a failure its exit code hides fails: 1" test "$(guest_rc \
	hidden "$(both "ok 2 $PR" 'TAP version 13' '1..2' 'ok 1 one' \
	'not ok 2 two')")" = 1
check "guest: an unknown way to run: 1" \
	test "$("$REPO/vmtest/guest/selftests.sh" sideways "$REPO" x "$work/g" \
		"$work/g" >/dev/null 2>&1; echo $?)" = 1

# A job --stop-after prepared has its run's 0, not "the guest did not run"
mkdir -p "$work/prepared"
echo 'target=current result=prepared rc=0 seconds=3 accel=auto phase=tree' \
	>"$work/prepared/result"
check "judge: a prepared job has its run's 0" \
	test "$("$VMTEST" judge "$work/prepared" 2>"$work/prepared.log"; echo $?)" = 0
expect_grep "... saying it was not booted" "$work/prepared.log" \
	'prepared up to tree \(--stop-after\), not booted'

# A run that passes with a test skipped whole says which in its summary
# row (judge.py --skipped, on a canned job).
mkdir -p "$work/skipjob/ktap"
printf '%s\n' 'TAP version 13' '1..2' "ok 1 $NB # SKIP" "ok 2 $PR" \
	>"$work/skipjob/ktap/install.tap"
note() { python3 "$REPO/vmtest/lib/judge.py" --skipped "$work/skipjob"; }
check "the summary row names a test a passing run skipped" \
	test "$(note)" = " (skipped: ${NB#selftests: })"
sed -i 's/ # SKIP$//' "$work/skipjob/ktap/install.tap"
check "... and nothing when none was" test -z "$(note)"

# --dma: swiotlb=force, or q35 with VT-d first and the edu device and
# intel_iommu=on.
stage dma-swiotlb boot FAKE_BOOTS=pass VM_DMA=swiotlb
check "--dma swiotlb: swiotlb=force on the command line" \
	grep -q -- 'swiotlb=force' "$work/dma-swiotlb/qemu.args"
stage dma-iommu boot FAKE_BOOTS=pass VM_DMA=iommu
check "--dma iommu: q35, intel-iommu before any PCI device, the edu device" \
	grep -q -- '^-M q35 -device intel-iommu -device edu ' "$work/dma-iommu/qemu.args"
check "--dma iommu: intel_iommu=on on the command line" \
	grep -q -- 'intel_iommu=on' "$work/dma-iommu/qemu.args"
stage append boot FAKE_BOOTS=pass VM_APPEND="skew_tick=1 nohz_full=1"
check "--append: its words end the guest's command line, before the init's" \
	grep -q -- 'skew_tick=1 nohz_full=1 -- vmtest_init=' "$work/append/qemu.args"
expect_rc "an option without its value: exit 2" 2 "$work/novalue.log" \
	"$REPO/vmtest/vmtest.sh" --stop-after fetch -t
expect_grep "... naming it, no shell error" "$work/novalue.log" '^vmtest: error: -t needs a value$'
expect_rc "--dma sideways: exit 2" 2 "$work/dma-bad.log" \
	"$REPO/vmtest/vmtest.sh" --dma sideways
expect_grep "... naming the choices" "$work/dma-bad.log" 'direct, swiotlb or iommu'

# apply_all DIR PATCH...: the patches applied in order, as the runner does
apply_all()
{
	local d=$1 f

	shift
	for f; do apply_patch "$d" "$f" || return; done
}
# Every runner-only patch of the module (--dma iommu's among them)
# applies without fuzz, alone and then under -D's and --attribute's, in
# the order build_module_copy applies them
g=$REPO/vmtest/guest
for p in "$g"/*.patch; do
	for after in '' "$g/deterministic.patch $g/insn-markers.patch"; do
		[[ " $after " != *" $p "* ]] || continue
		read -ra q <<<"$after"
		d=$(mktemp -d "$work/patch.XXXXXX")
		cp -r "$REPO/tools/testing/selftests/net/bench/." "$d/"
		check "${p##*/}${after:+ then the -D and --attribute patches} applies without fuzz" \
			apply_all "$d" "$p" "${q[@]}"
	done
done

# Targets are data, one file each in vmtest/targets/: a new one gets its
# architecture's refusals; a bad file or name is the runner's error.
cp -r "$REPO/vmtest" "$work/vt"
printf '# an arm64 build\narch=arm64\nkernel=build\n' >"$work/vt/targets/arm64b"
printf 'arch=sparc\nkernel=build\n' >"$work/vt/targets/bad"
expect_rc "a new arm64 target file gets arm64's refusals: -D, exit 2" 2 \
	"$work/t-new.log" "$work/vt/vmtest.sh" -t arm64b -D &&
	expect_grep "... naming the target" "$work/t-new.log" \
		'not supported for -t arm64b$'
expect_rc "a target file with an unknown architecture: exit 2" 2 \
	"$work/t-bad.log" "$work/vt/vmtest.sh" -t bad &&
	expect_grep "... naming the file and the key" "$work/t-bad.log" \
		'vt/targets/bad: arch= must be x86_64 or arm64'
expect_rc "an unknown target: exit 2" 2 "$work/t-none.log" "$VMTEST" -t nowhere &&
	expect_grep "... listing the targets" "$work/t-none.log" \
		"no such target: 'nowhere' \(vmtest/targets/ has: arm64 current distro\)"
expect_rc "a target named by a path: exit 2" 2 "$work/t-path.log" \
	"$VMTEST" -t ../targets/current

subtests_report
tests_done runner
