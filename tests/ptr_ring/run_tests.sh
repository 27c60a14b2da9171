#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Project tests for tools/testing/selftests/ptr_ring and the ringtest shim
# it shares (tools/virtio/ringtest/ptr_ring_shim.h); not part of the kernel
# series.  The project's files are laid over each kernel tree in a
# temporary directory of symlinks (the trees stay read-only), then:
#
#   - ringtest's ptr_ring and the selftest build without warnings against
#     KSRC_NEW and KSRC_OLD (default: the newest and the 6.12 Debian sources
#     the QEMU runner unpacked; a missing tree fails) and run: every mode
#     "ok", the timed ones with "# perf=<ns>ns" and their summary line;
#   - ThreadSanitizer, AddressSanitizer and UndefinedBehaviorSanitizer
#     builds run clean (the old tree: ThreadSanitizer, with the races its
#     header does not annotate with data_race() suppressed);
#   - mutants: the selftest built against copies of the new tree's
#     ptr_ring.h, each broken in one way a run can see, must fail (exit 1,
#     "not ok", a FAIL line) within MUTANT_SEC seconds, never hang:
#       zeroing    __ptr_ring_zero_tail() no longer clears consumed slots
#       gfp_zero   the queue is allocated without __GFP_ZERO
#       producer   __ptr_ring_produce() does not advance r->producer
#       consumer   __ptr_ring_discard_one() does not advance consumer_head
#     No run on x86 can see these, so they are not mutants here:
#       - smp_wmb() dropped from __ptr_ring_produce(): x86 does not reorder
#         stores, smp_wmb() is only a compiler barrier there, and
#         ThreadSanitizer models neither fences nor the address dependency
#         the consumer relies on; only weakly ordered hardware (arm64,
#         POWER) running the selftest can catch it, and only sometimes;
#       - READ_ONCE()/WRITE_ONCE() turned into plain accesses: the same
#         instructions on x86 unless the compiler happens to tear, fuse or
#         hoist the access;
#       - data_race() annotations dropped: only KCSAN sees them;
#       - spin_lock_bh()/_irq()/_irqsave() swapped for spin_lock(): there
#         are no softirqs or interrupts in userspace;
#   - bad options: exit 1 and a message before any output; one usable CPU:
#     the two-thread modes skip (exit 0, or 4 when nothing else runs);
#   - make -C tools/testing/selftests TARGETS=ptr_ring run_tests / install;
#   - ptr_ring_test.c and the shim it includes are at most 600 lines
#     together, as issue 10 asks;
#   - minimal_loop.c (the bare single and spsc loops) builds, runs in order,
#     and its figures are printed next to ptr_ring_test's: the harness's
#     cost per item (printed only: timing is not asserted);
#   - clang, and when installed qemu-x86_64 and an arm64 cross compiler.
#
# Prints "ok - ..." / "not ok - ..." per check, then "# N passed, N failed";
# exits 1 if anything failed.

set -u

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"
# clang, qemu-user and an arm64 cross compiler for the portability checks
need_tools "clang clang" "qemu-x86_64 qemu-user" \
	"aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu" \
	"/usr/aarch64-linux-gnu/include/stdio.h libc6-dev-arm64-cross"

# The kernel sources the QEMU runner unpacks (fetched on a cold machine;
# nothing is built).
if [ -z "${KSRC_NEW:-}${KSRC_OLD:-}" ] &&
   { [ ! -d "$(pinned_source)" ] ||
     [ -z "$(runner_source 'linux-source-6.12-*')" ]; }; then
	"$VMTEST" --stop-after fetch >>"$OUT/prepare.log" 2>&1
fi
KSRC_NEW=${KSRC_NEW:-$(pinned_source)}
KSRC_OLD=${KSRC_OLD:-$(runner_source 'linux-source-6.12-*')}
CC=${CC:-gcc}
MUTANT_SEC=30
modes=(single spsc batch lockless lockless_batch unconsume resize)
timed=5		# the first five modes print "# perf=" and a summary

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptr_ring_tests.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# build TREE NAME [MAKE-ARGS...]: binary in $tmp/NAME/ptr_ring_test, built
# without warnings.
build() {
	local tree=$1 name=$2

	shift 2
	mkdir -p "$tmp/$name" &&
	make -s -j1 -C "$tree/tools/testing/selftests/ptr_ring" CC="$CC" \
		KSRC="$tree" OUTPUT="$tmp/$name" "$@" \
		>"$tmp/$name.build.log" 2>&1 &&
	test -x "$tmp/$name/ptr_ring_test" &&
	! grep -Eq 'warning:|error:' "$tmp/$name.build.log"
}

