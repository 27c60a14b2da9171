# SPDX-License-Identifier: GPL-2.0
# The reader of the runner's record for the scripts that call the runner
# (series/, ab/, tests/): what a target's phases found (target, src, tree,
# kdir, kernel, root, job), the job's JSON record (JOB/record.json, see
# record.py) of a 'vmtest.sh --stop-after PHASE' run.
# shellcheck shell=bash

# vmtest_record TARGET PHASE [VMTEST-ARGS...]: the target's record after
# PHASE; returns vmtest.sh's exit code. VMTEST names the runner (tests
# give a stand-in).
vmtest_record()
{
	local jobs job rc

	jobs=$(mktemp) || return 2
	"${VMTEST:-$(dirname "${BASH_SOURCE[0]}")/../vmtest.sh}" \
		-t "$1" --stop-after "$2" --job-file "$jobs" "${@:3}" >/dev/null
	rc=$?
	job=$(head -n 1 "$jobs")
	rm -f "$jobs"
	[ "$rc" -ne 0 ] || cat "$job/record.json" || rc=2
	return "$rc"
}

# record_get KEY: KEY's value in a record on stdin.
record_get()
{
	python3 "$(dirname "${BASH_SOURCE[0]}")/record.py" get "$1"
}
