#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run inside a guest by tests/vm/run_tests.sh (vmtest.sh -- this script),
# from the top of a tree where the selftests are built. Checks what the
# benchmark promises beyond a plain run: bad parameters are refused with
# their message, non-root skips, results survive a flooded kernel log and
# an already loaded module, and the module loads and unloads LOADS times.
#
# usage: bench_checks.sh [LOADS]    (default 3)

loads=${1:-3}
bench=$PWD/tools/testing/selftests/net/bench
ko=$bench/page_pool/bench_page_pool.ko
cpus=$(nproc)

ok()
{
	echo "ok - $*"
}

not_ok()
{
	echo "not ok - $*"
}

loaded()
{
	grep -q '^bench_page_pool ' /proc/modules
}

[ -f "$ko" ] || { not_ok "bench_page_pool.ko is built ($ko)"; exit 1; }

# Each bad value: insmod fails, the kernel log says why, nothing stays.
while read -r param why; do
	dmesg -C
	if insmod "$ko" "$param" 2>/dev/null; then
		not_ok "$param is refused"
		rmmod bench_page_pool
	elif loaded; then
		not_ok "$param is refused and leaves nothing loaded"
	elif dmesg | grep -q "bench_page_pool: .*$why"; then
		ok "$param is refused: $(dmesg | grep -m1 "bench_page_pool: .*$why" | sed 's/^\[[^]]*\] //')"
	else
		not_ok "$param is refused with a message matching '$why'"
		dmesg | tail -n 5 | sed 's/^/#   /'
	fi
done <<EOF
loops=0 loops
loops=999 loops
loops=4294967296 loops
run_flags=0 run_flags
run_flags=0x200 run_flags
returning_cpus=$cpus returning_cpus
cpu=$cpus cpu
cpu=-2 cpu
tag=a/b tag
chunk=63 chunk
chunk=65537 chunk
chunk=100 chunk
EOF

# Not root: SKIP, exit 4. From a copy nobody can read (the tree may sit
# below root's home).
copy=$(mktemp -d)
cp -r "$bench/." "$copy/"
chmod -R a+rX "$copy"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$copy/test_bench_page_pool.sh" 2>&1)
rc=$?
if [ "$rc" -eq 4 ] && echo "$out" | grep -q 'SKIP'; then
	ok "non-root gives SKIP, exit 4 ($(echo "$out" | grep -m1 SKIP))"
else
	not_ok "non-root gives SKIP, exit 4 (got exit $rc)"
	echo "$out" | tail -n 5 | sed 's/^/#   /'
fi

# A run while other writers flood the kernel log, with the module loaded
# already, and lines of an earlier run in the log.
insmod "$ko" run_flags=0x1 loops=1000 || not_ok "preloading the module"
echo on >/proc/sys/kernel/printk_devkmsg
flooders=()
for i in 1 2; do
	# <7>: debug level, fills the log buffer without the console.
	(while :; do echo "<7>flood $i: $RANDOM $RANDOM $RANDOM" >/dev/kmsg; done) &
	flooders+=($!)
done
out=$("$bench/test_bench_page_pool.sh" -l 20000 2>&1)
rc=$?
kill "${flooders[@]}"
wait "${flooders[@]}" 2>/dev/null
echo ratelimit >/proc/sys/kernel/printk_devkmsg
passed=$(echo "$out" | grep -cE '^ok [0-9]+ ')
if [ "$rc" -eq 0 ] && [ "$passed" -ge 11 ] && ! echo "$out" | grep -q '^not ok'; then
	ok "flooded log, module preloaded: all $passed subtests pass"
else
	not_ok "flooded log, module preloaded: exit $rc, $passed subtests ok"
	echo "$out" | grep -E '^(not )?ok|Bail|SKIP' | sed 's/^/#   /'
fi
if loaded; then
	not_ok "the driver unloads the module"
else
	ok "the driver unloads the module"
fi

# Repetitions with statistics, written as JSON that bench_compare.py
# validates and can compare.
json=$(mktemp --suffix=.json)
out=$("$bench/test_bench_page_pool.sh" -l 5000 -r 3 -j "$json" 2>&1)
rc=$?
if [ "$rc" -eq 0 ] && echo "$out" | grep -qE '^# [a-z_0-9-]+: .*median .*ci95'; then
	ok "-r 3: per-subtest statistics reported"
else
	not_ok "-r 3: per-subtest statistics reported (exit $rc)"
	echo "$out" | grep -E '^(not )?ok|median' | head -n 5 | sed 's/^/#   /'
fi
if "$bench/bench_compare.py" --validate "$json" >/dev/null 2>&1; then
	ok "the driver's JSON validates against the schema"
else
	not_ok "the driver's JSON validates against the schema"
	"$bench/bench_compare.py" --validate "$json" 2>&1 | head -n 5 | sed 's/^/#   /'
fi
if "$bench/bench_compare.py" "$json" "$json" >/dev/null 2>&1; then
	ok "bench_compare.py compares the driver's JSON"
else
	not_ok "bench_compare.py compares the driver's JSON"
fi

# Load and unload, every test each time.
failed=0
for i in $(seq "$loads"); do
	if ! insmod "$ko" loops=1000 returning_cpus=1 tag="load$i" ||
	   ! rmmod bench_page_pool; then
		failed=$((failed + 1))
	fi
done
if [ "$failed" -eq 0 ]; then
	ok "$loads loads and unloads, every test each time"
else
	not_ok "$loads loads and unloads: $failed failed"
fi
