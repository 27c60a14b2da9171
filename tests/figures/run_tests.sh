#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Figures people can trust: in QEMU guests ab/verdict.py finds no test of
# an A/A pair slower or faster, a build slowed on the fast path reads
# slower and fails --fail-on-slower, and the path checks hold. Emulated
# (TCG noise, nine alternated runs a side, the runner's kernel, whose
# page_pool statistics prove each path) and deterministic (-icount
# shift=0, Debian's kernel without the statistics, A/A across two boots:
# the fast paths' mean counts repeat within an instruction per element).

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"
# shellcheck source-path=SCRIPTDIR source=../../vmtest/lib/kbuild.sh
. "$REPO/vmtest/lib/kbuild.sh"
# shellcheck source-path=SCRIPTDIR source=../../ab/boots.sh
. "$REPO/ab/boots.sh"

VERDICT=$REPO/ab/verdict.py
GUEST=$TESTS_DIR/figures/guest.sh
# Fast-path subtests the slowed build slows, the page_pool ones
FAST=(no-softirq-page_pool01)
PP_TESTS=(no-softirq-page_pool01 no-softirq-page_pool02 no-softirq-page_pool03
	bh_page_pool02_ptr_ring bh_page_pool03_slow bh_page_pool04_napi_local
	bh_page_pool05_napi_remote)

