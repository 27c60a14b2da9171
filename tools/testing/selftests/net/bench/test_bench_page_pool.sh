#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the page_pool benchmark module and report each of its measurements
# as a KTAP subtest, followed by a summary table.
#
# The module runs all selected tests from its init and prints one "Type:"
# line per result between a start and an end line carrying a tag unique to
# this run.  The kernel log is captured from /dev/kmsg while the module
# runs and deduplicated by sequence number, so other kernel messages,
# earlier runs and a log flooded while the module runs do not matter.
#
# Also runs the userspace ptr_ring benchmark (../../ptr_ring/ptr_ring_test,
# options from PTR_RING_TEST_ARGS, default "-m spsc") as a baseline for the
# page_pool ptr_ring path, when it is built.

set -u

readonly MOD=bench_page_pool
readonly FLAGS_ALL=0xff
readonly FLAG_CROSS_CPU=0x80
readonly FLAGS_PTR_RING=0x24	# no-softirq-page_pool02, tasklet ptr_ring

DIR=$(dirname "$(readlink -f "$0")")
KO="$DIR/page_pool/$MOD.ko"
PTR_RING_TEST="$DIR/../../ptr_ring/ptr_ring_test"

usage()
{
	cat <<EOF
usage: ${0##*/} [-l LOOPS] [-f RUN_FLAGS] [-c RETURNING_CPUS] [-C CPU] [-v]

  -l LOOPS           elements per test (module default 500000)
  -f RUN_FLAGS       bit mask of tests (default 0xff):
                     0x01 baselines, 0x02/0x04/0x08 page_pool fast path,
                     ptr_ring and slow path in process context,
                     0x10/0x20/0x40 the same in softirq context,
                     0x80 cross-CPU return
  -c RETURNING_CPUS  CPUs returning pages in the cross-CPU test
                     (default: other online CPUs, at most 2)
  -C CPU             CPU running the tests (default: not pinned)
  -v                 verbose module output

Module parameters can also be given as BENCH_PAGE_POOL_PARAMS, e.g.
BENCH_PAGE_POOL_PARAMS="loops=1000000 cpu=1"; options take precedence.
PTR_RING_TEST_ARGS holds the options of ptr_ring_test (default "-m spsc").
EOF
}

if [ -r "$DIR/../../kselftest/ktap_helpers.sh" ]; then
	# shellcheck source=/dev/null
	. "$DIR/../../kselftest/ktap_helpers.sh"
else
	# Minimal stand-in for kselftest/ktap_helpers.sh
	KTAP_TESTNO=1
	KTAP_CNT_PASS=0
	KTAP_CNT_FAIL=0
	KTAP_CNT_XFAIL=0
	KTAP_CNT_SKIP=0
	KSFT_PASS=0
	KSFT_FAIL=1
	KSFT_SKIP=4
	KSFT_NUM_TESTS=0

	ktap_print_header() { echo "TAP version 13"; }
	ktap_print_msg() { echo "# $*"; }
	ktap_set_plan() { KSFT_NUM_TESTS=$1; echo "1..$1"; }
	ktap_skip_all() { echo "1..0 # SKIP $*"; }
	__ktap_test()
	{
		echo "$1 $KTAP_TESTNO $2${3:+ # $3}"
		KTAP_TESTNO=$((KTAP_TESTNO + 1))
	}
	ktap_test_pass()
	{
		__ktap_test ok "$1"
		KTAP_CNT_PASS=$((KTAP_CNT_PASS + 1))
	}
	ktap_test_skip()
	{
		__ktap_test ok "$1" SKIP
		KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
	}
	ktap_test_fail()
	{
		__ktap_test "not ok" "$1"
		KTAP_CNT_FAIL=$((KTAP_CNT_FAIL + 1))
	}
	ktap_print_totals()
	{
		echo "# Totals: pass:$KTAP_CNT_PASS fail:$KTAP_CNT_FAIL" \
			"xfail:$KTAP_CNT_XFAIL xpass:0 skip:$KTAP_CNT_SKIP error:0"
	}
	ktap_exit_fail_msg()
	{
		echo "Bail out! $*"
		ktap_print_totals
		exit "$KSFT_FAIL"
	}
	ktap_finished()
	{
		ktap_print_totals
		local finished=$((KTAP_CNT_PASS + KTAP_CNT_SKIP + KTAP_CNT_XFAIL))

		if [ "$finished" -eq "$KSFT_NUM_TESTS" ]; then
			exit "$KSFT_PASS"
		fi
		exit "$KSFT_FAIL"
	}
fi

# printf keeps the spacing that ktap_print_msg would squeeze
msg()
{
	printf '# %s\n' "$*"
}

# "ok N name # SKIP reason", with the reason on the result line
test_skip()
{
	local name=$1

	shift
	if declare -F __ktap_test >/dev/null; then
		__ktap_test ok "$name" "SKIP $*"
		KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
	else
		msg "$name: $*"
		ktap_test_skip "$name"
	fi
}

skip_all()
{
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

is_number()
{
	[[ $1 =~ ^(0[xX][0-9a-fA-F]+|[0-9]+)$ ]]
}

# Module parameters: environment first, options override
loops=
run_flags=
returning_cpus=
cpu=
verbose=
extra_params=()

for kv in ${BENCH_PAGE_POOL_PARAMS:-}; do
	case $kv in
	loops=*) loops=${kv#*=} ;;
	run_flags=*) run_flags=${kv#*=} ;;
	returning_cpus=*) returning_cpus=${kv#*=} ;;
	cpu=*) cpu=${kv#*=} ;;
	verbose=*) verbose=${kv#*=} ;;
	tag=*) ;;	# every run uses its own tag
	*) extra_params+=("$kv") ;;
	esac
