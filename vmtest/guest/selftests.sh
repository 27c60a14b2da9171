#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run kselftest TARGETS in a tree the way users do: 'make run_tests' in the
# tree, then 'make install' and the install directory's run_kselftest.sh.
# Exit 0 when every test passed, 4 when all were skipped, 1 otherwise.
#
# usage: selftests.sh TREE HOW TARGETS [MAKE ARGS...]
#   HOW: tree, install or both

# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
. "$(dirname "$(realpath "$0")")/../lib/common.sh"

tree=$1
how=$2
targets=$3
shift 3
selftests=$tree/tools/testing/selftests
logs=$(mktemp -d)

# Fold the top-level kselftest results of a log into an exit code. A
# target with no result line at all (it failed to build: the selftests
# Makefile carries on regardless) is a failure.
status_of()
{
	local log=$1 t

	for t in $targets; do
		if ! grep -qE "^(not )?ok [0-9]+ selftests: $t: " "$log"; then
			echo "vmtest-guest: no result from $t (did it build?)" >&2
			return 1
		fi
	done
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
note()
{
	worst=$(fold_status "$worst" "$1")
}

# Wall time of each way of running, for the runner's timing figures.
since()
{
	echo "vmtest-guest: $1 took $((SECONDS - $2)) s"
}

if [ "$how" = tree ] || [ "$how" = both ]; then
	echo "vmtest-guest: make -C $selftests TARGETS=\"$targets\" $* run_tests"
	start=$SECONDS
	make -C "$selftests" TARGETS="$targets" "$@" run_tests 2>&1 |
		tee "$logs/tree.log"
	note "$(status_of "$logs/tree.log"; echo $?)"
	since "make run_tests" "$start"
fi

if [ "$how" = install ] || [ "$how" = both ]; then
	echo "vmtest-guest: make install, then run_kselftest.sh"
	start=$SECONDS
	if make -C "$selftests" TARGETS="$targets" "$@" \
		INSTALL_PATH=/tmp/kselftest install >"$logs/install-build.log" 2>&1; then
		since "make install" "$start"
		start=$SECONDS
		/tmp/kselftest/run_kselftest.sh 2>&1 | tee "$logs/install.log"
		note "$(status_of "$logs/install.log"; echo $?)"
		since "run_kselftest.sh" "$start"
	else
		tail -n 40 "$logs/install-build.log"
		echo "vmtest-guest: make install failed"
		note 1
	fi
fi

exit "${worst:-1}"
