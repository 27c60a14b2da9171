#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot kernels under QEMU and run the series' kselftests inside them, a
# target (vmtest/targets/) at a time, phase by phase (fetch, tree, build,
# boot). --help lists the options; vmtest/README.md says how each target's
# kernel and guest are made.

# shellcheck source-path=SCRIPTDIR
set -u
set -o pipefail

VMTEST_DIR=$(dirname "$(realpath "$0")")
VMTEST_SERIES=$(dirname "$VMTEST_DIR")
# shellcheck source=lib/common.sh
. "$VMTEST_DIR/lib/common.sh"
# shellcheck source=lib/arch.sh
. "$VMTEST_DIR/lib/arch.sh"
# shellcheck source=lib/packages.sh
. "$VMTEST_DIR/lib/packages.sh"
# shellcheck source=lib/distro.sh
. "$VMTEST_DIR/lib/distro.sh"
# shellcheck source=lib/patch.sh
. "$VMTEST_DIR/lib/patch.sh"
# shellcheck source=lib/record.sh
. "$VMTEST_DIR/lib/record.sh"
# shellcheck source=lib/tree.sh
. "$VMTEST_DIR/lib/tree.sh"
# shellcheck source=lib/kbuild.sh
. "$VMTEST_DIR/lib/kbuild.sh"
# shellcheck source=lib/initramfs.sh
. "$VMTEST_DIR/lib/initramfs.sh"
# shellcheck source=lib/vm.sh
. "$VMTEST_DIR/lib/vm.sh"
# shellcheck source=lib/attribute.sh
. "$VMTEST_DIR/lib/attribute.sh"

