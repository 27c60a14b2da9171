# SPDX-License-Identifier: GPL-2.0
# Boot kernels alternately with the runner, a few at a time: one job
# directory per boot, for ab.sh's two sides and git.sh's commits alike.
# shellcheck shell=bash disable=SC2154 # vmtest: the caller's runner

children=()

# boot_option OPTION VALUE: an option ab.sh and git.sh share (each takes
# a value) in the caller's variables; usage on one of neither
# shellcheck disable=SC2034 # the caller's variables
boot_option()
{
	case $1 in
	--base-config | --change-config | -n | --boots | -j | --jobs | \
	--profile | -p | --param | --dma | -o | --out)
		[ -n "$2" ] || die "$1 needs a value" ;;
	esac
	case $1 in
	--base-config) base_config+=("$(config_setting "$2")") || exit 2 ;;
	--change-config) change_config+=("$(config_setting "$2")") || exit 2 ;;
	-n | --boots) boots=$2 ;;
	-j | --jobs) jobs=$2 ;;
	--profile) profile=$2 ;;
	-p | --param) params+=(-p "$2") ;;
	--dma) params+=(--dma "$2") ;;
	-o | --out) out=$2 ;;
	-h | --help) usage ;;
	*) echo "$PROG: unknown argument '$1'" >&2; usage ;;
	esac
}

# check_counts: --boots and --jobs (default: the CPUs) are numbers
check_counts()
{
	jobs=${jobs:-$(nproc)}
	[[ $boots =~ ^[1-9][0-9]*$ ]] || die "--boots needs a number, not '$boots'"
	[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs needs a number, not '$jobs'"
}

# stop_boots: boot_all's callers' trap handler: the boots stop (the
# runner stops QEMU on SIGTERM), exit 130
# shellcheck disable=SC2317 # a trap handler
stop_boots()
{
	trap '' INT TERM
	[ ${#children[@]} -eq 0 ] || kill "${children[@]}" 2>/dev/null
	wait
	echo "ab.sh: interrupted" >&2
	exit 130
}

# boot_one OUT NAME N KDIR ARG...: one boot of KDIR by the runner
# ($vmtest), its log in OUT/NAME-N.log, its job's path in OUT/NAME-N.job,
# and what a table is made of (KTAP, QEMU's facts, --attribute's profile
# and model cycles) kept in OUT/NAME-N: the runner deletes jobs in a day.
# Boots after the first boot the first's job again ('vmtest.sh again':
# its selftests, built once).
boot_one()
{
	local out=$1 name=$2 n=$3 kdir=$4 rc job f first

	shift 4
	first=$(head -n 1 "$out/$name-1.job" 2>/dev/null)
	# (not when KDIR was built again since: ab.sh --tree's commits)
	if [ "$n" -gt 1 ] && [ -d "$first/install" ] &&
	   [ ! "$kdir/arch/x86/boot/bzImage" -nt "$first/install" ]; then
		"$vmtest" again "$first" --job-file "$out/$name-$n.job"
	else
		"$vmtest" -t current --kdir "$kdir" --job-file "$out/$name-$n.job" "$@"
	fi >"$out/$name-$n.log" 2>&1
	rc=$?
	job=$(head -n 1 "$out/$name-$n.job" 2>/dev/null)
	rm -rf "${out:?}/$name-$n"
	if [ -d "$job/ktap" ]; then
		mkdir -p "$out/$name-$n" && cp -r "$job/ktap" "$out/$name-$n/" ||
			rc=2
		for f in qemu profile.json model.tap; do
			[ ! -f "$job/$f" ] || cp "$job/$f" "$out/$name-$n/" || rc=2
		done
	fi
	return "$rc"
}

# booting JOBFILE PID: wait until the boot is past building its selftests
# (in the runner's tree: one at a time), as its job's result says, or ended
booting()
{
	local job

	while kill -0 "$2" 2>/dev/null; do
		job=$(head -n 1 "$1" 2>/dev/null)
		[ -n "$job" ] && grep -qE ' phase=boot |^target=[^ ]* result=[^r]' \
			"$job/result" 2>/dev/null && return
		sleep 1
	done
}

# boot_all OUT FIRST LAST JOBS NAME=KDIR... -- ARG...: boots FIRST to
# LAST of each kernel, alternated, JOBS at a time (their PIDs in
# 'children', for stop_boots); fails when a boot failed
boot_all()
{
	local out=$1 first=$2 last=$3 jobs=$4 i side failed=0 c name n kdir
	local -a sides=() queue=()

	shift 4
	while [ "$1" != -- ]; do sides+=("$1"); shift; done
	shift
	for i in $(seq "$first" "$last"); do
		for side in "${sides[@]}"; do queue+=("${side%%=*} $i ${side#*=}"); done
	done
	while [ ${#queue[@]} -gt 0 ]; do
		children=()
		for _ in $(seq "$jobs"); do
			[ ${#queue[@]} -gt 0 ] || break
			read -r name n kdir <<<"${queue[0]}"
			queue=("${queue[@]:1}")
			rm -f "$out/$name-$n.job"
			boot_one "$out" "$name" "$n" "$kdir" "$@" &
			children+=($!)
			booting "$out/$name-$n.job" "$!"
		done
		for c in "${children[@]}"; do wait "$c" || failed=1; done
	done
	children=()
	return "$failed"
}

# model_table FORMAT [--attribution FILE] --base BOOT... --change BOOT...:
# the boots' model cycles (--attribute's estimate, BOOT/model.tap) as a
# table, its verdicts the change's as in the instructions' table
model_table()
{
	local format=$1 a taps=()

	shift
	if [ "$1" = --attribution ]; then taps+=("$1" "$2"); shift 2; fi
	for a in "$@"; do
		case $a in
		--*) taps+=("$a") ;;
		*) [ -s "$a/model.tap" ] || { echo "# model cycles: not estimated ($a has no model.tap)"; return 0; }
		   taps+=("$a/model.tap") ;;
		esac
	done
	echo "# model cycles per element: estimated from the events by vmtest/lib/cycles.py, not measured"
	"$ab/verdict.py" "${taps[@]}" --deterministic --format "$format"
}
