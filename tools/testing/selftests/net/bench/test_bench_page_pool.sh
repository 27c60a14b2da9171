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
#
# Repetitions (-r): each test runs REPEAT times and the driver reports,
# per subtest, min, median, mean, sample standard deviation and the 95 %
# confidence interval of the mean (Student t, n - 1 degrees of freedom)
# of the per element cycles and ns.
#
# Calibration (-t SECONDS): with the default loops the fast tests measure
# for ~0.05 s on current hardware, a dozen timer ticks at HZ=250: one
# interrupt, preemption or frequency change then moves the figure by
# percents and repetitions scatter accordingly.  A short run with
# loops=10000 measures each selected test and the loops of the real run
# are chosen so that every measurement period lasts at least SECONDS
# (one value for the run, the longest needed, at most 4294967295).
#
# Path check: with CONFIG_PAGE_POOL_STATS the module checks that every
# page took the path a test names and prints where the pages came from
# (alloc cache, ptr_ring, page allocator) and went back to; the driver
# reports the shares per subtest and fails it when the named path was not
# taken.  Without the statistics it says the path was not checked.
#
# BENCH_DETERMINISTIC=1 (set by runners booting QEMU with -icount
# shift=0, where the TSC advances once per executed instruction) labels
# the cycle figures as instructions and reports, instead of the mean over
# all elements, the cheapest of the timed chunks of 64 elements (module
# parameter chunk=64 unless given): the mean includes timer interrupts and
# the page allocator's batched work at varying places, the cheapest chunk
# repeats exactly from run to run and boot to boot given enough chunks
# (loops of 50000 and more).
#
# Regression gate (-b BASELINE.json, -T PCT): each subtest's repetitions
# are compared with the baseline's ones of the same test name by Welch's
# t-test; a subtest regressed when its mean ns is significantly (95 %)
# higher and by more than PCT percent (default 5).  With
# KSFT_MACHINE_SLOW=yes a regression is reported as XFAIL (SKIP without
# kselftest/ktap_helpers.sh) instead.  Both sides need at least 2
# repetitions, otherwise nothing is gated.
#
# JSON (-j FILE): one document, schema "kselftest-bench" version 1, shared
# with ptr_ring_test:
#   { "schema": "kselftest-bench", "version": 1,
#     "benchmark": "bench_page_pool",
#     "run": { "mode": "hardware" | "virtual-machine" | "emulated" |
#                      "deterministic",
#              "kernel_release": uname -r, "cpu_model": model name,
#              "date": ISO 8601 UTC,
#              "parameters": { "loops": N, "repeat": N, "chunk": N,
#                              "estimator": "mean" | "min-chunk", ... },
#              "config": { "preempt": e.g. "PREEMPT_DYNAMIC voluntary",
#                          "debug": [ debug options set, e.g. "KASAN" ],
#                          "page_pool_stats": true | false | null } },
#     "unit": { "cycles": "tsc-cycles" | "cycles" | "instructions",
#               "time": "ns" },
#     "tests": [ { "name": subtest, "status": "pass" | "fail" | "skip",
#                  "path_check": "ok" | "failed" | "not checked",
#                  "reps": [ { "cycles": C, "ns": T, "elements": N } ],
#                  "stats": { "cycles": { "min", "median", "mean",
#                                         "stddev", "ci95": [lo, hi] },
#                             "ns": { same } } } ] }
# Numbers are per element; "stats" is null without repetitions, "config"
# values are null when the kernel configuration cannot be read.  "tests"
# holds the module's subtests (cross_cpu_return: its average over the
# returning CPUs); ptr_ring_test writes its own document.

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
       [-r REPEAT] [-t SECONDS] [-j FILE] [-b BASELINE] [-T PCT]

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
  -r REPEAT          runs of each test, 1..1000 (default 1), with statistics
  -t SECONDS         calibrate loops so that each measurement period lasts
                     at least SECONDS (e.g. 0.2); overrides -l
  -j FILE            write the results as JSON (also BENCH_JSON=FILE)
  -b BASELINE        fail subtests significantly slower than in this JSON
                     file of an earlier run (also BENCH_BASELINE=FILE)
  -T PCT             smallest regression that fails, percent (default 5)