usage()
{
	cat <<EOF
usage: ${0##*/} [options] [-- command ...]
       ${0##*/} again JOB [--job-file FILE] [--keep]
       ${0##*/} judge JOB

Boot a kernel under QEMU and run the kselftests of this series inside it
(installed on the host, run by run_kselftest.sh in the guest). Exit 0
when all passed, 4 when all were skipped, 1 on any failure (a test, a
build, a series that does not apply, a kernel splat, a guest that does
not reach userspace, a timeout), 2 when the runner could not do its work (a bad option, a
package, a download), 130/143 when interrupted. Each run's files
(result, record, logs/, install/, console.log, ktap/*.tap, kmemleak) are
kept in CACHE/jobs/TARGET.*; CACHE/jobs/TARGET points to the newest run
that boots. 'again JOB' boots what JOB prepared (its options, kernel
and installed selftests; a --stop-after build job too) into a new job,
building nothing. 'judge JOB' judges a job's files again, with the same
exit code. vmtest/README.md says how each option works.

  -t, --target T      current, distro, arm64 (vmtest/targets/), or both
                      (current and distro) (default: both)
  -k, --ksrc DIR      kernel tree for current and arm64 (default: the
                      source vmtest/sources.lock pins), never modified:
                      the series' patches go to a hard-link copy
      --kdir DIR      current, arm64: boot the kernel built in DIR
  -c, --cpus N        vCPUs (default: 3, with -D 1)
  -m, --mem SIZE      guest memory, QEMU syntax (default: $VM_MEM)
  -D, --deterministic QEMU -icount shift=0 on a named server CPU: the
                      benchmarks' cycles and ns are instruction counts
                      that repeat from boot to boot (x86; the module
                      with guest/deterministic.patch, --how install)
      --attribute     with -D: instructions per test and function, and
                      the events they hide, in JOB/insn-profile.txt,
                      JOB/model.tap (model cycles) and JOB/profile.json
  -d, --debug         current as a debug kernel (KASAN, KMEMLEAK,
                      lockdep, ...); kmemleak is scanned after the tests
      --dma D         the *_dma tests' DMA layer: direct (default),
                      swiotlb (every map bounces) or iommu (x86: VT-d)
      --profile P     current built as tiny (default) or distro (with
                      Debian's options that change the timed paths)
  -p, --param K=V     benchmark module parameter (repeatable)
      --append ARGS   more kernel command line (skew_tick=1, say)
      --module-patch P  the module built with this runner-only patch too,
                      relative to net/bench (repeatable; a fault to
                      inject, say)
  -e, --env K=V       environment variable for the tests (repeatable)
      --how H         install (run_kselftest.sh) or tree (make run_tests
                      in the guest, as NIPA) (default: install)
      --accel A       kvm, tcg or auto (default: KVM when a probe guest
                      on it prints within ${KVM_PROBE_SECS} s, else TCG)
  -s, --shell         an interactive shell in the guest instead
  -T, --timeout SEC   kill a guest that runs longer (default: $VM_TIMEOUT)
  -K, --keep-going    run the next target after a failure or an error
      --stop-after P  fetch, tree or build: stop there and print each
                      target's record (src=, tree=, kdir=, kernel=, job=)
      --job-file FILE each target's job directory, a line each, added
                      to FILE as soon as it is made
      --keep          keep this run's jobs (every run deletes the jobs
                      not modified for a day, but kept ones)
  -v, --verbose       show build logs and the full kernel console
      --cache DIR     cache directory (default: $VMTEST_CACHE)
  -h, --help          this text
  -- command ...      run this command in the guest instead of the
                      selftests (in the prepared tree's directory)

The guest sees the host's files read-only, but for its own tmpfs on
/tmp, /var/tmp, /run and /dev/shm: the runner and its cache must live
elsewhere. Environment: VMTEST_CACHE, VMTEST_ACCEL (as --cache, --accel),
VMTEST_BOOT_TIMEOUT (seconds to reach userspace, default: $BOOT_TIMEOUT);
the others: vmtest/README.md, Environment.
EOF
}

VMTEST_CACHE=${VMTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pp-bench-vmtest}
VM_CPUS=
VM_MEM=2G
VM_TIMEOUT=1200
TARGETS=both
KSRC=
KDIR_GIVEN=
DEBUG=0
PROFILE=tiny
VM_DMA=direct
DETERMINISTIC=0
ATTRIBUTE=0
HOW=install
SHELL_MODE=0
KEEP_GOING=0
KEEP_JOB=0
STOP_AFTER=
JOB_FILE=
PARAMS=()
MODULE_PATCHES=()
VM_APPEND=
ENVS=()
COMMAND=()
# again: the job whose kernel and installed selftests this run boots
AGAIN_JOB=
MAIN_ARGS=()

positive_int()
{
	case $2 in
	'' | *[!0-9]* | 0*) die "$1 needs a positive integer, not '$2'" ;;
	esac
}

# one_of OPTION VALUE CHOICE...: dies unless VALUE is one of the CHOICEs.
one_of()
{
	local option=$1 value=$2 c

	shift 2
	for c in "$@"; do [ "$value" = "$c" ] && return; done
	die "$option must be $(printf '%s, ' "${@:1:$#-1}" | sed 's/, $//') or ${!#}, not '$value'"
}

# The options that take a value
VALUE_OPTS=' -t --target -k --ksrc --kdir -c --cpus -m --mem --profile --dma -p --param --module-patch --append -e --env --how -T --timeout --stop-after --job-file --accel --cache '

parse_args()
{
	while [ $# -gt 0 ]; do
		[[ $VALUE_OPTS != *" $1 "* ]] || [ $# -ge 2 ] ||
			die "$1 needs a value"
		case $1 in
		-t | --target) TARGETS=${2:-}; shift ;;
		-k | --ksrc) KSRC=${2:-}; shift ;;
		--kdir) KDIR_GIVEN=${2:-}; shift ;;
		-c | --cpus) VM_CPUS=${2:-}; shift ;;
		-m | --mem) VM_MEM=${2:-}; shift ;;
		-d | --debug) DEBUG=1 ;;
		--profile) PROFILE=${2:-}; shift ;;
		--dma) VM_DMA=${2:-}; shift ;;
		-D | --deterministic) DETERMINISTIC=1 ;;
		--attribute) ATTRIBUTE=1 ;;
		-p | --param) PARAMS+=("${2:-}"); shift ;;
		--module-patch) MODULE_PATCHES+=("${2:-}"); shift ;;
		--append) VM_APPEND=${2:-}; shift ;;
		-e | --env) ENVS+=("${2:-}"); shift ;;
		--how) HOW=${2:-}; shift ;;
		-s | --shell) SHELL_MODE=1 ;;
		-T | --timeout) VM_TIMEOUT=${2:-}; shift ;;
		-K | --keep-going) KEEP_GOING=1 ;;
		--keep) KEEP_JOB=1 ;;
		--stop-after) STOP_AFTER=${2:-}; shift ;;
		--job-file) JOB_FILE=${2:-}; shift ;;
		--accel) VMTEST_ACCEL=${2:-}; shift ;;
		-v | --verbose) VMTEST_VERBOSE=1 ;;
		--cache) VMTEST_CACHE=${2:-}; shift ;;
		-h | --help) usage; exit 0 ;;
		--) shift; COMMAND=("$@"); break ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
		shift
	done

	[ "$TARGETS" != both ] || TARGETS="current distro"
	one_of --how "$HOW" tree install
	[ -z "$STOP_AFTER" ] || one_of --stop-after "$STOP_AFTER" fetch tree build
	one_of --accel "$VMTEST_ACCEL" auto kvm tcg
	if [ -n "$JOB_FILE" ]; then
		touch -- "$JOB_FILE" 2>/dev/null ||
			die "--job-file: cannot write '$JOB_FILE'"
		JOB_FILE=$(realpath -- "$JOB_FILE")
	fi
	[ -n "$VM_CPUS" ] || VM_CPUS=$((DETERMINISTIC ? 1 : 3))
	positive_int --cpus "$VM_CPUS"
	positive_int --timeout "$VM_TIMEOUT"
	[[ $VM_MEM =~ ^[1-9][0-9]*[MG]?$ ]] ||
		die "--mem needs a size like 2G or 1536M, not '$VM_MEM'"
	one_of --dma "$VM_DMA" direct swiotlb iommu
	[ "$VM_DMA" != iommu ] || [ "$HOW" = install ] ||
		die "--dma iommu: --how install only"
	one_of --profile "$PROFILE" tiny distro
	[ "$ATTRIBUTE" -eq 0 ] || [ "$DETERMINISTIC" -eq 1 ] ||
		die "--attribute needs -D"
	# Their module is built apart, with the runner's patches
	[ "$DETERMINISTIC" -eq 0 ] && [ ${#MODULE_PATCHES[@]} -eq 0 ] ||
		[ "$HOW" = install ] || die "-D, --module-patch: --how install only"
	local p
	for p in "${!MODULE_PATCHES[@]}"; do
		[ -f "${MODULE_PATCHES[p]}" ] ||
			die "--module-patch: no such file: '${MODULE_PATCHES[p]}'"
		MODULE_PATCHES[p]=$(realpath -- "${MODULE_PATCHES[p]}")
	done
	[ "$PROFILE" = tiny ] || [ "$DEBUG" -eq 0 ] ||
		die "--profile $PROFILE and --debug exclude each other"
	if [ -n "$KSRC" ]; then
		[ -d "$KSRC" ] || die "--ksrc: no such directory: $KSRC"
		KSRC=$(realpath "$KSRC")
	fi
	local t kv

	ARCHES=
	for t in $TARGETS; do
		load_target "$t"
		ARCHES+=" $KARCH"
		check_target "$t"
	done
	[ -z "$KDIR_GIVEN" ] || KDIR_GIVEN=$(realpath "$KDIR_GIVEN")
	for kv in "${PARAMS[@]}" "${ENVS[@]}"; do
		[[ $kv =~ ^[A-Za-z_][A-Za-z0-9_]*=.*$ ]] ||
			die "expected NAME=VALUE, not '$kv'"
	done
	[ "$SHELL_MODE" -eq 0 ] || [ "${#COMMAND[@]}" -eq 0 ] ||
		die "--shell and a command exclude each other"
	[ "$SHELL_MODE" -eq 0 ] || [ -t 0 ] ||
		die "--shell needs a terminal on standard input"
	[ -n "$VMTEST_CACHE" ] || die "the cache directory cannot be empty"
	VMTEST_CACHE=$(realpath -m -- "$VMTEST_CACHE")
	[ -n "$STOP_AFTER" ] || check_guest_paths
}

# check_target TARGET: the options TARGET (loaded) cannot take.
check_target()
{
	if [ -n "$KDIR_GIVEN" ] && [ "$TARGET_KERNEL" = debian ]; then
		warn "--kdir: not for the $1 target, which boots Debian's kernel"
	elif [ -n "$KDIR_GIVEN" ] && { [ ! -f "$KDIR_GIVEN/$KIMAGE_PATH" ] ||
	     [ ! -f "$KDIR_GIVEN/Module.symvers" ]; }; then
		die "--kdir: no built kernel ($KIMAGE_PATH, Module.symvers) in $KDIR_GIVEN"
	fi
	[ "$KARCH" != x86_64 ] || return 0
	[ "$VM_DMA" != iommu ] || die "--dma iommu: x86 targets only"
	[ "$ATTRIBUTE" -eq 0 ] || die "--attribute: x86 targets only"
	[ "$VMTEST_ACCEL" != kvm ] || [ "$ACCEL_NATIVE" -eq 1 ] ||
		die "--accel kvm: an $KARCH guest cannot run under KVM on this $(uname -m) machine; it runs under TCG emulation"
	# NIPA's way compiles in the guest: the arm64 root has no compiler,
	# its selftests are cross-built on the host.
	[ "$GUEST_ROOT" = / ] || [ "$HOW" = install ] ||
		die "--how $HOW: the $KARCH guest has no make or compiler; its selftests are cross-built on the host (--how install)"
	# -icount makes x86's TSC count instructions, which the driver then
	# labels so; arm64's generic timer would tick at 1/16 of that.
	[ "$DETERMINISTIC" -eq 0 ] ||
		die "--deterministic: on $KARCH the benchmarks' counter is the generic timer, not an instruction count; not supported for -t $1"
}

# The guest sees the host's files at their paths, except below the
# directories it mounts its own tmpfs on: the runner's scripts and its
# cache must not live there.
check_guest_paths()
{
	local p

	for p in "$VMTEST_DIR" "$VMTEST_CACHE"; do
		case $(realpath -m "$p")/ in
		/tmp/* | /var/tmp/* | /run/* | /dev/shm/*)
			die "$p is below /tmp, /var/tmp, /run or /dev/shm, which the guest replaces with its own tmpfs: use a checkout and a cache (--cache) elsewhere"
			;;
		esac
	done
}

# write_job JOB KDIR FLAVOR INSTALL_DIR: the script the guest runs.
write_job()
{
	local job=$1 kdir=$2 flavor=$3 install=$4 kv

	{
		echo "# Written by vmtest.sh; run by vmtest/guest/init."
		echo "cd $(printf '%q' "$KTREE") || exit 1"
		[ "$ATTRIBUTE" -eq 0 ] || attribute_guest "$job"
		# Emulation is slow: kselftest's knob for that (the benchmark
		# runs 100000 loops), unless the test environment says otherwise
		[ "$VMTEST_ACCEL" = kvm ] && [ "$DETERMINISTIC" -eq 0 ] ||
			echo "export KSFT_MACHINE_SLOW=yes"
		if [ "${#PARAMS[@]}" -gt 0 ]; then
			printf 'export BENCH_PAGE_POOL_PARAMS=%q\n' "${PARAMS[*]}"
		fi
		for kv in "${ENVS[@]}"; do
			printf 'export %s=%q\n' "${kv%%=*}" "${kv#*=}"
		done
		if [ "$SHELL_MODE" -eq 1 ]; then
			echo "echo 'vmtest: shell in the guest; exit to power off'"
			echo "setsid -c bash -i </dev/$VM_CONSOLE >/dev/$VM_CONSOLE 2>&1"
		elif [ "${#COMMAND[@]}" -gt 0 ]; then
			printf '%q ' "${COMMAND[@]}"
			echo
		else
			printf '%q ' "$VMTEST_DIR/guest/selftests.sh" "$HOW" \
				"$KTREE" "$SERIES_TARGETS" "$job" "$install" \
				"KDIR=$kdir" "O=$KTREE.build"
			echo
		fi
		echo 'rc=$?'
		# Two scans: kmemleak reports objects that stay unreferenced
		# over consecutive scans. The report is a file of the job,
		# which the host judges (its lines carry no printk time).
		[ "$flavor" = debug ] && cat <<-EOF
		echo scan >/sys/kernel/debug/kmemleak; sleep 5
		echo scan >/sys/kernel/debug/kmemleak
		cat /sys/kernel/debug/kmemleak >$(printf '%q' "$job/kmemleak")
		EOF
		echo "exit \"\$rc\""
	} >"$job/job.sh"
}

# The target's record: what its phases found (src=, tree=, kdir=,
# kernel=, root=), kept by the job as JSON (JOB/record.json, read by
# lib/record.sh's vmtest_record).
RECORD=()

# record KEY=VALUE...: add to the record.
record()
{
	RECORD+=("$@")
	python3 "$VMTEST_DIR/lib/record.py" write "target=$JOB_TARGET" \
		"${RECORD[@]}" "job=$JOB" >"$JOB/record.json"
}

# stop_here PHASE: at the phase --stop-after names, print the target's
# record on one line for people, the job last (scripts read
# JOB/record.json).
stop_here()
{
	[ "$STOP_AFTER" = "$1" ] || return 1
	echo "$JOB_TARGET ${RECORD[*]} job=$JOB"
}

# run_target TARGET: its phases; returns its code.
run_target()
{
	local target=$1 flavor=normal kernel initrd job kdir install
	local -a patches

	set_phase tools
	ensure_host_tools "$ARCHES"
	load_target "$target"
	set_phase fetch
	case $TARGET_KERNEL in
	build)
		[ "$DEBUG" -eq 1 ] && flavor=debug
		[ "$PROFILE" = tiny ] || flavor=$PROFILE
		[ "$VM_DMA" != iommu ] || flavor+=-iommu
		;;
	debian)
		[ "$DEBUG" -eq 1 ] &&
			msg "$target: Debian ships no debug variant, booting its kernel"
		ensure_distro_kernel
		;;
	esac
	# Every target's selftests come from the tree the series' patches
	# apply to: --ksrc's, else the source the lock pins (distro: built
	# against Debian's headers, as a user of that kernel builds them).
	if [ -n "$KSRC" ]; then
		KSRC_PRISTINE=$KSRC
		KSRC_ID=$(tree_identity "$KSRC")
	else
		fetch_current_source
	fi
	record "src=$KSRC_PRISTINE"
	stop_here fetch && return 0
	set_phase tree
	prepare_tree "$KSRC_PRISTINE" "$KSRC_ID" "$target"
	record "tree=$KTREE" "series=$(cat "$KTREE.series")"
	stop_here tree && return 0

	set_phase build
	if [ -n "$AGAIN_JOB" ]; then
		kdir=$(record_get kdir <"$AGAIN_JOB/record.json")
		kernel=$(record_get kernel <"$AGAIN_JOB/record.json")
	elif [ "$TARGET_KERNEL" = build ] && [ -n "$KDIR_GIVEN" ]; then
		kernel=$KDIR_GIVEN/$KIMAGE_PATH
		kdir=$KDIR_GIVEN
	elif [ "$TARGET_KERNEL" = build ]; then
		build_kernel "$flavor"
		kernel=$KIMAGE
		kdir=$KBUILD_OUT
	else
		kernel=$DISTRO_KERNEL
		kdir=$DISTRO_KDIR
	fi

	# Built on the host (cross-compiled) beside the tree, installed in the
	# job: nothing compiles under emulation, and --how tree's 'make
	# run_tests' (same O=) finds the targets up to date.
	install=$JOB/install
	if [ -n "$AGAIN_JOB" ]; then
		same_build "$kdir" "$kernel"
		cp -al "$AGAIN_JOB/install" "$install" ||
			fail "cannot link $AGAIN_JOB/install"
	else
		# A kernel before 6.15 (Debian's 6.12) has no faux device: the module
		# is built apart, with a runner-only patch's platform device.
		mapfile -t modpatches < <(module_patches "$kdir")
		mods=()
		[ ${#modpatches[@]} -eq 0 ] || mods=(TEST_GEN_MODS_DIR=)
		[ ${#mods[@]} -eq 0 ] || [ "$HOW" = install ] ||
			die "--how $HOW: $kdir has no faux device (a kernel before 6.15), and its module is built apart: --how install only"
		step "building and installing the selftests on the host" \
			"$VMTEST_LOGS/selftests.log" \
			build_selftests "$install" "$KTREE.build" "$kdir" "${mods[@]}" ||
			fail "the selftests do not build"
		# -D counts every instruction of the one vCPU as the tests' time, and
		# kselftest's prefix.pl copies output a byte at a time (some 160000
		# instructions a character) while the test runs on: a line at a time
		# (vmtest/README.md has the figures).
		[ "$DETERMINISTIC" -eq 0 ] ||
			printf '#!/bin/sh\nexec sed -u "s/^/# /"\n' \
				>"$install/kselftest/prefix.pl" ||
			fail "cannot replace $install/kselftest/prefix.pl"
		patches=("${modpatches[@]}")
		[ "$VM_DMA" != iommu ] || patches=("$VMTEST_DIR/guest/dma-iommu.patch")
		[ "$DETERMINISTIC" -eq 0 ] || patches+=("$VMTEST_DIR/guest/deterministic.patch")
		[ "$ATTRIBUTE" -eq 0 ] || patches+=("$VMTEST_DIR/guest/insn-markers.patch")
		patches+=("${MODULE_PATCHES[@]}")
		[ ${#patches[@]} -eq 0 ] ||
			step "building the module with the runner's patches (${patches[*]##*/})" \
				"$VMTEST_LOGS/module-copy.log" \
				build_module_copy "$install" "$kdir" "${patches[@]}" ||
			fail "the module with the runner's patches does not build"
	fi
	[ "$ATTRIBUTE" -eq 0 ] || ensure_insn_plugin
	[ "$GUEST_ROOT" = / ] || ensure_guest_root
	record "kdir=$kdir" "kernel=$kernel" ${GUEST_ROOT:+"root=$GUEST_ROOT"}
	stop_here build && return 0

	# The guest builds in the tree with --how tree.
	[ "$HOW" != install ] || release_tree
	set_phase boot
	job=$JOB
	initrd=$job/initramfs.cpio.gz
	make_initramfs "$initrd" "${DISTRO_RELEASE:-}" "${DISTRO_ROOT:-}"
	choose_accel "$kernel"
	write_job "$job" "$kdir" "$flavor" "$install"
	msg "$target: booting $(basename "$kernel") ($KTREE_VERSION tree, $KARCH, $VM_CPUS vCPUs, $VM_MEM)"
	run_vm "$kernel" "$initrd" "$job" || return
	[ "$ATTRIBUTE" -eq 0 ] && return
	python3 "$VMTEST_DIR/lib/insn_profile.py" "$job" --ktap "$job/model.tap" \
		--json "$job/profile.json" >"$job/insn-profile.txt"
	[ $? -lt 2 ] || die "--attribute: $job's instructions cannot be counted"
	msg "$target: instructions per test and function in $job/insn-profile.txt, model cycles (an estimate) in $job/model.tap"
	# the job judged again, its profile now in it
	python3 "$VMTEST_DIR/lib/judge.py" "$job"
}

# The run of one target owns a job directory, made before anything else:
# its logs, its installed selftests, its guest's files and its result.
JOB='' JOB_TARGET='' JOB_START='' PHASE=''

# start_job TARGET: make the target's job directory (JOB), its result
# saying the run is under way; a run that boots points jobs/TARGET to
# it at once, so that the link never names an older run's verdict.
start_job()
{
	local target=$1 link=$VMTEST_CACHE/jobs/$1

	JOB=$(mktemp -d "$VMTEST_CACHE/jobs/$target.XXXXXX") ||
		die "cannot create a job directory in $VMTEST_CACHE/jobs"
	[ -z "$JOB_FILE" ] || echo "$JOB" >>"$JOB_FILE" ||
		die "--job-file: cannot write '$JOB_FILE'"
	JOB_TARGET=$target
	JOB_START=$(date +%s)
	RECORD=()
	PHASE=start
	VMTEST_LOGS=$JOB/logs
	mkdir -p "$VMTEST_LOGS" || die "cannot create $VMTEST_LOGS"
	[ "$KEEP_JOB" -eq 0 ] || : >"$JOB/keep" || die "cannot write $JOB/keep"
	{ save_args "$JOB" "${MAIN_ARGS[@]}" && pwd >"$JOB/cwd"; } ||
		die "cannot write $JOB/args"
	record_result running
	if [ -z "$STOP_AFTER" ]; then
		ln -sfnT "$(basename "$JOB")" "$link" || die "cannot link $link"
	fi
	# Runs may overlap: scripts take their job from this line, not from
	# the link, which the newest run moves.
	msg "$target: results in $JOB"
}

# set_phase NAME: the run is now in phase NAME, and its result says so.
set_phase()
{
	PHASE=$1
	record_result running
}

# result_word RC: the result a run's exit code gives.
result_word()
{
	case $1 in
	running) echo running ;;
	0) [ -n "$STOP_AFTER" ] && echo prepared || echo pass ;;
	4) echo skip ;;
	1) echo fail ;;
	130 | 143) echo interrupted ;;
	*) echo error ;;
	esac
}

