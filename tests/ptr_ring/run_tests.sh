#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The virtio series' code (ringtest's shim, the correctness test
# ptr_ring_check, the timing test ptr_ring_test; tests/series checks the
# patches) on the series' base (7.3, vmtest/sources.lock), a read-only
# tree under a temporary overlay of the project's files:
#   - ringtest's ptr_ring and both selftests build without warnings and
#     pass, also under TSan, ASan and UBSan;
#   - mutants of the base's ptr_ring.h, each broken one way: the
#     correctness test fails within MUTANT_SEC seconds, never hangs,
#     naming the line of the step that failed;
#   - the sizes' cap, bad options, one CPU, run-on-all.sh, kselftest;
#   - ptr_ring_test's item arrays on cache lines of their own (the
#     addresses it prints); the ring inlined, no ring function left;
#   - callgrind's instructions per item per mode, by source file: the
#     ring's (ptr_ring.h's and the shims') within CG_NEAR of bare_loop.c's
#     (the same calls in the plainest loops); with 7.3's header and with
#     discard_one_reorder.diff (the size of Yunsheng Lin's 2021 one),
#     ab/cgsplit.py's split of what moved adds up to the whole run's;
#   - timings against bare_loop's (printed); clang, baseline x86-64,
#     arm64 and riscv64.

set -u

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"
# For the portability checks, the instruction counts, kselftest's install
need_tools "clang clang" "qemu-x86_64 qemu-user" "valgrind valgrind" "rsync rsync" \
	"aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu" \
	"/usr/aarch64-linux-gnu/include/stdio.h libc6-dev-arm64-cross" \
	"riscv64-linux-gnu-gcc gcc-riscv64-linux-gnu" \
	"/usr/riscv64-linux-gnu/include/stdio.h libc6-dev-riscv64-cross"

runner_libs

CC=${CC:-gcc}
MUTANT_SEC=15
CG_NEAR=10		# %: the ring's Ir/item in ptr_ring_test against bare_loop's
modes=(single spsc batch lockless lockless_batch mpsc)
cases=(tun vhost_net page_pool cpumap unconsume resize zero_size)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptr_ring_tests.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# The base: the version vmtest/sources.lock pins, fetched by the runner
KSRC_73=${KSRC_73:-$(runner_record current fetch | record_get src)}
echo "# tree: 7.3 ${KSRC_73:-none}"

# build TREE NAME [MAKE-ARGS...]: both programs in $tmp/NAME, no warnings.
build() {
	local tree=$1 name=$2

	shift 2
	mkdir -p "$tmp/$name" &&
	make -s -j2 -C "$tree/tools/testing/selftests/ptr_ring" CC="$CC" \
		OUTPUT="$tmp/$name" "$@" >"$tmp/$name.build.log" 2>&1 &&
	test -x "$tmp/$name/ptr_ring_check" && test -x "$tmp/$name/ptr_ring_test" &&
	! grep -Eq 'warning:|error:' "$tmp/$name.build.log"
}

# run LOG CMD...: output in LOG, sets $rc.
run() {
	local log=$1

	shift
	"$@" >"$log" 2>&1
	rc=$?
}

