#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load the page_pool benchmark module and report each of its results as
# a KTAP test case with a perf= annotation, one per datapoint:
#
#   ok 4 no-softirq-page_pool01 # perf=5.123ns
#
# The module prints a "Type:<test> Per elem: ... ns" line per result, and
# "Skip:<test> <reason>" or "Fail:<test> <reason>" for a test it skipped
# or that failed; every other line it prints is shown as a diagnostic
# before the next result.  Arguments are passed to the module as
# parameters, e.g. "loops=100000", or else BENCH_PAGE_POOL_PARAMS, since
# run_kselftest.sh passes none; KSFT_MACHINE_SLOW=yes makes 100000 loops
# the default.

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

# The kernel log, read from /dev/kmsg into $1 while the module runs, so
# that other writers cannot push this run's lines out of it first; a
# record lost anyway ends one dd (EPIPE) and the next one reads on.
read_kmsg()
{
	(while ! dd bs=8k status=none 2>/dev/null; do :; done) \
		</dev/kmsg >"$1" &
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

rmmod "$MOD" 2>/dev/null
marker="test_bench_page_pool.sh: run $$.$RANDOM"
log=$(mktemp)
set -m		# the reader in a process group of its own, to stop it
read_kmsg "$log"
reader=$!
set +m
echo "$MOD: $marker" >>/dev/kmsg
err=$(insmod "$KO" "${params[@]}" 2>&1)
rc=$?
rmmod "$MOD" 2>/dev/null
echo "$MOD: $marker end" >>/dev/kmsg
for _ in $(seq 100); do
	grep -q "$marker end\$" "$log" && break
	sleep 0.1
done
kill -- -"$reader"
mapfile -t lines < <(sed -n "/$marker\$/,/$marker end\$/ s/^[^;]*;$MOD: //p" \
	"$log")
grep -q "$marker end\$" "$log" ||
	lines+=("Fail:kernel_log lost this run's lines (read ${#lines[@]})")
rm -f "$log"
case $err in
*"Unknown symbol"*) skip_all "the kernel has no page_pool (CONFIG_PAGE_POOL)" ;;
esac

type_re='^Type:([^ ]+) Per elem: [0-9.]+ cycles\([a-z]+\) ([0-9.]+) ns'
cases=0 fails=0
for line in "${lines[@]}"; do
	[[ $line =~ ^(Type|Skip|Fail):[^\ ]+\  ]] && cases=$((cases + 1))
	[[ $line =~ ^Fail: ]] && fails=$((fails + 1))
done
# A load that failed for no test's sake is a failed case of its own.
load_failed=$((rc != 0 && fails == 0))
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
	elif [ "$line" != "$marker" ] && [ "$line" != "$marker end" ]; then
		ktap_print_msg "$line"
	fi
done
[ "$load_failed" -eq 0 ] || ktap_test_fail "insmod $MOD.ko ${params[*]}: $err"
ktap_finished