# record_result RC: the job's one-line verdict, for scripts: JOB/result.
# RC is the run's exit code, or 'running' while it runs.
record_result()
{
	[ -n "$JOB" ] || return 0
	printf 'target=%s result=%s rc=%s seconds=%s accel=%s phase=%s job=%s\n' \
		"$JOB_TARGET" "$(result_word "$1")" "${1/running/-}" \
		$(($(date +%s) - JOB_START)) \
		"$(accel_name)" \
		"$PHASE" "$JOB" >"$JOB/result.tmp" && mv "$JOB/result.tmp" "$JOB/result"
}

# finish: a target's EXIT trap. However its run ends, the running step or
# guest stops, the job's result says why, the summary gets its row.
# shellcheck disable=SC2317 # run by the trap
finish()
{
	local rc=$?

	cleanup
	[ -n "$JOB" ] || return 0
	record_result "$rc"
	printf '%-8s %-11s %4d s%s%s\n' "$JOB_TARGET" "$(result_word "$rc")" \
		$(($(date +%s) - JOB_START)) "$(counter_note)" \
		"$(python3 "$VMTEST_DIR/lib/judge.py" --skipped "$JOB")" \
		>>"$ROWS"
}

# run_one TARGET: one target's run, in a subshell of its own, so that a
# runner error or a failed build (die, fail) ends this target only.
# Signals end it once (its cleanup is not cut short by a second one).
run_one()
{
	CLEANUP_DIRS=()
	trap finish EXIT
	trap 'trap "" INT TERM; msg "interrupted"; exit 130' INT
	trap 'trap "" INT TERM; msg "terminated"; exit 143' TERM
	start_job "$1"
	run_target "$1"
}