Module parameters can also be given as BENCH_PAGE_POOL_PARAMS, e.g.
BENCH_PAGE_POOL_PARAMS="loops=1000000 cpu=1 repeat=5"; options take
precedence.  PTR_RING_TEST_ARGS holds the options of ptr_ring_test
(default "-m spsc").  BENCH_DETERMINISTIC=1 labels cycles as instructions
and reports the cheapest 64-element chunk, KSFT_MACHINE_SLOW=yes reports
regressions without failing.
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
repeat=
chunk=
target=
json=${BENCH_JSON:-}
baseline=${BENCH_BASELINE:-}
threshold=5
extra_params=()

for kv in ${BENCH_PAGE_POOL_PARAMS:-}; do
	case $kv in
	loops=*) loops=${kv#*=} ;;
	run_flags=*) run_flags=${kv#*=} ;;
	returning_cpus=*) returning_cpus=${kv#*=} ;;
	cpu=*) cpu=${kv#*=} ;;
	verbose=*) verbose=${kv#*=} ;;
	repeat=*) repeat=${kv#*=} ;;
	chunk=*) chunk=${kv#*=} ;;
	tag=*) ;;	# every run uses its own tag
	*) extra_params+=("$kv") ;;
	esac
done

while getopts "l:f:c:C:vr:t:j:b:T:h" opt; do
	case $opt in
	l) loops=$OPTARG ;;
	f) run_flags=$OPTARG ;;
	c) returning_cpus=$OPTARG ;;
	C) cpu=$OPTARG ;;
	v) verbose=1 ;;
	r) repeat=$OPTARG ;;
	t) target=$OPTARG ;;
	j) json=$OPTARG ;;
	b) baseline=$OPTARG ;;
	T) threshold=$OPTARG ;;
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
if [ -n "$repeat" ] &&
   { ! [[ $repeat =~ ^[0-9]+$ ]] || [ "$repeat" -lt 1 ] ||
     [ "$repeat" -gt 1000 ]; }; then
	ktap_exit_fail_msg "repeat=$repeat: must be 1..1000"
fi
if [ -n "$chunk" ] && ! [[ $chunk =~ ^[0-9]+$ ]]; then
	ktap_exit_fail_msg "chunk=$chunk is not a number"
fi
if [ -n "$target" ] && { ! [[ $target =~ ^[0-9]*\.?[0-9]+$ ]] ||
			 awk -v t="$target" 'BEGIN { exit !(t <= 0) }'; }; then
	ktap_exit_fail_msg "-t $target: must be a positive number of seconds"
fi
if ! [[ $threshold =~ ^[0-9]*\.?[0-9]+$ ]]; then
	ktap_exit_fail_msg "-T $threshold: must be a percentage"
fi
if [ -n "$baseline" ] && [ ! -r "$baseline" ]; then
	ktap_exit_fail_msg "baseline $baseline is not readable"
fi
nreps=${repeat:-1}

[ "$(id -u)" -eq 0 ] || skip_all "must be run as root"
[ -r /proc/modules ] || skip_all "kernel without module support (CONFIG_MODULES)"
[ -f "$KO" ] || skip_all "$MOD.ko not built: build the kernel first, or give KDIR (see the selftest build's warning)"
for tool in insmod rmmod; do
	command -v "$tool" >/dev/null || skip_all "$tool not found"
done
# A module built for another kernel cannot load: not a failure of this one
if command -v modinfo >/dev/null; then
	vermagic=$(modinfo -F vermagic "$KO" 2>/dev/null)
	case $vermagic in
	"$(uname -r) "*) ;;
	*) skip_all "$MOD.ko was built for another kernel (vermagic ${vermagic%% *}, running $(uname -r))" ;;
	esac
fi
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

RUN_TAG="ppb$$-$(date +%s)-$RANDOM"

