#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run kselftest TARGETS in the guest: the host's installation with its
# run_kselftest.sh, and/or 'make run_tests' in the tree as NIPA does.
# Each run's KTAP goes to JOB/ktap/{install,tree}.tap, where the host
# finds it. Exit 0 when every test passed, 4 when all were skipped, 1
# otherwise.
#
# usage: selftests.sh HOW TREE TARGETS JOB INSTALL_DIR [MAKE ARGS...]
#   HOW: install, tree or both

# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
. "$(dirname "$(realpath "$0")")/../lib/common.sh"

how=$1
tree=$2
targets=$3
ktap=$4/ktap
install=$5
shift 5
selftests=$tree/tools/testing/selftests
mkdir -p "$ktap" || exit 1

# Judge each test of TARGETS in a KTAP log by its own nested KTAP, as
# runner.sh prints it ("# " before each line, between "# selftests: T:
# NAME" and the test's result): every test of the series prints a plan
# and as many results (a skip-all plan is 1..0), and none is an XFAIL
# without a reason; none reports a failure its exit code hides; and no
# test exits with kselftest's XFAIL (2), which none of them gives (a
# shell's syntax error does: a binary it cannot run). Says what is wrong,
# one line a test; fails when anything is.
judge_nested()
{
	awk -v targets="$targets" '
		function problem(what) {
			printf "vmtest-guest: KTAP: %s: %s\n", label, what
			bad++
		}
		BEGIN { n = split(targets, t, " "); for (i = 1; i <= n; i++) want[t[i]] = 1 }
		/^# selftests: / { inside = 1; plan = ""; results = 0; failed = 0; xfail = 0; next }
		inside && /^# / {
			line = substr($0, 3)
			if (line ~ /^1\.\.[0-9]+/ && plan == "") {
				plan = line; sub(/^1\.\./, "", plan); sub(/[^0-9].*/, "", plan)
			} else if (line ~ /^(not )?ok [0-9]+/) {
				results++
				if (line ~ /^not ok/ && line !~ /# *(SKIP|TODO)/) failed++
				if (line ~ /# *XFAIL *$/) xfail++
			}
			next
		}
		/^(not )?ok [0-9]+ selftests: / {
			label = $0
			sub(/^(not )?ok [0-9]+ selftests: /, "", label)
			sub(/ # .*/, "", label)
			target = label
			sub(/: .*/, "", target)
			if (target in want) {
				if (!inside || plan == "")
					problem("printed no KTAP plan")
				else if (results != plan)
					problem("planned " plan " results, reported " results)
				if (inside && failed && $1 == "ok")
					problem(failed " failed result(s), yet it passed")
				if (xfail)
					problem(xfail " XFAIL(s) without a reason")
				if ($0 ~ /# *XFAIL/)
					problem("exited 2 (XFAIL), which no test of the series gives (a shell that cannot run it?)")
			}
			inside = 0
		}
		END { exit bad > 0 }' "$1" >&2
}

# Fold the kselftest results of a KTAP log into an exit code. A target
# with no result line at all (it failed to build: the selftests Makefile
# carries on regardless), or a test its own KTAP does not bear out
# (judge_nested), is a failure.
status_of()
{
	local log=$1 t

	for t in $targets; do
		if ! grep -qE "^(not )?ok [0-9]+ selftests: $t: " "$log"; then
			echo "vmtest-guest: no result from $t (did it build?)" >&2
			return 1
		fi
	done
	judge_nested "$log" || return 1
	awk '
		/^(not )?ok [0-9]+ selftests: / {
			n++
			if ($1 == "not") fail++
			else if ($0 ~ /# *SKIP/) skip++
		}
		END {
			if (n == 0 || fail) exit 1
			exit (skip == n) ? 4 : 0
		}' "$log"
}

worst=''
# run NAME CMD...: run one way, its KTAP kept as NAME.tap, its wall time
# printed for the runner's timing figures.
run()
{
	local name=$1 start=$SECONDS

	shift
	echo "vmtest-guest: $*"
	"$@" 2>&1 | tee "$ktap/$name.tap"
	worst=$(fold_status "$worst" "$(status_of "$ktap/$name.tap"; echo $?)")
	echo "vmtest-guest: $name took $((SECONDS - start)) s"
}

case $how in
install | both) run install "$install/run_kselftest.sh" ;;&
tree | both) run tree make -C "$selftests" TARGETS="$targets" "$@" run_tests ;;
install) ;;
*) echo "vmtest-guest: unknown way to run: '$how'" >&2; exit 1 ;;
esac

exit "${worst:-1}"