# run NAME LOG ARGS...: run a build, output in LOG, sets $rc.
run() {
	local name=$1 log=$2

	shift 2
	"$tmp/$name/ptr_ring_test" "$@" >"$log" 2>&1
	rc=$?
}

# all_ok LOG: exit 0, KTAP header and plan, every mode ok, the timed ones
# with their perf directive and summary line.
all_ok() {
	local log=$1 i mode num='[0-9]+\.[0-9]{3}'

	[ "$rc" -eq 0 ] || { echo "# exit $rc"; return 1; }
	if ! grep -q '^TAP version 13$' "$log" ||
	   ! grep -q "^1\.\.${#modes[@]}\$" "$log"; then
		echo "# no KTAP header or plan"
		return 1
	fi
	for i in "${!modes[@]}"; do
		mode=${modes[$i]}
		if [ "$i" -ge "$timed" ]; then
			grep -q "^ok $((i + 1)) $mode\$" "$log" ||
				{ echo "# $mode not ok"; return 1; }
			continue
		fi
		grep -Eq "^ok $((i + 1)) $mode # perf=${num}ns\$" "$log" ||
			{ echo "# $mode not ok, or no perf"; return 1; }
		grep -Eq "^# $mode: ns_per_item min $num median $num max $num reps [0-9]+\$" "$log" ||
			{ echo "# $mode: no summary line"; return 1; }
		grep -Eq "^# $mode: rep 1 ns_per_item $num full [0-9]+ empty [0-9]+\$" "$log" ||
			{ echo "# $mode: no repetition line"; return 1; }
	done
	grep -Eq '^# producer CPU [0-9]+, consumer CPU [0-9]+: ' "$log" ||
		{ echo "# no CPU topology line"; return 1; }
}

sanitizer_clean() {
	local log=$1

	[ "$rc" -eq 0 ] || { echo "# exit $rc"; tail -20 "$log"; return 1; }
	if grep -Eq 'ThreadSanitizer|AddressSanitizer|LeakSanitizer|runtime error|SUMMARY:' "$log"; then
		grep -E -m5 'WARNING|ERROR|runtime error|SUMMARY' "$log"
		return 1
	fi
}

test_ringtest() {
	local label=$1 tree=$2 rt=$2/tools/virtio/ringtest

	if make -s -j1 -C "$rt" ptr_ring >"$tmp/$label.rt.log" 2>&1 &&
	   ! grep -Eq 'warning:|error:' "$tmp/$label.rt.log"; then
		ok "$label: ringtest ptr_ring builds"
	else
		not_ok "$label: ringtest ptr_ring builds" "$(cat "$tmp/$label.rt.log")"
		return
	fi
	rc=0
	timeout 60 "$rt/ptr_ring" --run-cycles 2000000 >"$tmp/$label.rt.log" 2>&1 ||
		rc=$?
	check "$label: ringtest ptr_ring runs" test "$rc" -eq 0
	make -s -C "$rt" clean >/dev/null 2>&1
}