# Module parameters of a run: $1 = tag, $2 = loops, $3 = repeat
set_params()
{
	TAG=$1
	params=("tag=$TAG" "run_flags=$run_flags")
	[ -n "$2" ] && params+=("loops=$2")
	[ -n "$returning_cpus" ] && params+=("returning_cpus=$returning_cpus")
	[ -n "$cpu" ] && params+=("cpu=$cpu")
	[ -n "$verbose" ] && params+=("verbose=$verbose")
	[ -n "$3" ] && params+=("repeat=$3")
	[ -n "$chunk" ] && params+=("chunk=$chunk")
	params+=("${extra_params[@]}")
}

deterministic=0
[ "${BENCH_DETERMINISTIC:-0}" = 1 ] && deterministic=1
estimator=mean
if [ "$deterministic" -eq 1 ]; then
	estimator=min-chunk
	chunk=${chunk:-64}
	cyc_name=instructions
	cyc_unit=instructions
	cyc_json=instructions
else
	cyc_name=cycles
	cyc_unit="cycles(tsc)"
	case $(uname -m) in
	x86_64 | i?86) cyc_json=tsc-cycles ;;
	*) cyc_json=cycles ;;
	esac
fi
set_params "$RUN_TAG" "$loops" "$repeat"

# Student t 0.975 quantile for df degrees of freedom (1.96 beyond 30,
# fractional df of Welch's test rounded down, to err on the safe side)
readonly AWK_TQ='
function tq(df,    t) {
	split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 " \
	      "2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 " \
	      "2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 " \
	      "2.048 2.045 2.042", t, " ")
	df = int(df)
	if (df < 1)
		df = 1
	return df > 30 ? 1.96 : t[df] + 0
}'

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

	rm -f "$TMP/kmsg" "$TMP/kmsg.sweep"
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

# "cycles ns elements" of each repetition of a Type line, $1 = Type name,
# $2 = optional label besides rep:i/R (e.g. cpu:3); per element over all
# elements, or with the min-chunk estimator in the cheapest chunk
reps_of()
{
	awk -v type="Type:$1" -v label="${2:-}" -v est="$estimator" '
		$1 == type {
			lab = ""
			for (i = 2; i <= NF && $i != "Per"; i++) {
				if ($i !~ /^rep:/)
					lab = lab (lab == "" ? "" : " ") $i
			}
			if (i > NF || $(i + 1) != "elem:" || lab != label)
				next
			cnt = $0
			sub(/.*invoke count:/, "", cnt)
			sub(/[^0-9].*/, "", cnt)
			min = $0
			if (est == "min-chunk" && sub(/.*min chunk: /, "", min)) {
				split(min, f, " ")
				print f[1], f[3], cnt
			} else {
				print $(i + 2), $(i + 4), cnt
			}
		}' "$TMP/run"
}

# Statistics of "cycles ns ..." lines: n, then min median mean stddev
# ci95_low ci95_high of the cycles and of the ns
stats_of()
{
	awk "$AWK_TQ"'
	function stat(v, n,    i, j, x, s, m, sd, med, h) {
		for (i = 2; i <= n; i++) {
			x = v[i]
			for (j = i - 1; j >= 1 && v[j] > x; j--)
				v[j + 1] = v[j]
			v[j + 1] = x
		}
		for (i = 1; i <= n; i++)
			s += v[i]
		m = s / n
		s = 0
		for (i = 1; i <= n; i++)
			s += (v[i] - m) ^ 2
		sd = n > 1 ? sqrt(s / (n - 1)) : 0
		med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		h = n > 1 ? tq(n - 1) * sd / sqrt(n) : 0
		return sprintf("%.3f %.3f %.3f %.3f %.3f %.3f",
			       v[1], med, m, sd, m - h, m + h)
	}
	NF >= 2 { n++; c[n] = $1; t[n] = $2 }
	END { if (n) print n, stat(c, n), stat(t, n) }'
}

summary=()

# A summary row with repetitions: test, cycles and ns min median mean
# stddev ci95
stats_row()
{
	printf '%-36s %10s %10s %10s %10s %21s %10s %10s %10s %10s %21s' "$@"
}