done

while getopts "l:f:c:C:vh" opt; do
	case $opt in
	l) loops=$OPTARG ;;
	f) run_flags=$OPTARG ;;
	c) returning_cpus=$OPTARG ;;
	C) cpu=$OPTARG ;;
	v) verbose=1 ;;
	h) usage; exit "$KSFT_PASS" ;;
	*) usage >&2; exit "$KSFT_FAIL" ;;
	esac
done

ktap_print_header

run_flags=${run_flags:-$FLAGS_ALL}
if ! is_number "$run_flags" || [ $((run_flags & FLAGS_ALL)) -eq 0 ]; then
	ktap_exit_fail_msg "run_flags=$run_flags selects no test"
fi
if [ -n "$returning_cpus" ] && ! is_number "$returning_cpus"; then
	ktap_exit_fail_msg "returning_cpus=$returning_cpus is not a number"
fi

[ "$(id -u)" -eq 0 ] || skip_all "must be run as root"
[ -r /proc/modules ] || skip_all "kernel without module support (CONFIG_MODULES)"
[ -f "$KO" ] || skip_all "$MOD.ko not built (make -C tools/testing/selftests/net/bench)"
for tool in insmod rmmod; do
	command -v "$tool" >/dev/null || skip_all "$tool not found"
done
if [ -r /proc/kallsyms ] && ! grep -qw page_pool_create /proc/kallsyms; then
	skip_all "kernel without page_pool (enable e.g. CONFIG_NETDEVSIM or CONFIG_VETH)"
fi
[ -r /dev/kmsg ] || skip_all "/dev/kmsg not readable"
if [ -d "/sys/module/$MOD" ] && ! rmmod "$MOD" 2>/dev/null; then
	skip_all "$MOD is loaded and cannot be removed (another run in progress?)"
fi

# The cross-CPU test needs CPUs besides the allocating one
online=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
others=$((online - 1))
cross_skip=
if [ $((run_flags & FLAG_CROSS_CPU)) -ne 0 ]; then
	if [ -z "$returning_cpus" ]; then
		returning_cpus=$((others < 2 ? others : 2))
	fi
	if [ "$others" -lt 1 ]; then
		cross_skip="needs at least 2 online CPUs, $online online"
	elif [ $((returning_cpus)) -gt "$others" ]; then
		cross_skip="returning_cpus=$returning_cpus needs"
		cross_skip+=" $((returning_cpus + 1)) online CPUs, $online online"
	fi
	if [ -n "$cross_skip" ]; then
		run_flags=$(printf '0x%x' $((run_flags & ~FLAG_CROSS_CPU)))
		returning_cpus=
	fi
