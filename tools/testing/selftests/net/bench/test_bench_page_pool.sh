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
# diagnostics.  Arguments (else BENCH_PAGE_POOL_PARAMS, as
# run_kselftest.sh passes none) are module parameters, e.g. loops=100000,
# the default with KSFT_MACHINE_SLOW=yes.

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
ktap_print_msg "vulnerabilities:" \
	"$(grep -rs . /sys/devices/system/cpu/vulnerabilities/ | sed 's|.*/||')"

# This load's lines lie between the module's "Loaded <tag>" and
# "Finished <tag>": nothing is written to the log (printk.devkmsg=off
# forbids it).  Its records are streamed from /dev/kmsg as it runs,
# so that other writers cannot push them out first; records overwritten
# before they were read end a dd (EPIPE), leaving a "lost" line.  Without
# /dev/kmsg, dmesg reads the log after.
tag=$$.$RANDOM$RANDOM
log=$(mktemp) reader="" loader=""
trap '[ -z "$reader" ] || kill -- -"$reader"; [ -z "$loader" ] ||
	kill -9 "$loader"; rm -f "$log" "$log.err"' EXIT
trap 'exit 130' INT TERM
rmmod "$MOD" 2>/dev/null
if exec 3</dev/kmsg; then
	set -m		# the reader in a process group of its own, to stop it
	( (while ! dd bs=8k status=none; do echo "lost;"; done) |
		grep --line-buffered -e ";$MOD: " -e "^lost;" ) <&3 >"$log" &
	reader=$!
	set +m
	exec 3<&-
fi 2>/dev/null
insmod "$KO" "tag=$tag" "${params[@]}" >"$log.err" 2>&1 &
loader=$!
wait "$loader"
rc=$? loader="" err=$(<"$log.err") end=$((SECONDS + 10))
rmmod "$MOD" 2>/dev/null
if [ -n "$reader" ]; then
	until grep -q ";$MOD: Finished $tag\$" "$log" || [ $SECONDS -gt "$end" ]
	do sleep 0.1; done
else
	dmesg | sed -E 's/^(\[[^]]*\] *)?/;/' >"$log"
fi
mapfile -t lines < <(sed -n "/;$MOD: Loaded $tag\$/,/;$MOD: Finished $tag\$/{
	s/^lost;.*/Fail:kernel_log some records were overwritten unread/p
	s/^[^;]*;$MOD: //p }" "$log")
lost="Fail:kernel_log this run's"
if ! grep -q ";$MOD: Loaded $tag\$" "$log"; then
	[[ $rc -ne 0 && ${err,,} == *"unknown symbol"* ]] &&
		skip_all "the kernel has no page_pool (CONFIG_PAGE_POOL)"
	[ "$rc" -ne 0 ] || lines+=("$lost first line was not read")
elif ! grep -q ";$MOD: Finished $tag\$" "$log"; then
	lines+=("$lost last line was not read")
fi

type_re='^Type:([^ ]+) Per elem: [0-9.]+ cycles\([a-z]+\) ([0-9.]+) ns'
cases=0 fails=0
for line in "${lines[@]}"; do
	[[ $line =~ ^(Type|Skip|Fail):[^\ ]+\  ]] && cases=$((cases + 1))
	[[ $line =~ ^Fail: ]] && fails=$((fails + 1))
done
# A load that failed for no test's sake is a failed case of its own, and
# so is a run that reported nothing.
load_failed=$((rc != 0 && fails == 0))
if [ $((cases + load_failed)) -eq 0 ]; then
	lines+=("Fail:results the module reported none")
	cases=1
fi
ktap_set_plan $((cases + load_failed))

for line in "${lines[@]}"; do
	if [[ $line =~ $type_re ]]; then
		ktap_print_msg "$line"
		ktap_test_pass "${BASH_REMATCH[1]} # perf=${BASH_REMATCH[2]}ns"
	elif [[ $line =~ ^Skip:([^\ ]+)\ (.*) ]]; then
		ktap_print_msg "${BASH_REMATCH[1]}: ${BASH_REMATCH[2]}"
		ktap_test_skip "${BASH_REMATCH[1]}"
	elif [[ $line =~ ^(Type|Fail):([^\ ]+)\ (.*) ]]; then
		ktap_print_msg "$line"
		ktap_test_fail "${BASH_REMATCH[2]}"
	else
		ktap_print_msg "$line"
	fi
done
[ "$load_failed" -eq 0 ] || ktap_test_fail "insmod $MOD.ko ${params[*]}: $err"
ktap_finished
