#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run in a guest of 3 vCPUs by tests/vm/run_tests.sh, on a module built with
# tests/vm/no-cycles.patch and stall-returner.patch (vmtest.sh
# --module-patch). The driver with busybox's applets first in PATH; with no
# cycle counter, ns cases instead of aborts; a cross-CPU returner starved
# past the row's stall and its stop: the row fails once with its reason,
# the next row passes, the module waits for the thread and goes, and no
# pool is left stalled; a kselftest timeout's SIGTERM keeps the cases
# printed before it and leaves nothing loaded.
# usage: fault_checks.sh

# shellcheck source-path=SCRIPTDIR source=guest_lib.sh
. "$(dirname "$0")/guest_lib.sh"
driver=$bench/test_bench_page_pool.sh
out=$(mktemp -d)

# expect DESCRIPTION FILE ERE: ok when FILE has a line matching ERE
expect()
{
	if grep -qE -- "$3" "$2"; then
		ok "$1"
	else
		not_ok "$1"
		sed 's/^/#   /' "$2"
	fi
}

bb=$out/busybox
mkdir -p "$bb"
for a in awk cat dd dirname dmesg grep id mkfifo mktemp readlink sed sleep tail uname; do
	ln -s "$(command -v busybox)" "$bb/$a"
done
dmesg -C
PATH=$bb:$PATH "$driver" loops=20000 run_flags=0x83 >"$out/bb.tap" 2>&1
rc=$?
stalled_at=$SECONDS
if [ "$rc" -eq 1 ]; then ok "busybox, a starved returner: exit 1"; else not_ok "busybox, a starved returner: exit 1 (exit $rc)"; fi
expect "busybox: dd and mkfifo carry the log: the cases pass" "$out/bb.tap" \
	'^ok [0-9]+ no-softirq-page_pool01 # perf=[0-9.]+ns$'
expect "no cycle counter: the figure is ns, cycles n/a" "$out/bb.tap" \
	'^# Type:for_loop Per elem: n/a cycles\(none\) [0-9.]+ ns'
expect "the starved returner's row fails, with its reason" "$out/bb.tap" \
	'^# Fail:cross_cpu_return_1cpu no page moved for 10 s$'
n=$(grep -cE '^(not )?ok [0-9]+ cross_cpu_return_1cpu' "$out/bb.tap")
if [ "$n" -eq 1 ]; then ok "... as one case"; else not_ok "... as one case ($n)"; fi
expect "the next row passes" "$out/bb.tap" '^ok [0-9]+ cross_cpu_return_2cpu # perf='
if loaded; then not_ok "the module is gone"; else ok "the module is gone"; fi

# A kselftest timeout: SIGTERM once the first case is out
"$driver" loops=5000000 run_flags=0x9 >"$out/timeout.tap" 2>&1 &
pid=$!
end=$((SECONDS + 300))
until grep -q '^ok 1 ' "$out/timeout.tap" || [ $SECONDS -gt $end ]; do sleep 0.2; done
kill -TERM "$pid"
wait "$pid"
rc=$?
expect "a timeout keeps the cases printed before it" "$out/timeout.tap" \
	'^ok 1 for_loop # perf=[0-9.]+ns$'
if [ "$rc" -eq 130 ]; then ok "... and exits 130"; else not_ok "... and exits 130 (exit $rc)"; fi
end=$((SECONDS + 30))
while loaded && [ $SECONDS -lt $end ]; do sleep 1; done
if loaded; then not_ok "... and leaves no module loaded"; else ok "... and leaves no module loaded"; fi

# page_pool warns of a pool destroyed with pages out after 60 s
sleep $((stalled_at + 65 - SECONDS > 0 ? stalled_at + 65 - SECONDS : 0))
dmesg >"$out/dmesg"
if grep -qE 'stalled pool shutdown|BUG|KASAN|general protection' "$out/dmesg"; then
	not_ok "no stalled pool, no use after free"
	grep -E 'stalled pool|BUG|KASAN|general protection' "$out/dmesg" | sed 's/^/#   /'
else
	ok "no stalled pool, no use after free, 65 s after the starved row"
fi
rm -rf "$out"
