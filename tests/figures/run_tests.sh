#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Figures people can trust: in QEMU guests, an A/A comparison shows no
# significant difference (deterministic: the same counts across two
# boots; under emulation, three alternated runs per side), a build slowed
# on the fast path is reported as a significant regression and fails the
# tooling's gate (ab/bench_compare.py, which reads the module's lines from
# the driver's KTAP), the JSON validates, and the path checks hold. Once
# emulated (TCG timing noise, the runner's built kernel, whose page_pool
# statistics prove each test's path) and once deterministic (-icount
# shift=0, Debian's kernel without the statistics, A/A across two boots,
# whose fast paths' mean instruction counts must repeat within one
# instruction per element; the other tests' are reported).

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

CMP=$REPO/ab/bench_compare.py
GUEST=$TESTS_DIR/figures/guest.sh
# Fast-path subtests the slowed build slows, the page_pool ones
FAST=(no-softirq-page_pool01)
PP_TESTS=(no-softirq-page_pool01 no-softirq-page_pool02 no-softirq-page_pool03
	bh_page_pool02_ptr_ring bh_page_pool03_slow bh_page_pool04_napi_local
	bh_page_pool05_napi_remote)

# slowed_copy TARGET WORK: WORK/slow gets the series' net/bench with 1024
# extra loop iterations per fast-path element (ten times the path's cost:
# with 256, +133 % in ns, one loaded run's noisy baseline hid the
# regression from the driver's gate), built for TARGET's kernel.
slowed_copy()
{
	local target=$1 work=$2 tree kdir sel=$2/slow/tools/testing/selftests
	local src

	read -r tree kdir < <(prepared "$target")
	[ -n "$kdir" ] || return 1
	rm -rf "$work/slow"
	mkdir -p "$sel/kselftest" || return 1
	(cd "$REPO" && git ls-files -z tools/testing/selftests/net/bench |
		cpio -0 -pdm --quiet "$work/slow") || return 1
	cp "$tree/tools/testing/selftests/kselftest/ktap_helpers.sh" \
		"$sel/kselftest/" || return 1
	src=$sel/net/bench/page_pool/bench_page_pool_simple.c
	[ "$(grep -c 'page_pool_recycle_direct(pp, page);' "$src")" -eq 1 ] ||
		return 1
	sed -i '/page_pool_recycle_direct(pp, page);/i\
			for (int slow = 0; slow < 1024; slow++)\
				barrier(); /* slowed for the test */' "$src"
	make -C "$sel/net/bench/page_pool" KDIR="$kdir" \
		>"$work/slow-build.log" 2>&1 &&
	[ -f "$sel/net/bench/page_pool/bench_page_pool.ko" ]
}

# verdicts FILE: "test verdict" of each row of a bench_compare.py table
verdicts()
{
	awk 'f && NF { print $1, $NF } /^test / { f = 1 }' "$1"
}

