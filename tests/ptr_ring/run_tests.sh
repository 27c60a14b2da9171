#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Project tests for tools/testing/selftests/ptr_ring (not part of the kernel
# series).  The selftest is laid over each kernel tree in a temporary
# directory of symlinks (the trees stay read-only), then built and run:
#
#   - native build against KSRC_NEW and KSRC_OLD (default: the newest and
#     the 6.12 Debian sources the QEMU runner unpacked; a missing tree fails),
#   - the default run: exit 0, every mode "ok" with its ns_per_item line,
#   - make -C tools/testing/selftests TARGETS=ptr_ring run_tests / install
#     and run_kselftest.sh,
#   - ThreadSanitizer, AddressSanitizer and UndefinedBehaviorSanitizer builds
#     run clean (the old tree: ThreadSanitizer only, see below),
#   - -DPTR_RING_TEST_INJECT=drop / dup builds fail every mode (exit 1),
#   - every bad option gives exit 1 and its message before any work,
#   - skips when only one CPU is usable,
#   - a clang build and, if the tools are installed, a run on a baseline
#     x86-64 CPU model and an arm64 cross build, both under qemu-user.
#
# Prints "ok - ..." / "not ok - ..." per check, then "# N passed, N failed";
# exits 1 if anything failed.

set -u

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

# The kernel sources the QEMU runner unpacks (fetched on a cold machine;
# nothing is built).
if [ -z "${KSRC_NEW:-}${KSRC_OLD:-}" ] &&
   { [ -z "$(runner_source 'linux-source-[0-9]*')" ] ||
     [ -z "$(runner_source 'linux-source-6.12-*')" ]; }; then
	"$VMTEST" --stop-after fetch >>"$OUT/prepare.log" 2>&1
fi
KSRC_NEW=${KSRC_NEW:-$(runner_source 'linux-source-[0-9]*')}
KSRC_OLD=${KSRC_OLD:-$(runner_source 'linux-source-6.12-*')}
CC=${CC:-gcc}
modes=(single spsc batch_consume batch_produce resize)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptr_ring_tests.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# build TREE NAME [USERCFLAGS [USERLDFLAGS]]: binary in $tmp/NAME/ptr_ring_test
build() {
	local tree=$1 name=$2 cflags=${3:-} ldflags=${4:-}

	mkdir -p "$tmp/$name" &&
	make -s -j1 -C "$tree/tools/testing/selftests/ptr_ring" \
		CC="$CC" KSRC="$tree" OUTPUT="$tmp/$name" \
		USERCFLAGS="$cflags" USERLDFLAGS="$ldflags" \
		>"$tmp/$name.build.log" 2>&1 &&
	test -x "$tmp/$name/ptr_ring_test"
}

# run NAME LOG ARGS...: run a build, output in LOG, sets $rc.
run() {
	local name=$1 log=$2

	shift 2
	"$tmp/$name/ptr_ring_test" "$@" >"$log" 2>&1
	rc=$?
}

# default_run_ok LOG RC: every mode passed and reported its timing line.
default_run_ok() {
	local log=$1 rc=$2 i mode num='[0-9]+\.[0-9]{3}'

	[ "$rc" -eq 0 ] || { echo "# exit $rc"; return 1; }
	if ! grep -q '^TAP version 13$' "$log" || ! grep -q '^1\.\.5$' "$log"; then
		echo "# no KTAP header or plan"
		return 1
	fi
	for i in "${!modes[@]}"; do
		mode=${modes[$i]}
		grep -q "^ok $((i + 1)) $mode\$" "$log" ||
			{ echo "# $mode not ok"; return 1; }
		grep -Eq "^# $mode: ns_per_item min $num median $num max $num items_per_sec [0-9]+ reps [0-9]+( cycles_per_item median [0-9]+\.[0-9])?\$" "$log" ||
			{ echo "# $mode: no ns_per_item line"; return 1; }
	done
}

