#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot kernels under QEMU and run the series' kselftests inside them.
#
# Two targets: 'current' builds a minimal kernel from the newest Debian
# kernel source (or a tree given with --ksrc) with the series laid over it;
# 'distro' boots Debian's prebuilt 6.12 kernel, whose headers are installed
# on the host; its module builds with KDIR=/lib/modules/RELEASE/build. The
# guest sees the host's filesystem read-only over 9p and runs the selftests
# the way users do. See --help.

# shellcheck source-path=SCRIPTDIR
set -u
set -o pipefail

VMTEST_DIR=$(dirname "$(realpath "$0")")
VMTEST_SERIES=$(dirname "$VMTEST_DIR")
# shellcheck source=lib/common.sh
. "$VMTEST_DIR/lib/common.sh"
# shellcheck source=lib/packages.sh
. "$VMTEST_DIR/lib/packages.sh"
# shellcheck source=lib/tree.sh
. "$VMTEST_DIR/lib/tree.sh"
# shellcheck source=lib/kbuild.sh
. "$VMTEST_DIR/lib/kbuild.sh"
# shellcheck source=lib/initramfs.sh
. "$VMTEST_DIR/lib/initramfs.sh"
# shellcheck source=lib/vm.sh
. "$VMTEST_DIR/lib/vm.sh"

usage()
{
	cat <<EOF
usage: ${0##*/} [options] [-- command ...]

Boot a kernel under QEMU and run the kselftests of this series inside it
(make run_tests in the tree, then make install + run_kselftest.sh).
Exit 0 when all passed, 4 when all were skipped, 1 on any failure or on a
kernel splat (oops, BUG, WARNING, KASAN, kmemleak, lockdep, soft lockup,
RCU stall, panic) or a timeout.

  -t, --target T      current, distro or both (default: both)
  -k, --ksrc DIR      kernel tree for 'current' (default: the newest
                      linux-source-X.Y in Debian's newer suites); never
                      modified, the runner works on a hard-link copy
  -c, --cpus N        vCPUs (default: $VM_CPUS)
  -m, --mem SIZE      guest memory, QEMU syntax (default: $VM_MEM)
  -D, --deterministic QEMU -icount shift=0: the guest's TSC advances one
                      tick per executed instruction, so the benchmarks'
                      cycles become instruction counts that repeat from
                      boot to boot (single-threaded, slower; the tests
                      see BENCH_DETERMINISTIC=1)
  -d, --debug         'current' as a debug kernel (KASAN, KMEMLEAK,
                      PROVE_LOCKING, DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS);
                      kmemleak is scanned after the tests
  -p, --param K=V     benchmark module parameter (repeatable), passed as
                      BENCH_PAGE_POOL_PARAMS to test_bench_page_pool.sh
  -e, --env K=V       environment variable for the tests (repeatable)
      --how H         tree, install or both (default: both)
  -s, --shell         an interactive shell in the guest instead
  -T, --timeout SEC   kill a guest that runs longer (default: $VM_TIMEOUT)
  -K, --keep-going    run the next target after a failure
  -P, --prepare       fetch, lay the series over and build, but boot
                      nothing; print each target's tree and KDIR
  -v, --verbose       show build logs and the full kernel console
      --cache DIR     cache directory (default: $VMTEST_CACHE)
  -h, --help          this text
  -- command ...      run this command in the guest instead of the
                      selftests (in the prepared tree's directory)

The guest sees the host's files read-only at their paths, except below
/tmp, /var/tmp, /run and /dev/shm, where it has its own tmpfs: the
runner, its cache and the files a command uses must live elsewhere.

Environment: VMTEST_CACHE (cache directory), as --cache.
EOF
}

VMTEST_CACHE=${VMTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pp-bench-vmtest}
VM_CPUS=3
VM_MEM=2G
VM_TIMEOUT=1200
TARGETS=both
KSRC=
DEBUG=0
DETERMINISTIC=0
HOW=both
SHELL_MODE=0
KEEP_GOING=0
PREPARE=0
PARAMS=()
ENVS=()
COMMAND=()

positive_int()
{
	case $2 in
	'' | *[!0-9]* | 0*) die "$1 needs a positive integer, not '$2'" ;;
	esac
}

parse_args()
{
	while [ $# -gt 0 ]; do
		case $1 in
		-t | --target) TARGETS=${2:-}; shift ;;
		-k | --ksrc) KSRC=${2:-}; shift ;;
		-c | --cpus) VM_CPUS=${2:-}; shift ;;
		-m | --mem) VM_MEM=${2:-}; shift ;;
		-d | --debug) DEBUG=1 ;;
		-D | --deterministic) DETERMINISTIC=1 ;;
		-p | --param) PARAMS+=("${2:-}"); shift ;;
		-e | --env) ENVS+=("${2:-}"); shift ;;
		--how) HOW=${2:-}; shift ;;
		-s | --shell) SHELL_MODE=1 ;;
		-T | --timeout) VM_TIMEOUT=${2:-}; shift ;;
		-K | --keep-going) KEEP_GOING=1 ;;
		-P | --prepare) PREPARE=1 ;;
		-v | --verbose) VMTEST_VERBOSE=1 ;;
		--cache) VMTEST_CACHE=${2:-}; shift ;;
		-h | --help) usage; exit 0 ;;
		--) shift; COMMAND=("$@"); break ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
		shift
	done

	case $TARGETS in
	both) TARGETS="current distro" ;;
	current | distro) ;;
	*) die "--target must be current, distro or both, not '$TARGETS'" ;;
	esac
	case $HOW in
	tree | install | both) ;;
	*) die "--how must be tree, install or both, not '$HOW'" ;;
	esac
	positive_int --cpus "$VM_CPUS"
	positive_int --timeout "$VM_TIMEOUT"
	[[ $VM_MEM =~ ^[1-9][0-9]*[MG]?$ ]] ||
		die "--mem needs a size like 2G or 1536M, not '$VM_MEM'"
	if [ -n "$KSRC" ]; then
		[ -d "$KSRC" ] || die "--ksrc: no such directory: $KSRC"
		KSRC=$(realpath "$KSRC")
	fi
	local kv
	for kv in "${PARAMS[@]}" "${ENVS[@]}"; do
		[[ $kv =~ ^[A-Za-z_][A-Za-z0-9_]*=.*$ ]] ||
			die "expected NAME=VALUE, not '$kv'"
	done
	[ "$SHELL_MODE" -eq 0 ] || [ "${#COMMAND[@]}" -eq 0 ] ||
		die "--shell and a command exclude each other"
	[ "$SHELL_MODE" -eq 0 ] || [ -t 0 ] ||
		die "--shell needs a terminal on standard input"
	[ "$PREPARE" -eq 1 ] || check_guest_paths
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

