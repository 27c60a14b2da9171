#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run in a guest by tests/vm/run_tests.sh (vmtest.sh -- this script) on the
# job's installed driver and module (built for the booted kernel; the tree's
# may be stale). The checks, each said where it is: bad parameters, non-root,
# a flooded log, printk_devkmsg off, a loaded module, taskset, a killed
# load, ab/verdict.py on the KTAP, LOADS loads (dma-debug: DMA_API_DEBUG's).
# usage: bench_checks.sh REPO [LOADS [dma-debug]]    (LOADS default 3)

repo=$1
loads=${2:-3}
dma_debug=${3:-}
# shellcheck source-path=SCRIPTDIR source=guest_lib.sh
. "$(dirname "$0")/guest_lib.sh"
ko=$bench/page_pool/bench_page_pool.ko
verdict=$repo/ab/verdict.py

[ -f "$ko" ] || { not_ok "bench_page_pool.ko is built ($ko)"; exit 1; }

# Each bad value: insmod fails, the kernel log says why, nothing stays.
for param in loops=0 loops=999 loops=429496730; do
	dmesg -C
	if insmod "$ko" "$param" 2>/dev/null; then
		not_ok "$param is refused"
		rmmod bench_page_pool
	elif loaded; then
		not_ok "$param is refused and leaves nothing loaded"
	elif dmesg | grep -q "bench_page_pool: .*param loops(${param#*=})"; then
		ok "$param is refused: $(dmesg | grep -m1 'bench_page_pool: .*loops' | sed 's/^\[[^]]*\] //')"
	else
		not_ok "$param is refused with a message naming loops"
		dmesg | tail -n 5 | sed 's/^/#   /'
	fi
done

# Not root: SKIP, exit 4, from a copy anyone can read (not below root's home).
base=$(mktemp -d)
copy=$base/net/bench
mkdir -p "$copy" "$base/kselftest"
cp -r "$bench/." "$copy/"
cp "$bench/../../kselftest/ktap_helpers.sh" "$base/kselftest/"
chmod -R a+rX "$base"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$copy/test_bench_page_pool.sh" 2>&1)
rc=$?
if [ "$rc" -eq 4 ] && echo "$out" | grep -q '^1\.\.0 # SKIP'; then
	ok "non-root gives SKIP, exit 4 ($(echo "$out" | grep -m1 SKIP))"
else
	not_ok "non-root gives SKIP, exit 4 (got exit $rc)"
	echo "$out" | tail -n 5 | sed 's/^/#   /'
fi

# Runs in a flooded kernel log, the first with the module loaded already,
# after earlier runs' lines: each gives every case or a failed kernel_log
# case, never a silent pass; sound_run RC OUT N: the run (exit code, KTAP)
# did, N its cases.
sound_run()
{
	local oks

	oks=$(echo "$2" | grep -cE '^ok [0-9]+ ')
	[ "$1" -eq 0 ] && [ "$oks" -eq "$3" ] && return 0
	[ "$1" -eq 1 ] && echo "$2" | grep -qE '^not ok [0-9]+ kernel_log$' &&
		[ "$(echo "$2" | grep -c '^not ok')" -eq \
		  "$(echo "$2" | grep -c '^not ok [0-9]* kernel_log$')" ]
}
insmod "$ko" run_flags=0x1 loops=1000 || not_ok "preloading the module"
echo on >/proc/sys/kernel/printk_devkmsg
flooders=()
for i in 1 2; do
	# <7>: debug level, fills the log buffer without the console.
	(while :; do echo "<7>flood $i: $RANDOM $RANDOM $RANDOM" >/dev/kmsg; done) &
	flooders+=($!)
done
# Under this flood every run loses lines (all 20 when there were 20),
# so each run takes the path a silent pass would hide in: 5 are enough.
runs=5 bad=0 lost=0
for i in $(seq $runs); do
	out=$("$bench/test_bench_page_pool.sh" loops=1000 run_flags=0x1 2>&1)
	rc=$?
	if ! sound_run "$rc" "$out" 3; then
		bad=$((bad + 1))
		echo "$out" | grep -E '^(not )?ok|^1\.\.|Bail|SKIP' | sed "s/^/#   run $i: /"
	fi
	[ "$rc" -eq 0 ] || lost=$((lost + 1))
done
kill "${flooders[@]}"
wait "${flooders[@]}" 2>/dev/null
echo ratelimit >/proc/sys/kernel/printk_devkmsg
if [ "$bad" -eq 0 ]; then
	ok "flooded log, $runs runs: every case or a failed kernel_log case ($lost lost lines)"
else
	not_ok "flooded log, $runs runs: $bad gave neither every case nor a failed kernel_log case"