# judge MODE WORK PATH_CHECK SAME A_RUNS B_RUNS: the checks on the files
# the guest left. PATH_CHECK: what path_check the page_pool tests must
# say; SAME: the A/A verdict every row must have ("noise" or "same");
# A_RUNS, B_RUNS: the steps of each A/A side, space-separated.
judge()
{
	local mode=$1 work=$2 path=$3 same=$4 step t bad rc slower
	local -a a=() b=()

	for step in $5; do a+=("$work/$step.json"); done
	for step in $6; do b+=("$work/$step.json"); done
	for step in $5 $6 slow; do
		[ -f "$work/$step.rc" ] || {
			not_ok "$mode: step $step ran"; return; }
	done
	for step in $5 $6; do
		if [ "$(cat "$work/$step.rc")" -eq 0 ]; then
			ok "$mode: A/A run $step passes"
		else
			not_ok "$mode: A/A run $step passes" \
				"$(grep -E '^not ok' "$work/$step.tap")"
		fi
		check "$mode: $step.json validates against the schema" \
			"$CMP" --validate "$work/$step.json"
	done

	# Path checks, as the driver says them and as the JSON records them
	bad=$(python3 - "$work/a1.json" "$path" "${PP_TESTS[@]}" <<'PY'
import json
import sys

doc, want, names = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3:]
said = {t['name']: t['path_check'] for t in doc['tests']}
print(' '.join(n for n in names if said.get(n) != want))
PY
)
	if [ -z "$bad" ]; then
		ok "$mode: every page_pool test's path check says '$path'"
	else
		not_ok "$mode: every page_pool test's path check says '$path'" \
			"not so for: $bad" "$(grep 'path' "$work/a1.tap")"
	fi
	if [ "$path" = ok ]; then
		expect_grep "$mode: the fast path proved from page_pool stats" \
			"$work/a1.tap" \
			'^# Path:no-softirq-page_pool01 expect:cached returned:([0-9]+) cached:\1 ring:0 '
		expect_grep "$mode: the ptr_ring path proved from page_pool stats" \
			"$work/a1.tap" \
			'^# Path:bh_page_pool02_ptr_ring expect:ring returned:([0-9]+) cached:0 ring:\1 '
		expect_grep "$mode: the slow path proved from page_pool stats" \
			"$work/a1.tap" \
			'^# Path:no-softirq-page_pool03 expect:released returned:([0-9]+) .* released:\1$'
	else
		expect_grep "$mode: the module says the paths were not checked" \
			"$work/a1.tap" '^# Paths not checked: no CONFIG_PAGE_POOL_STATS'
	fi

	# A/A: nothing significant, the threshold is not crossed. Under
	# emulation runs drift apart by more than one run's repetitions
	# spread (TCG on a shared host), so there each side is several
	# alternated runs, each run's mean one sample; alpha 0.01 so that
	# the test fails by chance once in a hundred runs, not once in twenty.
	"$CMP" --alpha 0.01 --before "${a[@]}" --after "${b[@]}" \
		>"$work/aa.txt" 2>&1
	rc=$?
	bad=$(verdicts "$work/aa.txt" | awk -v same="$same" '$2 != same')
	if [ "$rc" -eq 0 ] && [ -n "$(verdicts "$work/aa.txt")" ] &&
	   [ -z "$bad" ]; then
		ok "$mode: A/A compare: every test '$same'"
		sed -n '/^test /,$p' "$work/aa.txt" | sed 's/^/#   /'
	else
		not_ok "$mode: A/A compare: every test '$same' (exit $rc)" \
			"$(cat "$work/aa.txt")"
	fi
	expect_rc "$mode: A/A compare --threshold 0 exits 0" 0 \
		"$work/aa-gate.txt" "$CMP" --alpha 0.01 --threshold 0 \
		--before "${a[@]}" --after "${b[@]}"

	# The slowed build: a significant regression on the fast paths only
	"$CMP" --before "${a[@]}" --after "$work/slow.json" >"$work/slow.txt" 2>&1
	slower=$(verdicts "$work/slow.txt")
	for t in "${FAST[@]}"; do
		if grep -qE "^$t (significant|exact)\$" <<<"$slower" &&
		   grep -qE "^$t .* \+[0-9.]+% " "$work/slow.txt"; then
			ok "$mode: slowed build: $t a significant regression"
		else
			not_ok "$mode: slowed build: $t a significant regression" \
				"$(cat "$work/slow.txt")"
		fi
	done
	expect_rc "$mode: slowed build: compare --threshold 5 exits 1" 1 \
		"$work/slow-gate.txt" \
		"$CMP" --threshold 5 --before "${a[@]}" --after "$work/slow.json"
	# The gate, as a CI would run it on this run against a1's figures
	"$CMP" --report "$work/slow.log" --tests "${FAST[*]}" \
		--baseline "$work/a1.json" >"$work/slow-gated.txt" 2>&1
	expect_grep "$mode: slowed build: the gate fails the fast path" \
		"$work/slow-gated.txt" "^fail ${FAST[0]}\$"
}

figures()
{
	local mode=$1 target=$2 work=$VMTEST_CACHE/figures-test/$1
	local -a args=(-t "$target" -T 2400)

	rm -rf "$work"
	mkdir -p "$work"
	if ! slowed_copy "$target" "$work"; then
		not_ok "$mode: slowed build for $target" "see $work/slow-build.log"
		return
	fi
	ok "$mode: slowed build for $target"
	if [ "$mode" = emulated ]; then
		expect_rc "$mode: guest run" 0 "$OUT/figures-$mode.log" \
			"$VMTEST" "${args[@]}" -e FLAGS=0x7e -e LOOPS=1000000 \
			-e REPS=3 -e REPS_SLOW=6 -- \
			bash "$GUEST" "$work" a1 b1 a2 b2 a3 b3 slow
		judge "$mode" "$work" ok noise "a1 a2 a3" "b1 b2 b3"
		return
	fi
	args+=("${DETERMINISTIC_RUN[@]}" -e REPS=5)
	expect_rc "$mode: first boot" 0 "$OUT/figures-$mode-1.log" \
		"$VMTEST" "${args[@]}" -- bash "$GUEST" "$work" a1 slow
	expect_rc "$mode: second boot" 0 "$OUT/figures-$mode-2.log" \
		"$VMTEST" "${args[@]}" -- bash "$GUEST" "$work" b1
	judge "$mode" "$work" "not checked" same a1 b1
	check "$mode: the fast paths' mean counts repeat within one instruction across boots" \
		same_counts "$work/a1.json" "$work/b1.json"
	same_counts "$work/a1.json" "$work/b1.json" | sed 's/^/#   /'
}

figures emulated current
figures deterministic distro
tests_done figures