fi

# Subtests in the order the module runs them, with their run_flags bit
declare -A test_bit=(
	[for_loop]=0x01 [atomic_inc]=0x01 [lock]=0x01
	[no-softirq-page_pool01]=0x02
	[no-softirq-page_pool02]=0x04
	[no-softirq-page_pool03]=0x08
	[tasklet_page_pool01_fast_path]=0x10
	[tasklet_page_pool02_ptr_ring]=0x20
	[tasklet_page_pool03_slow]=0x40
	[cross_cpu_return]=0x80
)
all_tests=(for_loop atomic_inc lock
	no-softirq-page_pool01 no-softirq-page_pool02 no-softirq-page_pool03
	tasklet_page_pool01_fast_path tasklet_page_pool02_ptr_ring
	tasklet_page_pool03_slow cross_cpu_return)

tests=()
for t in "${all_tests[@]}"; do
	bit=${test_bit[$t]}
	if [ $((run_flags & bit)) -ne 0 ] ||
	   { [ "$t" = cross_cpu_return ] && [ -n "$cross_skip" ]; }; then
		tests+=("$t")
	fi
done
run_ptr_ring=0
[ $((run_flags & FLAGS_PTR_RING)) -ne 0 ] && run_ptr_ring=1

TAG="ppb$$-$(date +%s)-$RANDOM"
params=("tag=$TAG" "run_flags=$run_flags")
[ -n "$loops" ] && params+=("loops=$loops")
[ -n "$returning_cpus" ] && params+=("returning_cpus=$returning_cpus")
[ -n "$cpu" ] && params+=("cpu=$cpu")
[ -n "$verbose" ] && params+=("verbose=$verbose")
params+=("${extra_params[@]}")

TMP=$(mktemp -d) || ktap_exit_fail_msg "mktemp failed"
reader_pid=
insmod_pid=
loaded_by_us=0

stop_reader()
{
	if [ -n "$reader_pid" ]; then
		kill -TERM "$reader_pid" 2>/dev/null
		wait "$reader_pid" 2>/dev/null
		reader_pid=
	fi
}

cleanup()
{
	if [ -n "$insmod_pid" ]; then
		# A fatal signal makes the module stop after the current chunk
		kill -TERM "$insmod_pid" 2>/dev/null
		wait "$insmod_pid" 2>/dev/null
		insmod_pid=
	fi
	stop_reader
	if [ "$loaded_by_us" -eq 1 ] && [ -d "/sys/module/$MOD" ]; then
		rmmod "$MOD" 2>/dev/null
	fi
	rm -rf "$TMP"
}

on_signal()
{
	trap - EXIT INT TERM
	echo "Bail out! interrupted by SIG$1"
	cleanup
	exit "$KSFT_FAIL"
}

trap cleanup EXIT
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM

# Sequence number of the newest record in the kernel log
kmsg_last_seq()
{
	dd if=/dev/kmsg iflag=nonblock bs=16384 2>/dev/null |
		awk -F '[,;]' '/^[0-9]+,[0-9]+,/ { s = $2 } END { print s + 0 }'
}

# Records after $base_seq from the given kmsg dumps as "seq<TAB>text",
# deduplicated and in sequence order
kmsg_records()
{
	awk -v base="$base_seq" '
		/^[0-9]+,[0-9]+,/ {
			semi = index($0, ";")
			split(substr($0, 1, semi - 1), h, ",")
			seq = h[2] + 0
			if (seq > base && !(seq in seen)) {
				seen[seq] = 1
				print seq "\t" substr($0, semi + 1)
			}
		}' "$@" | sort -n -k1,1
}

