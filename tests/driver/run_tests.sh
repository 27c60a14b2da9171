#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Project tests of the kselftest driver test_bench_page_pool.sh without a
# kernel to load the module into: a copy of the driver whose kernel paths
# (/dev/kmsg, /proc/modules, /proc/kallsyms, /sys/module, /proc/cpuinfo,
# /proc/cmdline, the CPU vulnerabilities) point into a scratch directory runs with stand-ins for insmod, dd,
# rmmod, modinfo and nproc (tests/driver/fake/) that print the module's
# lines in its formats. Checks the KTAP (one "# perf=" test case per
# datapoint, kunit.py parses it), the exit codes (0, 1 with "not ok", 4
# when all skipped, never "Bail out!"), the skips (cross-CPU on one CPU,
# a module for another kernel), the environment on record (KTAP header
# lines and JSON, x86 and arm64-like: counter ticks labelled with their
# rate) and the driver's size.

set -u

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

KSRC=${KSRC:-$(pinned_source)}
BENCH=$REPO/tools/testing/selftests/net/bench
DRIVER=$BENCH/test_bench_page_pool.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/driver_tests.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

n=$(wc -l <"$DRIVER")
if [ "$n" -le 300 ]; then
	ok "test_bench_page_pool.sh has $n lines (at most 300)"
else
	not_ok "test_bench_page_pool.sh has $n lines (at most 300)"
fi
expect_no_grep "the driver does not run ptr_ring_test" "$DRIVER" 'ptr_ring_test'

if [ -z "$KSRC" ] || [ ! -f "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh" ]; then
	not_ok "a kernel source with kselftest/ktap_helpers.sh" "none in $VMTEST_CACHE/src"
	tests_done driver
	exit
fi

