#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load bench_page_pool.ko, which runs the selected tests from its init and
# prints one "Type:" line per result, and report each test as a KTAP test
# case with its figure as "# perf=<value><unit>": the mean ns per element,
# or with BENCH_DETERMINISTIC=1 (QEMU -icount: the TSC counts instructions)
# the mean instructions. Diagnostics (cycles, cheapest chunk, path check,
# errors) come on "#" lines before each result, after the environment the
# figures depend on. Exit 0 when all pass, 1 when one fails, 4 all skipped.

set -u

readonly MOD=bench_page_pool
readonly VULN=/sys/devices/system/cpu/vulnerabilities
# What insmod or the kernel says of a module built for another kernel
readonly FOREIGN="Unknown symbol|Invalid module format|Exec format error|disagrees about version"
DIR=$(dirname "$(readlink -f "$0")")
KO=$DIR/page_pool/$MOD.ko

# shellcheck source=/dev/null
if ! . "$DIR/../../kselftest/ktap_helpers.sh" 2>/dev/null; then
	printf 'TAP version 13\n1..0 # SKIP kselftest/ktap_helpers.sh not found\n'
	exit 4
fi

usage()
{
	cat <<EOF
usage: ${0##*/} [-l LOOPS] [-f RUN_FLAGS] [-c RETURNING_CPUS] [-C CPU] [-v]
       [-r REPEAT] [-j FILE] [-b BASELINE] [-T PCT]

  -l LOOPS           elements per test (module default 500000,
                     100000 with KSFT_MACHINE_SLOW=yes)
  -f RUN_FLAGS       bit mask of tests (default 0x1ff): 0x01 baselines,
                     0x02/0x04/0x08 page_pool fast path, ptr_ring and slow
                     path in process context, 0x10/0x20/0x40 the same in
                     softirq context, 0x80 cross-CPU return, 0x100
                     NAPI-local return in softirq context
  -c RETURNING_CPUS  cross-CPU cases for 1..RETURNING_CPUS returning CPUs
                     (default: one per other CPU, at most 4)
  -C CPU             CPU running the tests (default: the first one this
                     script may run on)
  -v                 verbose module output
  -r REPEAT          runs of each test, with statistics of them
  -j FILE            write the results as JSON (also BENCH_JSON=FILE)
  -b BASELINE        fail tests significantly slower than in this JSON
                     of an earlier run (also BENCH_BASELINE=FILE); XFAIL
                     with KSFT_MACHINE_SLOW=yes
  -T PCT             smallest regression that fails, percent (default 5)
-r, -j and -b need python3 (bench_compare.py does them).
Other module parameters can be given as BENCH_PAGE_POOL_PARAMS, e.g.
BENCH_PAGE_POOL_PARAMS="loops=1000000 chunk=1024"; options take precedence.
BENCH_MODE (hardware, virtual-machine, emulated or deterministic) says how
the figures were measured, which a guest cannot tell reliably.
EOF
}

# Test names, in the module's order, and their run_flags bit
TESTS=(for_loop:0x01 atomic_inc:0x01 lock:0x01
	no-softirq-page_pool01:0x02 no-softirq-page_pool02:0x04
	no-softirq-page_pool03:0x08 tasklet_page_pool01_fast_path:0x10
	tasklet_page_pool02_ptr_ring:0x20 tasklet_page_pool03_slow:0x40
	tasklet_page_pool04_napi_local:0x100 cross_cpu_return:0x80)

# A usage error: one failed case, exit 1
bad_usage()
{
	usage >&2
	ktap_print_header
	ktap_set_plan 1
	echo "# $*"
	ktap_test_fail "options"
	exit "$KSFT_FAIL"
}

declare -A param=()
for kv in ${BENCH_PAGE_POOL_PARAMS:-}; do
	param[${kv%%=*}]=${kv#*=}
done
json=${BENCH_JSON:-}
baseline=${BENCH_BASELINE:-}
threshold=5
while getopts "l:f:c:C:vr:j:b:T:h" opt; do
	case $opt in
	r) param[repeat]=$OPTARG ;;
	j) json=$OPTARG ;;
	b) baseline=$OPTARG ;;
	T) threshold=$OPTARG ;;
	l) param[loops]=$OPTARG ;;
	f) param[run_flags]=$OPTARG ;;
	c) param[returning_cpus]=$OPTARG ;;
	C) param[cpu]=$OPTARG ;;
	v) param[verbose]=1 ;;
	h) usage; exit 0 ;;
	*) bad_usage "unknown option" ;;
	esac
