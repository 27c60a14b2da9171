#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The runner's tree and selftest phases on a real kernel source (the
# pinned one, fetched once), with stand-ins for QEMU and make: a phase's
# record; the series applied to the current target's tree (apply.sh), a
# cross build beside a native one in one tree (cross.sh), two checkouts'
# overlapping runs on one cache (overlap.sh).

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
