# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the VM runner: messages, errors, timing, root checks.
# shellcheck shell=bash

VMTEST_VERBOSE=${VMTEST_VERBOSE:-0}

msg()
{
	printf 'vmtest: %s\n' "$*" >&2
}

warn()
{
	printf 'vmtest: warning: %s\n' "$*" >&2
}

die()
{
	printf 'vmtest: error: %s\n' "$*" >&2
	exit 1
}

# Run a step: quiet unless verbose, its output kept in a log that is
# shown (tail) when it fails, its wall time reported, and a progress line
# printed every 30 s while it lasts (downloads, extraction, builds).
step()
{
	local what=$1 log=$2
	local pid rc start

	shift 2
	start=$(date +%s)
	msg "$what ..."
	if [ "$VMTEST_VERBOSE" -gt 0 ]; then
		"$@" 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
	else
		"$@" >"$log" 2>&1 &
		pid=$!
		while ! wait_timeout "$pid" 30; do
			msg "  ... $what: $(($(date +%s) - start)) s, $(wc -l <"$log") log lines"
		done
		wait "$pid"
		rc=$?
	fi
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$log" >&2
		msg "$what failed (exit $rc), full log: $log"
		return "$rc"
	fi
	msg "$what done in $(($(date +%s) - start)) s"
}

# Return 0 once $1 has exited, 1 if it still runs after $2 seconds.
wait_timeout()
{
	local pid=$1 left=$2

	while [ "$left" -gt 0 ]; do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 1
		left=$((left - 1))
	done
	! kill -0 "$pid" 2>/dev/null
}

is_root()
{
	[ "$(id -u)" -eq 0 ]
}

hash_of()
{
	sha256sum | cut -c1-16
}

# fold_status CURRENT NEW: the combined kselftest exit code of runs so far
# (CURRENT, empty before the first) and one more: a failure wins, skips
# alone give 4, a skip next to a pass is a pass.
fold_status()
{
	case $2 in
	0) [ "$1" = 1 ] && echo 1 || echo 0 ;;
	4) echo "${1:-4}" ;;
	*) echo 1 ;;
	esac
}