fi
if loaded; then
	not_ok "the driver unloads the module"
else
	ok "the driver unloads the module"
fi

# printk.devkmsg=off: no /dev/kmsg, dmesg reads the log; every case passes.
echo off >/proc/sys/kernel/printk_devkmsg
out=$("$bench/test_bench_page_pool.sh" loops=2000 run_flags=0x3 2>&1)
rc=$?
echo ratelimit >/proc/sys/kernel/printk_devkmsg
if [ "$rc" -eq 0 ] && sound_run "$rc" "$out" 4; then
	ok "printk_devkmsg off: every case passes ($(echo "$out" | grep -c '^ok'))"
else
	not_ok "printk_devkmsg off: every case passes (exit $rc)"
	echo "$out" | grep -E '^(not )?ok|^1\.\.|SKIP|^# Fail' | sed 's/^/#   /'
fi

# The driver and the module agree on the CPUs whatever the affinity: the
# cross-CPU rows are the module's, which counts online CPUs.
rows=$(($(getconf _NPROCESSORS_ONLN) - 1))
[ "$rows" -le 16 ] || rows=16
out=$(taskset -c 0 "$bench/test_bench_page_pool.sh" loops=2000 run_flags=0x80 2>&1)
got=$(echo "$out" | grep -cE '^ok [0-9]+ cross_cpu_return_[0-9]cpu # perf=')
if [ "$got" -eq "$rows" ] && ! echo "$out" | grep -q 'SKIP'; then
	ok "taskset -c 0: the $rows cross-CPU rows the module runs, no SKIP"
else
	not_ok "taskset -c 0: $rows cross-CPU rows expected, $got reported"
	echo "$out" | grep -E '^(not )?ok|SKIP' | sed 's/^/#   /'
fi

# A fatal signal stops the run at the next chunk: insmod returns, none stays.
insmod "$ko" loops=400000000 2>/dev/null &
pid=$!
sleep 3
start=$SECONDS
kill -9 "$pid"
wait "$pid" 2>/dev/null
if [ $((SECONDS - start)) -le 10 ] && ! loaded &&
   dmesg | grep -q 'bench_page_pool: Fail:.* stopped by a signal'; then
	ok "a killed load stops within $((SECONDS - start)) s, nothing stays loaded"
else
	not_ok "a killed load stops within 10 s ($((SECONDS - start)) s), nothing stays loaded"
	dmesg | grep bench_page_pool | tail -n 3 | sed 's/^/#   /'
fi

# ab/verdict.py (the before/after verdict) reads the driver's KTAP: a run
# against itself is "same" on every test.
tap=$(mktemp)
"$bench/test_bench_page_pool.sh" loops=5000 run_flags=0x6 >"$tap"
if "$verdict" --base "$tap" --change "$tap" --deterministic >"$tap.v" 2>&1 &&
   grep -q '^no-softirq-page_pool02 .* same$' "$tap.v" &&
   ! grep -qE '(slower|faster|unknown \(run more\))$' "$tap.v"; then
	ok "ab/verdict.py reads the driver's KTAP: a run against itself is same"
else
	not_ok "ab/verdict.py reads the driver's KTAP: a run against itself is same"
	sed 's/^/#   /' "$tap.v"
fi

# Load and unload, every test each time.
failed=0
for i in $(seq "$loads"); do
	if ! insmod "$ko" loops=1000 || ! rmmod bench_page_pool; then
		failed=$((failed + 1))
	fi
done
if [ "$failed" -eq 0 ]; then
	ok "$loads loads and unloads, every test each time"
else
	not_ok "$loads loads and unloads: $failed failed"
fi

# DMA_API_DEBUG (the debug kernel): no error, and no mapping of the
# module's device left after the loads (the *_dma tests map every page).
dma=/sys/kernel/debug/dma-api
[ -d "$dma" ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
if [ -f "$dma/error_count" ]; then
	left=$(grep -c bench_page_pool "$dma/dump")
	# the most mappings tracked at once: the tests' pages were seen
	most=$(($(cat "$dma/nr_total_entries") - $(cat "$dma/min_free_entries")))
	if [ "$(cat "$dma/error_count")" -eq 0 ] && [ "$left" -eq 0 ] && [ "$most" -gt 0 ]; then
		ok "DMA_API_DEBUG: no error, no mapping left after $loads loads (at most $most mappings at once)"
	else
		not_ok "DMA_API_DEBUG: $(cat "$dma/error_count") errors, $left mappings left, at most $most at once"
		grep bench_page_pool "$dma/dump" | head -n 5 | sed 's/^/#   /'
	fi
elif [ -n "$dma_debug" ]; then
	not_ok "DMA_API_DEBUG: the kernel has it ($dma)"
fi
