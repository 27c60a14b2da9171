#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load the page_pool benchmark module and report each of its results as
# a KTAP test case with a perf= annotation, one per datapoint:
#
#   ok 4 no-softirq-page_pool01 # perf=5.123ns
#
# The module prints "Type:<test> Per elem: ... ns" per result, and
# "Skip:<test> <reason>" or "Fail:<test> <reason>"; its other lines are
# diagnostics.  Cases are printed as the module reports them, so that a
# run stopped by a timeout keeps those it finished; their number is not
# known before, hence no plan line.  Arguments (else
# BENCH_PAGE_POOL_PARAMS, as run_kselftest.sh passes none) are module
# parameters, e.g. loops=100000, the default with KSFT_MACHINE_SLOW=yes.

DIR=$(dirname "$(readlink -f "$0")")
# shellcheck source-path=SCRIPTDIR source=../../kselftest/ktap_helpers.sh
source "$DIR/../../kselftest/ktap_helpers.sh"

MOD=bench_page_pool
KO=$DIR/page_pool/$MOD.ko

skip_all()
{
	ktap_skip_all "$@"
	exit "$KSFT_SKIP"
}

ktap_print_header
[ "$(id -u)" -eq 0 ] || skip_all "must be run as root"
[ -f "$KO" ] || skip_all "$KO not built (the kernel was not built first?)"
vermagic=$(modinfo -F vermagic "$KO" 2>/dev/null)
[ "${vermagic%% *}" = "$(uname -r)" ] ||
	skip_all "$MOD.ko is built for ${vermagic%% *}, not $(uname -r)"

params=("$@")
[ $# -gt 0 ] || read -ra params <<<"${BENCH_PAGE_POOL_PARAMS:-}"
if [ "${KSFT_MACHINE_SLOW:-}" = yes ] &&
   [[ " ${params[*]} " != *" loops="* ]]; then
	params+=(loops=100000)
fi

ktap_print_msg "kernel: $(uname -rv)"
ktap_print_msg "cmdline: $(cat /proc/cmdline)"
grep -rs . /sys/devices/system/cpu/vulnerabilities/ | sed 's|.*/||' |
	while read -r line; do ktap_print_msg "vulnerability $line"; done

# report LINE: the case or the diagnostic of one of the module's lines
type_re='^Type:([^ ]+) Per elem: [^ ]+ cycles\([a-z]+\) ([0-9.]+) ns'
fails=0
report()
{
	if [[ $1 =~ $type_re ]]; then
		ktap_print_msg "$1"
		ktap_test_pass "${BASH_REMATCH[1]} # perf=${BASH_REMATCH[2]}ns"
	elif [[ $1 =~ ^Skip:([^\ ]+)\ (.*) ]]; then
		ktap_print_msg "${BASH_REMATCH[1]}: ${BASH_REMATCH[2]}"
		ktap_test_skip "${BASH_REMATCH[1]}"
	elif [[ $1 =~ ^(Type|Fail):([^\ ]+)\ (.*) ]]; then
		ktap_print_msg "$1"
		ktap_test_fail "${BASH_REMATCH[2]}"
		fails=$((fails + 1))
	else
		ktap_print_msg "$1"
	fi
}

# This load's lines lie between the module's "Loaded <tag>" and
# "Finished <tag>": nothing is written to the log (printk.devkmsg=off
# forbids it).  Its records are copied from /dev/kmsg as it runs, so
# that other writers cannot push them out first; records overwritten
# before they were read end a dd (EPIPE), leaving a "lost" line.  Without
# /dev/kmsg, dmesg reads the log after.
tag=$$.$RANDOM$RANDOM
log=$(mktemp) reader="" loader=""
trap '[ -z "$reader" ] || kill -- -"$reader"; [ -z "$loader" ] ||
	kill -9 "$loader"; rm -f "$log" "$log.err"' EXIT
trap 'exit 130' INT TERM

# drain: report the lines of this load that the log holds and that were
# not read yet, complete lines only
read_lines=0 started=0 finished=0 lost=0
overrun="some records were overwritten unread"
drain()
{
	local line lines

	[ -z "$(tail -c 1 "$log")" ] || return 0
	mapfile -t -s "$read_lines" lines <"$log"
	read_lines=$((read_lines + ${#lines[@]}))
	for line in "${lines[@]}"; do
		case $line in
		*";$MOD: Loaded $tag") started=1 ;;
		*";$MOD: Finished $tag") finished=1 ;;
		esac
		[ "$((started - finished))" -eq 1 ] || continue
		case $line in
		"lost;"*)
			[ "$lost" -eq 1 ] || report "Fail:kernel_log $overrun"
			lost=1
			;;
		*";$MOD: Loaded $tag") ;;
		*";$MOD: "*) report "${line#*;"$MOD": }" ;;
		esac
	done
}

rmmod "$MOD" 2>/dev/null
if exec 3</dev/kmsg; then
	set -m		# the reader in a process group of its own, to stop it
	( while ! dd bs=8k status=none; do echo "lost;"; done ) <&3 >"$log" &
	reader=$!
	set +m
	exec 3<&-
fi 2>/dev/null
insmod "$KO" "tag=$tag" "${params[@]}" >"$log.err" 2>&1 &
loader=$!
while [ -n "$reader" ] && kill -0 "$loader" 2>/dev/null; do
	drain
	sleep 0.2
done
wait "$loader"
rc=$? loader="" err=$(<"$log.err") end=$((SECONDS + 10))
rmmod "$MOD" 2>/dev/null
if [ -n "$reader" ]; then
	until drain; [ "$finished" -eq 1 ] || [ $SECONDS -gt "$end" ]; do
		sleep 0.1
	done
else
	dmesg | sed -E 's/^(\[[^]]*\] *)?/;/' >"$log"
	drain
fi

unread="Fail:kernel_log this run's"
if [ "$started" -eq 0 ]; then
	[[ $rc -ne 0 && ${err,,} == *"unknown symbol"* ]] &&
		skip_all "the kernel has no page_pool (CONFIG_PAGE_POOL)"
	[ "$rc" -ne 0 ] || report "$unread first line was not read"
elif [ "$finished" -eq 0 ] && [ "$lost" -eq 0 ]; then
	report "$unread last line was not read"
fi
# A load that failed for no test's sake is a failed case of its own, and
# so is a run that reported nothing.
if [ "$rc" -ne 0 ] && [ "$fails" -eq 0 ]; then
	ktap_test_fail "insmod $MOD.ko ${params[*]}: $err"
elif [ "$KTAP_TESTNO" -eq 1 ]; then
	report "Fail:results the module reported none"
fi
ktap_print_totals
[ "$KTAP_CNT_FAIL" -eq 0 ] || exit "$KSFT_FAIL"
exit "$KSFT_PASS"