# setup HELPERS: the fake tree under $tmp/t, with HELPERS' ktap_helpers.sh
setup()
{
	local sel=$tmp/t/sel

	rm -rf "$tmp/t"
	mkdir -p "$sel/net/bench/page_pool" "$sel/kselftest" "$tmp/t/fake/sysmodule" \
		"$tmp/t/fake/vulnerabilities"
	cp "$1" "$sel/kselftest/ktap_helpers.sh"
	cp "$BENCH"/*.py "$sel/net/bench/" 2>/dev/null
	: >"$sel/net/bench/page_pool/bench_page_pool.ko"
	sed -e "s|/dev/kmsg|$tmp/t/fake/kmsg|g" \
	    -e "s|/proc/modules|$tmp/t/fake/modules|g" \
	    -e "s|/proc/kallsyms|$tmp/t/fake/kallsyms|g" \
	    -e "s|/proc/cpuinfo|$tmp/t/fake/cpuinfo|g" \
	    -e "s|/sys/module|$tmp/t/fake/sysmodule|g" \
	    -e "s|/proc/cmdline|$tmp/t/fake/cmdline|g" \
	    -e "s|/sys/devices/system/cpu/vulnerabilities|$tmp/t/fake/vulnerabilities|g" \
		"$DRIVER" >"$sel/net/bench/test_bench_page_pool.sh"
	chmod +x "$sel/net/bench/test_bench_page_pool.sh"
	: >"$tmp/t/fake/modules"
	echo "ffffffff81000000 T page_pool_create" >"$tmp/t/fake/kallsyms"
	echo "model name	: QEMU TCG CPU" >"$tmp/t/fake/cpuinfo"
	echo "BOOT_IMAGE=/boot/vmlinuz-7.2.0 console=ttyS0 ro" >"$tmp/t/fake/cmdline"
	echo "Not affected" >"$tmp/t/fake/vulnerabilities/meltdown"
	echo "Mitigation: Safe RET" >"$tmp/t/fake/vulnerabilities/spec_rstack_overflow"
	echo "Mitigation: Retpolines; IBPB: conditional" >"$tmp/t/fake/vulnerabilities/spectre_v2"
	: >"$tmp/t/fake/kmsg"
}

# run NAME [ENV=VALUE...] -- [ARGS...]: the fake driver's output in
# $tmp/NAME.out, its exit code in $tmp/NAME.rc
run()
{
	local name=$1 envs=()

	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	env FAKE="$tmp/t/fake" PATH="$TESTS_DIR/driver/fake:$PATH" "${envs[@]}" \
		"$tmp/t/sel/net/bench/test_bench_page_pool.sh" "$@" \
		>"$tmp/$name.out" 2>&1
	echo $? >"$tmp/$name.rc"
}

# expect_exit NAME RC
expect_exit()
{
	local rc

	rc=$(cat "$tmp/$1.rc")
	if [ "$rc" -eq "$2" ]; then
		ok "$1: exit $2"
	else
		not_ok "$1: exit $2" "exit $rc" "$(sed 's/^/  /' "$tmp/$1.out")"
	fi
}

kunit_parses()
{
	if (cd "$tmp" && python3 "$KSRC/tools/testing/kunit/kunit.py" parse \
		"$tmp/$1.out") >"$tmp/$1.kunit" 2>&1 &&
	   ! grep -qiE 'error|crashed' "$tmp/$1.kunit"; then
		ok "$1: kunit.py parses the output with no error"
	else
		not_ok "$1: kunit.py parses the output with no error" \
			"$(tail -n 5 "$tmp/$1.kunit")"
	fi
}

for helpers in "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh" \
	       "$(runner_source 'linux-source-6.12*')/tools/testing/selftests/kselftest/ktap_helpers.sh"; do
	[ -f "$helpers" ] || continue
	v=$(basename "${helpers%%/tools/*}")
	v=${v#linux-source-}
	v=${v%%-*}
	setup "$helpers"

	run "$v-default" --
	expect_exit "$v-default" 0
	expect_grep "$v-default: plan of 13" "$tmp/$v-default.out" '^1\.\.13$'
	c=$(grep -cE '^ok [0-9]+ [a-z_0-9-]+ # perf=[0-9]+\.[0-9]+ns$' "$tmp/$v-default.out")
	if [ "$c" -eq 13 ]; then
		ok "$v-default: 13 'ok N name # perf=<decimal>ns' lines"
	else
		not_ok "$v-default: 13 'ok N name # perf=<decimal>ns' lines" "$c"
	fi
	expect_grep "$v-default: the CPU the tests ran on" "$tmp/$v-default.out" \
		'^# tests bound to CPU 0$'
	expect_grep "$v-default: upstream's names" "$tmp/$v-default.out" \
		'^ok 4 no-softirq-page_pool01 # perf=5\.410ns$'
	expect_grep "$v-default: a cross_cpu_return case per returning CPU count" \
		"$tmp/$v-default.out" '^ok 11 cross_cpu_return_1cpu # perf=120\.260ns$'
	expect_grep "$v-default: up to 3 returning CPUs on 4 CPUs" \
		"$tmp/$v-default.out" '^ok 13 cross_cpu_return_3cpu # perf=360\.760ns$'
	expect_grep "$v-default: each side of a row comes before it" \
		"$tmp/$v-default.out" '^# Type:cross_cpu_return_2cpu_alloc cpu:0 Per elem'
	expect_no_grep "$v-default: no ' # SKIP' in a passing run" "$tmp/$v-default.out" ' # SKIP'
	expect_grep "$v-default: the NAPI-local test's path check before its result" \
		"$tmp/$v-default.out" '^# Path:tasklet_page_pool04_napi_local expect:cached 100\.00% '
	# Each result follows its diagnostics
	if awk '/^# Type:lock Per elem/ { d = NR } /^ok 3 lock/ { r = NR }
		END { exit !(d && r && d < r) }' "$tmp/$v-default.out"; then
		ok "$v-default: diagnostics come before their result"
	else
		not_ok "$v-default: diagnostics come before their result"
	fi
	kunit_parses "$v-default"

	# The environment on record, before the results
	expect_grep "$v-default: the module's environment line" "$tmp/$v-default.out" \
		'^# environment: counter:tsc counter_hz:2400000000 preempt:voluntary page_pool_stats:on init_on_alloc:off init_on_free:off debug:none$'
	expect_grep "$v-default: the mode QEMU's emulated CPU tells" \
		"$tmp/$v-default.out" '^# environment: mode:emulated$'
	expect_grep "$v-default: the boot command line" "$tmp/$v-default.out" \
		'^# environment: cmdline:BOOT_IMAGE=/boot/vmlinuz-7\.2\.0 console=ttyS0 ro$'
	expect_grep "$v-default: the vulnerabilities not 'Not affected', compact" \
		"$tmp/$v-default.out" \
		'^# environment: vulnerabilities:spec_rstack_overflow=Safe RET\|spectre_v2=Retpolines; IBPB: conditional$'
	if awk '/^# environment: vulnerabilities:/ { e = NR } /^ok 1 / { r = NR }
		END { exit !(e && r && e < r) }' "$tmp/$v-default.out"; then
		ok "$v-default: the environment comes before the results"
	else
		not_ok "$v-default: the environment comes before the results"
	fi
	expect_grep "$v-default: TSC cycles keep their label" "$tmp/$v-default.out" \
		'^# Type:lock Per elem: [0-9.]+ cycles\(tsc\) '
	run "$v-hw" BENCH_MODE=hardware -- -f 0x02
	expect_grep "$v-hw: BENCH_MODE is the mode" "$tmp/$v-hw.out" \
		'^# environment: mode:hardware$'
	run "$v-badmode" BENCH_MODE=cloud --
	expect_exit "$v-badmode" 1
	expect_grep "$v-badmode: says why" "$tmp/$v-badmode.out" \
		'^# BENCH_MODE=cloud: not hardware, virtual-machine, emulated or deterministic$'

	# arm64: the cycles are the generic timer's ticks, at 62.5 MHz
	run "$v-arm64" FAKE_ARCH=arm64 --
	expect_exit "$v-arm64" 0
	expect_grep "$v-arm64: the counter and its rate on record" "$tmp/$v-arm64.out" \
		'^# environment: counter:arch_timer counter_hz:62500000 '
	expect_grep "$v-arm64: the cycles are labelled as ticks at the timer's rate" \
		"$tmp/$v-arm64.out" \
		'^# Type:no-softirq-page_pool01 Per elem: [0-9.]+ ticks\(arch_timer@62\.5MHz\) [0-9.]+ ns '
	expect_grep "$v-arm64: the cheapest chunk's ticks too" "$tmp/$v-arm64.out" \
		'^# Chunk:no-softirq-page_pool01 .*: [0-9.]+ ticks\(arch_timer@62\.5MHz\) [0-9.]+ ns '
	expect_no_grep "$v-arm64: no 'cycles' left" "$tmp/$v-arm64.out" 'cycles\('
	expect_grep "$v-arm64: the figure is in ns" "$tmp/$v-arm64.out" \
		'^ok 4 no-softirq-page_pool01 # perf=5\.410ns$'
	kunit_parses "$v-arm64"

	run "$v-fail" FAKE_SCENARIO=fail --
	expect_exit "$v-fail" 1
	expect_grep "$v-fail: not ok for the failed case" "$tmp/$v-fail.out" \
		'^not ok 5 no-softirq-page_pool02$'
	expect_grep "$v-fail: the module's reason is shown" "$tmp/$v-fail.out" \
		'^# Type:no-softirq-page_pool02 only 12 of 500000'
	expect_no_grep "$v-fail: no Bail out!" "$tmp/$v-fail.out" 'Bail out'

	run "$v-1cpu" FAKE_CPUS=1 -- -f 0x80
	expect_exit "$v-1cpu" 4
	expect_grep "$v-1cpu: cross_cpu_return SKIPs" "$tmp/$v-1cpu.out" \
		'^ok 1 cross_cpu_return # SKIP'
	expect_grep "$v-1cpu: the module was loaded and skipped it" \
		"$tmp/$v-1cpu.out" '^# Type:cross_cpu_return skipped: needs 2 online CPUs'
	run "$v-2cpu" FAKE_CPUS=2 -- -f 0x80
	expect_exit "$v-2cpu" 0
	expect_grep "$v-2cpu: one cross_cpu_return case" "$tmp/$v-2cpu.out" \
		'^1\.\.1$'
	run "$v-c5" -- -f 0x80 -c 5
	expect_exit "$v-c5" 4
	expect_grep "$v-c5: more returning CPUs than there are SKIPs" \
		"$tmp/$v-c5.out" '^# cross_cpu_return: needs 6 online CPUs, 4 online$'
	run "$v-detx" BENCH_DETERMINISTIC=1 -- -f 0x82
	expect_exit "$v-detx" 0
	expect_grep "$v-detx: cross_cpu_return is not run deterministically" \
		"$tmp/$v-detx.out" '^ok 2 cross_cpu_return # SKIP'
	# A real run's lines (7.2 guest, 4 vCPUs, TCG), also through the helper
	canned=$TESTS_DIR/driver/fake/xcpu-4cpu.log
	run "$v-canned" FAKE_LOG="$canned" -- -f 0x80
	run "$v-cannedj" FAKE_LOG="$canned" -- -f 0x80 -j "$tmp/canned.json"
	for o in canned cannedj; do
		expect_exit "$v-$o" 0
		expect_grep "$v-$o: the rows of a real run" "$tmp/$v-$o.out" \
			'^ok 3 cross_cpu_return_3cpu # perf=1120\.175ns$'
		expect_grep "$v-$o: a row's wall time and busy sides" "$tmp/$v-$o.out" \
			'^# Row:cross_cpu_return_3cpu pages:523920 of 1500000 in 4147 ms \(time bound reached\)'
	done
	expect_grep "$v-canned: a row's path check" "$tmp/$v-canned.out" \
		'^# Path:cross_cpu_return_2cpu expect:ring 100\.00% of returned:444592 alloc .* ring:444592 released:0 ring_full:0$'
	expect_grep "$v-cannedj: the path check's shares" "$tmp/$v-cannedj.out" \
		'^# cross_cpu_return_2cpu: path: .*returned to cache 0\.0% ring 100\.0% released 0\.0% of 444592$'
	check "$v-cannedj: its JSON validates" \
		"$tmp/t/sel/net/bench/bench_compare.py" --validate "$tmp/canned.json"
	kunit_parses "$v-canned"
	expect_no_grep "$v-1cpu: no Bail out!" "$tmp/$v-1cpu.out" 'Bail out'

	run "$v-1cpu-all" FAKE_CPUS=1 --
	expect_exit "$v-1cpu-all" 0

	run "$v-enoexec" FAKE_SCENARIO=enoexec --
	expect_exit "$v-enoexec" 4
	c=$(grep -c '^ok [0-9]* .* # SKIP' "$tmp/$v-enoexec.out")
	if [ "$c" -eq 13 ]; then ok "$v-enoexec: every case SKIPs"; else
		not_ok "$v-enoexec: every case SKIPs" "$c"; fi

	run "$v-vermagic" FAKE_VERMAGIC=0.0.0-other --
	expect_exit "$v-vermagic" 4
	expect_grep "$v-vermagic: skip-all with the reason" "$tmp/$v-vermagic.out" \
		'^1\.\.0 # SKIP bench_page_pool\.ko is for another kernel'

	run "$v-einval" FAKE_SCENARIO=einval --
	expect_exit "$v-einval" 1
	expect_grep "$v-einval: the module's error is shown" "$tmp/$v-einval.out" \
		'^# invalid chunk=1'

	run "$v-badopt" -- -Z
	expect_exit "$v-badopt" 1
	expect_grep "$v-badopt: a failed case, as the exit code says" \
		"$tmp/$v-badopt.out" '^not ok 1 options$'

	run "$v-badnum" -- -f 08
	expect_exit "$v-badnum" 1
	expect_grep "$v-badnum: says why" "$tmp/$v-badnum.out" \
		'^# run_flags=08: not a number$'

	run "$v-det" BENCH_DETERMINISTIC=1 -- -f 0x02
	expect_exit "$v-det" 0
	expect_grep "$v-det: the mean instructions per element" "$tmp/$v-det.out" \
		'^ok 1 no-softirq-page_pool01 # perf=12\.984insn$'
	expect_grep "$v-det: the cheapest chunk on a '#' line" "$tmp/$v-det.out" \
		'^# Chunk:no-softirq-page_pool01 cheapest of 61 full chunks of 8192: '
	expect_grep "$v-det: the default chunk" "$tmp/$v-det.out" \
		'^# bench_page_pool .*run_flags=0x2( |$)'
	expect_no_grep "$v-det: no chunk=64 any more" "$tmp/$v-det.out" 'chunk=64'

	# The opt-in features, through bench_compare.py
	CMP=$tmp/t/sel/net/bench/bench_compare.py
	for r in 1 5; do
		run "$v-r$r" -- -r "$r" -j "$tmp/r$r.json"
		expect_exit "$v-r$r" 0
		check "$v-r$r: bench_compare.py accepts the driver's JSON" \
			"$CMP" --validate "$tmp/r$r.json"
		c=$(grep -cE '^ok [0-9]+ [a-z_0-9-]+ # perf=[0-9]+\.[0-9]{3}ns$' "$tmp/$v-r$r.out")
		if [ "$c" -eq 13 ]; then
			ok "$v-r$r: 13 'ok N name # perf=<decimal>ns' lines"
		else
			not_ok "$v-r$r: 13 'ok N name # perf=<decimal>ns' lines" "$c"
		fi
	done
	expect_grep "$v-r5: statistics of the repetitions" "$tmp/$v-r5.out" \
		'^# no-softirq-page_pool01: tsc-cycles min .* ci95 \[.*\] over 5 reps$'
	expect_grep "$v-r5: the figure is the mean of the reps" "$tmp/$v-r5.out" \
		'^ok 4 no-softirq-page_pool01 # perf=5\.430ns$'
	expect_grep "$v-r5: the path check's shares" "$tmp/$v-r5.out" \
		'^# no-softirq-page_pool01: path: allocations fast 100\.0% .*; returned to cache 100\.0%'
	check "$v-r5 against itself: exit 0 at --threshold 0" \
		"$CMP" --threshold 0 "$tmp/r5.json" "$tmp/r5.json"
	check "$v-r5: the JSON has the environment (TSC, emulated)" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
u, r = r["unit"]["cycles"], r["run"]
c = r["config"]
sys.exit(not (u == "tsc-cycles" and r["counter"] == "tsc" and
              r["counter_hz"] == 2400000000 and r["mode"] == "emulated" and
              r["cmdline"] == "BOOT_IMAGE=/boot/vmlinuz-7.2.0 console=ttyS0 ro" and
              r["vulnerabilities"] == {"spec_rstack_overflow": "Safe RET",
                  "spectre_v2": "Retpolines; IBPB: conditional"} and
              c == {"preempt": "voluntary", "debug": [], "page_pool_stats": True,
                    "init_on_alloc": False, "init_on_free": False}))' "$tmp/r5.json"
	run "$v-arm64j" FAKE_ARCH=arm64 BENCH_MODE=emulated -- -r 3 -j "$tmp/arm64.json"
	expect_exit "$v-arm64j" 0
	check "$v-arm64j: bench_compare.py accepts the arm64 JSON" \
		"$CMP" --validate "$tmp/arm64.json"
	check "$v-arm64j: the JSON says counter ticks of arch_timer at 62.5 MHz" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not (d["unit"]["cycles"] == "counter-ticks" and
              d["run"]["counter"] == "arch_timer" and
              d["run"]["counter_hz"] == 62500000))' "$tmp/arm64.json"
	expect_grep "$v-arm64j: the statistics name the ticks and their rate" \
		"$tmp/$v-arm64j.out" \
		'^# no-softirq-page_pool01: counter ticks \(arch_timer at 62\.5 MHz\) min .*; ns min '
	expect_rc "$v-arm64j: compared with an x86 run: refused, exit 2" 2 \
		"$tmp/cmp.log" "$CMP" "$tmp/r5.json" "$tmp/arm64.json" &&
		expect_grep "$v-arm64j: says why" "$tmp/cmp.log" \
			"unit \(cycles\) 'tsc-cycles' vs 'counter-ticks'"
	run "$v-gateenv" FAKE_PREEMPT=full FAKE_DEBUG=PROVE_LOCKING -- -r 5 -b "$tmp/r5.json"
	expect_exit "$v-gateenv" 0
	expect_grep "$v-gateenv: the gate warns of another preemption model" \
		"$tmp/$v-gateenv.out" '^# gate: WARNING:   preempt: voluntary -> full$'
	expect_grep "$v-gateenv: and of debug options" "$tmp/$v-gateenv.out" \
		"^# gate: WARNING:   debug: \[\] -> \['PROVE_LOCKING'\]$"

	run "$v-failj" FAKE_SCENARIO=fail -- -r 3 -j "$tmp/fail.json"
	expect_exit "$v-failj" 1
	expect_grep "$v-failj: not ok for the failed case" "$tmp/$v-failj.out" \
		'^not ok 5 no-softirq-page_pool02$'
	check "$v-failj: bench_compare.py accepts the JSON of a failed run" \
		"$CMP" --validate "$tmp/fail.json"
	run "$v-skipj" FAKE_CPUS=1 -- -j "$tmp/skip.json"
	expect_exit "$v-skipj" 0
	check "$v-skipj: bench_compare.py accepts the JSON of a skipped test" \
		"$CMP" --validate "$tmp/skip.json"

	run "$v-detj" BENCH_DETERMINISTIC=1 -- -r 3 -j "$tmp/det.json"
	expect_exit "$v-detj" 0
	check "$v-detj: bench_compare.py accepts a deterministic run's JSON" \
		"$CMP" --validate "$tmp/det.json"
	check "$v-detj: the JSON has the module's chunk and the estimator" \
		python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))["run"]["parameters"]
sys.exit(not (p["chunk"] == 8192 and p["estimator"] == "mean"))' "$tmp/det.json"
	expect_rc "$v-detj: compared with a normal run: refused, exit 2" 2 \
		"$tmp/cmp.log" "$CMP" "$tmp/r5.json" "$tmp/det.json" &&
		expect_grep "$v-detj: says why" "$tmp/cmp.log" \
			"not comparable with .*: mode '[a-z-]+' vs 'deterministic'"

	run "$v-gate" FAKE_SLOW=20 -- -r 5 -b "$tmp/r5.json"
	expect_exit "$v-gate" 1
	expect_grep "$v-gate: a regression fails its case" "$tmp/$v-gate.out" \
		'^not ok 4 no-softirq-page_pool01$'
	expect_grep "$v-gate: says by how much" "$tmp/$v-gate.out" \
		'^# no-softirq-page_pool01: regression \+20\.[0-9]% \(significant\)'
	expect_grep "$v-gate: the baselines are never gated" "$tmp/$v-gate.out" \
		'^ok 1 for_loop # perf='
	run "$v-xfail" FAKE_SLOW=20 KSFT_MACHINE_SLOW=yes -- -r 5 -b "$tmp/r5.json"
	expect_exit "$v-xfail" 0
	expect_grep "$v-xfail: XFAIL on a slow machine" "$tmp/$v-xfail.out" \
		'^ok 4 no-softirq-page_pool01 # XFAIL regression \+20'
	kunit_parses "$v-xfail"
	run "$v-gatedet" BENCH_DETERMINISTIC=1 -- -r 3 -b "$tmp/r5.json"
	expect_exit "$v-gatedet" 1
	expect_grep "$v-gatedet: a baseline of another mode is refused" \
		"$tmp/$v-gatedet.out" 'baseline is not comparable with this run: mode'

	# Without python3: the default run works, the opt-in ones skip
	mkdir -p "$tmp/nopy"
	for c in bash env dirname readlink id grep uname date mktemp rm nice \
		 sed head seq sleep awk cat tail; do
		ln -sf "$(command -v "$c")" "$tmp/nopy/$c"
	done
	run "$v-nopy" PATH="$TESTS_DIR/driver/fake:$tmp/nopy" --
	expect_exit "$v-nopy" 0
	run "$v-nopy-r" PATH="$TESTS_DIR/driver/fake:$tmp/nopy" -- -r 3
	expect_exit "$v-nopy-r" 4
	expect_grep "$v-nopy-r: says why" "$tmp/$v-nopy-r.out" \
		'^1\.\.0 # SKIP -r, -j and -b need python3'

	rm "$tmp/t/sel/net/bench/page_pool/bench_page_pool.ko"
	run "$v-noko" --
	expect_exit "$v-noko" 4
	expect_grep "$v-noko: skip-all with the reason" "$tmp/$v-noko.out" \
		'^1\.\.0 # SKIP bench_page_pool\.ko not built'
done

tests_done driver
