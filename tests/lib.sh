# SPDX-License-Identifier: GPL-2.0
# Helpers for the project's tests: each check prints 'ok - NAME' or
# 'not ok - NAME' (with the reason on '#' lines); tests/run.sh counts them.
# shellcheck shell=bash

TESTS_DIR=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
REPO=$(dirname "$TESTS_DIR")
VMTEST=$REPO/vmtest/vmtest.sh
# shellcheck source-path=SCRIPTDIR source=../vmtest/lib/record.sh
. "$REPO/vmtest/lib/record.sh"
# shellcheck source-path=SCRIPTDIR source=../vmtest/lib/patch.sh
. "$REPO/vmtest/lib/patch.sh"
# shellcheck source-path=SCRIPTDIR source=../vmtest/lib/common.sh
. "$REPO/vmtest/lib/common.sh"
export VMTEST_CACHE=${VMTEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pp-bench-vmtest}
OUT=${TESTS_OUT:-$REPO/tests/out}
mkdir -p "$OUT"

# Counted in the group's shell (tests/run.sh counts the printed lines).
TESTS_PASSED=0
TESTS_FAILED=0

ok()
{
	echo "ok - $*"
	TESTS_PASSED=$((TESTS_PASSED + 1))
}

# skip_check NAME WHY: a check this machine cannot make, as KTAP skips it
skip_check()
{
	ok "$1 # SKIP $2"
}

