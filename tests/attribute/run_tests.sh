#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest.sh --attribute without booting the benchmark: the QEMU plugin,
# built as the runner builds it, on marked user programs under
# qemu-x86_64 (marks.c, events.c); vmtest/lib/insn_profile.py and
# cycles.py on canned jobs and counts.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

need_tools "qemu-x86_64 qemu-user" \
	"qemu-system-x86_64 qemu-system-x86"
work=$(mktemp -d "$OUT/attribute.XXXXXX")
trap 'rm -rf "$work"' EXIT
PROF=$REPO/vmtest/lib/insn_profile.py

# The plugin, as the runner builds it
plugin=$(
	runner_libs
	# shellcheck source=../../vmtest/lib/attribute.sh
	. "$REPO/vmtest/lib/attribute.sh"
	# shellcheck disable=SC2034 # read by attribute.sh
	VMTEST_DIR=$REPO/vmtest VMTEST_LOGS=$work
	ensure_insn_plugin >&2 && echo "$INSN_PLUGIN"
) 2>"$work/plugin.log"
if [ -f "$plugin" ]; then
	ok "the plugin builds from Debian's qemu source ($(basename "$plugin"))"
else
	not_ok "the plugin builds from Debian's qemu source" "$(tail -n 5 "$work/plugin.log")"
fi