# Write the job the guest runs for the prepared tree, kernel build dir
# (empty for the distro kernel) and flavor.
write_job()
{
	local job=$1 kdir=$2 flavor=$3 kv

	{
		echo "# Written by vmtest.sh; run by vmtest/guest/init."
		echo "cd $(printf '%q' "$KTREE") || exit 1"
		[ "$DETERMINISTIC" -eq 1 ] && echo "export BENCH_DETERMINISTIC=1"
		if [ "${#PARAMS[@]}" -gt 0 ]; then
			printf 'export BENCH_PAGE_POOL_PARAMS=%q\n' "${PARAMS[*]}"
		fi
		for kv in "${ENVS[@]}"; do
			printf 'export %s=%q\n' "${kv%%=*}" "${kv#*=}"
		done
		if [ "$SHELL_MODE" -eq 1 ]; then
			echo "echo 'vmtest: shell in the guest; exit to power off'"
			echo "setsid -c bash -i </dev/ttyS0 >/dev/ttyS0 2>&1"
		elif [ "${#COMMAND[@]}" -gt 0 ]; then
			printf '%q ' "${COMMAND[@]}"
			echo
		else
			printf '%q ' "$VMTEST_DIR/guest/selftests.sh" "$KTREE" \
				"$HOW" "$SERIES_TARGETS"
			printf 'KDIR=%q' "$kdir"
			echo
		fi
		echo 'rc=$?'
		# Two scans: kmemleak reports objects that stay unreferenced
		# over consecutive scans.
		[ "$flavor" = debug ] && cat <<-'EOF'
		echo scan >/sys/kernel/debug/kmemleak; sleep 5
		echo scan >/sys/kernel/debug/kmemleak
		cat /sys/kernel/debug/kmemleak
		EOF
		echo "exit \"\$rc\""
	} >"$job/job.sh"
}