not_ok()
{
	local name=$1

	shift
	echo "not ok - $name"
	[ $# -eq 0 ] || printf '%s\n' "$@" | sed 's/^/#   /'
	TESTS_FAILED=$((TESTS_FAILED + 1))
}

# tally FILE: FILE's 'ok - ' and 'not ok - ' lines counted as the group's
tally()
{
	local text

	text=$(<"$1")
	TESTS_PASSED=$((TESTS_PASSED + $(grep -c '^ok - ' <<<"$text")))
	TESTS_FAILED=$((TESTS_FAILED + $(grep -c '^not ok - ' <<<"$text")))
}

# tests_done GROUP: print the group's totals; fails when a check failed.
tests_done()
{
	echo "# $1: $TESTS_PASSED passed, $TESTS_FAILED failed"
	[ "$TESTS_FAILED" -eq 0 ] && [ "$TESTS_PASSED" -gt 0 ]
}

# subtests SCRIPT...: scripts of a group's checks, run together (they wait
# more than they compute), their checks and comments the group's; one
# that prints no check, or exits non-zero without a failed one, fails.
subtests()
{
	local s

	for s; do beside "$s"; done
	subtests_report
}

# beside CMD [ARG...]: CMD (a script, or a group's function such as
# expect_rc) in the background, its PID in $!, a subtest for
# subtests_report to wait for and report (its checks, comments and shell
# errors, which tests/run.sh fails). A subshell reports its own only.
beside()
{
	local i

	if [ "${SUBTEST_SHELL:-}" != "$BASHPID" ]; then
		SUBTEST_DIR=$(mktemp -d) SUBTEST_NAMES=() SUBTEST_SHELL=$BASHPID
	fi
	i=${#SUBTEST_NAMES[@]}
	SUBTEST_NAMES+=("${1##*/}")
	{ "$@" >"$SUBTEST_DIR/$i.log" 2>&1; echo $? >"$SUBTEST_DIR/$i.rc"; } &
}

subtests_report()
{
	local i=0 s rc log why

	[ "${SUBTEST_SHELL:-}" = "$BASHPID" ] || return 0
	wait
	for s in "${SUBTEST_NAMES[@]}"; do
		rc=$(cat "$SUBTEST_DIR/$i.rc" 2>/dev/null) log=$SUBTEST_DIR/$i.log
		i=$((i + 1))
		[ -n "$rc" ] || { not_ok "${s##*/}: ended, its exit code kept"; continue; }
		grep -E '^((not )?ok - |#)|^/[^ ]+: line [0-9]+: ' "$log"
		tally "$log"
		if ! grep -qE '^(not )?ok - ' "$log"; then
			why="reports its checks"
		elif [ "$rc" -ne 0 ] && ! grep -q '^not ok - ' "$log"; then
			why="exits 0 or with a failed check"
		else
			continue
		fi
		not_ok "${s##*/}: $why" "exit $rc" "$(tail -n 15 "$log")"
	done
	rm -rf "$SUBTEST_DIR"
	SUBTEST_SHELL=
}

# expect_rc NAME RC LOG CMD...: ok when CMD exits RC; output kept in LOG.
# (Locals named apart: CMD may be a group's function reading its own $rc.)
expect_rc()
{
	local name=$1 want_rc=$2 log=$3 got_rc

	shift 3
	"$@" >"$log" 2>&1
	got_rc=$?
	if [ "$got_rc" -eq "$want_rc" ]; then
		ok "$name"
		return 0
	fi
	not_ok "$name" "exit $got_rc, expected $want_rc: $*" "$(tail -n 30 "$log")"
	return 1
}

# check NAME CMD...: ok when CMD exits 0; its output is shown on failure.
check()
{
	local log

	log=$(mktemp)
	expect_rc "$1" 0 "$log" "${@:2}"
	rm -f "$log"
}

# expect_grep NAME LOG ERE: ok when LOG has a line matching ERE; on
# failure, LOG's last lines show what it has instead.
expect_grep()
{
	if grep -qE -- "$3" "$2"; then
		ok "$1"
	else
		not_ok "$1" "no line matching '$3' in $2, which ends:" \
			"$(tail -n 10 "$2" 2>&1)"
	fi
}

# expect_no_grep NAME LOG ERE: ok when no line of LOG matches ERE.
expect_no_grep()
{
	if grep -qE -- "$3" "$2"; then
		not_ok "$1" "$(grep -E -- "$3" "$2")"
	else
		ok "$1"
	fi
}

# runner_libs: the runner's helpers (common.sh, packages.sh) in this
# shell, which a group's subshell calls, logging into OUT
runner_libs()
{
	# shellcheck source-path=SCRIPTDIR source=../vmtest/lib/common.sh
	. "$REPO/vmtest/lib/common.sh"
	# shellcheck source-path=SCRIPTDIR source=../vmtest/lib/packages.sh
	. "$REPO/vmtest/lib/packages.sh"
	export VMTEST_LOGS=$OUT
}

# stage NAME STAGE [VAR=VALUE...]: tests/runner/stage.sh's STAGE (runner
# phases with stand-ins) with the VARs in job dir $work/NAME, log NAME.log.
stage()
{
	local name=$1 what=$2

	shift 2
	# shellcheck disable=SC2154 # the group's
	mkdir -p "$work/$name"
	env VMTEST_ACCEL=tcg "$@" "$TESTS_DIR/runner/stage.sh" "$what" \
		"$work/$name" >"$work/$name.log" 2>&1
}

# need_tools "COMMAND-OR-FILE PACKAGE"...: the group's tools, installed
# when missing by the runner's apt_install (which waits for another apt)
# as root; else, or when apt fails, said on a '#' line.
need_tools()
(
	runner_libs
	mapfile -t need < <(printf '%s\n' "$@" | missing_packages)
	[ "${#need[@]}" -eq 0 ] && exit 0
	is_root || { echo "# missing ${need[*]}: not root, not installed"; exit 0; }
	echo "# installing ${need[*]}"
	# A subshell: apt_install dies on failure
	(apt_install "${need[@]}") 2>"$OUT/need-tools.log" ||
		echo "# installing ${need[*]} failed: $(tail -n 1 "$OUT/need-tools.log")"
)

# NIPA, netdev's CI: its git repository (NIPA_GIT, default: the local
# mirror) and the commit series/nipa/ is against. nipa_missing prints why
# NIPA is not at hand, nothing when it is.
NIPA_GIT=${NIPA_GIT:-/work/.mirror/linux-netdev+nipa/repo}
NIPA_COMMIT=95a29267a0450eb1b061a3a5b386a7fbff00fe0c
nipa_missing()
{
	if ! git -C "$NIPA_GIT" rev-parse --git-dir >/dev/null 2>&1; then
		echo "no NIPA git repository at $NIPA_GIT (NIPA_GIT)"
	elif ! git -C "$NIPA_GIT" cat-file -e "$NIPA_COMMIT^{commit}" 2>/dev/null; then
		echo "$NIPA_GIT lacks NIPA commit ${NIPA_COMMIT:0:12}"
	fi
}

# nipa_checkout DIR: NIPA at NIPA_COMMIT in DIR, series/nipa/ applied by
# git am (no fuzz)
nipa_checkout()
{
	local p patches=()

	for p in "$REPO"/series/nipa/[0-9][0-9][0-9][0-9]-*.patch; do
		[[ ${p##*/} == 0000-* ]] || patches+=("$p")
	done
	git clone -q --shared --no-checkout "$NIPA_GIT" "$1" &&
		git -C "$1" checkout -q --detach "$NIPA_COMMIT" &&
		git -C "$1" -c user.name=tests -c user.email=tests@localhost \
			-c commit.gpgsign=false am -q "${patches[@]}"
}

# runner_record TARGET PHASE [VMTEST-ARGS...]: vmtest_record's record
# (src, tree, kdir, kernel, root, job); nothing when the runner fails,
# whose last messages then go to stderr, for CI logs to show why.
runner_record()
{
	local log rc target=$1 phase=$2

	log=$(mktemp)
	vmtest_record "$@" 2>"$log"
	rc=$?
	cat "$log" >>"$OUT/prepare.log"
	if [ "$rc" -ne 0 ]; then
		echo "# vmtest.sh -t $target --stop-after $phase ${*:3} failed (exit $rc):" >&2
		tail -n 15 "$log" | sed 's/^/#   /' >&2
	fi
	rm -f "$log"
}

# prepared TARGET [PHASE [VMTEST-ARGS...]]: the target's record after
# PHASE (default: build), as "tree kdir" (kdir empty before the build).
prepared()
{
	local rec

	rec=$(runner_record "$1" "${2:-build}" "${@:3}")
	[ -n "$rec" ] || return 0
	echo "$(record_get tree <<<"$rec") $(record_get kdir <<<"$rec")"
}

# test_bench_page_pool.sh's subtests in a runner's guest (its three
# vCPUs give two cross-CPU cases).
PP_SUBTESTS='for_loop atomic_inc lock
no-softirq-page_pool01 no-softirq-page_pool02 no-softirq-page_pool03
bh_page_pool02_ptr_ring bh_page_pool03_slow bh_page_pool04_napi_local
bh_page_pool05_napi_remote cross_cpu_return_1cpu cross_cpu_return_2cpu
no-softirq-page_pool01_dma no-softirq-page_pool02_dma no-softirq-page_pool03_dma'

# subtests_passed NAME TAP: each of PP_SUBTESTS passed in KTAP file TAP (any depth).
subtests_passed()
{
	local t missing=

	for t in $PP_SUBTESTS; do
		grep -qE "^(# )*ok [0-9]+ $t( |$)" "$2" 2>/dev/null ||
			missing+=" $t"
	done
	if [ -z "$missing" ]; then ok "$1"; else not_ok "$1" "missing:$missing"; fi
}

# in_guest NAME LOG VMTEST-ARGS...: run a guest whose command prints
# 'ok - ' lines (tests/vm/bench_checks.sh), and pass its lines on,
# counted as the group's.
in_guest()
{
	local name=$1 log=$2 lines

	shift 2
	expect_rc "$name" 0 "$log" "$VMTEST" "$@"
	lines=$(tr -d '\r' <"$log" | grep -E '^(not )?ok - ' |
		sed "s/^\(\(not \)\?ok - \)/\1$name: /")
	[ -z "$lines" ] || echo "$lines"
	tally <(echo "$lines")
}

# The kernel source vmtest/sources.lock pins (the current target's, the
# series' base), where the runner unpacks it; it may not be there yet.
pinned_source()
(
	runner_libs
	read -r pkg ver < <(locked_source)
	echo "$VMTEST_CACHE/src/$pkg-$ver"
)

# overlay_ptr_ring KSRC DIR [PATH...]: DIR mirrors KSRC (link_tree; PATHs
# real directories) with this repository's ptr_ring selftest and ringtest
# files in place of KSRC's; DIR/out is for builds.
overlay_ptr_ring()
{
	local rel=tools/testing/selftests/ptr_ring

	link_tree "$1" "$2" tools/virtio/ringtest "$rel" "${@:3}" &&
		rm -rf "${2:?}/$rel" && mkdir -p "$2/$rel" "$2/out" || return 1
	(cd "$REPO" && find tools/virtio/ringtest "$rel" -type f) |
		while read -r f; do ln -sfn "$REPO/$f" "$2/$f" || exit 1; done
}

# kselftest_tree DIR NAME: DIR gets the pinned source's kselftest Makefile,
# lib.mk and helpers; without that source, NAME's failed check, exit 1.
kselftest_tree()
{
	local src

	src=$(pinned_source)
	[ -d "$src" ] && mkdir -p "$1/tools/testing/selftests" "$1/scripts" &&
	cp "$src/scripts/subarch.include" "$1/scripts/" &&
	cp -r "$src/tools/testing/selftests/"{Makefile,lib.mk,kselftest,run_kselftest.sh} \
		"$src/tools/testing/selftests/"kselftest*.h "$1/tools/testing/selftests/" &&
		return 0
	not_ok "$2: the pinned kernel source to take lib.mk from" \
		"not in $src"
	return 1
}

# debian_source PKG [APT-OPTIONS...]: prints the tree of Debian's kernel
# source PKG (linux-source-6.12) at vmtest/sources.lock's version, which
# the runner's helpers unpack when missing; or nothing, saying why.
debian_source()
(
	runner_libs
	pkg=$1
	shift
	ver=$(locked_version "$pkg")
	if [ -z "$ver" ]; then
		echo "debian_source: $pkg is not pinned in $SOURCES_LOCK" >&2
	elif [ -e "$VMTEST_CACHE/src/$pkg-$ver.unpacked" ] ||
	     (fetch_source_pkg "$pkg" "$ver" "$@") >>"$OUT/prepare.log" 2>&1; then
		echo "$VMTEST_CACHE/src/$pkg-$ver"
	else
		echo "debian_source: cannot fetch $pkg $ver (gone from Debian's index? vmtest/update-lock.sh moves the pin)" >&2
	fi
)

# ensure_ruff: ruff on PATH (tests/static lints Python with it, as NIPA
# does), else sid's fetched once into the cache with sid's loader and
# libraries (bookworm has none; sid's needs a newer C library) by the
# runner's private apt setup; fails when it cannot be had.
ensure_ruff()
{
	local rdir=$VMTEST_CACHE/tools/ruff

	command -v ruff >/dev/null && return 0
	[ -x "$rdir/bin/ruff" ] || (
		runner_libs
		newer_apt_update
		mapfile -t opts < <(newer_apt_opts)
		rm -rf "$rdir" && mkdir -p "$rdir/deb" "$rdir/bin" && cd "$rdir/deb" &&
			apt-get "${opts[@]}" -t sid download ruff libc6 libgcc-s1 || exit 1
		for deb in ./*.deb; do dpkg-deb -x "$deb" "$rdir/root" || exit 1; done
		cat >"$rdir/bin/ruff" <<-WRAP
		#!/bin/sh
		lib=$rdir/root/usr/lib/x86_64-linux-gnu
		exec "\$lib/ld-linux-x86-64.so.2" --library-path "\$lib" \\
			$rdir/root/usr/bin/ruff "\$@"
		WRAP
		chmod +x "$rdir/bin/ruff"
	) >"$OUT/ruff-download.log" 2>&1
	"$rdir/bin/ruff" --version >/dev/null 2>&1 && PATH=$rdir/bin:$PATH
}

# same_counts BOOT...: each fast path's mean instructions per element
# (ns under -icount shift=0, vmtest/lib/ktap.py's mean of a boot's runs
# BOOT-N.tap) is the same in every boot within one, the issue's bound.
# The others' are reported, not asserted: the page allocator's state
# moves the slow paths' batched work. A line a test: its means and reps.
same_counts()
{
	python3 - "$REPO/vmtest/lib" "$@" <<'PY'
import glob
import sys

sys.path.insert(0, sys.argv[1])
import ktap

FAST = ('no-softirq-page_pool01', 'bh_page_pool04_napi_local')
# A boot's runs in the order they ran: b-2.tap before b-10.tap
boots = [ktap.read_run(sorted(glob.glob(b + '-*.tap'),
                             key=lambda f: (len(f), f)), b)
         for b in sys.argv[2:]]
bad = len(boots) < 2 or not boots[0].perf
for name in boots[0].perf:
    means = [b.sample(name) if name in b.perf else None for b in boots]
    same = None not in means and max(means) - min(means) < 1
    bad += not same and name in FAST
    print(f"{name}: {'same' if same else 'DIFFERS'}: means "
          + ' '.join('-' if m is None else f'{m:.3f}' for m in means)
          + ''.join(f"; boot {i} {b.perf[name][1]}"
                    for i, b in enumerate(boots, 1) if name in b.perf))
sys.exit(bad > 0)
PY
}

# await_process PATTERN SECONDS: until a process whose command line
# matches PATTERN (pgrep -f) runs, for at most SECONDS; fails if none did.
await_process()
{
	for _ in $(seq $((10 * $2))); do
		pgrep -f "$1" >/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# no_process PATTERN: no process's command line matches PATTERN (those
# that do are listed); false when pgrep cannot tell (not installed)
no_process()
{
	pgrep -af "$1"
	[ $? -eq 1 ]
}

# foreground CMD...: CMD in the background, its PID in $!, in a session
# of its own as a terminal's foreground job, with SIGINT's default action
# (which a script's background job lacks, and could not trap).
foreground()
{
	setsid python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@" &
}

# signal_wait WHOM SIG PID: SIG to PID's process group (WHOM: group, as
# Ctrl-C) or PID alone, then PID's exit code (a child of this shell).
signal_wait()
{
	if [ "$1" = group ]; then
		kill "-$2" -- "-$3"
	else
		kill "-$2" "$3"
	fi
	wait "$3"
}

# path_without DIR GLOB...: DIR, a PATH of links to the system's commands
# but those whose names match a GLOB: a machine that lacks them.
path_without()
{
	local d f g

	mkdir -p "$1"
	for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
		for f in "$d"/*; do
			for g in "${@:2}"; do
				# shellcheck disable=SC2053 # a glob
				[[ ${f##*/} == $g ]] && continue 2
			done
			[ -e "$1/${f##*/}" ] || ln -s "$f" "$1/"
		done
	done
}

# standin FILE [LINE...]: FILE, an executable bash script of the LINEs,
# or of its input when there are none.
standin()
{
	echo '#!/bin/bash' >"$1"
	if [ $# -gt 1 ]; then
		printf '%s\n' "${@:2}"
	else
		cat
	fi >>"$1" && chmod +x "$1"
}