done
# The driver computes with these; the module checks the rest
for k in run_flags returning_cpus repeat; do
	[[ ${param[$k]:-1} =~ ^(0x[0-9a-fA-F]+|[1-9][0-9]*|0)$ ]] ||
		bad_usage "$k=${param[$k]}: not a number"
done
flags=$((${param[run_flags]:-0x1ff}))
[ "${KSFT_MACHINE_SLOW:-}" = yes ] && : "${param[loops]:=100000}"
unit=ns
mode=${BENCH_MODE:-unknown}
# The one mode a guest can tell: QEMU names its emulated x86 CPU so
[ -z "${BENCH_MODE:-}" ] && grep -q '^model name.*QEMU TCG' /proc/cpuinfo && mode=emulated
[ "${BENCH_DETERMINISTIC:-0}" = 1 ] && unit=insn mode=deterministic
[[ $mode =~ ^(hardware|virtual-machine|emulated|deterministic|unknown)$ ]] ||
	bad_usage "BENCH_MODE=$mode: not hardware, virtual-machine, emulated or deterministic"

skip_all()
{
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

ktap_print_header
[ "$(id -u)" -eq 0 ] || skip_all "must be run as root"
[ -r /proc/modules ] || skip_all "kernel without module support (CONFIG_MODULES)"
[ -f "$KO" ] ||
	skip_all "$MOD.ko not built: build the kernel first, or give KDIR (see the build's warning)"
for tool in insmod rmmod dd; do
	command -v "$tool" >/dev/null || skip_all "$tool not found"
done
{ [ -r /dev/kmsg ] && [ -w /dev/kmsg ]; } || skip_all "/dev/kmsg not readable and writable"
# A module built for another kernel cannot load: not a failure of this one
vermagic=$(modinfo -F vermagic "$KO" 2>/dev/null) || vermagic="$(uname -r) "
[[ $vermagic == "$(uname -r) "* ]] ||
	skip_all "$MOD.ko is for another kernel (${vermagic%% *}, running $(uname -r))"
if [ -r /proc/kallsyms ] && ! grep -qw page_pool_create /proc/kallsyms; then
	skip_all "kernel without page_pool (enable e.g. CONFIG_VETH)"
fi
helper=()
if [ "${param[repeat]:-1}" != 1 ] || [ -n "$json$baseline" ]; then
	command -v python3 >/dev/null || skip_all "-r, -j and -b need python3"
	helper=(python3 "$DIR/bench_compare.py" --threshold "$threshold"
		${json:+--json "$json"} ${baseline:+--baseline "$baseline"})
	[ "$unit" = insn ] && helper+=(--deterministic)
fi
if [ -d "/sys/module/$MOD" ] && ! rmmod "$MOD" 2>/dev/null; then
	skip_all "$MOD is loaded and cannot be removed (another run in progress?)"
fi

# Cases in the module's order; cross_cpu_return has one per number of
# returning CPUs, 1..rows, or is skipped (on one CPU by the module too)
selected=()
skip_reason=()
cpus=$(nproc 2>/dev/null || echo 1)
rows=$((${param[returning_cpus]:-0}))
[ "$rows" -gt 0 ] || rows=$((cpus > 4 ? 4 : cpus - 1))
why=
[ "$unit" = insn ] && why="not run in deterministic mode (one emulated CPU at a time)"
[ "$rows" -ge "$cpus" ] && why="needs $((rows + 1)) online CPUs, $cpus online"
[ "$rows" -eq 0 ] && why="needs 2 online CPUs, $cpus online"
for t in "${TESTS[@]}"; do
	(( flags & ${t#*:} )) || continue
	t=${t%:*}
	if [ "$t" = cross_cpu_return ] && [ -z "$why" ]; then
		mapfile -t -O ${#selected[@]} selected < <(seq -f "${t}_%gcpu" "$rows")
		continue
	fi
	[ "$t" = cross_cpu_return ] && skip_reason[${#selected[@]}]=$why
	selected+=("$t")
done
[ -n "$why" ] && [ "$rows" -gt 0 ] && flags=$((flags & ~0x80))
[ ${#selected[@]} -gt 0 ] || skip_all "run_flags selects no test"
ntests=${#selected[@]}
ktap_set_plan "$ntests"

param[run_flags]=$(printf '0x%x' "$flags")
TAG=ktap$$-$(date +%s)
TMP=$(mktemp -d) || exit 1
insmod_pid=''
reader_pid=''
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup()
{
	[ -n "$insmod_pid" ] && kill "$insmod_pid" 2>/dev/null && wait "$insmod_pid"
	[ -n "$reader_pid" ] && kill "$reader_pid" 2>/dev/null
	[ -d "/sys/module/$MOD" ] && rmmod "$MOD" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'echo "# interrupted"; exit 1' INT TERM

# This run's lines, from a marker written before the load to its end line,
# copied while the module runs so that a busy log cannot overwrite them
# (dd goes on after records it missed); at high priority to keep up.
rc=0
if [ "$flags" -ne 0 ]; then
	args=()
	for k in "${!param[@]}"; do
		[ "$k" = tag ] || args+=("$k=${param[$k]}")
	done
	ktap_print_msg "$MOD ${args[*]}"
	nice -n -20 dd if=/dev/kmsg bs=8192 conv=noerror 2>/dev/null >"$TMP/kmsg" &
	reader_pid=$!
	echo "<7>$MOD: load tag:$TAG" >/dev/kmsg	# debug level: not on consoles
	insmod "$KO" "${args[@]}" tag="$TAG" 2>"$TMP/insmod.err" &
	insmod_pid=$!
	wait "$insmod_pid"
	rc=$?
	insmod_pid=
	[ -d "/sys/module/$MOD" ] && rmmod "$MOD"
	for i in $(seq 50); do
		grep -q "run end tag:$TAG " "$TMP/kmsg" && break
		[ "$rc" -ne 0 ] && [ "$i" -ge 5 ] && break
		sleep 0.1
	done
	kill "$reader_pid"
	reader_pid=
	sed -n "s/^[^;]*;//; /^$MOD: load tag:$TAG\$/,/^$MOD: run end tag:$TAG /s/^$MOD: //p" \
		"$TMP/kmsg" >"$TMP/log"
	if [ ! -s "$TMP/log" ]; then
		echo "# the kernel log lost this run's lines (overflowed?)"
	elif [ "$rc" -ne 0 ] && grep -qE "$FOREIGN" "$TMP/log" "$TMP/insmod.err"; then
		skip_reason=()
		for i in "${!selected[@]}"; do
			skip_reason[i]="$MOD.ko does not load: $(head -n 1 "$TMP/insmod.err")"
		done
	elif [ "$rc" -ne 0 ]; then
		echo "# insmod exited with $rc: $(head -n 1 "$TMP/insmod.err")"
		grep -v '^Type:.* Per elem:' "$TMP/log" | sed 's/^/# /'
	fi
	sed -n 's/^run start .* cpu:\([0-9]*\) .*/# tests bound to CPU \1/p' "$TMP/log"
	# On record with the figures, for bench_compare.py too: the module's
	# "run env" line, the boot command line, the CPU vulnerabilities
	# other than "Not affected", and the mode, which the runner knows
	vulns=unknown
	[ -d "$VULN" ] && vulns=$(cd "$VULN" && grep -sH . -- * |
		sed -E 's/:(Mitigation: )?/=/' | grep -v '=Not affected$' | paste -sd '|')
	printf 'env %s\n' "mode:$mode" "cmdline:$(cat /proc/cmdline)" \
		"vulnerabilities:${vulns:-none}" >>"$TMP/log"
	sed -n 's/^\(run \)\{0,1\}env /# environment: /p' "$TMP/log"
	# Off x86 the cycles are a timer's ticks: label them with its rate
	ticks=$(awk -F '[ :]' '$1 == "run" && $2 == "env" && $4 != "tsc" {
		rate = $6 ~ /^[0-9]+$/ ? $6 / 1e6 "MHz" : "unknown-rate"
		printf "ticks(%s@%s)", $4, rate }' "$TMP/log")
fi

# perf_of NAME: the figure of NAME's Type: line, in $unit: its mean
perf_of()
{
	awk -v name="Type:$1" -v u="$unit" '$1 == name && $2 == "Per" {
		print (u == "insn" ? $4 : $6); exit }' "$TMP/log"
}

nfail=0 nskip=0
# Opt-in features: bench_compare.py prints '#' lines and one result per test
if [ ${#helper[@]} -gt 0 ] && [ "$flags" -ne 0 ]; then
	skipped=()
	for i in "${!skip_reason[@]}"; do
		echo "# ${selected[i]}: ${skip_reason[i]}"
		skipped+=("${selected[i]}")
	done
	if ! "${helper[@]}" --report "$TMP/log" --tests "${selected[*]}" \
		--skip "${skipped[*]}" >"$TMP/report" 2>&1; then
		sed 's/^/# bench_compare.py: /' "$TMP/report"
		for t in "${selected[@]}"; do echo "fail $t"; done >"$TMP/report"
	fi
	while read -r kind name rest; do
		case $kind in
		pass) ktap_test_pass "$name # perf=$rest" ;;
		xfail) ktap_test_pass "$name # XFAIL $rest" ;;
		skip) ktap_test_skip "$name"; nskip=$((nskip + 1)) ;;
		fail) ktap_test_fail "$name"; nfail=$((nfail + 1)) ;;
		*) echo "$kind $name $rest" ;;
		esac
	done <"$TMP/report"
	selected=()
fi
for i in "${!selected[@]}"; do
	t=${selected[i]}
	if [ -n "${skip_reason[i]:-}" ]; then
		grep -s "^Type:$t skipped" "$TMP/log" | sed 's/^/# /'
		echo "# $t: ${skip_reason[i]}"
		ktap_test_skip "$t"; nskip=$((nskip + 1))
		continue
	fi
	# Diagnostics: the full result lines and what the module said of t
	grep -E "^(Type|Chunk|Path|Row|FAIL Type):${t}(_alloc)?[: ]" "$TMP/log" |
		sed -E "s/ - \(measurement period.*tsc_interval:[0-9]+\)//; s/^/# /
			${ticks:+s/cycles\(get_cycles\)/$ticks/g}"
	value=$(perf_of "$t")
	if grep -q "^FAIL Type:$t " "$TMP/log" || [ -z "$value" ]; then
		[ -n "$value" ] || echo "# $t: no result"
		ktap_test_fail "$t"
		nfail=$((nfail + 1))
	else
		ktap_test_pass "$t # perf=$value$unit"
	fi
done

ktap_print_totals
[ "$nskip" -eq "$ntests" ] && exit "$KSFT_SKIP"
[ "$nfail" -eq 0 ] && exit "$KSFT_PASS"
exit "$KSFT_FAIL"
