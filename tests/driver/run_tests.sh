#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kselftest driver test_bench_page_pool.sh without a kernel: a copy
# whose kernel paths (/dev/kmsg, /proc/cmdline, CPU vulnerabilities) point
# into a scratch directory runs with tests/driver/fake/'s insmod, dd, rmmod
# and modinfo, which print the module's lines. Checked, with the pinned
# 7.x tree's ktap_helpers.sh and 6.12's: the KTAP (a "# perf=" case a
# datapoint in the module's order, no plan, its other lines as diagnostics
# before them, kunit.py parses it), the cases a timeout leaves, busybox's
# applets, the exit codes (0; 1 with "not ok"; 4 when all is skipped), the
# skips, the parameters passed on, the driver's size.

# shellcheck disable=SC2016 # bash -c scripts read their own arguments
set -u

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

# What the checks find processes with (a minimal root lacks it)
need_tools "pgrep procps" "busybox busybox"
KSRC=${KSRC:-$(pinned_source)}
# 6.12's ktap_helpers.sh too: the distro kernel's tree
KSRC_612=$(debian_source linux-source-6.12)
DRIVER=$REPO/tools/testing/selftests/net/bench/test_bench_page_pool.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/driver_tests.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

n=$(wc -l <"$DRIVER")
check "test_bench_page_pool.sh has $n lines (at most 160)" test "$n" -le 160
expect_no_grep "the driver has no testbed modes" "$DRIVER" \
	'BENCH_MODE|BENCH_DETERMINISTIC|\.py|nproc'

# setup HELPERS: the fake tree under $tmp/t, with HELPERS' ktap_helpers.sh
setup()
{
	local sel=$tmp/t/sel f=$tmp/t/fake

	rm -rf "$tmp/t"
	mkdir -p "$sel/net/bench/page_pool" "$sel/kselftest" "$f/vulnerabilities"
	cp "$1" "$sel/kselftest/ktap_helpers.sh"
	: >"$sel/net/bench/page_pool/bench_page_pool.ko"
	sed -e "s|/dev/kmsg|$f/kmsg|g" -e "s|/proc/cmdline|$f/cmdline|g" \
	    -e "s|/sys/devices/system/cpu/vulnerabilities|$f/vulnerabilities|g" \
		"$DRIVER" >"$sel/net/bench/test_bench_page_pool.sh"
	chmod +x "$sel/net/bench/test_bench_page_pool.sh"
	echo "BOOT_IMAGE=/boot/vmlinuz-7.3.0 console=ttyS0 ro" >"$f/cmdline"
	echo "Not affected" >"$f/vulnerabilities/meltdown"
	echo "Mitigation: Retpolines" >"$f/vulnerabilities/spectre_v2"
	# A line of an earlier run, which is not this run's
	printf '%s\n' "<6>bench_page_pool: Type:for_loop Per elem: 9.000 cycles(tsc) 3.000 ns (step:0)" \
		>"$f/kmsg"
}

# run NAME RC [ENV=VALUE...] -- [ARGS...]: the fake driver's output in
# $tmp/NAME.out (named by $o), its exit code in $tmp/NAME.rc (checked to
# be RC unless that is -), insmod's arguments in $tmp/NAME.args
run()
{
	local name=$1 want=$2 envs=()

	o=$tmp/$name.out
	shift 2
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	rm -f "$tmp/t/fake/args"
	env FAKE="$tmp/t/fake" PATH="$TESTS_DIR/driver/fake:$PATH" "${envs[@]}" \
		"$tmp/t/sel/net/bench/test_bench_page_pool.sh" "$@" \
		>"$tmp/$name.out" 2>&1
	echo $? >"$tmp/$name.rc"
	cat "$tmp/t/fake/args" >"$tmp/$name.args" 2>/dev/null
	[ "$want" = - ] || expect_exit "$name" "$want"
}

# expect_exit NAME RC
expect_exit()
{
	local rc

	rc=$(cat "$tmp/$1.rc")
	if [ "$rc" -eq "$2" ]; then
		ok "$1: exit $2"
	else
		not_ok "$1: exit $2" "exit $rc" "$(cat "$tmp/$1.out")"
	fi
}

# kunit_parses NAME N: kunit.py reads N cases and finds the KTAP sound
kunit_parses()
{
	(cd "$tmp" && python3 "$KSRC/tools/testing/kunit/kunit.py" parse \
		"$tmp/$1.out") >"$tmp/$1.kunit" 2>&1
	expect_grep "$1: kunit.py parses $2 cases" "$tmp/$1.kunit" \
		"Testing complete\. Ran $2 tests"
	expect_no_grep "$1: ... with no error" "$tmp/$1.kunit" '\[ERROR\]|crashed'
}

