#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The runner's tree and selftest phases on a real kernel source, with
# stand-ins for QEMU and make where they would boot or build a kernel
# (no VM, no kernel; the pinned source is fetched once): the current
# target's tree gets the series as patches, once, without writing the
# source, giving the project's files, or the runner stops (apply.sh); a
# phase's record is read by one helper and kept in the job; arm64's
# selftests are aarch64 after an x86 build in the same tree, with
# kselftest's own lib.mk (cross.sh); two checkouts' overlapping runs on
# one cache each install their own series' files (overlap.sh).

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"
# rsync for kselftest's install (lib.mk)
need_tools "rsync rsync"

beside "$TESTS_DIR/runner_tree/apply.sh"
beside "$TESTS_DIR/runner_tree/cross.sh"
beside "$TESTS_DIR/runner_tree/overlap.sh"

rec=$(runner_record current fetch)
src=$(record_get src <<<"$rec")
job=$(record_get job <<<"$rec")
check "runner_record: the current target's source ($src)" test -d "$src"
# shellcheck disable=SC2016 # expanded by that shell
check "the job keeps the record as a file a shell sources" \
	bash -c '. "$1/record" && [ "$target" = current ] && [ "$src" = "$2" ]' _ "$job" "$src"
expect_grep "the job's result says prepared, phase fetch" "$job/result" \
	'^target=current result=prepared rc=0 .* phase=fetch '

subtests_report
tests_done runner_tree