# The judges of a run: its LOG and $rc; with a CMD, of CMD run first.
# exit_and_grep RC LOG ERE [CMD...]: exit RC and a line matching ERE.
exit_and_grep() {
	[ $# -le 3 ] || run "$2" "${@:4}"
	[ "$rc" -eq "$1" ] || { echo "# exit $rc, expected $1"; tail -5 "$2"; return 1; }
	grep -Eq -- "$3" "$2" || { echo "# no line matching $3"; return 1; }
}

# check_ok LOG [CMD...]: ptr_ring_check passed every case.
check_ok() {
	local i

	[ $# -eq 1 ] || run "$@"
	[ "$rc" -eq 0 ] || { echo "# exit $rc"; tail -20 "$1"; return 1; }
	grep -q "^1\.\.${#cases[@]}\$" "$1" || { echo "# no plan"; return 1; }
	for i in "${!cases[@]}"; do
		grep -q "^ok $((i + 1)) ${cases[$i]}\$" "$1" ||
			{ echo "# ${cases[$i]} not ok"; return 1; }
	done
}

# test_ok LOG LEFT [CMD...]: ptr_ring_test passed every mode but those
# left out for too few CPUs (a space-separated list), which say why; no
# case skipped.
test_ok() {
	local log=$1 left=" $2 " n=0 mode num='[0-9]+\.[0-9]{3}'

	[ $# -le 2 ] || run "$log" "${@:3}"
	[ "$rc" -eq 0 ] || { echo "# exit $rc"; tail -20 "$log"; return 1; }
	! grep -q ' # SKIP' "$log" || { echo "# a case skipped"; return 1; }
	for mode in "${modes[@]}"; do
		if [[ $left == *" $mode "* ]]; then
			grep -Eq "^# $mode not run: needs [0-9]+ CPUs, [0-9]+ usable$" "$log" ||
				{ echo "# $mode: not left out with its reason"; return 1; }
			continue
		fi
		n=$((n + 1))
		grep -Eq "^ok $n $mode # perf=${num}ns\$" "$log" ||
			{ echo "# $mode not ok $n, or no perf"; return 1; }
		grep -Eq "^# $mode \(.+\): ns_per_item min $num median $num max $num\$" "$log" ||
			{ echo "# $mode: no summary line"; return 1; }
	done
	grep -q "^1\.\.$n\$" "$log" || { echo "# no plan 1..$n"; return 1; }
}

# sanitizer_clean LOG [CMD...]: no sanitizer's report.
sanitizer_clean() {
	[ $# -eq 1 ] || run "$@"
	[ "$rc" -eq 0 ] || { echo "# exit $rc"; tail -20 "$1"; return 1; }
	if grep -Eq 'ThreadSanitizer|AddressSanitizer|LeakSanitizer|runtime error|SUMMARY:' "$1"; then
		grep -E -m5 'WARNING|ERROR|runtime error|SUMMARY' "$1"
		return 1
	fi
}

test_ringtest() {
	local label=$1 rt=$2/tools/virtio/ringtest log=$tmp/$1.rt.log

	if make -s -j1 -C "$rt" ptr_ring >"$log" 2>&1 &&
	   ! grep -Eq 'warning:|error:' "$log"; then
		ok "$label: ringtest's ptr_ring builds without warnings"
		check "$label: ringtest's ptr_ring runs" \
			timeout 60 "$rt/ptr_ring" --run-cycles 2000000
	else
		not_ok "$label: ringtest's ptr_ring builds without warnings" "$(tail -20 "$log")"
	fi
	make -s -C "$rt" clean >/dev/null 2>&1
}

test_tree() {
	local label=$1 ksrc=$2 tree=$tmp/tree-$1 san cflags name left

	{ [ -f "$ksrc/include/linux/ptr_ring.h" ] &&
	  [ -f "$ksrc/tools/testing/selftests/lib.mk" ]; } ||
		{ not_ok "$label: kernel tree '$ksrc' found"; return; }
	overlay_ptr_ring "$ksrc" "$tree" ||
		{ not_ok "$label: lay the project's files over $ksrc"; return; }
	test_ringtest "$label" "$tree"
	if ! build "$tree" "$label"; then
		not_ok "$label: both selftests build without warnings" \
			"$(tail -30 "$tmp/$label.build.log")"
		return
	fi
	ok "$label: both selftests build without warnings"
	check "$label: ptr_ring_check passes every case" \
		check_ok "$tmp/$label.check.log" "$tmp/$label/ptr_ring_check"
	# Every ring size 1-256 and two large ones: the header frees consumed
	# slots r->batch at a time, which each size meets differently
	local s bad=()
	for s in $(seq 256) 1000 100000; do
		check_ok "$tmp/$label.size.log" timeout 15 "$tmp/$label/ptr_ring_check" \
			-n 2000 -s "$s" >/dev/null 2>&1 || bad+=("$s")
	done
	check "$label: ptr_ring_check passes at sizes 1-256, 1000, 100000${bad[*]:+ (fails: ${bad[*]})}" \
		test ${#bad[@]} -eq 0
	left=mpsc
	[ "$(nproc)" -gt 2 ] && left=
	check "$label: ptr_ring_test passes every mode, leaves out ${left:-none} saying why" \
		test_ok "$tmp/$label.test.log" "$left" \
		"$tmp/$label/ptr_ring_test" -n 200000 -r 3
	cp "$tmp/$label.check.log" "$tmp/$label.test.log" "$OUT/" 2>/dev/null

	for san in thread address undefined; do
		cflags="-fsanitize=$san" name=$label-$san
		[ "$san" = undefined ] && cflags+=" -fno-sanitize-recover=all"
		build "$tree" "$name" USERCFLAGS="$cflags" USERLDFLAGS="-fsanitize=$san" ||
			{ not_ok "$label: $san sanitizer build" "$(tail -20 "$tmp/$name.build.log")"; continue; }
		export TSAN_OPTIONS="halt_on_error=1" \
			ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1"
		check "$label: $san sanitizer: ptr_ring_check is clean" \
			sanitizer_clean "$tmp/$name.log" "$tmp/$name/ptr_ring_check" -n 20000
		check "$label: $san sanitizer: ptr_ring_check with a 4-entry ring is clean" \
			sanitizer_clean "$tmp/$name.log" "$tmp/$name/ptr_ring_check" -n 20000 -s 4
		check "$label: $san sanitizer: ptr_ring_test with a 4-entry ring is clean" \
			sanitizer_clean "$tmp/$name.log" "$tmp/$name/ptr_ring_test" \
			-n 20000 -r 1 -s 4 -b 3
		unset TSAN_OPTIONS ASAN_OPTIONS UBSAN_OPTIONS
	done
}

# header_tree NAME: $tmp/tree-NAME, 7.3's with its own ptr_ring.h to change.
header_tree() {
	overlay_ptr_ring "$KSRC_73" "$tmp/tree-$1" include/linux &&
		cp --remove-destination "$KSRC_73/include/linux/ptr_ring.h" \
			"$tmp/tree-$1/include/linux/"
}

# mutant NAME FROM TO [thread|crash]: the base's ptr_ring.h with FROM (once
# in it) replaced by TO; ptr_ring_check must fail, fast: "thread", built
# with TSan, with a race report; "crash", a fault also counts (a zero-size
# ring's queue is ZERO_SIZE_PTR, as in the kernel).
mutant() {
	local name=$1 san=${4:-} dir=$tmp/tree-mutant-$1 log=$tmp/mutant-$1.log start secs text rest
	local -a flags=()

	header_tree "mutant-$1" || return 1
	text=$(<"$KSRC_73/include/linux/ptr_ring.h")
	rest=${text#*"$2"}
	[[ $rest != "$text" && $rest != *"$2"* ]] ||
		{ not_ok "mutant $name: the header has the code to break, once"; return; }
	printf '%s\n' "${text/"$2"/"$3"}" >"$dir/include/linux/ptr_ring.h"
	[ "$san" = thread ] && flags=(USERCFLAGS="-fsanitize=$san" USERLDFLAGS="-fsanitize=$san")
	build "$dir" "mutant-$name" "${flags[@]}" ||
		{ not_ok "mutant $name: builds" "$(tail -20 "$tmp/mutant-$name.build.log")"; return; }
	start=$(date +%s)
	TSAN_OPTIONS=halt_on_error=1 timeout 120 "$tmp/mutant-$name/ptr_ring_check" \
		-n 100000 >"$log" 2>&1 &
	wait $! 2>/dev/null
	rc=$? secs=$(($(date +%s) - start))
	if [ "$san" = crash ] && [ "$rc" -gt 128 ] && [ "$secs" -le "$MUTANT_SEC" ]; then
		ok "mutant $name fails in ${secs}s: killed by signal $((rc - 128)) after '$(grep -v '^ok' "$log" | tail -1 | cut -c1-60)'"
	elif [ "$san" = thread ] && [ "$rc" -ne 0 ] && [ "$secs" -le "$MUTANT_SEC" ] &&
	   grep -q 'WARNING: ThreadSanitizer: data race' "$log"; then
		ok "mutant $name ($san) fails in ${secs}s: $(grep -m1 -A1 'data race' "$log" | tail -1 | sed 's/^ *//' | cut -c1-60)"
	elif [ "$san" != thread ] && [ "$rc" -eq 1 ] && [ "$secs" -le "$MUTANT_SEC" ] &&
	   grep -q '^not ok ' "$log" && grep -q ': FAIL: ' "$log"; then
		ok "mutant $name fails in ${secs}s: $(grep -m1 ': FAIL: ' "$log" | cut -c1-90)"
	else
		not_ok "mutant $name fails within ${MUTANT_SEC}s (exit $rc after ${secs}s)" \
			"$(tail -n 12 "$log")"
	fi
}

# step_in MUTANT FUNCTION: the mutant's failure names a line of FUNCTION in
# ptr_ring_check.c, the case's step, not a helper's.
step_in() {
	local line range

	line=$(sed -n 's/^# [a-z_]* (size [0-9]*, line \([0-9]*\)): FAIL: .*/\1/p' \
		"$tmp/mutant-$1.log" | head -1)
	range=$(awk -v f="$2" '$0 ~ "^static [a-z]+ " f "\\(" { s = NR }
		s && /^}/ { print s, NR; exit }' "$REPO/tools/testing/selftests/ptr_ring/ptr_ring_check.c")
	check "mutant $1: the failure names line ${line:-?}, of $2() ($range)" \
		test -n "$line" -a "${line:-0}" -gt "${range% *}" -a "${line:-0}" -lt "${range#* }"
}

test_mutants() {
	mutant gfp_zero 'gfp | __GFP_ZERO);' 'gfp);'
	mutant unconsume_wrap 'head = r->size - 1;' 'head = 0;'
	step_in unconsume_wrap unconsume
	# ptr_ring-t4.md 3b: passed at the default size, or crashed
	mutant unconsume_wrap2 'head = r->size - 1;' 'head = r->size - 2;'
	mutant wrap_nozero $'r->batch ||\n\t\t     consumer_head >= r->size))' \
		'r->batch))'
	mutant produce_overwrite 'if (data_race(r->queue[r->producer]))' \
		'if (data_race(r->queue[r->producer]) && 0)'
	mutant produce_twice $'spin_lock(&r->producer_lock);\n\tret = __ptr_ring_produce(r, ptr);' \
		$'spin_lock(&r->producer_lock);\n\t__ptr_ring_produce(r, ptr);\n\tret = __ptr_ring_produce(r, ptr);'
	mutant zero_size_produce $'\tif (unlikely(!r->size))\n\t\treturn -EINVAL;\n\n\tif (data_race' \
		$'\tif (data_race' crash
	mutant no_wmb $'\tsmp_wmb();\n\n\tWRITE_ONCE(r->queue[r->producer++], ptr);' \
		$'\tWRITE_ONCE(r->queue[r->producer++], ptr);' thread
	mutant wmb_after $'\tsmp_wmb();\n\n\tWRITE_ONCE(r->queue[r->producer++], ptr);' \
		$'\tWRITE_ONCE(r->queue[r->producer++], ptr);\n\tsmp_wmb();' thread
	# These four end at the watchdog, 10 s after the ring stalls: together.
	beside mutant zeroing 'data_race(r->queue[--head] = NULL);' '--head;'
	beside mutant producer 'WRITE_ONCE(r->queue[r->producer++], ptr);' \
		'WRITE_ONCE(r->queue[r->producer], ptr);'
	beside mutant consumer 'WRITE_ONCE(r->consumer_head, consumer_head);' \
		'WRITE_ONCE(r->consumer_head, r->consumer_head);'
	beside mutant produce_no_unlock $'ret = __ptr_ring_produce(r, ptr);\n\tspin_unlock(&r->producer_lock);' \
		'ret = __ptr_ring_produce(r, ptr);'
	subtests_report
}

bad_arg() {
	local prog=$1 msg=$2 out=$tmp/bad.out err=$tmp/bad.err

	shift 2
	"$tmp/7.3/$prog" "$@" >"$out" 2>"$err"
	rc=$?
	if [ "$rc" -eq 1 ] && grep -qF -- "$msg" "$err" && [ ! -s "$out" ]; then
		ok "$prog: bad argument '$*' refused: $msg"
	else
		not_ok "$prog: bad argument '$*' refused: $msg (exit $rc)" \
			"$(head -5 "$err" "$out")"
	fi
}

test_cli() {
	local first last t=$tmp/7.3/ptr_ring_test c=$tmp/7.3/ptr_ring_check

	read -r first last < <(awk '/^Cpus_allowed_list/ {
		n = split($2, a, "[-,]"); print a[1], a[n] }' /proc/self/status)
	bad_arg ptr_ring_check "[-s 1..524288] [-n 1..100000000]" -s 0
	bad_arg ptr_ring_check "[-s 1..524288]" -s 524289
	bad_arg ptr_ring_check "[-n 1..100000000]" -n 0
	bad_arg ptr_ring_check "Usage:" --size 4
	bad_arg ptr_ring_test "out of range or not a number: '524289'" --ring-size 524289
	bad_arg ptr_ring_test "out of range or not a number: '-5'" -n -5
	bad_arg ptr_ring_test "out of range or not a number: '101'" --reps 101
	bad_arg ptr_ring_test "unknown mode 'foo'" --mode spsc,foo
	bad_arg ptr_ring_test "unknown mode ''" --mode ""
	bad_arg ptr_ring_test "must not exceed" --ring-size 16 --batch 32
	bad_arg ptr_ring_test "unexpected argument 'extra'" extra
	bad_arg ptr_ring_test "bad option '--json'" --json x
	check "ptr_ring_test --host-affinity 1023: the mode fails, saying why" \
		exit_and_grep 1 "$tmp/cpu.log" '^# spsc: FAIL: cannot run on CPU 1023$' \
		"$t" --host-affinity 1023 -m spsc -n 1000 -r 1
	check "ptr_ring_test -s 7 alone: --batch defaults to the size" \
		exit_and_grep 0 "$tmp/s7.log" '^# ring-size 7 \(r->batch 1\) batch 7$' \
		"$t" -s 7 -n 1000 -r 1 -m single
	# The producer's CPU alone: the consumer takes another
	run "$tmp/aff.log" "$t" --guest-affinity "$last" -n 20000 -r 1 -m spsc
	# shellcheck disable=SC2016 # the script reads its own arguments
	check "ptr_ring_test --guest-affinity $last alone: the consumer on another CPU" \
		bash -c '[ "$1" -eq 0 ] && ! grep -q "consumer CPU $2," "$3" &&
			grep -Eq "^# consumer CPU [0-9]+, producer CPU $2$" "$3"' \
		_ "$rc" "$last" "$tmp/aff.log"
	check "ptr_ring_test --help prints usage and exits 0" exit_and_grep 0 \
		"$tmp/help.log" '^Usage: .*--host-affinity|--guest-affinity' "$t" --help

	# The cap: KMALLOC_MAX_SIZE / sizeof(void *) entries.
	check "ptr_ring_check -s 524288 (the cap) passes" \
		check_ok "$tmp/cap.log" "$c" -s 524288 -n 100000
	check "ptr_ring_test --ring-size 524288 (the cap) passes" \
		exit_and_grep 0 "$tmp/cap.log" '^ok 3 batch # perf=' \
		"$t" --ring-size 524288 -n 100000 -r 1 -m single,spsc,batch
	check "ptr_ring_test -m mpsc -P 1 --param 4 passes" \
		exit_and_grep 0 "$tmp/mpsc1.log" '^ok 1 mpsc # perf=' \
		"$t" -m mpsc -P 1 -n 100000 -r 1 --param 4

	if command -v taskset >/dev/null; then
		check "one CPU: the two-thread modes left out saying why, single passes, exit 0" \
			test_ok "$tmp/one.log" "${modes[*]:1}" \
			taskset -c "$first" "$t" -n 10000 -r 1
		check "one CPU, -m spsc: the program skips, exit 4" \
			exit_and_grep 4 "$tmp/one-skip.log" '^1\.\.0 # SKIP no mode can run on 1 CPUs' \
			taskset -c "$first" "$t" -m spsc
		check "one CPU: ptr_ring_check passes" \
			check_ok "$tmp/one-check.log" taskset -c "$first" "$c" -n 20000
	fi
}

# ringtest's run-on-all.sh: one run per CPU but the host's, one without
# guest affinity, one without any.
test_run_on_all() {
	local log=$tmp/roa.log n runs

	(cd "$tmp/7.3" && sh "$tmp/tree-7.3/tools/virtio/ringtest/run-on-all.sh" \
		./ptr_ring_test -m spsc -n 50000 -r 1) >"$log" 2>&1
	rc=$?
	n=$(grep -c '^ok 1 spsc # perf=' "$log")
	runs=$(($(nproc) - 1 + 2))
	check "run-on-all.sh ./ptr_ring_test -m spsc: $n of $runs runs pass" \
		test "$rc" -eq 0 -a "$n" -eq "$runs" -a "$(grep -c 'unknown option\|not ok' "$log")" -eq 0
}

test_kselftest() {
	local label=$1 tree=$tmp/tree-$1 log=$tmp/kselftest-$1.log

	[ -d "$tree" ] || return
	make -s -C "$tree/tools/testing/selftests" TARGETS=ptr_ring \
		O="$tmp/kst-$label" run_tests >"$log" 2>&1
	check "$label: make -C tools/testing/selftests TARGETS=ptr_ring run_tests" \
		grep -qx 'ok 2 selftests: ptr_ring: ptr_ring_test' "$log"
	check "$label: ptr_ring_check's kselftest result is ok" \
		grep -qx 'ok 1 selftests: ptr_ring: ptr_ring_check' "$log"
	[ "$label" = 7.3 ] || return
	make -s -C "$tree/tools/testing/selftests" TARGETS=ptr_ring \
		O="$tmp/kst-$label" INSTALL_PATH="$tmp/inst" install >"$log" 2>&1 &&
	"$tmp/inst/run_kselftest.sh" -t ptr_ring:ptr_ring_check >"$log" 2>&1
	rc=$?
	[ -f "$tmp/inst/ptr_ring/settings" ] || rc=99
	check "install (with settings) + run_kselftest.sh" \
		exit_and_grep 0 "$log" '^ok 1 selftests: ptr_ring: ptr_ring_check$'
}

# lines ADDR BYTES: the first and last cache line (64 bytes) of BYTES at ADDR.
lines() {
	echo $((16#${1#0x} / 64)) $(((16#${1#0x} + $2 - 1) / 64))
}

# The two item arrays ptr_ring_test prints, at its default batch and at
# two others: each starts a cache line, and no line holds both.
test_layout() {
	local b log bytes c p cl pl

	for b in 16 3 9; do
		log=$tmp/layout-$b.log
		run "$log" "$tmp/7.3/ptr_ring_test" -b "$b" -n 1000 -r 1 -m spsc
		read -r bytes c p < <(sed -n 's/^# items: \([0-9]*\) bytes at \(0x[0-9a-f]*\) (consumer), \(0x[0-9a-f]*\) (producer 1)$/\1 \2 \3/p' "$log")
		if [ -z "$p" ] || [ "$rc" -ne 0 ]; then
			not_ok "ptr_ring_test -b $b prints its item arrays" "$(head -5 "$log")"
			continue
		fi
		read -r -a cl < <(lines "$c" "$bytes")
		read -r -a pl < <(lines "$p" "$bytes")
		check "ptr_ring_test -b $b: the consumer's items at $c, the producer's at $p, $bytes bytes each ($((b * 8)) used), on cache lines ${cl[0]}-${cl[1]} and ${pl[0]}-${pl[1]}" \
			test $((16#${c#0x} % 64)) -eq 0 -a $((16#${p#0x} % 64)) -eq 0 \
			-a "$bytes" -ge $((b * 8)) -a \( "${cl[1]}" -lt "${pl[0]}" -o "${pl[1]}" -lt "${cl[0]}" \)
	done
	# The ring is inlined as its users have it: no function of ptr_ring.h's,
	# nor a wrapper of the harness's around one, is left in the binary
	check "ptr_ring_test: no ring or ptr_ring function out of line ($(nm "$tmp/7.3/ptr_ring_test" | awk '$2 ~ /^[tT]$/ && $3 ~ /ring/ { printf "%s ", $3 }'))" \
		test -z "$(nm "$tmp/7.3/ptr_ring_test" | awk '$2 ~ /^[tT]$/ && $3 ~ /ring/')"
}

# cg BIN OUT ARGS...: callgrind's file OUT of a run but its waits.
# valgrind runs a thread at a time: with its default lock a spinning
# thread starves the other for whole time slices; --fair-sched hands over.
cg() {
	valgrind --tool=callgrind --fair-sched=yes --toggle-collect='wait_*' \
		--collect-atstart=yes --callgrind-out-file="$2" "$1" "${@:3}" \
		>/dev/null 2>&1
}

# ring LABEL MODE: Ir per item in the ring (ptr_ring.h and the shims) and
# in all, of ptr_ring_test (2 reps of N and 2N items) and bare_loop (N
# and 2N items): "test-ring test-all bare-ring bare-all".
ring() {
	local label=$1 mode=$2 n=50000 d=$tmp/cg-$1 args=(0)

	mkdir -p "$d"
	[ "$mode" = single ] && args=()
	cg "$tmp/$label/ptr_ring_test" "$d/base-1.$mode.$((n / 2))" -m "$mode" -P 1 -n $((n / 2)) -r 1 &&
	cg "$tmp/$label/ptr_ring_test" "$d/base-1.$mode.$n" -m "$mode" -P 1 -n $n -r 1 &&
	cg "$tmp/bare_loop-$label" "$d/bare.$mode.a" "$mode" $n 1024 16 1 "${args[@]}" &&
	cg "$tmp/bare_loop-$label" "$d/bare.$mode.b" "$mode" $((2 * n)) 1024 16 1 "${args[@]}" &&
	PYTHONPATH=$REPO/ab python3 - "$d" "$mode" "$n" <<'PY'
import sys
import cgsplit
d, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = []
for a, b in ((f'{d}/base-1.{mode}.{n // 2}', f'{d}/base-1.{mode}.{n}'),
             (f'{d}/bare.{mode}.a', f'{d}/bare.{mode}.b')):
    x, y = cgsplit.rows(a), cgsplit.rows(b)
    diff = {k: (y[k] - x[k]) / n for k in set(x) | set(y)}
    out += [sum(v for k, v in diff.items() if cgsplit.part(k) != 'harness'),
            sum(diff.values())]
print(' '.join(f'{v:.2f}' for v in out))
PY
}

build_bare() {
	"$CC" -O2 -g -Wall -Werror -pthread -I"$tmp/tree-$1/tools/virtio/ringtest" \
		-o "$tmp/bare_loop-$1" "$REPO/tests/ptr_ring/bare_loop.c"
}

# ptr_ring_test times the ring as its users compile it: its ring's Ir/item
# (ptr_ring.h's lines and the shims', callgrind_annotate --inclusive=no)
# within CG_NEAR % of bare_loop's, the same calls in the plainest loops;
# with the reordered header, ab/cgsplit.py's parts add up to the change
# of the whole run, the rows that moved named.
test_callgrind() {
	local mode r line label side d=$REPO/tests/ptr_ring/discard_one_reorder.diff

	command -v valgrind >/dev/null ||
		{ not_ok "valgrind is installed (Debian package valgrind)"; return; }
	expect_rc "7.3: bare_loop builds" 0 "$tmp/bare-7.3.log" build_bare 7.3 || return
	for mode in "${modes[@]}"; do
		read -r -a r < <(ring 7.3 "$mode")
		line="callgrind $mode: the ring's Ir/item in ptr_ring_test ${r[0]:-?} (all ${r[1]:-?}), in bare_loop ${r[2]:-?} (all ${r[3]:-?})"
		# shellcheck disable=SC2016 # awk's variables
		check "$line: within $CG_NEAR %" awk -v a="${r[0]:-0}" -v b="${r[2]:-0}" -v p="$CG_NEAR" \
			'BEGIN { exit !(a > 0 && b > 0 && (a > b ? a - b : b - a) <= b * p / 100) }'
	done
	if header_tree reorder && patch -s -p1 -d "$tmp/tree-reorder" <"$d" &&
	   build "$tmp/tree-reorder" reorder; then
		check "7.3 with ${d##*/}: ptr_ring_check passes" \
			check_ok "$tmp/reorder.log" "$tmp/reorder/ptr_ring_check"
	else
		not_ok "7.3 with ${d##*/} builds" "$(tail -5 "$tmp/reorder.build.log")"
		return
	fi
	# ab/cgsplit.py on the two builds' runs: what moved, named
	mkdir -p "$tmp/split"
	for mode in "${modes[@]}"; do
		for label in 7.3 reorder; do
			side=base
			[ "$label" = reorder ] && side=change
			cg "$tmp/$label/ptr_ring_test" "$tmp/split/$side-1.$mode.5000" -m "$mode" -P 1 -n 5000 -r 1
			cg "$tmp/$label/ptr_ring_test" "$tmp/split/$side-1.$mode.10000" -m "$mode" -P 1 -n 10000 -r 1
		done
	done
	"$REPO/ab/cgsplit.py" "$tmp/split" 5000 "${modes[@]}" >"$OUT/ptr_ring-split.txt" 2>&1
	sed 's/^/# /' "$OUT/ptr_ring-split.txt"
	check "ab/cgsplit.py: ring, shims and harness for each mode, and what moved" \
		test "$(grep -Ec '^[a-z_]+ +(ring|shims|harness) +[0-9.]+ +[0-9.]+ +[-+][0-9.]+$' "$OUT/ptr_ring-split.txt")" -eq $((3 * ${#modes[@]})) \
		-a "$(grep -Ec '^[a-z_]+ +moved: ' "$OUT/ptr_ring-split.txt")" -eq ${#modes[@]}
	check "ab/cgsplit.py: the reorder moves ptr_ring.h's code in single, named" \
		grep -Eq '^single +moved: +.*ptr_ring\.h in [a-z_.0-9]+ \(ring\) [-+][0-9.]+' "$OUT/ptr_ring-split.txt"
}

# Timings against the bare loop, printed (this machine's are noisy).
test_bare_timing() {
	local mode t b p c args

	[ -x "$tmp/bare_loop-7.3" ] || build_bare 7.3 >/dev/null 2>&1 || return
	read -r c p < <(sed -n 's/^# consumer CPU \([0-9]*\), producer CPU \([0-9]*\)$/\1 \2/p' \
		"$tmp/7.3.test.log")
	for mode in "${modes[@]}"; do
		args=()
		[ "$mode" = single ] || args=("${p:-0}")
		[ "$mode" = mpsc ] && continue
		b=$("$tmp/bare_loop-7.3" "$mode" 1000000 1024 16 "${c:-0}" "${args[@]}")
		rc=$?
		check "bare_loop $mode runs, every item arrives" test "$rc" -eq 0
		t=$("$tmp/7.3/ptr_ring_test" -m "$mode" -n 1000000 -r 3 |
		    sed -n "s/^ok 1 $mode # perf=//p")
		echo "# timing $mode: ptr_ring_test ${t:-?} median of 3, bare_loop ${b##* } ns/item"
	done
}

# ported WHAT NAME RUN [MAKE-ARGS...]: the base built as NAME with MAKE-ARGS
# without warnings (else fails), ptr_ring_check passing under RUN (or none).
ported() {
	local what=$1 name=$2 runner=$3

	shift 3
	build "$tmp/tree-7.3" "$name" "$@" ||
		{ not_ok "$what build" "$(tail -20 "$tmp/$name.build.log")"; return 1; }
	# shellcheck disable=SC2086 # a command, or nothing
	check "$what: ptr_ring_check passes${runner:+ under $runner}" \
		check_ok "$tmp/$name.log" $runner "$tmp/$name/ptr_ring_check" -n 50000
}

# Other compilers and architectures, when this machine has them.
test_portability() {
	! command -v clang >/dev/null || ported "clang (LLVM=1)" clang "" LLVM=1
	if command -v qemu-x86_64 >/dev/null && [ "$(uname -m)" = x86_64 ]; then
		check "ptr_ring_check on a baseline x86-64 CPU (qemu-x86_64 -cpu qemu64)" \
			check_ok "$tmp/qemu64.log" qemu-x86_64 -cpu qemu64 \
			"$tmp/7.3/ptr_ring_check" -n 50000
	fi
	if command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null; then
		ported "arm64 cross build" arm64 qemu-aarch64 \
			CC=aarch64-linux-gnu-gcc USERLDFLAGS=-static
	fi
	# riscv64: no pause instruction in ringtest's main.h, whose
	# cpu_relax() is then a compiler barrier, not assert(0)
	if ! command -v riscv64-linux-gnu-gcc >/dev/null ||
	   ! command -v qemu-riscv64 >/dev/null; then
		not_ok "riscv64: a cross compiler and qemu-riscv64" "see $OUT/need-tools.log"
	elif ported "riscv64 cross build" riscv64 qemu-riscv64 \
		CC=riscv64-linux-gnu-gcc USERLDFLAGS=-static; then
		check "riscv64: ptr_ring_test passes every mode under qemu-riscv64" \
			test_ok "$tmp/riscv64.test.log" "$([ "$(nproc)" -gt 2 ] || echo mpsc)" \
			qemu-riscv64 "$tmp/riscv64/ptr_ring_test" -n 20000 -r 1
	fi
}

if [ -n "$KSRC_73" ]; then test_tree 7.3 "$KSRC_73"; else not_ok "the base tree (7.3) is there"; fi
if [ -x "$tmp/7.3/ptr_ring_test" ]; then
	test_mutants
	test_cli
	test_layout
	test_run_on_all
	test_kselftest 7.3
	test_callgrind
	test_bare_timing
	test_portability
else
	echo "# no build against the base: the other checks are skipped"
fi

tests_done ptr_ring
