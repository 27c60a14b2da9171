#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run kselftest TARGETS in the guest: the host's installation with its
# run_kselftest.sh, or 'make run_tests' in the tree as NIPA does.
# Each run's KTAP goes to JOB/ktap/{install,tree}.tap and TARGETS to
# JOB/ktap/targets: the host judges them (lib/judge.py).
#
# usage: selftests.sh HOW TREE TARGETS JOB INSTALL_DIR [MAKE ARGS...]
#   HOW: install or tree

how=$1
tree=$2
targets=$3
ktap=$4/ktap
install=$5
shift 5
selftests=$tree/tools/testing/selftests
mkdir -p "$ktap" && echo "$targets" >"$ktap/targets" || exit 1

# run NAME CMD...: run one way, its KTAP kept as NAME.tap, its wall time
# printed for the runner's timing figures.
run()
{
	local name=$1 start=$SECONDS

	shift
	echo "vmtest-guest: $*"
	"$@" 2>&1 | tee "$ktap/$name.tap"
	echo "vmtest-guest: $name took $((SECONDS - start)) s"
}

case $how in
install) run install "$install/run_kselftest.sh" ;;
tree) run tree make -C "$selftests" TARGETS="$targets" "$@" run_tests ;;
*) echo "vmtest-guest: unknown way to run: '$how'" >&2; exit 1 ;;
esac