sanitizer_clean() {
	local log=$1 rc=$2

	[ "$rc" -eq 0 ] || { echo "# exit $rc"; tail -20 "$log"; return 1; }
	if grep -Eq 'ThreadSanitizer|AddressSanitizer|LeakSanitizer|runtime error|SUMMARY:' "$log"; then
		grep -E -m5 'WARNING|ERROR|runtime error|SUMMARY' "$log"
		return 1
	fi
}

# injected_fails LOG RC: exit 1, every mode "not ok" with a FAIL message.
injected_fails() {
	local log=$1 rc=$2 i

	[ "$rc" -eq 1 ] || { echo "# exit $rc, expected 1"; return 1; }
	for i in "${!modes[@]}"; do
		grep -q "^not ok $((i + 1)) ${modes[$i]}\$" "$log" ||
			{ echo "# ${modes[$i]} did not fail"; return 1; }
	done
	grep -q ': FAIL: item .*expected seq' "$log" ||
		{ echo "# no sequence error reported"; return 1; }
}

test_tree() {
	local label=$1 ksrc=$2 tree=$tmp/tree-$1 log san sanitizers inj

	if [ ! -f "$ksrc/include/linux/ptr_ring.h" ] ||
	   [ ! -f "$ksrc/tools/testing/selftests/lib.mk" ]; then
		not_ok "$label: kernel tree '$ksrc' found"
		return
	fi
	if ! overlay_ptr_ring "$ksrc" "$tree"; then
		not_ok "$label: lay the selftest over $ksrc"
		return
	fi

	if ! build "$tree" "$label"; then
		not_ok "$label: native build"
		sed 's/^/# /' "$tmp/$label.build.log"
		return
	fi
	if grep -Eq 'warning:|error:' "$tmp/$label.build.log"; then
		not_ok "$label: native build has no warnings"
		sed 's/^/# /' "$tmp/$label.build.log"
	else
		ok "$label: native build"
	fi

	log=$tmp/$label.default.log
	if [ "$label" = new ]; then
		run "$label" "$log"
		check "$label: default run passes all modes" default_run_ok "$log" "$rc"
	else
		run "$label" "$log" --count 200000 --reps 2
		check "$label: short run passes all modes" default_run_ok "$log" "$rc"
	fi

	# The header only matters to TSan; the rest is this test's own code.
	sanitizers=(address undefined thread)
	[ "$label" = old ] && sanitizers=(thread)
	for san in "${sanitizers[@]}"; do
		local cflags="-fsanitize=$san" opts="" name=$label-$san

		case $san in
		undefined) cflags+=" -fno-sanitize-recover=all" ;;
		thread)
			cflags+=" -Wno-tsan"
			if [ "$label" = old ]; then
				# This header predates the data_race() annotations:
				# the consumer clearing slots races with the
				# producer checking them, by design.  Either
				# side's stack may be the one TSan can report.
				printf 'race:%s\n' __ptr_ring_discard_one \
					__ptr_ring_produce >"$tmp/tsan.supp"
				opts="suppressions=$tmp/tsan.supp"
			fi
			;;
		esac
		if ! build "$tree" "$name" "$cflags" "-fsanitize=$san"; then
			not_ok "$label: $san sanitizer build"
			sed 's/^/# /' "$tmp/$name.build.log"
			continue
		fi
		# Default ring, then a tiny one: many full/empty transitions
		# and resizes that leave items over.
		log=$tmp/$name.log
		export TSAN_OPTIONS="halt_on_error=1 $opts"
		export ASAN_OPTIONS="detect_leaks=1"
		export UBSAN_OPTIONS="print_stacktrace=1"
		run "$name" "$log" --count 20000 --reps 2
		check "$label: $san sanitizer run is clean${opts:+ (unannotated races suppressed)}" \
			sanitizer_clean "$log" "$rc"
		run "$name" "$log" --count 20000 --reps 1 --size 4 --batch 3
		check "$label: $san sanitizer run with a 4-entry ring is clean${opts:+ (same)}" \
			sanitizer_clean "$log" "$rc"
		unset TSAN_OPTIONS ASAN_OPTIONS UBSAN_OPTIONS
	done

	[ "$label" = old ] && return
	for inj in drop dup; do
		local name=$label-inject-$inj

		if ! build "$tree" "$name" "-DPTR_RING_TEST_INJECT=$inj"; then
			not_ok "$label: inject=$inj build"
			continue
		fi
		run "$name" "$tmp/$name.log" --count 20000 --reps 1
		check "$label: inject=$inj is caught by every mode" \
			injected_fails "$tmp/$name.log" "$rc"
	done
}

