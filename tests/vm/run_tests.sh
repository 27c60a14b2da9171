#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The QEMU runner, end to end: both targets run the installed selftests
# and pass with every benchmark subtest reported in the job's KTAP files;
# preparing again rebuilds nothing; NIPA's way ('make run_tests' in the
# guest) passes too, and the clients' forms (run_kselftest.sh -t, gen_tar,
# NIPA's command) read "pass" by NIPA's rules on 2 and 4 vCPUs; a KVM that
# cannot run a guest falls back to TCG; a WARN_ON, an oops and a hang
# each fail the run with the splat or a clear timeout message; the
# benchmark's own promises hold in Debian's kernel.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"
# shellcheck source-path=SCRIPTDIR source=../../ab/boots.sh
. "$REPO/ab/boots.sh"

# check_ktap TARGET HOW JOBS: TARGET's job in --job-file JOBS passed, its
# KTAP (HOW: install or tree) with every subtest and both directories'.
check_ktap()
{
	local target=$1 job log t

	job=$(grep "/$target\.[^/]*\$" "$3" | tail -n 1)
	log=$job/ktap/$2.tap
	check "$target ($2): the job's result is pass" \
		grep -q "^target=$target result=pass " "$job/result"
	check "$target ($2): vmtest.sh judge of the saved job: pass again" \
		"$VMTEST" judge "$job"
	[ -f "$log" ] || { not_ok "$target ($2): KTAP kept in $log"; return; }
	subtests_passed "$target ($2): every page_pool subtest passed" "$log"
	# The driver's own KTAP, unwrapped
	awk '/^# selftests: net\/bench: test_bench_page_pool.sh/ { on = 1; next }
	     on && /^(not )?ok [0-9]+ selftests: net\/bench/ { exit }
	     on { sub(/^# /, ""); print }' "$log" >"$log.bench"
	# (a cross-CPU case per returning CPU count: as many as the vCPUs allow)
	t=$(grep -cE '^ok [0-9]+ [a-z_0-9-]+ # perf=[0-9]+\.[0-9]+ns$' "$log.bench")
	n=$(grep -cE '^(not )?ok [0-9]+ ' "$log.bench")
	if [ "$t" -eq "$n" ] && [ "$n" -ge "$(wc -w <<<"$PP_SUBTESTS")" ]; then
		ok "$target ($2): every subtest carries '# perf=' with a decimal value"
	else
		not_ok "$target ($2): every subtest carries '# perf=' with a decimal value" \
			"$t of $n" "$(grep -E '^(not )?ok' "$log.bench")"
	fi
	expect_no_grep "$target ($2): no ' # SKIP' in the passing page_pool run" \
		"$log.bench" ' # SKIP'
	# NAPI-local: every page into the cache; NAPI on another CPU: to the
	# ring (the distro kernel has no page_pool statistics)
	if [ "$target" != distro ]; then
		expect_grep "$target ($2): NAPI-local: cached == returned" "$log.bench" \
			'^# Path:bh_page_pool04_napi_local expect:cached returned:([0-9]+) cached:\1 ring:0 '
		expect_grep "$target ($2): NAPI on another CPU: ring == returned" "$log.bench" \
			'^# Path:bh_page_pool05_napi_remote expect:ring returned:([0-9]+) cached:0 ring:\1 '
	fi
	if (cd "$OUT" && python3 "$(pinned_source)/tools/testing/kunit/kunit.py" \
		parse "$log.bench") >"$log.kunit" 2>&1 &&
	   ! grep -qiE 'error|crashed' "$log.kunit"; then
		ok "$target ($2): kunit.py parses the page_pool KTAP"
	else
		not_ok "$target ($2): kunit.py parses the page_pool KTAP" "$(tail -n 5 "$log.kunit")"
	fi
	expect_grep "$target ($2): ptr_ring_test passed in the tree" "$log" \
		'^ok [0-9]+ selftests: ptr_ring: ptr_ring_test$'
	expect_grep "$target ($2): test_bench_page_pool.sh passed" "$log" \
		'^ok [0-9]+ selftests: net/bench: test_bench_page_pool.sh$'
}

# 0. What the guest cannot see is refused before any work.
expect_rc "a cache below /tmp is refused: exit 2" 2 "$OUT/vm-tmp.log" \
	env VMTEST_CACHE=/tmp/vmtest-refused "$VMTEST" -t distro -- true &&
	expect_grep "a cache below /tmp is refused: says why" "$OUT/vm-tmp.log" \
		'below /tmp, .* its own tmpfs'

# 1. The benchmarks, both targets, as the README's first command (warm:
# the module group built the kernel).
start=$(date +%s)
rm -f "$OUT/vm-first.jobs" "$OUT/vm-tree.jobs"
expect_rc "vmtest.sh, both targets, passes" 0 "$OUT/vm-first.log" "$VMTEST" \
	--job-file "$OUT/vm-first.jobs"
echo "# run: $(($(date +%s) - start)) s"
grep -E 'vmtest-guest: .* took|done in' "$OUT/vm-first.log" | tr -d '\r' |
	sed 's/^/# phase: /'
for target in current distro; do
	check_ktap "$target" install "$OUT/vm-first.jobs"
done

# 2. Prepared again, nothing is fetched, configured or built again.
expect_rc "preparing again succeeds" 0 "$OUT/vm-again.log" "$VMTEST" \
	--stop-after build
expect_no_grep "preparing again rebuilds nothing" "$OUT/vm-again.log" \
	'building kernel|downloading|extracting|linking a work copy|configuring'
expect_grep "preparing again finds the kernel up to date" "$OUT/vm-again.log" \
	'kernel .* is up to date'

# 3. Beside NIPA's way below, two guests that need no host time of their
# own (-D's one vCPU on one host thread; a hang's wait), each started once
# the one before built its selftests (ab's way). -D: the harness's output
# costs ptr_ring_test's timed repetitions under an instruction an item, so
# its single mode's agree within two (with kselftest's prefix.pl: 84-178).
rm -f "$OUT/vm-det.job" "$OUT/vm-hang.job"
beside expect_rc "-D: the selftests pass" 0 "$OUT/vm-det.log" "$VMTEST" \
	-t current -D --job-file "$OUT/vm-det.job"
booting "$OUT/vm-det.job" "$!"
beside expect_rc "a hanging guest is killed at the timeout" 1 "$OUT/vm-hang.log" \
	"$VMTEST" -t distro -T 40 --job-file "$OUT/vm-hang.job" -- sleep 1000
booting "$OUT/vm-hang.job" "$!"

# NIPA's way: 'make run_tests' in the guest's tree, booting the built
# kernel's directory as given (--kdir), as a developer's own build.
read -r farm kdir < <(prepared current)
expect_rc "--how tree --kdir (make run_tests in the guest) passes" 0 \
	"$OUT/vm-tree.log" "$VMTEST" -t current --how tree --kdir "$kdir" \
	--job-file "$OUT/vm-tree.jobs"
check_ktap current tree "$OUT/vm-tree.jobs"
expect_no_grep "--kdir: no kernel is configured or built" "$OUT/vm-tree.log" \
	'configuring|building kernel|is up to date'
subtests_report
# (the lowest and highest of its timed repetitions)
reps=$(tr -d '\r' <"$OUT/vm-det.log" |
	sed -n 's/^# # single (.*): ns_per_item min \([0-9.]*\) median [0-9.]* max \([0-9.]*\)$/\1 \2/p')
# shellcheck disable=SC2016 # awk's variables
check "-D: ptr_ring_test's single repetitions agree within 2 ns (${reps:-none})" \
	awk 'NF == 2 && $2 - $1 < 2 { ok = 1 } END { exit !ok }' <<<"$reps"
expect_grep "the timeout is reported clearly" "$OUT/vm-hang.log" \
	'guest timed out after 40 s'
# -D's module is built with the runner's deterministic patch (its copy of
# net/bench kept in the job); the plain run's is the posted one.
det_src=$(head -n 1 "$OUT/vm-det.job")/module-copy/page_pool/bench_page_pool_simple.c
expect_grep "-D: the module is built with the runner's deterministic.patch" \
	"$OUT/vm-det.log" "runner's patches \(deterministic\.patch\)"
expect_grep "... whose source has the tick alignment" "$det_src" '^static void bench_tick\(u64 ns\)$'
expect_no_grep "... and the plain run builds no module with it" \
	"$OUT/vm-first.log" 'deterministic\.patch'

# -D's job booted again: nothing is built, and it counts what the first
# boot counted.
det=$(head -n 1 "$OUT/vm-det.job")
rm -f "$OUT/vm-again.job" && rm -rf "$OUT/again" && mkdir -p "$OUT/again"
expect_rc "again: the -D job booted anew passes" 0 "$OUT/vm-again-boot.log" \
	"$VMTEST" again "$det" --job-file "$OUT/vm-again.job"
expect_no_grep "... building nothing" "$OUT/vm-again-boot.log" \
	'building|configuring|applying|linking'
cp "$det/ktap/install.tap" "$OUT/again/first-1.tap"
cp "$(head -n 1 "$OUT/vm-again.job")/ktap/install.tap" "$OUT/again/again-1.tap"
check "... counting what its first boot counted" \
	same_counts "$OUT/again/first" "$OUT/again/again"

# The driver and the module where the series' users run them: busybox's
# applets, no cycle counter, a starved cross-CPU returner, a timeout.
in_guest "faults" "$OUT/vm-faults.log" -t current \
	--module-patch "$TESTS_DIR/vm/no-cycles.patch" \
	--module-patch "$TESTS_DIR/vm/stall-returner.patch" -- \
	bash "$TESTS_DIR/vm/fault_checks.sh"

# The series' clients, each program judged by NIPA's rules: the runner's
# installation and NIPA's command for net/bench on 2 vCPUs; gen_tar's
# archive, made apart from the runner's build, on 4 (the tree and kernel
# NIPA's way above ran).
gt=$OUT/gen_tar
rm -rf "$gt"
if expect_rc "make gen_tar makes the archive" 0 "$OUT/gen_tar.log" \
	make -C "$farm/tools/testing/selftests" TARGETS="net/bench ptr_ring" \
	O="$gt/build" KDIR="$kdir" INSTALL_PATH="$gt/install" gen_tar; then
	in_guest "clients, 2 vCPUs" "$OUT/vm-clients-2.log" -t current -c 2 -- \
		bash "$TESTS_DIR/vm/clients_checks.sh" "$REPO" install \
		"$farm" KDIR="$kdir" O="$farm.build"
	in_guest "clients, 4 vCPUs" "$OUT/vm-clients-4.log" -t current -c 4 -- \
		bash "$TESTS_DIR/vm/clients_checks.sh" "$REPO" \
		"$gt/install/kselftest-packages/kselftest.tar.gz"
fi

# 4. A /dev/kvm whose guests print nothing (QEMU hangs with -accel kvm):
# the probe gives up; under TCG the run and the benchmark's checks pass.
fake=$(mktemp -d "$OUT/fake-kvm.XXXXXX")
touch "$fake/kvm"
cat >"$fake/qemu-system-x86_64" <<FAKE
#!/bin/sh
case " \$* " in *" -accel kvm "*) exec sleep 1000 ;; esac
exec $(command -v qemu-system-x86_64) "\$@"
FAKE
chmod +x "$fake/qemu-system-x86_64"
start=$(date +%s)
PATH=$fake:$PATH KVM_DEV=$fake/kvm in_guest "distro bench checks" \
	"$OUT/vm-checks-distro.log" -t distro -- \
	bash "$TESTS_DIR/vm/bench_checks.sh" "$REPO" 3
expect_grep "a KVM that cannot run a guest: TCG is used" \
	"$OUT/vm-checks-distro.log" 'cannot run a guest .* using TCG'
echo "# fallback run: $(($(date +%s) - start)) s"
rm -rf "$fake"

# 5. Kernel splats and hangs fail the run.
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

tests_done vm
