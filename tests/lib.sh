# SPDX-License-Identifier: GPL-2.0
# Helpers for the project's tests: each check prints 'ok - NAME' or
# 'not ok - NAME' (with the reason on '#' lines); tests/run.sh counts them.
# shellcheck shell=bash

TESTS_DIR=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
REPO=$(dirname "$TESTS_DIR")
VMTEST=$REPO/vmtest/vmtest.sh
export VMTEST_CACHE=${VMTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pp-bench-vmtest}
OUT=${TESTS_OUT:-$REPO/tests/out}
mkdir -p "$OUT"

ok()
{
	echo "ok - $*"
}

not_ok()
{
	local name=$1

	shift
	echo "not ok - $name"
	[ $# -eq 0 ] || printf '#   %s\n' "$@"
}

# check NAME CMD...: ok when CMD exits 0; its output is shown on failure.
check()
{
	local name=$1 log

	shift
	log=$(mktemp)
	if "$@" >"$log" 2>&1; then
		ok "$name"
	else
		not_ok "$name" "exit $?: $*"
		tail -n 30 "$log" | sed 's/^/#   /'
	fi
	rm -f "$log"
}

# expect_rc NAME RC LOG CMD...: ok when CMD exits RC; output kept in LOG.
expect_rc()
{
	local name=$1 want=$2 log=$3 rc

	shift 3
	"$@" >"$log" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ]; then
		ok "$name"
		return 0
	fi
	not_ok "$name" "exit $rc, expected $want: $*"
	tail -n 30 "$log" | sed 's/^/#   /'
	return 1
}

# expect_grep NAME LOG ERE: ok when LOG has a line matching ERE.
expect_grep()
{
	if grep -qE -- "$3" "$2"; then
		ok "$1"
	else
		not_ok "$1" "no line matching '$3' in $2"
	fi
}

# expect_no_grep NAME LOG ERE: ok when no line of LOG matches ERE.
expect_no_grep()
{
	if grep -qE -- "$3" "$2"; then
		not_ok "$1" "$(grep -E -- "$3" "$2")"
	else
		ok "$1"
	fi
}

# The prepared tree and KDIR of a target: "tree kdir".
prepared()
{
	"$VMTEST" -t "$1" --prepare 2>>"$OUT/prepare.log" |
		sed -n 's/^[a-z]* tree=\([^ ]*\) kdir=\([^ ]*\) .*/\1 \2/p'
}