# exit_and_grep RC LOG REGEX: $rc is RC and LOG has a line matching REGEX.
exit_and_grep() {
	[ "$rc" -eq "$1" ] || { echo "# exit $rc, expected $1"; return 1; }
	grep -Eq "$3" "$2" || { echo "# no line matching $3"; return 1; }
}

one_cpu_ok() {
	exit_and_grep 0 "$1" '^ok 1 single$' &&
	[ "$(grep -c '^ok [2-5] # SKIP .*needs two CPUs' "$1")" -eq 4 ]
}

# Other compilers and architectures, when this machine has them.
test_portability() {
	local tree=$tmp/tree-new log

	if command -v clang >/dev/null; then
		if build_with "$tree" clang LLVM=1; then
			run clang "$tmp/clang.log" --count 50000 --reps 1
			check "clang (LLVM=1) build runs all modes" \
				short_run_ok "$tmp/clang.log"
		else
			not_ok "clang (LLVM=1) build"
			sed 's/^/# /' "$tmp/clang.build.log"
		fi
	else
		echo "# clang not found, skipping the LLVM=1 build"
	fi

	if command -v qemu-x86_64 >/dev/null && [ "$(uname -m)" = x86_64 ]; then
		# QEMU's default CPU model: baseline x86-64, no RDTSCP.
		log=$tmp/qemu64.log
		qemu-x86_64 -cpu qemu64 "$tmp/new/ptr_ring_test" --count 50000 \
			--reps 1 >"$log" 2>&1
		rc=$?
		check "runs on a baseline x86-64 CPU (qemu-x86_64 -cpu qemu64)" \
			short_run_ok "$log"
	else
		echo "# qemu-x86_64 not found, skipping the baseline CPU run"
	fi

	if command -v aarch64-linux-gnu-gcc >/dev/null &&
	   command -v qemu-aarch64 >/dev/null; then
		# A weakly ordered target: the __atomic shims must build and
		# run there too (under emulation, so this checks the build and
		# the logic, not the hardware's reordering).
		if build_with "$tree" arm64 CROSS_COMPILE=aarch64-linux-gnu- \
			      USERLDFLAGS=-static; then
			log=$tmp/arm64.log
			qemu-aarch64 "$tmp/arm64/ptr_ring_test" --count 50000 \
				--reps 1 >"$log" 2>&1
			rc=$?
			check "arm64 cross build runs all modes under qemu-aarch64" \
				short_run_ok "$log"
		else
			not_ok "arm64 cross build"
			sed 's/^/# /' "$tmp/arm64.build.log"
		fi
	else
		echo "# aarch64-linux-gnu-gcc or qemu-aarch64 not found, skipping arm64"
	fi
}

# build_with TREE NAME MAKE-ARGS...: like build, with other make variables.
build_with() {
	local tree=$1 name=$2

	shift 2
	mkdir -p "$tmp/$name" &&
	make -s -j1 -C "$tree/tools/testing/selftests/ptr_ring" \
		KSRC="$tree" OUTPUT="$tmp/$name" "$@" \
		>"$tmp/$name.build.log" 2>&1 &&
	test -x "$tmp/$name/ptr_ring_test" &&
	! grep -Eq 'warning:|error:' "$tmp/$name.build.log"
}