# slowed_copy TARGET WORK MODE: WORK/slow gets the series' net/bench,
# built for TARGET's kernel as the runner builds it in MODE (deterministic:
# with its deterministic.patch), with 1024 more loops a fast-path element
# (ten times the path's cost: 256's +133 % hid in a loaded run's noise
# from the gate).
slowed_copy()
{
	local target=$1 work=$2 tree kdir sel=$2/slow/tools/testing/selftests
	local src p
	local -a patches

	read -r tree kdir < <(prepared "$target")
	[ -n "$kdir" ] || return 1
	rm -rf "$work/slow"
	mkdir -p "$sel/kselftest" || return 1
	(cd "$REPO" && git ls-files -z tools/testing/selftests/net/bench |
		cpio -0 -pdm --quiet "$work/slow") || return 1
	cp "$tree/tools/testing/selftests/kselftest/ktap_helpers.sh" \
		"$sel/kselftest/" || return 1
	# as the runner builds it for that kernel, in that mode
	mapfile -t patches < <(VMTEST_DIR=$REPO/vmtest module_patches "$kdir")
	[ "$3" != deterministic ] ||
		patches+=("$REPO/vmtest/guest/deterministic.patch")
	for p in "${patches[@]}"; do
		apply_patch "$sel/net/bench" "$p" || return 1
	done
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

# verdicts FILE: "test verdict" of each row of a verdict.py table
verdicts()
{
	awk 'f { v = $6; for (i = 7; i <= NF; i++) v = v " " $i; print $1, v }
	     /^test / { f = 1 }' "$1"
}

# judge MODE WORK PATH_CHECK SAME: checks of the guest's runs, each a
# sample, WORK/{a,b,slow}-N.tap. PATH_CHECK: ok (each page_pool test's path
# proved in every run of a) or "not checked"; SAME: the A/A verdicts (ERE).
judge()
{
	local mode=$1 work=$2 path=$3 same=$4 step t n bad
	local -a det=() a=("$work"/a-*.tap) b=("$work"/b-*.tap)

	[ "$mode" = deterministic ] && det=(--deterministic)
	for step in a b slow; do
		[ -f "$work/$step.rc" ] || { not_ok "$mode: step $step ran"; return; }
	done
	for step in a b; do
		if [ "$(cat "$work/$step.rc")" -eq 0 ]; then
			ok "$mode: A/A runs $step pass"
		else
			not_ok "$mode: A/A runs $step pass" \
				"$(grep -E '^not ok' "$work/$step"-*.tap)"
		fi
	done

	# Path checks, as the driver shows the module's lines: a Path: line
	# in every run of a and no test failed for its path, or none at all
	bad=
	for t in "${PP_TESTS[@]}"; do
		n=$(grep -l "^# Path:$t expect:" "${a[@]}" | wc -l)
		if [ "$path" = ok ]; then
			[ "$n" -eq ${#a[@]} ] &&
				! grep -q "^# Fail:$t .*another path" "${a[@]}"
		else
			[ "$n" -eq 0 ]
		fi || bad+=" $t"
	done
	if [ -z "$bad" ]; then
		ok "$mode: every page_pool test's path check says '$path'"
	else
		not_ok "$mode: every page_pool test's path check says '$path'" \
			"not so for:$bad" "$(grep -h 'Path' "${a[@]}" | sort -u)"
	fi
	if [ "$path" = ok ]; then
		expect_grep "$mode: the fast path proved from page_pool stats" "${a[0]}" \
			'^# Path:no-softirq-page_pool01 expect:cached returned:([0-9]+) cached:\1 ring:0 '
		expect_grep "$mode: the ptr_ring path proved from page_pool stats" "${a[0]}" \
			'^# Path:bh_page_pool02_ptr_ring expect:ring returned:([0-9]+) cached:0 ring:\1 '
		expect_grep "$mode: the slow path proved from page_pool stats" "${a[0]}" \
			'^# Path:no-softirq-page_pool03 expect:released returned:([0-9]+) .* released:\1$'
	else
		expect_grep "$mode: the module says the paths were not checked" \
			"${a[0]}" '^# Paths not checked: no CONFIG_PAGE_POOL_STATS'
	fi

	# A/A: no test slower or faster. Emulated runs drift (TCG on a shared
	# host), so the sides alternate; alpha 0.01: a chance failure once in
	# a hundred runs, not twenty.
	expect_rc "$mode: A/A: --fail-on-slower exits 0" 0 "$work/aa.txt" \
		"$VERDICT" --alpha 0.01 "${det[@]}" --fail-on-slower \
		--base "${a[@]}" --change "${b[@]}"
	bad=$(verdicts "$work/aa.txt" | grep -vE "^[^ ]+ ($same)\$")
	if [ -n "$(verdicts "$work/aa.txt")" ] && [ -z "$bad" ]; then
		ok "$mode: A/A: every test '${same//\\/}'"
		sed -n '/^test /,$p' "$work/aa.txt" | sed 's/^/#   /'
	else
		not_ok "$mode: A/A: every test '${same//\\/}'" \
			"$(cat "$work/aa.txt")"
	fi

	# The slowed build: slower on the fast paths, which fails the gate
	expect_rc "$mode: slowed build: --fail-on-slower exits 1" 1 \
		"$work/slow.txt" "$VERDICT" "${det[@]}" --fail-on-slower \
		--base "${a[@]}" --change "$work"/slow-*.tap
	for t in "${FAST[@]}"; do
		if verdicts "$work/slow.txt" | grep -qx "$t slower"; then
			ok "$mode: slowed build: $t slower"
		else
			not_ok "$mode: slowed build: $t slower" \
				"$(cat "$work/slow.txt")"
		fi
	done
}

figures()
{
	local mode=$1 target=$2 work=$VMTEST_CACHE/figures-test/$1
	local -a args=(-t "$target" -T 2400) steps=()

	rm -rf "$work"
	mkdir -p "$work"
	slowed_copy "$target" "$work" "$mode" ||
		{ not_ok "$mode: slowed build for $target" "see $work/slow-build.log"; return; }
	ok "$mode: slowed build for $target"
	if [ "$mode" = emulated ]; then
		for _ in 1 2 3 4 5 6 7 8 9; do steps+=(a b); done
		expect_rc "$mode: guest run" 0 "$OUT/figures-$mode.log" \
			"$VMTEST" "${args[@]}" -e FLAGS=0x7e -e LOOPS=1000000 \
			-e REPS=1 -e REPS_SLOW=6 -- \
			bash "$GUEST" "$work" "${steps[@]}" slow
		judge "$mode" "$work" ok 'same|unknown \(.*\)'
		return
	fi
	# QEMU -icount, every test but cross-CPU (single-threaded TCG says
	# nothing about concurrency), fixed loops
	args+=(-D -e FLAGS=0x7f -e LOOPS=50000 -e REPS=5 -e REPS_SLOW=2)
	# icount runs a guest on one host thread: both boots at once, the
	# second once the first built its module (ab's way); the slowed
	# build's two runs (counts repeat) ride with the first.
	beside expect_rc "$mode: first boot" 0 "$OUT/figures-$mode-1.log" \
		"$VMTEST" "${args[@]}" --job-file "$work/first.job" -- \
		bash "$GUEST" "$work" a slow
	booting "$work/first.job" "$!"
	expect_rc "$mode: second boot" 0 "$OUT/figures-$mode-2.log" \
		"$VMTEST" "${args[@]}" -- bash "$GUEST" "$work" b
	subtests_report
	judge "$mode" "$work" "not checked" same
	check "$mode: the fast paths' mean counts repeat within one instruction across boots" \
		same_counts "$work/a" "$work/b"
	same_counts "$work/a" "$work/b" | sed 's/^/#   /'
}

figures emulated current
figures deterministic distro
tests_done figures