test_tree() {
	local label=$1 ksrc=$2 tree=$tmp/tree-$1 log san cflags opts name

	if [ ! -f "$ksrc/include/linux/ptr_ring.h" ] ||
	   [ ! -f "$ksrc/tools/testing/selftests/lib.mk" ]; then
		not_ok "$label: kernel tree '$ksrc' found"
		return
	fi
	if ! overlay_ptr_ring "$ksrc" "$tree"; then
		not_ok "$label: lay the project's files over $ksrc"
		return
	fi
	test_ringtest "$label" "$tree"

	if ! build "$tree" "$label"; then
		not_ok "$label: selftest builds without warnings" \
			"$(cat "$tmp/$label.build.log")"
		return
	fi
	ok "$label: selftest builds without warnings"
	log=$tmp/$label.default.log
	if [ "$label" = new ]; then
		run "$label" "$log"
		check "$label: default run passes all modes" all_ok "$log"
	else
		run "$label" "$log" --count 200000 --reps 2
		check "$label: short run passes all modes" all_ok "$log"
	fi
	cp "$log" "$OUT/ptr_ring-$label.log"

	for san in address undefined thread; do
		[ "$label" = old ] && [ "$san" != thread ] && continue
		cflags="-fsanitize=$san" opts="" name=$label-$san
		[ "$san" = undefined ] && cflags+=" -fno-sanitize-recover=all"
		if [ "$san" = thread ] && [ "$label" = old ]; then
			# This header predates the data_race() annotations: the
			# consumer clearing slots races with the producer and
			# the lockless consumer testing them, by design.
			printf 'race:%s\n' __ptr_ring_discard_one \
				__ptr_ring_produce __ptr_ring_full \
				__ptr_ring_empty >"$tmp/tsan.supp"
			opts="suppressions=$tmp/tsan.supp"
		fi
		if ! build "$tree" "$name" USERCFLAGS="$cflags" \
			   USERLDFLAGS="-fsanitize=$san"; then
			not_ok "$label: $san sanitizer build" \
				"$(cat "$tmp/$name.build.log")"
			continue
		fi
		export TSAN_OPTIONS="halt_on_error=1 $opts"
		export ASAN_OPTIONS="detect_leaks=1"
		export UBSAN_OPTIONS="print_stacktrace=1"
		run "$name" "$tmp/$name.log" --count 20000 --reps 2
		check "$label: $san sanitizer run is clean${opts:+ (unannotated races suppressed)}" \
			sanitizer_clean "$tmp/$name.log"
		# A tiny ring: many full and empty transitions.
		run "$name" "$tmp/$name.log" --count 20000 --reps 1 --size 4 --batch 3
		check "$label: $san sanitizer run with a 4-entry ring is clean" \
			sanitizer_clean "$tmp/$name.log"
		unset TSAN_OPTIONS ASAN_OPTIONS UBSAN_OPTIONS
	done
}

# mutant NAME FROM TO: a copy of the new tree's ptr_ring.h with FROM (which
# must occur once) replaced by TO; the selftest must fail, fast.
mutant() {
	local name=$1 dir=$tmp/mutant-$1 log=$tmp/mutant-$1.log start secs

	mkdir -p "$dir/include/linux"
	if ! python3 - "$KSRC_NEW/include/linux/ptr_ring.h" \
		"$dir/include/linux/ptr_ring.h" "$2" "$3" <<-'EOF'
		import sys
		src, dst, old, new = sys.argv[1:]
		text = open(src).read()
		if text.count(old) != 1:
		    sys.exit(f"'{old}' occurs {text.count(old)} times")
		open(dst, "w").write(text.replace(old, new))
		EOF
	then
		not_ok "mutant $name: the header has the code to break"
		return
	fi
	if ! build "$tmp/tree-new" "mutant-$name" KSRC="$dir"; then
		not_ok "mutant $name: builds" "$(cat "$tmp/mutant-$name.build.log")"
		return
	fi
	start=$(date +%s)
	timeout 120 "$tmp/mutant-$name/ptr_ring_test" --count 100000 --reps 1 \
		>"$log" 2>&1
	rc=$? secs=$(($(date +%s) - start))
	if [ "$rc" -eq 1 ] && [ "$secs" -le "$MUTANT_SEC" ] &&
	   grep -q '^not ok ' "$log" && grep -q ': FAIL: ' "$log"; then
		ok "mutant $name fails in ${secs}s: $(grep -m1 ': FAIL: ' "$log" | cut -c1-100)"
	else
		not_ok "mutant $name fails within ${MUTANT_SEC}s (exit $rc after ${secs}s)" \
			"$(tail -n 12 "$log")"
	fi
}

test_mutants() {
	mutant zeroing 'data_race(r->queue[--head] = NULL);' '--head;'
	mutant gfp_zero 'gfp | __GFP_ZERO);' 'gfp);'
	mutant producer 'WRITE_ONCE(r->queue[r->producer++], ptr);' \
		'WRITE_ONCE(r->queue[r->producer], ptr);'
	mutant consumer 'WRITE_ONCE(r->consumer_head, consumer_head);' \
		'WRITE_ONCE(r->consumer_head, r->consumer_head);'
}

exit_and_grep() {
	[ "$rc" -eq "$1" ] || { echo "# exit $rc, expected $1"; return 1; }
	grep -Eq "$3" "$2" || { echo "# no line matching $3"; return 1; }
}

