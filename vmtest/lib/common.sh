# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the VM runner: messages, errors, timing, root checks.
# shellcheck shell=bash

VMTEST_VERBOSE=${VMTEST_VERBOSE:-0}

msg()
{
	printf 'vmtest: %s\n' "$*" >&2
}

warn()
{
	printf 'vmtest: warning: %s\n' "$*" >&2
}

# die: the runner cannot do its work (a package, a download, a bad
# option): exit 2, which a failed test never gives.
die()
{
	printf 'vmtest: error: %s\n' "$*" >&2
	exit 2
}

# fail: what is under test does not build: exit 1, as a failed test.
fail()
{
	printf 'vmtest: error: %s\n' "$*" >&2
	exit 1
}

# The step or guest running now: a process group of its own, so that
# Ctrl-C on the terminal reaches only the runner, which stops the whole
# group (make's compilers, QEMU) however it was interrupted.
CHILD=

# spawn CMD...: start CMD (a program or a shell function) in the
# background as a process group of its own (job control on for the fork).
spawn()
{
	set -m
	"$@" &
	CHILD=$!
	set +m
}

stop_child()
{
	[ -n "$CHILD" ] || return 0
	kill -TERM -- "-$CHILD" 2>/dev/null
	wait_timeout "$CHILD" 5 || kill -KILL -- "-$CHILD" 2>/dev/null
	wait "$CHILD" 2>/dev/null
	CHILD=
}

# reap_child: CHILD's exit code, once it has ended.
reap_child()
{
	local rc

	wait "$CHILD"
	rc=$?
	CHILD=
	return "$rc"
}

# Directories removed when the runner exits, however it exits.
CLEANUP_DIRS=()

cleanup()
{
	stop_child
	[ "${#CLEANUP_DIRS[@]}" -eq 0 ] || rm -rf "${CLEANUP_DIRS[@]}"
	# An interrupted interactive guest leaves the terminal raw.
	[ -t 0 ] && stty sane 2>/dev/null
	return 0
}

# tee_to LOG CMD...: CMD (a program or a shell function) with its output
# shown and kept in LOG; CMD's exit code.
tee_to()
{
	local log=$1

	shift
	set -o pipefail
	"$@" 2>&1 | tee "$log"
}

# Run a step: quiet unless verbose, its output kept in a log that is
# shown (tail) when it fails, its wall time reported, and a progress line
# printed every 30 s while it lasts (downloads, extraction, builds).
step()
{
	local what=$1 log=$2
	local rc start

	shift 2
	start=$(date +%s)
	msg "$what ..."
	if [ "$VMTEST_VERBOSE" -gt 0 ]; then
		spawn tee_to "$log" "$@" </dev/null
	else
		spawn "$@" >"$log" 2>&1 </dev/null
	fi
	while ! wait_timeout "$CHILD" 30; do
		msg "  ... $what: $(($(date +%s) - start)) s, $(wc -l <"$log") log lines"
	done
	reap_child
	rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$log" >&2
		msg "$what failed (exit $rc), full log: $log"
		return "$rc"
	fi
	msg "$what done in $(($(date +%s) - start)) s"
}

# Return 0 once $1 has exited, 1 if it still runs after $2 seconds.
wait_timeout()
{
	local pid=$1 left=$2

	while [ "$left" -gt 0 ]; do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 1
		left=$((left - 1))
	done
	! kill -0 "$pid" 2>/dev/null
}

is_root()
{
	[ "$(id -u)" -eq 0 ]
}

hash_of()
{
	sha256sum | cut -c1-16
}

# sweep_jobs DIR: the job directories in DIR not modified for a day go,
# but those a run was told to keep (--keep: JOB/keep)
sweep_jobs()
{
	mkdir -p "$1" || die "cannot create $1"
	find "$1" -mindepth 1 -maxdepth 1 -type d -mtime +0 \
		! -exec test -e '{}/keep' ';' -exec rm -rf {} +
}

# link_tree SRC DIR [PATH...]: DIR mirrors SRC, an entry a symlink, but
# each PATH (relative) and the directories above it are real directories
# of links: a file put there never writes into SRC, and a source's
# relative #include resolves inside DIR.
link_tree()
{
	local src dir=$2 e name p
	local -a below links=()

	src=$(realpath "$1") && mkdir -p "$dir" || return 1
	shift 2
	for e in "$src"/* "$src"/.[!.]*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		name=${e##*/} below=()
		for p; do
			case $p in
			"$name") below+=("") ;;
			"$name"/*) below+=("${p#"$name"/}") ;;
			esac
		done
		if [ ${#below[@]} -gt 0 ]; then
			link_tree "$e" "$dir/$name" "${below[@]}" || return 1
		else
			links+=("$e")
		fi
	done
	[ ${#links[@]} -eq 0 ] || ln -s "${links[@]}" "$dir/"
}