# Where the figures come from: under software emulation or in a VM they
# show that the code runs, they are not hardware performance numbers.
measured_on()
{
	local virt

	if grep -qm1 '^model name.*QEMU TCG' /proc/cpuinfo 2>/dev/null; then
		echo "software emulation (QEMU TCG): not hardware performance figures"
	elif grep -qm1 '^flags.* hypervisor' /proc/cpuinfo 2>/dev/null; then
		echo "a virtual machine: figures include virtualisation overhead"
	elif virt=$(systemd-detect-virt 2>/dev/null) && [ "$virt" != none ]; then
		echo "a virtual machine ($virt): figures include virtualisation overhead"
	else
		echo "hardware"
	fi
}

run_module()
{
	local start="run start tag:$TAG " end="run end tag:$TAG " i

	base_seq=$(kmsg_last_seq)
	# Copy the log while the module runs.  When records are overwritten
	# before dd reads them, its read fails with EPIPE and the next read
	# continues after the gap: conv=noerror keeps dd going.  High
	# priority helps it keep up with other processes flooding the log.
	nice -n -20 dd if=/dev/kmsg bs=16384 conv=noerror status=none \
		>>"$TMP/kmsg" 2>/dev/null &
	reader_pid=$!

	insmod "$KO" "${params[@]}" 2>"$TMP/insmod.err" &
	insmod_pid=$!
	wait "$insmod_pid"
	insmod_rc=$?
	insmod_pid=
	[ "$insmod_rc" -eq 0 ] && loaded_by_us=1

	# Let the reader catch up with the end line (or error lines)
	for ((i = 0; i < 50; i++)); do
		grep -q "$end" "$TMP/kmsg" 2>/dev/null && break
		if [ "$insmod_rc" -ne 0 ] && ! grep -q "$start" "$TMP/kmsg"; then
			[ "$i" -ge 5 ] && break
		fi
		sleep 0.1
	done
	stop_reader
	dd if=/dev/kmsg iflag=nonblock bs=16384 of="$TMP/kmsg.sweep" 2>/dev/null

	# This module's lines after base_seq, for load errors, and the lines
	# of this run from its start to its end line, for the results
	kmsg_records "$TMP/kmsg" "$TMP/kmsg.sweep" | cut -f2- |
		sed -n "s/^$MOD: //p" >"$TMP/mod"
	awk -v start="$start" -v end="$end" '
		index($0, start) == 1 { on = 1 }
		on { print }
		index($0, end) == 1 { exit }' "$TMP/mod" >"$TMP/run"

	if [ "$loaded_by_us" -eq 1 ]; then
		rmmod "$MOD" 2>/dev/null && loaded_by_us=0
	fi
}

# "cycles ns" of a Type line, $1 = Type name, $2 = optional label
result_of()
{
	awk -v type="Type:$1" -v label="${2:-}" '
		$1 == type && (label == "" ? $2 == "Per" : $2 == label) {
			sub(/.*Per elem: /, "")
			print $1, $3
			exit
		}' "$TMP/run"
}

summary=()

add_summary()
{
	summary+=("$(printf '%-36s %12s %12s' "$1" "$2" "$3")")
}

