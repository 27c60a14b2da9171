#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# apt waits for its locks (no network, nothing installed: a stand-in
# apt-get, and a lock file of the test's own that another process holds
# with flock): the runner says it is waiting and for whom, installs once
# the lock is free, passes DPkg::Lock::Timeout to apt-get; a lock held
# past the bound is reported, naming its holder, with exit 2.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d "$OUT/apt-lock.XXXXXX")
hold=$((300000 + $$))
trap 'pkill -f "sleep $hold"; rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/job"
export FAKE_APT_LOG=$work/apt.log
standin "$work/bin/apt-get" <<'STANDIN'
echo "apt-get $*" >>"$FAKE_APT_LOG"
STANDIN
standin "$work/bin/id" 'echo 0'
lock=$work/lock-frontend
: >"$lock"

# install NAME TIMEOUT: apt_install of one package, the test's lock held
# by whoever the caller started.
install()
{
	env PATH="$work/bin:$PATH" VMTEST_APT_LOCKS="$lock $work/lists-lock" \
		VMTEST_APT_LOCK_TIMEOUT="$2" FAKE_PKGS=shellcheck \
		"$TESTS_DIR/runner/stage.sh" install "$work/job" >"$work/$1.log" 2>&1
}

flock "$lock" sleep 3 &
holder=$!
sleep 0.5
start=$SECONDS
install wait 30
check "a held lock is waited for, then apt-get runs (took $((SECONDS - start)) s)" \
	grep -q '^rc=0 ' "$work/wait.log"
expect_grep "the wait is said, with the lock and its holder" "$work/wait.log" \
	"waiting for $lock, held by process $holder \\(flock\\), up to 30 s"
expect_grep "the end of the wait is said" "$work/wait.log" "apt's locks are free after [0-9]+ s"
check "apt-get install ran after the wait" \
	grep -qx 'apt-get -o DPkg::Lock::Timeout=30 install -y --no-install-recommends shellcheck' \
	"$FAKE_APT_LOG"
check "apt-get update waits for the dpkg lock too" \
	grep -qx 'apt-get -o DPkg::Lock::Timeout=30 update' "$FAKE_APT_LOG"
wait "$holder"

: >"$FAKE_APT_LOG"
flock "$lock" sleep "$hold" &
holder=$!
sleep 0.5
start=$SECONDS
install stuck 2
rc=$?
check "a lock held past the bound: exit 2 (got $rc), after it ($((SECONDS - start)) s)" \
	test "$rc" -eq 2
expect_grep "a lock held past the bound is reported, with its holder" "$work/stuck.log" \
	"error: $lock is still held by process $holder \\(flock\\) after 2 s: run again when it is done"
check "apt-get did not run under a held lock" test ! -s "$FAKE_APT_LOG"
kill "$holder"
pkill -f "sleep $hold"

tests_done apt_lock