# What the benchmarks' "cycles" count when not a TSC's (arm64: the generic
# timer, at its reported rate), and whether the figures are emulated.
# shellcheck disable=SC2317 # run by finish, the trap
counter_note()
{
	local hz

	[ -n "$JOB" ] && [ "$KARCH" != x86_64 ] || return 0
	# Printed by vmtest/guest/init.
	hz=$(grep -m 1 -oE \
		'vmtest-guest: counter: arch_timer: .* running at [0-9.]+MHz' \
		"$JOB/console.log" 2>/dev/null | sed 's/.* running at //')
	printf ' (cycles: generic timer ticks at %s%s)' "${hz:-an unknown rate}" \
		"$([ "$VMTEST_ACCEL" = kvm ] || echo ', emulated: read ns')"
}

# stop_run SIGNAL RC: the runner's own trap: the target's subshell stops
# (a terminal's Ctrl-C reaches it too, a kill of the runner only this).
# shellcheck disable=SC2317 # run by the traps
stop_run()
{
	[ -z "$RUN_PID" ] || { kill -"$1" "$RUN_PID" 2>/dev/null; wait "$RUN_PID"; }
	exit "$2"
}

# same_build KDIR KERNEL: AGAIN_JOB's selftests are for this tree and
# kernel: the series and the kernel have not changed since it built them.
same_build()
{
	local rec=$AGAIN_JOB/record.json f

	[ "$(record_get series <"$rec")" = "$(cat "$KTREE.series")" ] ||
		die "again: the series changed since $AGAIN_JOB built its selftests"
	for f in "$2" "$1/Module.symvers"; do
		[ ! "$f" -nt "$AGAIN_JOB/install" ] ||
			die "again: $f changed since $AGAIN_JOB built its selftests"
	done
}