report_module_test()
{
	local t=$1 res cycles ns cpu_line cpu_n

	if [ "$t" = cross_cpu_return ] && [ -n "$cross_skip" ]; then
		test_skip "$t" "$cross_skip"
		return
	fi
	if grep -q "^FAIL Type:$t " "$TMP/run"; then
		grep -E "^(FAIL )?Type:${t}[ :]" "$TMP/run" | while read -r line; do
			msg "$t: $line"
		done
		ktap_test_fail "$t"
		return
	fi

	if [ "$t" = cross_cpu_return ]; then
		res=$(result_of cross_cpu_return_avg)
	else
		res=$(result_of "$t")
	fi
	if [ -z "$res" ]; then
		msg "$t: no result in the kernel log (module failed or was stopped)"
		ktap_test_fail "$t"
		return
	fi

	if [ "$t" = cross_cpu_return ]; then
		while read -r cpu_line; do
			[ -n "$cpu_line" ] || continue
			cpu_n=${cpu_line#cpu:}
			read -r cycles ns <<<"$(result_of "$t" "$cpu_line")"
			msg "$t cpu $cpu_n: $cycles cycles(tsc) $ns ns per page returned"
			add_summary "$t cpu:$cpu_n" "$cycles" "$ns"
		done <<<"$(awk -v type="Type:$t" \
			'$1 == type && $2 ~ /^cpu:/ { print $2 }' "$TMP/run")"
		read -r cycles ns <<<"$res"
		msg "$t average: $cycles cycles(tsc) $ns ns per page returned"
		add_summary "cross_cpu_return_avg" "$cycles" "$ns"
	else
		read -r cycles ns <<<"$res"
		msg "$t: $cycles cycles(tsc) $ns ns per element"
		add_summary "$t" "$cycles" "$ns"
	fi
	ktap_test_pass "$t"
}

report_ptr_ring()
{
	local t=ptr_ring_test_spsc out rc summ ns cycles reason
	local args=${PTR_RING_TEST_ARGS:--m spsc}

	if [ ! -x "$PTR_RING_TEST" ]; then
		test_skip "$t" "ptr_ring_test not built" \
			"(make -C tools/testing/selftests TARGETS=ptr_ring)"
		return
	fi
	# shellcheck disable=SC2086 # split the options on purpose
	out=$("$PTR_RING_TEST" $args 2>&1)
	rc=$?
	summ=$(grep -E '^# [a-z_]+: ns_per_item min ' <<<"$out")
	while read -r line; do
		[ -n "$line" ] && msg "ptr_ring_test ${line#\# }"
	done <<<"$summ"
	case $rc in
	0)
		ns=$(sed -n 's/^# spsc: .* min [0-9.]* median \([0-9.]*\) .*/\1/p' \
			<<<"$summ")
		cycles=$(sed -n 's/^# spsc: .* cycles_per_item median \([0-9.]*\).*/\1/p' \
			<<<"$summ")
		add_summary "ptr_ring_test spsc (userspace)" "${cycles:--}" "${ns:--}"
		ktap_test_pass "$t"
		;;
	"$KSFT_SKIP")
		reason=$(grep -m1 -o 'SKIP.*' <<<"$out")
		reason=${reason#SKIP}
		test_skip "$t" "ptr_ring_test skipped:${reason:- no reason given}"
		;;
	*)
		grep -E '^(# |not ok|Bail)' <<<"$out" | tail -n 5 | while read -r line; do
			msg "ptr_ring_test: $line"
		done
		msg "ptr_ring_test exited with $rc"
		ktap_test_fail "$t"
		;;
	esac
}

run_module

# A kernel without page_pool cannot link the module
if [ "$insmod_rc" -ne 0 ] && grep -q "Unknown symbol page_pool" "$TMP/mod"; then
	ktap_skip_all "kernel without page_pool (enable e.g. CONFIG_NETDEVSIM or CONFIG_VETH)"
	exit "$KSFT_SKIP"
fi

ktap_set_plan $((${#tests[@]} + run_ptr_ring))

msg "$MOD: ${params[*]}"
msg "measured on $(measured_on)"
if [ "$insmod_rc" -ne 0 ]; then
	msg "insmod failed with status $insmod_rc: $(tr '\n' ' ' <"$TMP/insmod.err")"
	# Parameter errors come before the start line: show all module lines
	while read -r line; do
		case $line in
		Type:*) ;;
		*) msg "$MOD: $line" ;;
		esac
	done <"$TMP/mod"
fi

for t in "${tests[@]}"; do
	report_module_test "$t"
done
[ "$run_ptr_ring" -eq 1 ] && report_ptr_ring

if [ ${#summary[@]} -gt 0 ]; then
	msg "Summary, per element ('cycles' are TSC cycles on x86)," \
		"measured on $(measured_on):"
	msg "$(printf '%-36s %12s %12s' test cycles ns)"
	for line in "${summary[@]}"; do
		msg "$line"
	done
fi

if [ "$insmod_rc" -ne 0 ] && [ "$KTAP_CNT_FAIL" -eq 0 ]; then
	ktap_exit_fail_msg "insmod $MOD failed"
fi
ktap_finished
