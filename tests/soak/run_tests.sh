#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The soak tier (tests/run.sh --tier all): in a debug kernel (KASAN,
# KMEMLEAK, PROVE_LOCKING, DEBUG_OBJECTS, DMA_API_DEBUG) built from a
# --ksrc git tree the run leaves unchanged, the benchmark's checks with
# DEBUG_LOADS (default 100) loads pass without a report; a leaking module
# fails the run on kmemleak's report.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

# --ksrc: a git tree of the runner's newest source, as a user's clone,
# built once as the debug kernel (a cold run's dearest step) for both runs.
src=$(pinned_source)
ksrc=$VMTEST_CACHE/test-ksrc/$(basename "$src")
if [ ! -d "$src" ]; then
	not_ok "--ksrc: a kernel source to prepare a tree from" \
		"none under $VMTEST_CACHE/src"
elif [ ! -d "$ksrc/.git" ]; then
	rm -rf "$VMTEST_CACHE/test-ksrc"
	mkdir -p "$ksrc"
	cp -a "$src/." "$ksrc/" &&
	git -C "$ksrc" init -q &&
	# -f: Debian's source carries a .gitignore that ignores the top level.
	git -C "$ksrc" add -A -f &&
	git -C "$ksrc" -c user.name=vmtest -c user.email=vmtest@localhost \
		commit -qm "Debian $(basename "$src")"
fi
snapshot()
{
	git -C "$ksrc" rev-parse HEAD
	git -C "$ksrc" status --porcelain
	(cd "$ksrc" && find . -path ./.git -prune -o -type f \
		-printf '%p %i %s %T@\n' | sort | sha256sum)
}
before=$(snapshot)

# The benchmark's promises, DEBUG_LOADS loads long (the runner fails on
# any report and scans kmemleak after the job).
in_guest "debug kernel" "$OUT/vm-checks-debug.log" \
	-t current --ksrc "$ksrc" --debug -T 3000 -- \
	bash "$TESTS_DIR/vm/bench_checks.sh" "$REPO" "${DEBUG_LOADS:-100}" dma-debug
after=$(snapshot)
if [ "$before" = "$after" ]; then
	ok "--ksrc leaves the tree unchanged ($(echo "$after" | head -n 1), clean)"
else
	not_ok "--ksrc leaves the tree unchanged" \
		"$(diff <(echo "$before") <(echo "$after"))"
fi

# A leak fails the run: kmemleak's dump, a file of the job, judged on the host.
read -r _ kdir < <(prepared current build --ksrc "$ksrc" --debug)
splat=$(mktemp -d "$OUT/splat.XXXXXX")
cp "$TESTS_DIR/vm/splat/splat.c" "$TESTS_DIR/vm/splat/Makefile" "$splat/"
if [ -n "$kdir" ] &&
   make -C "$splat" KDIR="$kdir" >"$OUT/splat-leak-build.log" 2>&1; then
	expect_rc "a leaking module fails the debug run" 1 "$OUT/vm-leak.log" \
		"$VMTEST" -t current --ksrc "$ksrc" --debug -T 1200 -- \
		sh -c "insmod $splat/splat.ko mode=leak && sleep 6"
	expect_grep "the kmemleak report is shown" "$OUT/vm-leak.log" \
		'kmemleak reported [1-9][0-9]* suspected leak'
else
	not_ok "the splat module builds against the debug kernel" \
		"see $OUT/splat-leak-build.log"
fi
rm -rf "$splat"

tests_done soak