# bad_arg MESSAGE ARGS...: exit 1, MESSAGE on stderr, no test output.
bad_arg() {
	local msg=$1 out=$tmp/bad.out err=$tmp/bad.err

	shift
	"$tmp/new/ptr_ring_test" "$@" >"$out" 2>"$err"
	rc=$?
	if [ "$rc" -eq 1 ] && grep -qF -- "$msg" "$err" && [ ! -s "$out" ]; then
		ok "bad argument '$*' refused: $msg"
	else
		not_ok "bad argument '$*' refused: $msg (exit $rc)" \
			"$(head -5 "$err" "$out")"
	fi
}

one_cpu_ok() {
	exit_and_grep 0 "$1" '^ok 1 single # perf=' &&
	[ "$(grep -c '^ok [2-5] # SKIP .*needs two CPUs' "$1")" -eq 4 ] &&
	grep -q '^ok 6 unconsume$' "$1" && grep -q '^ok 7 resize$' "$1"
}

test_cli() {
	local first last

	first=$(awk '/^Cpus_allowed_list/ { split($2, a, "[-,]"); print a[1] }' \
		/proc/self/status)
	last=$(awk '/^Cpus_allowed_list/ { n = split($2, a, "[-,]"); print a[n] }' \
		/proc/self/status)

	bad_arg "out of range" --size 0
	bad_arg "not a decimal number" --size -5
	bad_arg "not a decimal number" --size=-1
	bad_arg "not a decimal number" --size abc
	bad_arg "not a decimal number" --size ""
	bad_arg "not a decimal number" --size 12x
	bad_arg "out of range" --size 524289
	bad_arg "out of range" --size 99999999999999999999999
	bad_arg "out of range" --count 0
	bad_arg "out of range" --count 1000000001
	bad_arg "not a decimal number" --count 1.5
	bad_arg "out of range" --batch 0
	bad_arg "larger than the ring size" --size 16 --batch 32
	bad_arg "out of range" --reps 0
	bad_arg "out of range" --reps 1001
	bad_arg "not online" --producer-cpu 1023
	bad_arg "not online" --consumer-cpu 1023
	bad_arg "out of range" --consumer-cpu 4096
	bad_arg "not a decimal number" --producer-cpu one
	bad_arg "must differ" -p "$first" -c "$first"
	bad_arg "unknown mode 'foo'" --mode foo
	bad_arg "unknown mode 'spsc2'" --mode single,spsc2
	bad_arg "unknown mode ''" --mode ,
	bad_arg "names no mode" --mode ""
	bad_arg "unknown option '--json'" --json x
	bad_arg "unknown option '-x'" -x
	bad_arg "needs a value" --size
	bad_arg "unexpected argument 'extra'" extra

	run new "$tmp/help.log" --help
	check "--help prints usage and exits 0" \
		exit_and_grep 0 "$tmp/help.log" '^Usage: '
	run new "$tmp/modes.log" -m resize,unconsume,all -n 1000 -r 1
	check "--mode all combines with other names" all_ok "$tmp/modes.log"

	if [ "$first" != "$last" ]; then
		run new "$tmp/cpus.log" -m spsc -n 10000 -r 1
		check "default CPUs: the last two allowed" exit_and_grep 0 \
			"$tmp/cpus.log" "^# producer CPU [0-9]+, consumer CPU $last: "
	fi
	if command -v taskset >/dev/null; then
		taskset -c "$first" "$tmp/new/ptr_ring_test" -n 10000 -r 1 \
			>"$tmp/one.log" 2>&1
		rc=$?
		check "one CPU: two-thread modes skip, the others pass, exit 0" \
			one_cpu_ok "$tmp/one.log"
		taskset -c "$first" "$tmp/new/ptr_ring_test" -m spsc \
			>"$tmp/one-skip.log" 2>&1
		rc=$?
		check "one CPU, --mode spsc: exit 4 (skip)" \
			exit_and_grep 4 "$tmp/one-skip.log" '^ok 1 # SKIP spsc'
	fi
}

test_kselftest() {
	local tree=$tmp/tree-new log=$tmp/kselftest.log

	make -s -C "$tree/tools/testing/selftests" TARGETS=ptr_ring \
		O="$tmp/kst" run_tests >"$log" 2>&1
	rc=$?
	check "make -C tools/testing/selftests TARGETS=ptr_ring run_tests" \
		exit_and_grep 0 "$log" '^ok 1 selftests: ptr_ring: ptr_ring_test$'

	make -s -C "$tree/tools/testing/selftests" TARGETS=ptr_ring \
		O="$tmp/kst" INSTALL_PATH="$tmp/inst" install >"$log" 2>&1 &&
	"$tmp/inst/run_kselftest.sh" -t ptr_ring:ptr_ring_test >"$log" 2>&1
	rc=$?
	[ -f "$tmp/inst/ptr_ring/settings" ] || rc=99
	check "install (with settings) + run_kselftest.sh" \
		exit_and_grep 0 "$log" '^ok 1 selftests: ptr_ring: ptr_ring_test$'
}

