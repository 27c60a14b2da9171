#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The QEMU runner, end to end: both targets run the selftests and pass with
# every benchmark subtest reported; a second run rebuilds nothing; a
# WARN_ON, an oops and a hang each fail the run with the splat or a clear
# timeout message; a kernel crashing while it boots is booted again;
# --ksrc --debug builds a debug kernel from a tree we prepare, leaves the
# tree as it was, and the benchmark's checks pass in it.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

# Subtests test_bench_page_pool.sh must report in each target.
SUBTESTS='for_loop atomic_inc lock
no-softirq-page_pool01 no-softirq-page_pool02 no-softirq-page_pool03
tasklet_page_pool01_fast_path tasklet_page_pool02_ptr_ring
tasklet_page_pool03_slow cross_cpu_return'

# check_ktap NAME CONSOLE: the run's KTAP has every subtest passing and the
# kselftest lines of both test directories, in the tree and installed.
check_ktap()
{
	local name=$1 log t missing=

	# The serial console ends lines with CR LF.
	log=$OUT/ktap-$name.log
	tr -d '\r' <"$2" >"$log"
	for t in $SUBTESTS; do
		grep -qE "^(# )*ok [0-9]+ $t( |$)" "$log" || missing+=" $t"
	done
	if [ -z "$missing" ]; then
		ok "$name: every page_pool subtest passed"
	else
		not_ok "$name: every page_pool subtest passed" "missing:$missing"
	fi
	# The driver's own KTAP, first run (in the tree), unwrapped
	awk '/^# selftests: net\/bench: test_bench_page_pool.sh/ { on = 1; next }
	     on && /^(not )?ok [0-9]+ selftests: net\/bench/ { exit }
	     on { sub(/^# /, ""); print }' "$log" >"$log.bench"
	t=$(grep -cE '^ok [0-9]+ [a-z_0-9-]+ # perf=[0-9]+\.[0-9]+ns$' "$log.bench")
	if [ "$t" -eq 10 ]; then
		ok "$name: every subtest carries '# perf=' with a decimal value"
	else
		not_ok "$name: every subtest carries '# perf=' with a decimal value" \
			"$t of 10" "$(grep -E '^(not )?ok' "$log.bench")"
	fi
	expect_no_grep "$name: no ' # SKIP' in the passing page_pool run" \
		"$log.bench" ' # SKIP'
	if (cd "$OUT" && python3 "$(runner_source 'linux-source-7.2*')/tools/testing/kunit/kunit.py" \
		parse "$log.bench") >"$log.kunit" 2>&1 &&
	   ! grep -qiE 'error|crashed' "$log.kunit"; then
		ok "$name: kunit.py parses the page_pool KTAP"
	else
		not_ok "$name: kunit.py parses the page_pool KTAP" "$(tail -n 5 "$log.kunit")"
	fi
	expect_grep "$name: ptr_ring_test passed in the tree" "$log" \
		'^ok [0-9]+ selftests: ptr_ring: ptr_ring_test$'
	expect_grep "$name: test_bench_page_pool.sh passed" "$log" \
		'^ok [0-9]+ selftests: net/bench: test_bench_page_pool.sh$'
	t=$(grep -cE '^ok [0-9]+ selftests: net/bench: test_bench_page_pool.sh$' "$log")
	if [ "$t" -eq 2 ]; then
		ok "$name: ran from the tree and from the install directory"
	else
		not_ok "$name: ran from the tree and from the install directory" \
			"test_bench_page_pool.sh passed $t times, expected 2"
	fi
}

# 0. What the guest cannot see is refused before any work.
expect_rc "a cache below /tmp is refused" 1 "$OUT/vm-tmp.log" \
	env VMTEST_CACHE=/tmp/vmtest-refused "$VMTEST" -t distro -- true &&
	expect_grep "a cache below /tmp is refused: says why" "$OUT/vm-tmp.log" \
		'below /tmp, .* its own tmpfs'

# A kernel that crashes while booting is booted again (stand-in QEMU).
"$TESTS_DIR/vm/boot_retry.sh"

# 1. The benchmarks, both targets, as the README's first command.
start=$(date +%s)
expect_rc "vmtest.sh, both targets, passes" 0 "$OUT/vm-first.log" "$VMTEST"
echo "# first run: $(($(date +%s) - start)) s"
for target in current distro; do
	check_ktap "$target" "$VMTEST_CACHE/jobs/$target/console.log"
done

# 2. A warm run reuses every cache.
start=$(date +%s)
expect_rc "warm run passes" 0 "$OUT/vm-warm.log" "$VMTEST"
echo "# warm run: $(($(date +%s) - start)) s"
if grep -qE 'building kernel|downloading|extracting|linking a work copy' \
	"$OUT/vm-warm.log"; then
	not_ok "warm run rebuilds nothing" \
		"$(grep -E 'building|downloading|extracting|linking' "$OUT/vm-warm.log")"
else
	ok "warm run rebuilds nothing"
fi

# 3. Kernel splats and hangs fail the run.
read -r _ kdir < <(prepared distro)
# Built where the guest sees it: its /tmp is a tmpfs of its own.
splat=$(mktemp -d "$OUT/splat.XXXXXX")
cp "$TESTS_DIR/vm/splat/splat.c" "$TESTS_DIR/vm/splat/Makefile" "$splat/"
if make -C "$splat" KDIR="$kdir" >"$OUT/splat-build.log" 2>&1; then
	for mode in warn oops; do
		log=$OUT/vm-$mode.log
		expect_rc "a module's $mode fails the run" 1 "$log" \
			"$VMTEST" -t distro -T 300 -- insmod "$splat/splat.ko" mode=$mode
		expect_grep "the $mode splat is shown" "$log" \
			'the kernel reported .* problem line'
	done
	expect_grep "the WARN_ON is shown with its context" "$OUT/vm-warn.log" \
		'WARNING: .*splat'
	expect_grep "the oops is shown with its context" "$OUT/vm-oops.log" \
		'BUG: kernel NULL pointer dereference'
else
	not_ok "the splat test module builds" "see $OUT/splat-build.log"
fi
rm -rf "$splat"

expect_rc "a hanging guest is killed at the timeout" 1 "$OUT/vm-hang.log" \
	"$VMTEST" -t distro -T 40 -- sleep 1000
expect_grep "the timeout is reported clearly" "$OUT/vm-hang.log" \
	'guest timed out after 40 s'

# 4. --ksrc and --debug: a git tree we prepare (the newest kernel source
# the runner fetched, as a user's clone would be), built as the debug
# kernel (one build serves both: a kernel build is the dearest step of a
# cold run), unchanged after the run.
src=$(runner_source 'linux-source-[0-9]*')
ksrc=$VMTEST_CACHE/test-ksrc/$(basename "$src")
if [ -z "$src" ]; then
	not_ok "--ksrc: a kernel source to prepare a tree from" \
		"none under $VMTEST_CACHE/src"
elif [ ! -d "$ksrc/.git" ]; then
	rm -rf "$VMTEST_CACHE/test-ksrc"
	mkdir -p "$ksrc"
	cp -a "$src/." "$ksrc/" &&
	git -C "$ksrc" init -q &&
	# -f: Debian's source carries a .gitignore that ignores the top level.
	git -C "$ksrc" add -A -f &&
	git -C "$ksrc" -c user.name=vmtest -c user.email=vmtest@localhost \
		commit -qm "Debian $(basename "$src")"
fi
snapshot()
{
	git -C "$ksrc" rev-parse HEAD
	git -C "$ksrc" status --porcelain
	(cd "$ksrc" && find . -path ./.git -prune -o -type f \
		-printf '%p %i %s %T@\n' | sort | sha256sum)
}
before=$(snapshot)

# 5. The benchmark's own promises, in the distro guest and, 100 loads and
# unloads long, in the debug kernel (the runner fails on any report and
# scans kmemleak after the job).
# in_guest NAME LOG VMTEST-ARGS...: run bench_checks.sh, keep its lines.
in_guest()
{
	local name=$1 log=$2

	shift 2
	expect_rc "$name" 0 "$log" "$VMTEST" "$@"
	grep -E '^(not )?ok - ' "$log" | sed "s/^\(\(not \)\?ok - \)/\1$name: /"
}
in_guest "distro bench checks" "$OUT/vm-checks-distro.log" \
	-t distro -- bash "$TESTS_DIR/vm/bench_checks.sh" 3
# DEBUG_LOADS=100 for the full soak; fewer keep a cold CI run in its time.
in_guest "debug kernel" "$OUT/vm-checks-debug.log" \
	-t current --ksrc "$ksrc" --debug -T 3000 -- \
	bash "$TESTS_DIR/vm/bench_checks.sh" "${DEBUG_LOADS:-20}"
after=$(snapshot)
if [ "$before" = "$after" ]; then
	ok "--ksrc leaves the tree unchanged ($(echo "$after" | head -n 1), clean)"
else
	not_ok "--ksrc leaves the tree unchanged" \
		"$(diff <(echo "$before") <(echo "$after"))"
fi