# Summary row: $1 = name, then either "cycles ns" or the stats_of fields
add_summary()
{
	local name=$1

	shift
	if [ "$nreps" -eq 1 ]; then
		summary+=("$(printf '%-36s %12s %12s' "$name" "$1" "$2")")
	elif [ $# -eq 2 ]; then
		summary+=("$(stats_row "$name" - "$1" - - - \
			- "$2" - - -)")
	else
		summary+=("$(stats_row "$name" \
			"$(printf '%.1f' "$2")" "$(printf '%.1f' "$3")" \
			"$(printf '%.1f' "$4")" "$(printf '%.1f' "$5")" \
			"$(printf '%.1f..%.1f' "$6" "$7")" \
			"$8" "$9" "${10}" "${11}" "${12}..${13}")")
	fi
}

# Report the repetitions of one result line: $1 = description, $2 = Type
# name, $3 = label, $4 = summary name, $5 = what an element is.  Sets
# row_reps and row_stats; fails when the log has no such result.
report_row()
{
	local desc=$1 type=$2 label=$3 name=$4 what=$5 cycles ns n

	row_reps=$(reps_of "$type" "$label")
	[ -n "$row_reps" ] || return 1
	row_stats=$(stats_of <<<"$row_reps")
	if [ "$nreps" -eq 1 ]; then
		read -r cycles ns _ <<<"$row_reps"
		msg "$desc: $cycles $cyc_unit $ns ns $what"
		add_summary "$name" "$cycles" "$ns"
		return 0
	fi
	# shellcheck disable=SC2086 # the fields of the statistics
	set -- $row_stats
	n=$1
	msg "$desc: $cyc_name min $2 median $3 mean $4 stddev $5 ci95 [$6, $7];" \
		"ns min $8 median $9 mean ${10} stddev ${11}" \
		"ci95 [${12}, ${13}] $what over $n reps"
	[ "$n" -eq "$nreps" ] || msg "$desc: only $n of $nreps repetitions reported"
	add_summary "$name" "$@"
}

# Report the page_pool statistics of test $1 from its Path: line and set
# test_path; fails when the module saw the named path not taken.
path_report()
{
	local t=$1 line

	line=$(grep -m1 "^Path:$t " "$TMP/run")
	if [ -z "$line" ]; then
		[ "${test_bit[$t]}" = 0x01 ] && return 0	# no page_pool path
		msg "$t: path not checked: no page_pool statistics in the log"
		return 0
	fi
	if [[ $line == *" not checked:"* ]]; then
		msg "$t: path not checked:${line#* not checked:}"
		return 0
	fi
	line=$(awk '
		function pct(a, b) { return b ? sprintf("%.1f%%", 100 * a / b) : "-" }
		{
			for (i = 2; i <= NF; i++) {
				split($i, kv, ":")
				v[kv[1]] = kv[2]
			}
			a = v["from_cache"] + v["from_ring"] + v["from_page_allocator"]
			r = v["cached"] + v["ring"] + v["released"]
			ok = v[v["expect"]] > 0
			printf "%s pages from cache %s ring %s page allocator %s of %d; ",
				ok ? "ok" : "failed",
				pct(v["from_cache"], a), pct(v["from_ring"], a),
				pct(v["from_page_allocator"], a), a
			printf "returned to cache %s ring %s released %s of %d, ",
				pct(v["cached"], r), pct(v["ring"], r),
				pct(v["released"], r), r
			printf "ring_full %d; expected %s\n", v["ring_full"], v["expect"]
		}' <<<"$line")
	msg "$t: path: ${line#* }"
	if [ "${line%% *}" != ok ] ||
	   grep -qE "^Type:$t (only [0-9]+ of|no page was returned)" "$TMP/run"; then
		test_path[$t]=failed
		msg "$t: the named page_pool path was not exercised"
		return 1
	fi
	test_path[$t]=ok
	return 0
}

# Baseline repetitions as "name<TAB> ns1 ns2 ...", from any JSON layout
load_baseline()
{
	grep -oE '"([^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|true|false|null|[][{}:,]' \
		"$baseline" | awk '
		function unq(s) { gsub(/^"|"$/, "", s); return s }
		{ tok = $0 }
		tok == "{" || tok == "[" {
			d++
			type[d] = tok
			key[d] = ""
			iskey[d] = tok == "{"
			if (d == 3) {
				name = ""
				ns = ""
			}
			next
		}
		tok == "}" || tok == "]" {
			if (d == 3 && key[1] == "tests" && name != "")
				print name "\t" ns
			d--
			next
		}
		tok == ":" { iskey[d] = 0; next }
		tok == "," { iskey[d] = type[d] == "{"; next }
		type[d] == "{" && iskey[d] { key[d] = unq(tok); next }
		key[1] == "tests" && d == 3 && key[3] == "name" { name = unq(tok) }
		key[1] == "tests" && d == 5 && key[3] == "reps" && key[5] == "ns" {
			ns = ns " " tok
		}' >"$TMP/base"
}

# Welch's t-test of our ns ($1) against the baseline's ($2): prints
# "few NA NB" or "regress|ok BASE_MEAN MEAN PCT T DF SIGNIFICANT"
welch()
{
	awk -v a="$1" -v b="$2" -v thr="$threshold" "$AWK_TQ"'
	function mv(s, v,    n, i, m, q) {
		n = split(s, v, " ")
		for (i = 1; i <= n; i++)
			m += v[i]
		m /= n
		for (i = 1; i <= n; i++)
			q += (v[i] - m) ^ 2
		mean = m
		return q / (n - 1)
	}
	BEGIN {
		na = split(a, x, " ")
		nb = split(b, y, " ")
		if (na < 2 || nb < 2) {
			print "few", na, nb
			exit
		}
		va = mv(a, x) / na
		ma = mean
		vb = mv(b, y) / nb
		mb = mean
		if (va + vb > 0) {
			t = (ma - mb) / sqrt(va + vb)
			df = (va + vb) ^ 2 / (va ^ 2 / (na - 1) + vb ^ 2 / (nb - 1))
		} else {
			t = ma == mb ? 0 : (ma > mb ? 1e9 : -1e9)
			df = na + nb - 2
		}
		pct = mb > 0 ? 100 * (ma - mb) / mb : 0
		sig = t > tq(df)
		verdict = (sig && pct > thr + 0) ? "regress" : "ok"
		printf "%s %.3f %.3f %+.1f %.2f %.1f %d\n",
		       verdict, mb, ma, pct, t, df, sig
	}'
}

# Compare test $1 with the baseline; sets gate_msg and returns 1 on a
# significant regression
gate()
{
	local t=$1 ours base verdict bm m pct tt df sig

	gate_msg=
	[ -n "$baseline" ] || return 0
	base=$(awk -F '\t' -v t="$t" '$1 == t { print $2; exit }' "$TMP/base")
	if [ -z "$base" ]; then
		msg "$t: not in the baseline, not compared"
		return 0
	fi
	ours=$(awk '{ printf " %s", $2 }' <<<"${test_reps[$t]}")
	read -r verdict bm m pct tt df sig <<<"$(welch "$ours" "$base")"
	if [ "$verdict" = few ]; then
		msg "$t: comparison with the baseline needs repetitions" \
			"(at least 2 on each side, $bm here and $m there), not judged"
		return 0
	fi
	if [ "$verdict" != ok ] && [ "$verdict" != regress ]; then
		msg "$t: comparison with the baseline failed, not judged"
		return 0
	fi
	gate_msg="$bm ns -> $m ns ($pct %), Welch t=$tt, df=$df"
	if [ "$verdict" = regress ]; then
		gate_msg="regression: $gate_msg"
		return 1
	fi
	if [ "$sig" = 1 ]; then
		msg "$t: baseline $gate_msg: significantly slower," \
			"but not by more than $threshold %"
	else
		msg "$t: baseline $gate_msg: not significantly slower (95 %)"
	fi
	return 0
}

declare -A test_status test_path test_reps test_stats

report_module_test()
{
	local t=$1 cpu_line cpu_n

	test_status[$t]=fail
	test_path[$t]="not checked"
	test_reps[$t]=
	test_stats[$t]=
	if [ "$t" = cross_cpu_return ] && [ -n "$cross_skip" ]; then
		test_status[$t]=skip
		test_skip "$t" "$cross_skip"
		return
	fi
	if grep -q "^FAIL Type:$t " "$TMP/run"; then
		grep -E "^(FAIL )?Type:${t}[ :]" "$TMP/run" | while read -r line; do
			msg "$t: $line"
		done
		path_report "$t"
		ktap_test_fail "$t"
		return
	fi

	if [ -z "$(reps_of "${t/%cross_cpu_return/cross_cpu_return_avg}")" ]; then
		msg "$t: no result in the kernel log (module failed or was stopped)"
		ktap_test_fail "$t"
		return
	fi

	if [ "$t" = cross_cpu_return ]; then
		while read -r cpu_line; do
			[ -n "$cpu_line" ] || continue
			cpu_n=${cpu_line#cpu:}
			report_row "$t cpu $cpu_n" "$t" "$cpu_line" \
				"$t cpu:$cpu_n" "per page returned"
		done <<<"$(awk -v type="Type:$t" \
			'$1 == type && $2 ~ /^cpu:/ { print $2 }' "$TMP/run" |
			awk '!seen[$0]++')"
		report_row "$t average" cross_cpu_return_avg "" \
			cross_cpu_return_avg "per page returned"
	else
		report_row "$t" "$t" "" "$t" "per element"
	fi
	test_reps[$t]=$row_reps
	[ "$nreps" -gt 1 ] && test_stats[$t]=$row_stats

	if ! path_report "$t"; then
		ktap_test_fail "$t"
		return
	fi
	if gate "$t"; then
		test_status[$t]=pass
		ktap_test_pass "$t"
	elif [ "${KSFT_MACHINE_SLOW:-}" = yes ]; then
		local why="regression not judged on a slow machine: ${gate_msg#regression: }"

		test_status[$t]=skip
		msg "$t: $gate_msg"
		if declare -F ktap_test_xfail >/dev/null; then
			__ktap_test ok "$t" "XFAIL $why"
			KTAP_CNT_XFAIL=$((KTAP_CNT_XFAIL + 1))
		else
			test_skip "$t" "$why"
		fi
	else
		__ktap_test "not ok" "$t" "$gate_msg"
		KTAP_CNT_FAIL=$((KTAP_CNT_FAIL + 1))
	fi
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

# Where the figures come from, for the JSON document
run_mode()
{
	if [ "$deterministic" -eq 1 ]; then
		echo deterministic
		return
	fi
	case $(measured_on) in
	software*) echo emulated ;;
	"a virtual machine"*) echo virtual-machine ;;
	*) echo hardware ;;
	esac
}

