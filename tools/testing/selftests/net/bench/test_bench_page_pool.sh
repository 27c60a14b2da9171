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
# forbids it).  dd copies its records from /dev/kmsg as it runs, so that
# other writers cannot push them out first, through a FIFO the script
# reads as they come (no polling: a wakeup is a record); records
# overwritten before they were read end a dd (EPIPE), leaving a "lost"
# line.  Without /dev/kmsg, dmesg reads the log after.
tag=$$.$RANDOM$RANDOM
tmp=$(mktemp -d) reader="" loader=""
trap '[ -z "$reader" ] || kill -- -"$reader"; [ -z "$loader" ] ||
	kill -9 "$loader"; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# take LINE: a line of the log, reported when it is this load's
started=0 finished=0 lost=0
overrun="some records were overwritten unread"
take()
{
	case $1 in
	*";$MOD: Loaded $tag") started=1; return ;;
	*";$MOD: Finished $tag") finished=1; return ;;
	esac
	[ "$((started - finished))" -eq 1 ] || return 0
	case $1 in
	"lost;"*)
		[ "$lost" -eq 1 ] || report "Fail:kernel_log $overrun"
		lost=1
		;;
	*";$MOD: "*) report "${1#*;"$MOD": }" ;;
	esac
}

rmmod "$MOD" 2>/dev/null
if mkfifo "$tmp/log" && exec 3</dev/kmsg; then
	set -m		# the reader in a process group of its own, to stop it
	( while ! dd bs=8k status=none; do echo "lost;"; done
	) <&3 >"$tmp/log" &
	reader=$!
	set +m
	exec 3<&- 4<"$tmp/log"
fi 2>/dev/null
insmod "$KO" "tag=$tag" "${params[@]}" >"$tmp/err" 2>&1 &
loader=$!
# Until the last line, or for 10 s more once the load has ended (other
# writers may flood the log meanwhile)
end=
while [ -n "$reader" ] && [ "$finished" -eq 0 ]; do
	kill -0 "$loader" 2>/dev/null || end=${end:-$((SECONDS + 10))}
	[ -z "$end" ] || [ "$SECONDS" -lt "$end" ] || break
	if IFS= read -r -t 1 line <&4; then
		take "$line"
	fi
done
wait "$loader"
rc=$? loader="" err=$(<"$tmp/err")
rmmod "$MOD" 2>/dev/null
if [ -z "$reader" ]; then
	while IFS= read -r line; do
		take "$line"
	done < <(dmesg | sed -E 's/^(\[[^]]*\] *)?/;/')
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
