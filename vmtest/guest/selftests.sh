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

# Fold the top-level kselftest results of a KTAP log into an exit code. A
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
