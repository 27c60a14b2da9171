#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The runner's tree and selftest phases on a real kernel source (the
# pinned one, fetched once), with stand-ins for QEMU and make: a phase's
# record, a --ksrc path with spaces read back from it, offline; the
# series applied to the current target's tree (apply.sh), a cross build
# beside a native one in one tree (cross.sh), two checkouts' overlapping
# runs on one cache (overlap.sh).

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
check "the job keeps the record as JSON" test \
	"$(record_get target <"$job/record.json") $(record_get src <"$job/record.json")" = \
	"current $src"

# --ksrc DIR, a path with spaces, on an empty cache and (as root) with no
# network: the record gives DIR back as it is, and the pinned source is
# not fetched for it.
ks="$OUT/a source with spaces"
rm -rf "$ks" && mkdir -p "$ks" && cp "$src/Makefile" "$ks/"
offline=()
! unshare -n true 2>/dev/null || offline=(unshare -n)
rm -f "$OUT/ksrc.job"
VMTEST_CACHE=$(mktemp -d "$OUT/cache.XXXXXX") "${offline[@]}" "$VMTEST" \
	-t current --stop-after fetch --ksrc "$ks" --job-file "$OUT/ksrc.job" \
	>"$OUT/ksrc.log" 2>&1
rec=$(cat "$(head -n 1 "$OUT/ksrc.job")/record.json")
check "--ksrc with spaces${offline:+, offline}, an empty cache: the record's src is it" \
	test "$(record_get src <<<"$rec")" = "$ks"
expect_no_grep "... and the pinned source is not fetched" "$OUT/ksrc.log" \
	'download|index|update-lock|linux-source'
expect_grep "the job's result says prepared, phase fetch" "$job/result" \
	'^target=current result=prepared rc=0 .* phase=fetch '

# again JOB boots what JOB built, and only for the series and kernel it
# built for; refused before anything boots.
tree=$(runner_record current tree | record_get tree)
ag=$OUT/again-job
image=$ag/kdir/arch/x86/boot/bzImage
rm -rf "$ag" && mkdir -p "$ag/install" "$(dirname "$image")"
touch "$image" "$ag/kdir/Module.symvers"
# Its run's options as given, in its directory: --kdir relative to it
printf -- '-t\0current\0--kdir\0kdir\0' >"$ag/args"
echo "$ag" >"$ag/cwd"
again_job() # SERIES: ag's record, its kernel in ag/kdir
{
	python3 "$REPO/vmtest/lib/record.py" write target=current series="$1" \
		kdir="$ag/kdir" kernel="$image" >"$ag/record.json"
}
again_job other
expect_rc "again: a job built for another series (from another directory): exit 2" 2 \
	"$OUT/again-series.log" env -C / "$VMTEST" again "$ag"
expect_grep "... saying so (its --kdir read from its run's directory)" \
	"$OUT/again-series.log" "again: the series changed since $ag built its selftests"
again_job "$(cat "$tree.series")"
touch -d '+1 hour' "$image"
expect_rc "again: a kernel built after the job: exit 2" 2 "$OUT/again-kernel.log" \
	"$VMTEST" again "$ag"
expect_grep "... saying so" "$OUT/again-kernel.log" \
	"again: $image changed since $ag built its selftests"
expect_rc "again: a directory that is no job: exit 2" 2 "$OUT/again-none.log" \
	"$VMTEST" again "$OUT"
expect_grep "... saying so" "$OUT/again-none.log" "again: '$OUT' is not a job that built its selftests"
expect_rc "again: an option of the job's own (-D): exit 2" 2 "$OUT/again-opt.log" \
	"$VMTEST" again "$ag" -D
expect_grep "... saying so" "$OUT/again-opt.log" "again: only --job-file FILE and --keep go with a job, not '-D'"

subtests_report
tests_done runner_tree