read_config()
{
	if [ -r /proc/config.gz ] && command -v zcat >/dev/null; then
		zcat /proc/config.gz 2>/dev/null
	elif [ -r "/boot/config-$(uname -r)" ]; then
		cat "/boot/config-$(uname -r)"
	fi
}

config_set()
{
	grep -q "^CONFIG_$1=y" "$TMP/config"
}

# Preemption model, with the current mode of PREEMPT_DYNAMIC kernels
preempt_model()
{
	local mode

	if [ ! -s "$TMP/config" ]; then
		case $(uname -v) in
		*PREEMPT_RT*) echo PREEMPT_RT ;;
		*PREEMPT_DYNAMIC*) echo PREEMPT_DYNAMIC ;;
		*PREEMPT*) echo PREEMPT ;;
		*) echo unknown ;;
		esac
		return
	fi
	if config_set PREEMPT_RT; then
		echo PREEMPT_RT
	elif config_set PREEMPT_DYNAMIC; then
		mode=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' \
			/sys/kernel/debug/sched/preempt 2>/dev/null)
		[ -n "$mode" ] ||
			mode=$(sed -n 's/.*\bpreempt=\([a-z]*\).*/\1/p' /proc/cmdline)
		if [ -z "$mode" ]; then
			if config_set PREEMPT; then
				mode=full
			elif config_set PREEMPT_LAZY; then
				mode=lazy
			elif config_set PREEMPT_VOLUNTARY; then
				mode=voluntary
			else
				mode=none
			fi
		fi
		echo "PREEMPT_DYNAMIC $mode"
	elif config_set PREEMPT; then
		echo PREEMPT
	elif config_set PREEMPT_LAZY; then
		echo PREEMPT_LAZY
	elif config_set PREEMPT_VOLUNTARY; then
		echo VOLUNTARY
	elif config_set PREEMPT_NONE; then
		echo NONE
	else
		echo unknown
	fi
}

