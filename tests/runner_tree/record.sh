#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A phase's record (no VM, no kernel; the pinned source fetched once):
# tests read it with one helper (runner_record), and the job keeps it as
# a file a shell sources.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

rec=$(runner_record current fetch)
src=$(record_get src <<<"$rec")
job=$(record_get job <<<"$rec")
check "runner_record: the current target's source ($src)" test -d "$src"
# shellcheck disable=SC2016 # expanded by that shell
check "the job keeps the record as a file a shell sources" \
	bash -c '. "$1/record" && [ "$target" = current ] && [ "$src" = "$2" ]' _ "$job" "$src"
expect_grep "the job's result says prepared, phase fetch" "$job/result" \
	'^target=current result=prepared rc=0 .* phase=fetch '

tests_done record