# again JOB [--job-file FILE] [--keep]: JOB's run (its options, JOB/args,
# from its directory, JOB/cwd) booted anew from what JOB built
again()
{
	local job=${1:-} target i
	local -a args more=()

	{ [ -f "$job/args" ] && [ -f "$job/cwd" ] && [ -d "$job/install" ] &&
	  [ -f "$job/record.json" ]; } ||
		die "again: '$job' is not a job that built its selftests (JOB/args, JOB/install)"
	AGAIN_JOB=$(realpath "$job")
	shift
	for ((i = 1; i <= $#; i++)); do
		case ${!i} in
		--keep) more+=(--keep) ;;
		--job-file)
			i=$((i + 1))
			[ -n "${!i-}" ] || die "--job-file needs a value"
			more+=(--job-file "$(realpath -m -- "${!i}")") ;;
		*) die "again: only --job-file FILE and --keep go with a job, not '${!i}'" ;;
		esac
	done
	target=$(record_get target <"$AGAIN_JOB/record.json")
	mapfile -d '' args <"$AGAIN_JOB/args"
	# where the job's run started: its relative paths are from there
	cd -- "$(cat "$AGAIN_JOB/cwd")" || die "again: cannot go to $AGAIN_JOB's directory"
	main "${args[@]}" -t "$target" "${more[@]}"
}