json_str()
{
	local s=$1

	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\t'/\\t}
	s=${s//$'\n'/\\n}
	s=${s//$'\r'/\\r}
	s=$(printf '%s' "$s" | tr -d '\000-\037')
	printf '"%s"' "$s"
}

# A JSON number, a string if it does not look like one
json_val()
{
	if [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; then
		printf '%s' "$1"
	else
		json_str "$1"
	fi
}

# The "stats" object of a stats_of line
json_stats()
{
	# shellcheck disable=SC2086 # the fields of the statistics
	set -- $1
	printf '{ "%s": { "min": %s, "median": %s, "mean": %s, "stddev": %s, "ci95": [%s, %s] },' \
		cycles "$2" "$3" "$4" "$5" "$6" "$7"
	printf ' "ns": { "min": %s, "median": %s, "mean": %s, "stddev": %s, "ci95": [%s, %s] } }' \
		"$8" "$9" "${10}" "${11}" "${12}" "${13}"
}

write_json()
{
	local file=$1 t sep opt stats debug="" cfg_pps=null
	local cpu_model

	cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
	if [ -s "$TMP/config" ]; then
		for opt in KASAN KMSAN KCSAN PROVE_LOCKING DEBUG_ATOMIC_SLEEP \
			   DEBUG_OBJECTS DEBUG_VM DEBUG_KMEMLEAK LOCKDEP \
			   DEBUG_PAGEALLOC SLUB_DEBUG_ON; do
			config_set "$opt" && debug+="${debug:+, }\"$opt\""
		done
		cfg_pps=false
		config_set PAGE_POOL_STATS && cfg_pps=true
	fi
	{
		printf '{\n  "schema": "kselftest-bench", "version": 1,\n'
		printf '  "benchmark": "bench_page_pool",\n  "run": {\n'
		printf '    "mode": %s,\n' "$(json_str "$(run_mode)")"
		printf '    "kernel_release": %s,\n' "$(json_str "$(uname -r)")"
		printf '    "cpu_model": %s,\n' "$(json_str "${cpu_model:-$(uname -m)}")"
		printf '    "date": %s,\n' "$(json_str "$(date -u +%Y-%m-%dT%H:%M:%SZ)")"
		printf '    "parameters": { "loops": %s, "repeat": %s, "run_flags": %s' \
			"$(json_val "${loops:-500000}")" "$nreps" "$(json_str "$run_flags")"
		[ -n "$returning_cpus" ] &&
			printf ', "returning_cpus": %s' "$(json_val "$returning_cpus")"
		[ -n "$cpu" ] && printf ', "cpu": %s' "$(json_val "$cpu")"
		[ -n "$target" ] &&
			printf ', "target_period_s": %s' "$(json_val "$target")"
		printf ', "chunk": %s, "estimator": "%s"' \
			"$(json_val "${chunk:-8192}")" "$estimator"
		printf ' },\n    "config": { "preempt": %s, "debug": [%s],' \
			"$(json_str "$(preempt_model)")" "$debug"
		printf ' "page_pool_stats": %s }\n  },\n' "$cfg_pps"
		printf '  "unit": { "cycles": "%s", "time": "ns" },\n  "tests": [' \
			"$cyc_json"
		sep=
		for t in "${tests[@]}"; do
			printf '%s\n    { "name": %s, "status": "%s",' \
				"$sep" "$(json_str "$t")" "${test_status[$t]:-fail}"
			printf ' "path_check": "%s",\n      "reps": [' \
				"${test_path[$t]:-not checked}"
			awk 'NF >= 3 { printf "%s { \"cycles\": %s, \"ns\": %s, \"elements\": %s }",
					      n++ ? "," : "", $1, $2, $3 }' <<<"${test_reps[$t]:-}"
			stats=null
			[ -n "${test_stats[$t]:-}" ] && stats=$(json_stats "${test_stats[$t]}")
			printf ' ],\n      "stats": %s }' "$stats"
			sep=,
		done
		printf '\n  ]\n}\n'
	} >"$TMP/json" && cp "$TMP/json" "$file"
}

# Calibration: measure a short run, then size loops to the target period
calib_msg=
if [ -n "$target" ]; then
	set_params "$RUN_TAG-cal" 10000 1
	run_module
	calib=$(awk -v target="$target" -v l=10000 '
		$1 ~ /^Type:/ && /measurement period time:/ {
			p = $0
			sub(/.*measurement period time:/, "", p)
			p += 0
			if (p <= 0)
				next
			need = target * l / p
			if (need != int(need))
				need = int(need) + 1
			if (need > max) {
				max = need
				who = substr($1, 6)
			}
		}
		END {
			if (max) {
				if (max > 4294967295)
					max = 4294967295
				if (max < 1000)
					max = 1000
				printf "%.0f %s\n", max, who
			}
		}' "$TMP/run")
	if [ "$insmod_rc" -eq 0 ] && [ -n "$calib" ]; then
		loops=${calib%% *}
		calib_msg="calibration: loops=$loops, so that each measurement"
		calib_msg+=" period lasts at least $target s (longest: ${calib#* })"
	else
		calib_msg="calibration with loops=10000 failed (insmod status"
		calib_msg+=" $insmod_rc), loops=${loops:-default}"
	fi
	set_params "$RUN_TAG" "$loops" "$repeat"
fi

run_module
read_config >"$TMP/config"

# A kernel without page_pool cannot link the module
if [ "$insmod_rc" -ne 0 ] && grep -q "Unknown symbol page_pool" "$TMP/mod"; then
	ktap_skip_all "kernel without page_pool (enable e.g. CONFIG_NETDEVSIM or CONFIG_VETH)"
	exit "$KSFT_SKIP"
fi
if [ "$insmod_rc" -ne 0 ] &&
   grep -qiE "Invalid module format|Exec format error|Unknown symbol|disagrees about version" \
	"$TMP/mod" "$TMP/insmod.err"; then
	ktap_skip_all "$MOD.ko does not match the running kernel $(uname -r): $(head -n 1 "$TMP/insmod.err")"
	exit "$KSFT_SKIP"
fi

ktap_set_plan $((${#tests[@]} + run_ptr_ring))

msg "$MOD: ${params[*]}"
msg "measured on $(measured_on)"
[ -n "$calib_msg" ] && msg "$calib_msg"
if [ "$deterministic" -eq 1 ]; then
	msg "BENCH_DETERMINISTIC=1: the TSC counts executed instructions," \
		"figures are instructions (and ns) per element in the" \
		"cheapest chunk of $chunk elements"
fi
if [ -n "$baseline" ]; then
	load_baseline
	[ -s "$TMP/base" ] || msg "baseline $baseline holds no test results"
fi
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
	if [ "$deterministic" -eq 1 ]; then
		msg "Summary, per element in the cheapest $chunk-element chunk" \
			"(instructions: TSC ticks under QEMU -icount shift=0)," \
			"measured on $(measured_on):"
	else
		msg "Summary, per element ('cycles' are TSC cycles on x86)," \
			"measured on $(measured_on):"
	fi
	if [ "$nreps" -eq 1 ]; then
		msg "$(printf '%-36s %12s %12s' test "$cyc_name" ns)"
	else
		c=${cyc_name:0:3}
		msg "$nreps repetitions, ci95: 95 % confidence interval of the mean"
		msg "$(stats_row test \
			"$c.min" "$c.median" "$c.mean" "$c.stddev" "$c.ci95" \
			ns.min ns.median ns.mean ns.stddev ns.ci95)"
	fi
	for line in "${summary[@]}"; do
		msg "$line"
	done
fi

if [ -n "$json" ]; then
	if write_json "$json"; then
		msg "results written to $json"
	else
		msg "cannot write $json"
	fi
fi

if [ "$insmod_rc" -ne 0 ] && [ "$KTAP_CNT_FAIL" -eq 0 ]; then
	ktap_exit_fail_msg "insmod $MOD failed"
fi
ktap_finished
