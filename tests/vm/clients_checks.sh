#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run in a guest by tests/vm/run_tests.sh: the series' programs as their
# clients run them, each program's console judged by NIPA's rules
# (tests/nipa_rules/nipa_rules.py): "pass", never "skip", which NIPA makes
# of a program with any ' # SKIP' in its output.
#   DIR: a kselftest installation ('install': the runner's; an ARCHIVE:
#        gen_tar's, unpacked here, as LKP and KernelCI run it): its
#        kselftest-list.txt read as NIPA's program lister reads it, then
#        run_kselftest.sh -t TARGET:PROGRAM for each program
#   TREE [MAKE ARGS...]: also NIPA's own command for net/bench in TREE,
#        'make run_tests' with TEST_PROGS set and TEST_GEN_PROGS empty
#        (ptr_ring's programs need an in-tree build for that: tests/nipa)
# usage: clients_checks.sh REPO install|DIR|ARCHIVE [TREE MAKE ARGS...]

# shellcheck source-path=SCRIPTDIR source=guest_lib.sh
. "$(dirname "$0")/guest_lib.sh"
repo=$1 dir=$2
shift 2
# the consoles, kept in the job
out=$vmtest_job/clients
mkdir -p "$out" || exit 1
cpus=$(nproc)

# judge NAME RC CONSOLE: NIPA's result for one program's console
judge()
{
	local result

	result=$(python3 "$repo/tests/nipa_rules/nipa_rules.py" "$2" <"$3")
	if [ "$result" = pass ]; then
		ok "$cpus CPUs: $1: NIPA's rules read pass"
	else
		not_ok "$cpus CPUs: $1: NIPA's rules read pass (${result:-nothing}, exit $2)"
		grep -E 'SKIP|not ok|^# #' "$3" | tail -n 20 | sed 's/^/#   /'
	fi
}

[ "$dir" != install ] || dir=$vmtest_job/install
if [ -f "$dir" ]; then
	mkdir -p /tmp/kselftest && tar xf "$dir" -C /tmp/kselftest || exit 1
	ok "$cpus CPUs: gen_tar's archive unpacked"
	dir=/tmp/kselftest
fi
list=$dir/kselftest-list.txt
progs=0
while IFS=: read -r target prog; do
	progs=$((progs + 1))
	name=${target//\//-}-$prog
	# Appended: kselftest's runner.sh opens /dev/stdout again to append
	# to it, which overwrites the start of a file not opened so.
	"$dir/run_kselftest.sh" -t "$target:$prog" >>"$out/$name" 2>&1
	judge "run_kselftest.sh -t $target:$prog" $? "$out/$name"
	# (ptr_ring_check is a correctness test: no figures)
	n=$(grep -cE '^# ok [0-9]+ [^ ]+ # perf=[0-9.]+ns$' "$out/$name")
	if [ "$prog" = ptr_ring_check ]; then
		:
	elif [ "$n" -gt 0 ] &&
	     [ "$n" -eq "$(grep -cE '^# (not )?ok [0-9]+ ' "$out/$name")" ]; then
		ok "$cpus CPUs: $prog: $n cases, each with its perf="
	else
		not_ok "$cpus CPUs: $prog: every case with its perf= ($n)"
	fi
	[ "$prog" = ptr_ring_test ] || continue
	mpsc='^# ok [0-9]+ mpsc # perf='
	[ "$cpus" -ge 3 ] || mpsc='^# # mpsc not run: needs 3 CPUs'
	if grep -qE "$mpsc" "$out/$name"; then
		ok "$cpus CPUs: ptr_ring_test runs mpsc, or says why not"
	else
		not_ok "$cpus CPUs: ptr_ring_test runs mpsc, or says why not"
		head -n 20 "$out/$name" | sed 's/^/#   /'
	fi
done < <(tr -d ' ' <"$list")
if [ "$progs" -eq 3 ]; then
	ok "kselftest-list.txt lists the three programs"
else
	not_ok "kselftest-list.txt lists the three programs ($progs)"
	sed 's/^/#   /' "$list"
fi

[ $# -gt 0 ] || exit 0
make -C "$1/tools/testing/selftests" TARGETS=net/bench \
	TEST_PROGS=test_bench_page_pool.sh TEST_GEN_PROGS="" "${@:2}" run_tests \
	>>"$out/nipa" 2>&1
judge "NIPA's make run_tests for net/bench" $? "$out/nipa"