# Issue 10: the selftest and its shim in at most 600 lines.
test_size() {
	local n

	n=$(cat "$REPO/tools/testing/selftests/ptr_ring/ptr_ring_test.c" \
		"$REPO/tools/virtio/ringtest/ptr_ring_shim.h" | wc -l)
	check "ptr_ring_test.c + ptr_ring_shim.h: $n lines, at most 600" \
		test "$n" -le 600
}

# minimal_loop: the same ring operations as single and spsc with nothing
# else; the difference from ptr_ring_test is the harness's cost per item.
test_minimal() {
	local tree=$tmp/tree-new mode p c line

	read -r p c < <(sed -n 's/^# producer CPU \([0-9]*\), consumer CPU \([0-9]*\):.*/\1 \2/p' \
		"$tmp/new.default.log")
	if ! "$CC" -O2 -Wall -Werror -pthread -I"$tree/tools/virtio/ringtest" \
		-DPTR_RING_H="\"$tree/include/linux/ptr_ring.h\"" \
		-o "$tmp/minimal_loop" "$REPO/tests/ptr_ring/minimal_loop.c" >"$tmp/minimal.log" 2>&1; then
		not_ok "minimal_loop builds" "$(cat "$tmp/minimal.log")"
		return
	fi
	for mode in single spsc; do
		[ -n "$p" ] || [ "$mode" = single ] || continue
		line=$("$tmp/minimal_loop" "$mode" 1000000 1024 "${p:-0}" "${c:-0}")
		rc=$?
		check "minimal_loop $mode runs, every item in order" test "$rc" -eq 0
		echo "# minimal_loop $line; ptr_ring_test:" \
			"$(grep -m1 "^# $mode: ns_per_item" "$tmp/new.default.log")"
	done
}

# Other compilers and architectures, when this machine has them.
test_portability() {
	local tree=$tmp/tree-new

	if command -v clang >/dev/null && build "$tree" clang LLVM=1; then
		run clang "$tmp/clang.log" --count 50000 --reps 1
		check "clang (LLVM=1) build runs all modes" all_ok "$tmp/clang.log"
	elif command -v clang >/dev/null; then
		not_ok "clang (LLVM=1) build" "$(cat "$tmp/clang.build.log")"
	else
		echo "# clang not found, skipping the LLVM=1 build"
	fi

	if command -v qemu-x86_64 >/dev/null && [ "$(uname -m)" = x86_64 ]; then
		qemu-x86_64 -cpu qemu64 "$tmp/new/ptr_ring_test" --count 50000 \
			--reps 1 >"$tmp/qemu64.log" 2>&1
		rc=$?
		check "runs on a baseline x86-64 CPU (qemu-x86_64 -cpu qemu64)" \
			all_ok "$tmp/qemu64.log"
	else
		echo "# qemu-x86_64 not found, skipping the baseline CPU run"
	fi

	if command -v aarch64-linux-gnu-gcc >/dev/null &&
	   command -v qemu-aarch64 >/dev/null; then
		# Emulated: checks the build and the logic, not arm64's
		# reordering.
		if build "$tree" arm64 CC=aarch64-linux-gnu-gcc \
			USERLDFLAGS=-static; then
			qemu-aarch64 "$tmp/arm64/ptr_ring_test" --count 50000 \
				--reps 1 >"$tmp/arm64.log" 2>&1
			rc=$?
			check "arm64 cross build runs all modes under qemu-aarch64" \
				all_ok "$tmp/arm64.log"
		else
			not_ok "arm64 cross build" "$(cat "$tmp/arm64.build.log")"
		fi
	else
		echo "# aarch64-linux-gnu-gcc or qemu-aarch64 not found, skipping arm64"
	fi
}

test_tree new "$KSRC_NEW"
test_tree old "$KSRC_OLD"
test_size
if [ -x "$tmp/new/ptr_ring_test" ]; then
	test_mutants
	test_cli
	test_kselftest
	test_minimal
	test_portability
else
	echo "# no build against the new tree: mutants, command line and kselftest checks skipped"
fi

tests_done ptr_ring
