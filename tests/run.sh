#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the project's tests: the groups of a tier, in order, each under a
# time limit, then print the totals as 'N passed, N failed'. A group that
# fails, exits non-zero, runs out of time or reports nothing counts as a
# failed check. Exit 1 when any check failed; Ctrl-C (or SIGTERM) stops
# the running group, whatever it started, and exits 130 (143). The logs
# go to tests/out (TESTS_OUT=DIR: elsewhere); a run waits for another
# that writes the same directory.
#
# usage: tests/run.sh [--tier unit|quick|ci|all] [GROUP...]  (GROUPs named
#   run whatever their tier; --help lists them)
#   unit   hermetic: no network (a network namespace of its own when
#          run as root), an empty cache, nothing built: the runner's
#          logic with stand-ins (what GROUP/tools names installed
#          before, when missing), series_files, NIPA's parsing and
#          rules on captured consoles (nipa_rules)
#   quick  unit, then the runner's waits (timeouts, signals, locks)
#          with stand-ins, and what needs sources but no kernel build: static
#          checks, the runner's tree phases, ptr_ring, the before/after
#          statistics (ab)
#   ci     quick, then one kernel build and the guests (default; .ci/run)
#   all    ci, then the soak tier: a debug kernel built from a --ksrc git
#          tree, 100 module loads in it, a leaking module caught by
#          kmemleak (run it before resolving an issue that touches them);
#          and the arm64 target end to end (a cross-built kernel booted
#          under full emulation: 4-20 minutes cold); and each
#          patch's module built at W=1 against the built 7.x kernel
#          (series_build; SERIES_KDIR names another built kernel);
#          and deterministic mode's resolution through ab.sh
#          (determinism: the README's nop.patch on the built 7.x
#          kernel; its three base boots agree on the fast paths within
#          one instruction per element, and the nop reads one more);
#          and NIPA's own VM executor on both series (nipa: NIPA's
#          kernel build, virtme-ng, its results JSON)

set -u
self=$(realpath "$0")
cd "$(dirname "$self")" || exit 1

# group tier time-limit(s): a cold run builds the kernel in the first
# group that needs one (module).
PLAN='series_files unit 300
runner unit 600
nipa_rules unit 120
runner_timing quick 600
static quick 900
runner_tree quick 600
ptr_ring quick 1200
ab quick 300
ab_git quick 300
attribute quick 300
driver quick 600
series quick 1500
module ci 2400
figures ci 1500
vm ci 2400
soak all 5400
nipa all 3600
arm64 all 3600
series_build all 1800
determinism all 3600'

tier=ci
groups=()
while [ $# -gt 0 ]; do
	case $1 in
	--tier) tier=${2:-}; shift ;;
	-h | --help)
		sed -n '3,/^$/p' "$self" | cut -c3-
		echo "groups (tier, time limit in s):"
		awk '{ printf "  %-13s %-6s %s\n", $1, $2, $3 }' <<<"$PLAN"
		exit 0
		;;
	-*) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
	*) groups+=("$1") ;;
	esac
	shift
done
case $tier in
unit) tiers='unit' ;;
quick) tiers='unit quick' ;;
ci) tiers='unit quick ci' ;;
all) tiers='unit quick ci all' ;;
*) echo "run.sh: --tier must be unit, quick, ci or all, not '$tier'" >&2; exit 2 ;;
esac