# Run one target; prints its summary row into RESULTS, returns its code.
run_target()
{
	local target=$1 flavor=normal kernel initrd job link kdir='' kdir_arg

	# A job directory per run, so runs may overlap; jobs/TARGET points
	# to the newest, and jobs older than a day go.
	mkdir -p "$VMTEST_CACHE/jobs"
	find "$VMTEST_CACHE/jobs" -mindepth 1 -maxdepth 1 -type d -mtime +0 \
		-exec rm -rf {} +
	job=$(mktemp -d "$VMTEST_CACHE/jobs/$target.XXXXXX") ||
		die "cannot create a job directory"
	link=$VMTEST_CACHE/jobs/$target
	if [ -d "$link" ] && [ ! -L "$link" ]; then
		mv "$link" "$(mktemp -u "$link.old.XXXXXX")"	# older layout
	fi
	ln -sfnT "$(basename "$job")" "$link"
	initrd=$job/initramfs.cpio.gz

	case $target in
	current)
		[ "$DEBUG" -eq 1 ] && flavor=debug
		if [ -n "$KSRC" ]; then
			prepare_tree "$KSRC" "$(tree_identity "$KSRC")"
		else
			fetch_newest_source
			prepare_tree "$KSRC_PRISTINE" "$KSRC_ID"
		fi
		build_kernel "$flavor"
		kernel=$KIMAGE
		kdir=$KBUILD_OUT
		make_initramfs "$initrd"
		;;
	distro)
		[ "$DEBUG" -eq 1 ] &&
			msg "distro: Debian ships no debug variant, booting its kernel"
		ensure_distro_kernel
		fetch_distro_source
		prepare_tree "$KSRC_PRISTINE" "$KSRC_ID"
		kernel=/boot/vmlinuz-$DISTRO_RELEASE
		kdir=/lib/modules/$DISTRO_RELEASE/build
		make_initramfs "$initrd" "$DISTRO_RELEASE"
		;;
	esac

	# Build the selftests natively first: the guest's 'make run_tests'
	# then finds them up to date instead of compiling under emulation.
	kdir_arg=KDIR=$kdir
	step "building the selftests on the host" "$VMTEST_LOGS/selftests-$target.log" \
		make -C "$KTREE/tools/testing/selftests" TARGETS="$SERIES_TARGETS" \
		"$kdir_arg" all || die "the selftests do not build"

	if [ "$PREPARE" -eq 1 ]; then
		printf '%s tree=%s kdir=%s kernel=%s\n' "$target" "$KTREE" \
			"$kdir" "$kernel"
		return 0
	fi
	write_job "$job" "$kdir" "$flavor"
	msg "$target: booting $(basename "$kernel") ($KTREE_VERSION tree, $VM_CPUS vCPUs, $VM_MEM)"
	run_vm "$kernel" "$initrd" "$job"
}

main()
{
	local target rc worst='' start
	local -a rows=()

	parse_args "$@"
	VMTEST_LOGS=$VMTEST_CACHE/logs
	mkdir -p "$VMTEST_LOGS" || die "cannot create $VMTEST_LOGS"
	ensure_host_tools

	for target in $TARGETS; do
		start=$(date +%s)
		run_target "$target"
		rc=$?
		rows+=("$(printf '%-8s %-5s %4d s' "$target" \
			"$(rc_word "$rc")" $(($(date +%s) - start)))")
		worst=$(fold_status "$worst" "$rc")
		[ "$rc" -eq 1 ] && [ "$KEEP_GOING" -eq 0 ] && break
	done

	msg "summary:"
	printf 'vmtest:   %s\n' "${rows[@]}" >&2
	exit "${worst:-1}"
}

main "$@"
