# SPDX-License-Identifier: GPL-2.0
# The reader of the runner's record for the scripts that call the runner
# (series/, ab/, tests/): what a target's phases found, one KEY=VALUE a
# line (src=, tree=, kdir=, kernel=, root=), from the line 'vmtest.sh
# --stop-after PHASE' prints.
# shellcheck shell=bash

# vmtest_record TARGET PHASE [VMTEST-ARGS...]: the target's record after
# PHASE; returns vmtest.sh's exit code. VMTEST names the runner (tests
# give a stand-in).
vmtest_record()
{
	"${VMTEST:-$(dirname "${BASH_SOURCE[0]}")/../vmtest.sh}" \
		-t "$1" --stop-after "$2" "${@:3}" |
		awk -v t="$1" '$1 == t { for (i = 2; i <= NF; i++) print $i }'
	return "${PIPESTATUS[0]}"
}

# record_get KEY: KEY's value in a record on stdin.
record_get()
{
	sed -n "s/^$1=//p"
}