# Groups named run whatever their tier; otherwise the tier's groups.
if [ ${#groups[@]} -eq 0 ]; then
	while read -r g t _; do
		[[ " $tiers " == *" $t "* ]] && groups+=("$g")
	done <<<"$PLAN"
fi
# The groups' directory (another one: the tests of this script).
gdir=${TESTS_GROUPS:-$PWD}
for g in "${groups[@]}"; do
	[ -x "$gdir/$g/run_tests.sh" ] || { echo "run.sh: no such test group: $g" >&2; exit 2; }
done
out=${TESTS_OUT:-$PWD/out}
mkdir -p "$out"
# One run a directory of logs: another one waits, so that neither counts
# the other's checks. (The groups do not inherit the lock.)
exec {lock}>"$out/run.lock"
if ! flock -n "$lock"; then
	echo "run.sh: waiting for the other run that writes $out (TESTS_OUT=DIR runs beside it)" >&2
	flock "$lock"
fi
# The runner's messages from the groups' preparations (tests/lib.sh):
# this run's only.
: >"$out/run.log"
: >"$out/prepare.log"

# say LINE...: shown and kept in run.log.
say()
{
	printf '%s\n' "$@" | tee -a "$out/run.log"
}

# The running group: timeout(1) and everything the group started are a
# process group of timeout's own, out of the terminal's reach, so Ctrl-C
# reaches this script only, which stops that whole group.
GROUP=
GROUP_PID=
SHOW_PID=

# stop_group SIGNAL-NAME CODE: stop the running group (TERM, then KILL
# after 30 s: vmtest.sh stops its build or guest within seconds), say
# so, and exit CODE.
stop_group()
{
	local left=30

	trap '' INT TERM
	if [ -n "$GROUP_PID" ]; then
		kill -TERM -- "-$GROUP_PID" "$GROUP_PID" 2>/dev/null
		while [ "$left" -gt 0 ] && kill -0 -- "-$GROUP_PID" 2>/dev/null; do
			sleep 1
			left=$((left - 1))
		done
		kill -KILL -- "-$GROUP_PID" 2>/dev/null
		wait "$GROUP_PID" 2>/dev/null
	fi
	[ -z "$SHOW_PID" ] || kill "$SHOW_PID" 2>/dev/null
	say "not ok - ${GROUP:-run.sh}: interrupted (SIG$1), the group stopped"
	exit "$2"
}
trap 'stop_group INT 130' INT
trap 'stop_group TERM 143' TERM

# run_group GROUP: its checks, then one more for the group as a whole.
run_group()
{
	local g=$1 gtier limit rc start errors log=$out/group-$1.log iso=() cache=

	read -r gtier limit < <(awk -v g="$g" '$1 == g { print $2, $3 }' <<<"$PLAN")
	say "# ---- $g (limit ${limit:-3600} s) ----"
	# A unit group is hermetic: it gets an empty cache of its own and,
	# where this user can make one, a network namespace with no way out;
	# what it calls with no stand-in is installed before, when missing:
	# GROUP/tools, "probe package" lines as need_tools takes them.
	if [ "${gtier:-}" = unit ]; then
		# shellcheck disable=SC2016 # expanded by that bash
		[ ! -f "$gdir/$g/tools" ] ||
			bash -c '. "$1/lib.sh" && mapfile -t t < <(grep -v "^#" "$2") &&
				need_tools "${t[@]}"' _ "$PWD" "$gdir/$g/tools" |
			tee -a "$out/run.log"
		cache=$(mktemp -d "$out/unit-cache.XXXXXX")
		iso=(env "VMTEST_CACHE=$cache")
		if unshare -n true 2>/dev/null; then
			iso=(unshare -n "${iso[@]}")
		else
			say "# $g: no network namespace for this user: run with the network"
		fi
	fi
	start=$(date +%s)
	: >"$log"
	GROUP=$g
	# In the background, so that a signal's trap runs at once (wait
	# returns), and shown as it comes.
	timeout -k 30 "${limit:-3600}" "${iso[@]}" "$gdir/$g/run_tests.sh" \
		>"$log" 2>&1 </dev/null {lock}>&- &
	GROUP_PID=$!
	tail -n +1 -s 0.2 --pid="$GROUP_PID" -f "$log" &
	SHOW_PID=$!
	wait "$GROUP_PID"
	rc=$?
	wait "$SHOW_PID"
	GROUP_PID='' SHOW_PID=''
	[ -z "$cache" ] || rm -rf "$cache"
	cat "$log" >>"$out/run.log"
	say "# $g took $(($(date +%s) - start)) s"
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		say "not ok - $g: finished within ${limit:-3600} s"
	elif ! grep -qE '^(not )?ok - ' "$log"; then
		say "not ok - $g: reported its checks (exit $rc, none printed)"
	elif [ "$rc" -ne 0 ] && ! grep -q '^not ok - ' "$log"; then
		say "not ok - $g: exited $rc without a failed check"
	fi
	# A shell error (a command not found, a bad redirection) in the
	# group's own script means a check that did not run as written
	errors=$(grep -E '^/[^ ]+: line [0-9]+: ' "$log" | sed 's/^/#   /')
	[ -z "$errors" ] ||
		say "not ok - $g: no shell error in its scripts" "$errors"
}

SECONDS=0
for g in "${groups[@]}"; do
	run_group "$g"
done

passed=$(grep -c '^ok - ' "$out/run.log")
failed=$(grep -c '^not ok - ' "$out/run.log")
echo "$passed passed, $failed failed in $SECONDS s"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
