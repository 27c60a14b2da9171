#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Each run owns its state (no VM, no kernel, no network: an apt-get that
# fails or hangs stands in for Debian): its job and the jobs/TARGET link
# come before anything else, so a run that fails early never leaves an
# older run's pass there.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d "$OUT/state.XXXXXX")
trap 'rm -rf "$work"' EXIT
cache=$work/cache

# An older run's job that passed, which jobs/current names.
mkdir -p "$cache/jobs/current.old" "$work/bin"
echo "target=current result=pass rc=0 seconds=9 accel=tcg job=$cache/jobs/current.old" \
	>"$cache/jobs/current.old/result"
ln -s current.old "$cache/jobs/current"

# A Debian that cannot be reached (FAKE_APT=hang: one that never answers).
standin "$work/bin/apt-get" <<'STANDIN'
[ "${FAKE_APT:-}" = hang ] && { sleep "${FAKE_SLEEP:-1000}" & wait; }
echo "E: stand-in: cannot reach the mirror" >&2
exit 100
STANDIN
standin "$work/bin/apt-cache" 'exit 100'

expect_rc "a run that cannot fetch: exit 2, not a test's 1" 2 "$work/fetch.log" \
	env PATH="$work/bin:$PATH" "$VMTEST" -t current --cache "$cache" \
	--job-file "$work/fetch.jobs"
job=$(realpath -m "$cache/jobs/current")
check "jobs/current names the new run, not the older one" \
	test "$job" != "$cache/jobs/current.old" -a -d "$job"
check "the run was named before it fetched" \
	grep -q "current: results in $job\$" "$work/fetch.log"
check "--job-file names the same job" test "$(cat "$work/fetch.jobs")" = "$job"
expect_grep "its result says error, and where" "$job/result" \
	"^target=current result=error rc=2 seconds=[0-9]+ accel=[a-z]+ phase=(tools|fetch) job=$job\$"
check "its logs are in the job" test -n "$(ls "$job/logs")"
check "no log outside the job" test ! -e "$cache/logs"
check "the older run's result is left alone" \
	grep -q 'result=pass' "$cache/jobs/current.old/result"

# Ctrl-C while fetching: the job says so.
foreground env PATH="$work/bin:$PATH" FAKE_APT=hang FAKE_SLEEP=$((100000 + $$)) \
	"$VMTEST" -t distro --cache "$cache" >"$work/int.log" 2>&1
pid=$!
await_process "sleep $((100000 + $$))" 10
job=$(realpath -m "$cache/jobs/distro")
# (apt-get hangs in phase tools on a machine without the runner's tools.)
expect_grep "while apt-get hangs, its result says running, in its phase" \
	"$job/result" '^target=distro result=running rc=- .* phase=(tools|fetch) '
expect_rc "Ctrl-C while fetching: exit 130" 130 "$work/int.kill" \
	signal_wait group INT "$pid"
expect_grep "Ctrl-C while fetching: the result says interrupted" "$job/result" \
	'^target=distro result=interrupted rc=130 '
check "Ctrl-C while fetching: no process left" \
	no_process "sleep $((100000 + $$))"

# SIGTERM to the runner alone (not its group): the target's run stops too.
env PATH="$work/bin:$PATH" FAKE_APT=hang FAKE_SLEEP=$((100001 + $$)) \
	"$VMTEST" -t current --cache "$cache" >"$work/term.log" 2>&1 &
pid=$!
await_process "sleep $((100001 + $$))" 10
expect_rc "SIGTERM to the runner alone: exit 143" 143 "$work/term.kill" \
	signal_wait runner TERM "$pid"
expect_grep "SIGTERM to the runner alone: the result says interrupted" \
	"$(realpath -m "$cache/jobs/current")/result" '^target=current result=interrupted rc=143 '
check "SIGTERM to the runner alone: no process left" \
	no_process "sleep $((100001 + $$))"

# A runner error ends its target only: -K goes on to the next one.
expect_rc "-K: both targets cannot fetch: exit 2" 2 "$work/keep.log" \
	env PATH="$work/bin:$PATH" "$VMTEST" -K --cache "$cache"
for t in current distro; do
	expect_grep "-K: the summary has $t's error" "$work/keep.log" \
		"^vmtest:   $t +error +[0-9]+ s"
done
expect_rc "without -K: exit 2" 2 "$work/nokeep.log" \
	env PATH="$work/bin:$PATH" "$VMTEST" --cache "$cache"
expect_no_grep "without -K: the first error ends the run" "$work/nokeep.log" \
	'distro: results in'

# Refusals are the runner's: exit 2, and no job.
expect_rc "a bad option: exit 2" 2 "$work/opt.log" \
	"$VMTEST" --target nowhere --cache "$cache"
check "a bad option makes no job" \
	test "$(find "$cache/jobs" -mindepth 1 -maxdepth 1 -name 'nowhere*' | wc -l)" -eq 0

expect_rc "a --job-file that cannot be written: exit 2" 2 "$work/jobfile.log" \
	"$VMTEST" -t current --job-file "$work/nowhere/jobs" --cache "$cache" &&
	expect_grep "... saying so" "$work/jobfile.log" "--job-file: cannot write"

# --stop-after runs have a job of their own, but leave jobs/TARGET alone.
before=$(readlink "$cache/jobs/current")
expect_rc "--stop-after fetch that cannot fetch: exit 2" 2 "$work/stop.log" \
	env PATH="$work/bin:$PATH" "$VMTEST" -t current --stop-after fetch \
	--cache "$cache" --job-file "$work/stop.jobs"
check "--stop-after leaves jobs/current as it was" \
	test "$(readlink "$cache/jobs/current")" = "$before"
job=$(cat "$work/stop.jobs")
expect_grep "--stop-after: its own job says error" "$job/result" \
	'^target=current result=error rc=2 '

tests_done state