# save_args JOB ARG...: the run's options in JOB/args (NUL-separated, any
# string round-trips) but for those of one run: --job-file, --keep,
# --stop-after
save_args()
{
	local job=$1

	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--job-file | --stop-after) shift ;;
		--keep) ;;
		--) printf '%s\0' "$@"; break ;;
		*)
			printf '%s\0' "$1"
			[[ $VALUE_OPTS != *" $1 "* ]] || { printf '%s\0' "${2-}"; shift; }
			;;
		esac
		shift
	done >"$job/args"
}

ROWS='' RUN_PID=''

main()
{
	local target rc worst='' error=''

	MAIN_ARGS=("$@")
	parse_args "$@"
	ROWS=$(mktemp) || die "cannot create a temporary file"
	CLEANUP_DIRS+=("$ROWS")
	trap cleanup EXIT
	trap 'stop_run INT 130' INT
	trap 'stop_run TERM 143' TERM
	sweep_jobs "$VMTEST_CACHE/jobs"

	for target in $TARGETS; do
		# stdin kept: a background job's would be /dev/null (--shell)
		run_one "$target" <&0 &
		RUN_PID=$!
		wait "$RUN_PID"
		rc=$?
		RUN_PID=
		case $rc in
		# kselftest's rule: skips alone give 4, a skip next to a
		# pass is a pass
		0) [ "$worst" = 1 ] || worst=0 ;;
		4) worst=${worst:-4} ;;
		2) error=2 ;;
		130 | 143) exit "$rc" ;;
		*) worst=1 ;;
		esac
		[ "$rc" -eq 0 ] || [ "$rc" -eq 4 ] || [ "$KEEP_GOING" -eq 1 ] ||
			break
	done
	# A failed test wins over a runner error: it is a finding.
	[ "$worst" = 1 ] || worst=${error:-$worst}
	[ -z "$STOP_AFTER" ] || exit "$worst"

	msg "summary:"
	sed 's/^/vmtest:   /' "$ROWS" >&2
	exit "${worst:-1}"
}

case ${1:-} in
judge) exec python3 "$VMTEST_DIR/lib/judge.py" "${@:2}" ;;
again) again "${@:2}" ;;
*) main "$@" ;;
esac
