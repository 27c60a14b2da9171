#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the guest's check scripts (bench_checks.sh, fault_checks.sh) share,
# sourced: their results, each saying how long its check took (the
# group's time is in them), and whether the module is loaded.

# shellcheck disable=SC2034 # the sourcing scripts read it
bench=${vmtest_job:?not in a vmtest guest}/install/net/bench
last=$SECONDS

ok()
{
	echo "ok - $* (took $((SECONDS - last)) s)"
	last=$SECONDS
}

not_ok()
{
	echo "not ok - $* (took $((SECONDS - last)) s)"
	last=$SECONDS
}

loaded()
{
	grep -q '^bench_page_pool ' /proc/modules
}