# The marked program (marks.c): test 1 5250 iterations in five chunks,
# 5000 outside; test 2 2000
if [ -f "$plugin" ] &&
   cc -O1 -static -o "$work/marks" "$TESTS_DIR/attribute/marks.c" 2>"$work/cc.log"; then
	expect_rc "the plugin runs a marked program under qemu-x86_64" 0 \
		"$work/qemu.log" qemu-x86_64 -plugin "$plugin,out=$work/marks.raw" "$work/marks"
	read -r t1 t2 u1 u2 < <(awk '$1 == "test" { t = $2; next }
		{ s[t] += $2 * $3 } $1 == "0" { u[t] += $3 }
		END { print s[1] + 0, s[2] + 0, u[1] + 0, u[2] + 0 }' "$work/marks.raw" 2>/dev/null)
	check "two tests counted, as printed" \
		test "$(grep -c '^test ' "$work/marks.raw")" -eq 2
	check "chunk instructions in the ratio of their iterations, 5250:2000 ($t1:$t2), the 5000 outside left out" \
		awk -v a="${t1:-0}" -v b="${t2:-0}" 'BEGIN { exit !(b > 0 && a / b > 2.6 && a / b < 2.65) }'
	check "every chunk's code named: translated in it, or run before outside the chunks ($u1, $u2 unnamed)" \
		test "${u1:-x}${u2:-x}" = 00
elif [ -f "$plugin" ]; then
	not_ok "the marked program builds" "$(cat "$work/cc.log")"
fi

# The events: per iteration one locked add, one mfence, a direct and an
# indirect call with their returns, a rep stosb of 4096 bytes
if [ -f "$plugin" ] &&
   cc -O1 -static -o "$work/events" "$TESTS_DIR/attribute/events.c" 2>"$work/cc.log"; then
	qemu-x86_64 -plugin "$plugin,out=$work/events.raw" "$work/events"
	# TEST FIRST LAST WANT WHAT: TEST's counts FIRST to LAST a thousandth
	while IFS='|' read -r t f l want what; do
		got=$(awk -v t="$t" -v f="$f" -v l="$l" '$1 == "test" { n = $2; next }
			n == t { for (i = f; i <= l; i++) k[i] += $i }
			END { for (i = f; i <= l; i++) printf "%g ", k[i] / 1000 }' \
			"$work/events.raw")
		check "$what ($got)" test "$got" = "$want"
	done <<'EOF'
1|4|10|1 1 2 2 1 4096 4096 |the plugin's events per iteration: locked 1, fences 1, calls 2, rets 2, indirect 1, string elements 4096 and bytes 4096
1|12|12|4099 |... the stores: the rep stosb's 4096, the locked add's, the two calls'
2|11|12|3 1 |... three loads and a store, exactly
3|13|14|4 0 |... the cache model: 4000 loads from lines in L2, not L1: L1 misses 4, LL misses 0 a thousandth
4|13|14|4 4 |... 4000 loads from lines never touched: L1 and LL misses 4 a thousandth
5|13|14|0 0 |... a rep stosb of 256 KiB of untouched lines: no miss counted (fast strings write whole lines)
6|13|14|4 0 |... then 4000 loads of its lines: L1 misses 4, LL misses 0 a thousandth (the rep stosb filled L2)
EOF
elif [ -f "$plugin" ]; then
	not_ok "the events program builds" "$(cat "$work/cc.log")"
fi

# A canned job: kernel symbols, a module's two functions loaded at
# 0xffffffffc0000000, the plugin's blocks of one test.
job=$work/job
mkdir -p "$job/ktap"
cat >"$job/kallsyms" <<'EOF'
ffffffff81000000 T _stext
ffffffff81001000 T page_pool_alloc_pages
ffffffff81001100 T page_pool_put_unrefed_netmem
ffffffff81001200 t page_pool_refill_alloc_cache
ffffffff81001300 T _raw_spin_lock_bh
EOF
printf '%s\t[bench_page_pool]\n' 'ffffffffc0000000 t time_bench_page_pool01_fast_path' \
	'ffffffffc0000010 T other' >"$job/module.kallsyms"
printf '%s\n' '# # Type:no-softirq-page_pool01 Per elem: 20 cycles(tsc) 20.000 ns (step:0) - (invoke count:100 tsc_interval:1)' \
	'# ok 1 no-softirq-page_pool01 # perf=20.000ns' >"$job/ktap/install.tap"
printf '%s\n' 'test 1' 'ffffffffc0000000 2 100' 'ffffffff81001000 8 100' \
	'ffffffff81001100 10 100' 'ffffffff81001108 1 50' >"$job/insn.raw"
expect_rc "insn_profile.py: a canned job's table, exit 0" 0 "$work/prof.log" "$PROF" "$job"
expect_grep "... every block named, the total against the figure" "$work/prof.log" \
	'^no-softirq-page_pool01: 20\.500 insn/elem counted, figure 20\.000 \(102\.50 %\), 100\.00 % named, 100 elements$'
expect_grep "... a kernel function per element, its calls the blocks that start it" \
	"$work/prof.log" '^  page_pool_put_unrefed_netmem +10\.500 insn/elem +1\.000 calls/elem$'
expect_grep "... a module function at its loaded address" "$work/prof.log" \
	'^  time_bench_page_pool01_fast_path +2\.000 insn/elem'

cp -r "$job" "$work/lacks"
sed -i '/^ffffffff81001100 /d' "$work/lacks/insn.raw"
expect_rc "insn_profile.py: a page_pool test that never puts its pages: exit 1" 1 \
	"$work/lacks.log" "$PROF" "$work/lacks"
expect_grep "... naming what its path lacks" "$work/lacks.log" \
	'path: \^page_pool_put_unrefed_\(netmem\|page\)\$ 0\.000 calls/elem'
expect_rc "insn_profile.py --base --change: exit 0" 0 "$work/moved.log" \
	"$PROF" --base "$job" --change "$work/lacks"
expect_grep "... the function that moved, per element" "$work/moved.log" \
	'^no-softirq-page_pool01: page_pool_put_unrefed_netmem -10\.00$'
cp -r "$job" "$work/locked"
awk '$1 == "test" { print; next } { print $0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }' \
	"$job/insn.raw" >"$work/locked/insn.raw"
cp -r "$work/locked" "$work/locked1"
sed -i '/^ffffffff81001300/d; $a ffffffff81001300 1 100 100 0 0 0 0 0 0 100 0' \
	"$work/locked1/insn.raw"
"$PROF" --base "$work/locked" --change "$work/locked1" >"$work/ev.log" 2>&1
expect_grep "insn_profile.py --base --change: a locked operation more per element, named" \
	"$work/ev.log" '^no-softirq-page_pool01 events/elem: locked \+1\.00, loads \+1\.00, model cycles \+18\.25 \(estimate\)$'
"$PROF" "$work/locked" >"$work/model.log" 2>&1
expect_grep "insn_profile.py: a test's model cycles, the largest terms named" \
	"$work/model.log" '^  model: 5\.1 model cycles/elem \(estimate; most: insn 5\.1, '
expect_grep "... and a job without events says it has no estimate" "$work/prof.log" \
	'^  model: not estimated \(no events\)$'
expect_grep "... and a job whose plugin had no cache model says so" "$work/model.log" \
	'^  events/elem: locked 0\.000, .*, stores 0\.000, l1 misses and ll misses not counted$'
# The cache model's columns: an L1 miss more per element
cp -r "$work/locked" "$work/cache0"
sed -i '/^test /!s/$/ 0 0/' "$work/cache0/insn.raw"
cp -r "$work/cache0" "$work/cache1"
sed -i '/^ffffffff81001300/d; $a ffffffff81001300 1 100 0 0 0 0 0 0 0 100 0 100 0' \
	"$work/cache1/insn.raw"
"$PROF" --base "$work/cache0" --change "$work/cache1" >"$work/cache.log" 2>&1
expect_grep "insn_profile.py --base --change: an L1 miss more per element, named and costed" \
	"$work/cache.log" '^no-softirq-page_pool01 events/elem: loads \+1\.00, l1 misses \+1\.00, model cycles \+13\.25 \(estimate\)$'
"$PROF" --base "$work/locked" --change "$work/cache0" >"$work/cache.log" 2>&1
expect_grep "... and against a job without them: not counted on a side" \
	"$work/cache.log" 'l1 misses not counted on a side, ll misses not counted on a side'
cp -r "$work/locked" "$work/thunk"
echo 'ffffffff81001400 T its_return_thunk' >>"$work/thunk/kallsyms"
echo 'ffffffff81001400 1 200 0 0 0 200 0 0 0 0 0' >>"$work/thunk/insn.raw"
"$PROF" --base "$work/locked" --change "$work/thunk" >"$work/thunk.log" 2>&1
expect_grep "insn_profile.py --base --change: a thunk that moved is named as a layout effect" \
	"$work/thunk.log" '^note: its_return_thunk moved: .*code that moved, not code that changed'
expect_grep "... and a job without events says so" "$work/moved.log" \
	'^no-softirq-page_pool01 events: not counted on a side$'
printf '%s\n' 'net/core/page_pool.o page_pool_refill_alloc_cache' >"$work/changed"
expect_rc "insn_profile.py --changed: a function the test never ran, exit 0" 0 \
	"$work/cov.log" "$PROF" --base "$job" --change "$job" \
	--changed "$work/changed" --attribution "$work/attr"
check "... the test ran none of the changed code, nothing moved" \
	test "$(cat "$work/attr")" = "no-softirq-page_pool01 0 0.000 0.000 0"
echo 'net/core/page_pool.o page_pool_alloc_pages' >>"$work/changed"
"$PROF" --base "$job" --change "$job" --changed "$work/changed" \
	--attribution "$work/attr" >"$work/cov.log" 2>&1
check "... and one it ran makes it covered" \
	test "$(cut -d' ' -f1,2 "$work/attr")" = "no-softirq-page_pool01 1"
"$PROF" --base "$work/locked" --change "$work/thunk" --changed "$work/changed" \
	--attribution "$work/attr" >"$work/cov.log" 2>&1
check "... a thunk that moved is placement, apart from the changed code" \
	grep -qx 'no-softirq-page_pool01 [01] 0\.000 [1-9][0-9.]* 0' "$work/attr"
# A task switch in the test's chunks: the jobs that had one are counted
cp -r "$work/locked" "$work/switched"
echo 'ffffffff81001500 T __schedule' >>"$work/switched/kallsyms"
echo 'ffffffff81001500 1 10 0 0 0 10 0 0 0 0 0' >>"$work/switched/insn.raw"
"$PROF" --base "$work/locked" --change "$work/switched" \
	--attribution "$work/attr" >"$work/cov.log" 2>&1
check "... a job that switched tasks in the test's chunks is counted" \
	grep -qx 'no-softirq-page_pool01 - [0-9.]* 0\.000 1' "$work/attr"

# The cost table on canned counts, per element: a loop of 100 plain
# instructions, a locked add, an mfence, two calls and returns, an
# indirect call and a rep stosb of 4096 bytes (4096 instructions to TCG)
CYC=$REPO/vmtest/lib/cycles.py
got=$("$CYC" --total insn=4196 'string elements=4096' 'string bytes=4096' \
	locked=1 fences=1 calls=2 rets=2 indirect=1 2>&1)
check "cycles.py: the documented figure, 25 + 18 + 33 + 4 + 1 + 64 = 145 ($got)" \
	test "$got" = 145.0000
"$CYC" insn=10 >"$work/cyc.log" 2>&1
expect_grep "... and what was not counted is named, not taken as zero" "$work/cyc.log" \
	'^not counted: locked, fences, calls, rets, indirect, string bytes, l1 misses, ll misses, mispredicts$'
expect_rc "cycles.py: an event the model does not know: exit 2" 2 "$work/cyc.log" \
	"$CYC" cache=1
check "... in one line" test "$(wc -l <"$work/cyc.log")" -eq 1

rm "$work/lacks/kallsyms"
expect_rc "insn_profile.py: a job without kallsyms: exit 2" 2 "$work/bad.log" \
	"$PROF" "$work/lacks"
expect_grep "... naming the file" "$work/bad.log" 'kallsyms: No such file'

tests_done attribute
