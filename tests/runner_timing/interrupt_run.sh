#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/run.sh stops on Ctrl-C: SIGINT to its process group (as a
# terminal sends it) or SIGTERM to it alone, while a group runs whose
# processes include one in a process group of its own (as vmtest.sh's
# builds and guests are), exits 130 (143) at once, leaves no process
# behind and starts no further group. run.sh installs no tool itself: a
# group installs its own (need_tools).

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d "$OUT/interrupt-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
export FAKE_SLEEP=$((200000 + $$))

mkdir -p "$work/groups/sleepy" "$work/groups/second"
standin "$work/groups/sleepy/run_tests.sh" <<'GROUP'
echo "ok - sleepy started"
# As vmtest.sh: a child in a process group of its own, which its trap stops.
set -m
sleep "$FAKE_SLEEP" &
child=$!
set +m
trap 'kill -- "-$child"; exit 143' TERM
sleep "$FAKE_SLEEP" &
wait
GROUP
standin "$work/groups/second/run_tests.sh" 'echo "ok - second ran"'

# sleepy_runs OUT: until a run.sh writing OUT runs the group sleepy
sleepy_runs()
{
	for _ in $(seq 100); do
		grep -q 'sleepy started' "$1/group-sleepy.log" 2>/dev/null &&
			[ "$(pgrep -fc "sleep $FAKE_SLEEP")" -ge 2 ] && return
		sleep 0.1
	done
}

# interrupt NAME SIGNAL WHOM: run.sh with the two groups, SIGNAL to its
# process group (WHOM=group) or to it alone, once the first group runs.
interrupt()
{
	local name=$1 sig=$2 whom=$3 pid rc start want=130

	[ "$sig" = INT ] || want=143
	mkdir -p "$work/$name"
	foreground env TESTS_GROUPS="$work/groups" TESTS_OUT="$work/$name" \
		"$TESTS_DIR/run.sh" sleepy second >"$work/$name.log" 2>&1
	pid=$!
	sleepy_runs "$work/$name"
	start=$SECONDS
	signal_wait "$whom" "$sig" "$pid"
	rc=$?
	check "run.sh, $name: exit $want (got $rc) within 5 s" \
		test "$rc" -eq "$want" -a $((SECONDS - start)) -le 5
	check "run.sh, $name: no process left" \
		no_process "sleep $FAKE_SLEEP"
	check "run.sh, $name: the next group did not start" \
		test ! -e "$work/$name/group-second.log"
	expect_grep "run.sh, $name: says the group was interrupted" \
		"$work/$name.log" "^not ok - sleepy: interrupted \\(SIG$sig\\)"
	pkill -f "sleep $FAKE_SLEEP"
}
interrupt "Ctrl-C" INT group
interrupt "SIGTERM" TERM runner

# Not interrupted: both groups run, their checks are counted.
TESTS_GROUPS=$work/groups TESTS_OUT=$work/plain "$TESTS_DIR/run.sh" second \
	>"$work/plain.log" 2>&1
check "run.sh: a group's checks are shown and counted (exit $?)" \
	grep -Eqx '1 passed, 0 failed in [0-9]+ s' "$work/plain.log"
expect_grep "run.sh: the group's lines are in run.log" "$work/plain/run.log" \
	'^ok - second ran$'

# Two runs writing one directory of logs: the second waits for the
# first, then counts its own checks only.
foreground env TESTS_GROUPS="$work/groups" TESTS_OUT="$work/two" \
	"$TESTS_DIR/run.sh" sleepy >"$work/two-1.log" 2>&1
first=$!
sleepy_runs "$work/two"
TESTS_GROUPS=$work/groups TESTS_OUT=$work/two "$TESTS_DIR/run.sh" second \
	>"$work/two-2.log" 2>&1 &
second=$!
for _ in $(seq 50); do
	grep -q 'waiting' "$work/two-2.log" && break
	sleep 0.1
done
expect_grep "run.sh: a second run writing the same logs waits, saying so" \
	"$work/two-2.log" "^run.sh: waiting for the other run that writes $work/two "
check "run.sh: ... and runs no group meanwhile" \
	test ! -e "$work/two/group-second.log"
signal_wait group INT "$first"
wait "$second"
check "run.sh: then it runs, counting its own checks only (exit $?)" \
	grep -Eqx '1 passed, 0 failed in [0-9]+ s' "$work/two-2.log"
pkill -f "sleep $FAKE_SLEEP"

# Tools: run.sh installs nothing itself; a group asks for its own
# (need_tools), installed through the runner's apt helpers. A machine
# without the checkers, an apt-get that notes what it is asked, root.
path_without "$work/path" shellcheck pylint clang qemu-x86_64 \
	'aarch64-linux-gnu-*' apt-get id
standin "$work/path/id" 'echo 0'
standin "$work/path/apt-get" "echo \"apt-get \$*\" >>'$work/apt.log'"
mkdir -p "$work/groups/tools"
standin "$work/groups/tools/run_tests.sh" ". '$TESTS_DIR/lib.sh'" \
	'need_tools "vmtest-no-such-tool vmtest-its-package" "bash bash"' \
	'ok "tools ran"'
env PATH="$work/path" TESTS_GROUPS="$work/groups" TESTS_OUT="$work/tools" \
	"$TESTS_DIR/run.sh" second >"$work/tools.log" 2>&1
check "run.sh installs nothing for a group that needs nothing" \
	test ! -e "$work/apt.log"
env PATH="$work/path" TESTS_GROUPS="$work/groups" TESTS_OUT="$work/tools" \
	"$TESTS_DIR/run.sh" tools >"$work/tools.log" 2>&1
check "a group's need_tools installs what it lacks, and only that" \
	grep -qx 'apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends vmtest-its-package' \
	"$work/apt.log"

# The unit tier is hermetic: a group that the plan puts there (here a
# stand-in under series_files' name) runs with an empty cache of its own
# and, as root, in a network namespace with loopback alone.
mkdir -p "$work/groups/series_files"
standin "$work/groups/series_files/run_tests.sh" <<'GROUP'
case $VMTEST_CACHE in "$TESTS_OUT"/unit-cache.*) ;; *) exit 1 ;; esac
[ -z "$(ls -A "$VMTEST_CACHE")" ] && echo "ok - empty cache"
echo "ok - interfaces: $(awk -F: 'NR > 2 { printf "%s", $1 }' /proc/net/dev)"
GROUP
TESTS_GROUPS=$work/groups TESTS_OUT=$work/unit "$TESTS_DIR/run.sh" \
	series_files >"$work/unit.log" 2>&1
expect_grep "run.sh: a unit group gets an empty cache of its own" \
	"$work/unit.log" '^ok - empty cache$'
if unshare -n true 2>/dev/null; then
	expect_grep "run.sh: a unit group has no network but loopback" \
		"$work/unit.log" '^ok - interfaces: +lo$'
else
	expect_grep "run.sh: no network namespace for this user, said" \
		"$work/unit.log" 'no network namespace for this user'
fi
check "run.sh: the unit group's cache is gone after it" \
	test -z "$(find "$work/unit" -maxdepth 1 -name 'unit-cache.*')"

tests_done interrupt_run