for helpers in "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh" \
	       "$KSRC_612/tools/testing/selftests/kselftest/ktap_helpers.sh"; do
	[ -f "$helpers" ] || { not_ok "ktap_helpers.sh of a runner source" "none at $helpers"; continue; }
	v=$(basename "${helpers%%/tools/*}")
	v=${v#linux-source-}
	v=${v%%-*}
	setup "$helpers"

	run "$v-default" 0 --
	expect_no_grep "$v-default: no plan line (cases come as they are read)" \
		"$o" '^1\.\.'
	c=$(grep -cE '^ok [0-9]+ [a-z_0-9-]+ # perf=[0-9]+\.[0-9]+ns$' "$o")
	check "$v-default: 13 'ok N name # perf=<decimal>ns' lines ($c)" test "$c" -eq 13
	expect_grep "$v-default: upstream's names and the module's ns figure" "$o" \
		'^ok 4 no-softirq-page_pool01 # perf=5\.400ns$'
	expect_grep "$v-default: a case per cross-CPU row, up to 3 on 4 CPUs" "$o" \
		'^ok 13 cross_cpu_return_3cpu # perf=130\.000ns$'
	check "$v-default: a test's Path: and Type: lines come right before its case" \
		bash -c 'grep -A2 "^# Path:bh_page_pool04_napi_local " "$1" | sed -n 2,3p |
			grep -c -e "^# Type:bh_page_pool04_napi_local " \
				-e "^ok 9 bh_page_pool04_napi_local " | grep -qx 2' _ "$o"
	expect_no_grep "$v-default: only this run's lines, only the module's" "$o" \
		' 3\.000 ns|e1000e'
	expect_grep "$v-default: the kernel, its command line, vulnerabilities" "$o" \
		'^# cmdline: BOOT_IMAGE=/boot/vmlinuz-7\.3\.0'
	# (in the directory's order: a tmpfs lists the newest first)
	expect_grep "$v-default: vulnerabilities, a line each" "$o" \
		'^# vulnerability spectre_v2:Mitigation: Retpolines$'
	expect_grep "$v-default: ... each" "$o" '^# vulnerability meltdown:Not affected$'
	expect_grep "$v-default: totals" "$o" '^# Totals: pass:13 fail:0 '
	kunit_parses "$v-default" 13
	check "$v-default: insmod gets no parameter" test ! -s "$tmp/$v-default.args"

	run "$v-args" 0 BENCH_PAGE_POOL_PARAMS="loops=7000" -- loops=5000 run_flags=0x6
	check "$v-args: arguments go to the module, before the environment's" \
		grep -qx 'loops=5000 run_flags=0x6' "$tmp/$v-args.args"
	expect_grep "$v-args: only the selected tests" "$o" '^# Totals: pass:2 fail:0 '
	run "$v-env" - BENCH_PAGE_POOL_PARAMS="loops=7000 run_flags=0x2" --
	check "$v-env: without arguments, BENCH_PAGE_POOL_PARAMS" \
		grep -qx 'loops=7000 run_flags=0x2' "$tmp/$v-env.args"
	run "$v-slow" - KSFT_MACHINE_SLOW=yes -- run_flags=0x2
	check "$v-slow: KSFT_MACHINE_SLOW=yes runs 100000 loops" \
		grep -qx 'run_flags=0x2 loops=100000' "$tmp/$v-slow.args"
	run "$v-slowl" - KSFT_MACHINE_SLOW=yes -- loops=2000
	check "$v-slowl: ... unless loops is given" \
		grep -qx 'loops=2000' "$tmp/$v-slowl.args"

	run "$v-fail" 1 FAKE_SCENARIO=fail --
	expect_grep "$v-fail: the failed test is 'not ok', with its Path: line" "$o" \
		'^not ok 5 no-softirq-page_pool02$'
	expect_grep "$v-fail: ... and its reason" "$o" \
		'^# Fail:no-softirq-page_pool02 pages took another path'
	expect_grep "$v-fail: the other tests pass" "$o" '^ok 13 cross_cpu_return_3cpu '
	expect_grep "$v-fail: no extra case for the load the test failed" "$o" \
		'^# Totals: pass:12 fail:1 '
	kunit_parses "$v-fail" 13

	run "$v-partial" 1 FAKE_SCENARIO=partial --
	expect_grep "$v-partial: a load that failed by itself is a case" "$o" \
		'^not ok 2 insmod bench_page_pool\.ko : .*Interrupted'
	run "$v-einval" 1 FAKE_SCENARIO=einval -- loops=5
	expect_grep "$v-einval: a bad parameter: one failed case" "$o" \
		'^# Totals: pass:0 fail:1 '
	expect_grep "$v-einval: ... with the module's reason" "$o" \
		'^# Module param loops\(5\) not in 1000\.\.'
	expect_no_grep "$v-einval: never 'Bail out!'" "$o" 'Bail out'
	kunit_parses "$v-einval" 1

	# Lines the log reader did not get: a failed case, never a pass
	run "$v-nostart" 1 FAKE_SCENARIO=nostart --
	expect_grep "$v-nostart: a lost first line is a failed case, with why" "$o" \
		'^# Fail:kernel_log this run.s first line was not read'
	expect_grep "$v-nostart: ... and the only one" "$o" '^not ok 1 kernel_log$'
	run "$v-overrun" 1 FAKE_SCENARIO=overrun --
	expect_grep "$v-overrun: records lost to an overrun are a failed case" "$o" \
		'^not ok [0-9]+ kernel_log$'
	expect_grep "$v-overrun: ... beside the cases that were read" "$o" \
		'^# Totals: pass:13 fail:1 '
	run "$v-none" 1 FAKE_SCENARIO=none --
	expect_grep "$v-none: a run with no result is a failed case" "$o" \
		'^not ok 1 results$'
	kunit_parses "$v-none" 1
	# printk.devkmsg=off: /dev/kmsg cannot be opened; dmesg reads the log
	rm "$tmp/t/fake/kmsg"
	run "$v-devkmsg-off" 0 --
	expect_grep "$v-devkmsg-off: every case, read by dmesg" "$o" \
		'^# Totals: pass:13 fail:0 '
	expect_no_grep "$v-devkmsg-off: the script writes nothing to the log" \
		"$tmp/t/fake/kmsg" 'test_bench_page_pool'
	# Killed: the log reader and the load stop, the log file goes
	run "$v-killed" - FAKE_SCENARIO=hang -- &
	sleep 1
	pkill -TERM -f "$tmp/t/sel/net/bench/test_bench_page_pool.sh"
	wait
	expect_exit "$v-killed" 130
	check "$v-killed: no log reader and no load left" \
		no_process "[s]leep 987654|driver/fake/[d]d"

	# A log flooded by another writer after a lost last line: the driver
	# stops 10 s after the load, with the failed case
	SECONDS=0
	run "$v-flood" 1 FAKE_SCENARIO=flood --
	check "$v-flood: a flooded log ends the wait 10 s after the load ($SECONDS s)" \
		test "$SECONDS" -lt 20
	expect_grep "$v-flood: ... reporting the lost last line" "$o" '^not ok [0-9]+ kernel_log$'
	pkill -f "while :; do echo \"<7>flood\"" 2>/dev/null

	# A kselftest timeout (SIGTERM) keeps the cases printed before it
	run "$v-timeout" 130 FAKE_SCENARIO=stall -- &
	sleep 3
	pkill -TERM -f "$tmp/t/sel/net/bench/test_bench_page_pool.sh"
	wait
	expect_grep "$v-timeout: a case finished before a timeout is kept" "$o" \
		'^ok 2 atomic_inc # perf=1\.100ns$'
	kunit_parses "$v-timeout" 2

	# busybox's applets first in PATH (test images, boards): the same cases
	bb=$tmp/busybox
	mkdir -p "$bb"
	for a in cat dd dirname grep id mkfifo mktemp readlink sed sleep tail uname; do
		ln -sf "$(command -v busybox)" "$bb/$a"
	done
	PATH=$bb:$PATH run "$v-busybox" 0 --
	expect_grep "$v-busybox: with busybox's applets, every case" "$o" \
		'^# Totals: pass:13 fail:0 '

	run "$v-1cpu" 0 FAKE_CPUS=1 --
	expect_grep "$v-1cpu: one CPU: cross_cpu_return is skipped, with why" "$o" \
		'^# cross_cpu_return: needs 2 online CPUs, 1 online$'
	expect_grep "$v-1cpu: ... as a KTAP SKIP" "$o" '^ok 11 cross_cpu_return # SKIP$'

	run "$v-bbnopp" 4 FAKE_SCENARIO=nopp FAKE_NOPP_MSG="insmod: can't insert 'x.ko': unknown symbol in module, or unknown parameter" --
	expect_grep "$v-bbnopp: busybox's lowercase unknown symbol is a skip too" "$o" \
		'^1\.\.0 # SKIP .*CONFIG_PAGE_POOL'
	for s in vermagic:FAKE_VERMAGIC=6.1.0-foreign nopp:FAKE_SCENARIO=nopp; do
		run "$v-${s%%:*}" 4 "${s#*:}" --
		expect_grep "$v-${s%%:*}: the whole test is skipped, with why" "$o" \
			'^1\.\.0 # SKIP .*(6\.1\.0-foreign|CONFIG_PAGE_POOL)'
	done
	rm "$tmp/t/sel/net/bench/page_pool/bench_page_pool.ko"
	run "$v-noko" 4 --
	expect_grep "$v-noko: a module not built is a skip" "$o" \
		'^1\.\.0 # SKIP .*bench_page_pool\.ko not built'
done

tests_done driver