short_run_ok() {
	[ "$rc" -eq 0 ] || { echo "# exit $rc"; return 1; }
	[ "$(grep -c '^ok [1-5] [a-z_]*$' "$1")" -eq 5 ] ||
		{ echo "# not all modes passed"; return 1; }
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
		not_ok "bad argument '$*' refused: $msg (exit $rc)"
		sed 's/^/# /' "$err" "$out" | head -5
	fi
}

test_cli() {
	local first_cpu other_cpu

	first_cpu=$(awk '/^Cpus_allowed_list/ { split($2, a, "[-,]"); print a[1] }' \
		/proc/self/status)

	bad_arg "too small" --size 0
	bad_arg "not a decimal number" --size -5
	bad_arg "not a decimal number" --size=-1
	bad_arg "not a decimal number" --size abc
	bad_arg "not a decimal number" --size ""
	bad_arg "not a decimal number" --size " 8"
	bad_arg "trailing 'x'" --size 12x
	bad_arg "too large" --size 524289
	bad_arg "too large" --size 99999999999999999999999
	bad_arg "too small" --count 0
	bad_arg "too large" --count 1000000001
	bad_arg "trailing '.5'" --count 1.5
	bad_arg "not a decimal number" --count autox
	bad_arg "too small" --batch 0
	bad_arg "larger than the ring size" --size 16 --batch 32
	bad_arg "too small" --reps 0
	bad_arg "too large" --reps 1001
	bad_arg "not a decimal number" -r -1
	bad_arg "not online" --producer-cpu 1023
	bad_arg "not online" --consumer-cpu 1023
	bad_arg "too large" --consumer-cpu 4096
	bad_arg "not a decimal number" --producer-cpu one
	bad_arg "must differ" -p "$first_cpu" -c "$first_cpu"
	bad_arg "unknown mode 'foo'" --mode foo
	bad_arg "unknown mode 'spsc2'" --mode single,spsc2
	bad_arg "names no mode" --mode ,
	bad_arg "unknown option '--bogus'" --bogus
	bad_arg "unknown option '-x'" -x
	bad_arg "needs a value" --size
	bad_arg "unexpected argument 'extra'" extra
	bad_arg "--json: cannot write '$tmp/no/such/dir/r.json'" \
		--json "$tmp/no/such/dir/r.json"
	bad_arg "needs a value" --json

	run new "$tmp/help.log" --help
	check "--help prints usage and exits 0" \
		exit_and_grep 0 "$tmp/help.log" '^Usage: '

	if command -v taskset >/dev/null; then
		taskset -c "$first_cpu" "$tmp/new/ptr_ring_test" -n 10000 -r 1 \
			>"$tmp/one.log" 2>&1
		rc=$?
		check "one CPU: single passes, other modes skip, exit 0" \
			one_cpu_ok "$tmp/one.log"
		taskset -c "$first_cpu" "$tmp/new/ptr_ring_test" -m spsc \
			>"$tmp/one-skip.log" 2>&1
		rc=$?
		check "one CPU, --mode spsc: exit 4 (skip)" \
			exit_and_grep 4 "$tmp/one-skip.log" '^ok 1 # SKIP spsc'
		other_cpu=$(awk '/^Cpus_allowed_list/ { n = split($2, a, "[-,]"); print a[n] }' \
			/proc/self/status)
		if [ "$other_cpu" != "$first_cpu" ]; then
			taskset -c "$first_cpu" "$tmp/new/ptr_ring_test" \
				-c "$other_cpu" >"$tmp/bad.out" 2>"$tmp/bad.err"
			rc=$?
			check "a CPU outside the affinity mask is refused" \
				exit_and_grep 1 "$tmp/bad.err" "CPU $other_cpu is not online or not in this task's affinity mask"
		fi
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

test_tree new "$KSRC_NEW"
test_tree old "$KSRC_OLD"
if [ -x "$tmp/new/ptr_ring_test" ]; then
	test_cli
	test_kselftest
	test_portability
else
	echo "# no build against the new tree: command line and kselftest checks skipped"
fi

tests_done ptr_ring
