#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The before/after command's tests: its statistics and KTAP reader on
# canned runs (test_verdict.py: Debian's python3-scipy, installed when
# missing); ab.sh with a stand-in runner (boots, tables, refusals, the
# change applied to a private copy); ab.sh --ptr-ring on the pinned source
# (callgrind, model cycles, layout, SIGTERM); layout.py on canned pahole
# output; the style of its Python.

set -u

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

need_tools \
	"/usr/lib/python3/dist-packages/scipy/stats/__init__.py python3-scipy" \
	"/usr/lib/python3/dist-packages/numpy/__init__.py python3-numpy"
PY=/usr/bin/python3
FILES=("$REPO/vmtest/lib/ktap.py" "$REPO/ab/verdict.py" "$REPO/ab/objdiff.py"
       "$REPO/ab/layout.py" "$REPO/ab/range.py"
       "$TESTS_DIR/ab/test_verdict.py")

if ! "$PY" -c 'import numpy, scipy.stats' 2>/dev/null; then
	not_ok "python3-scipy and python3-numpy are installed" "see $OUT/need-tools.log"
	tests_done ab
	exit 1
fi

# The statistics' checks and simulations, on a core of their own beside
# the checks of ab.sh below.
beside "$PY" "$TESTS_DIR/ab/test_verdict.py"

# ab/ab.sh, with a stand-in runner: the config check refuses sides that
# differ in a figure-changing option (naming it) or lack a .config, and
# compares the rest, boots alternated, into one table.
tmp=$(mktemp -d "$OUT/ab.XXXXXX")
mkdir -p "$tmp/jobs"
for side in base change nocfg; do
	mkdir -p "$tmp/$side/arch/x86/boot"
	: >"$tmp/$side/arch/x86/boot/bzImage"
	printf 'CONFIG_JUMP_LABEL=y\n# CONFIG_PROVE_LOCKING is not set\n' >"$tmp/$side/.config"
done
echo 72 >"$tmp/base/fake-insn"
echo 73 >"$tmp/change/fake-insn"
# the change's page_pool_alloc_netmems has a nop more
for side in base:'' change:'asm volatile("nop");'; do
	mkdir -p "$tmp/${side%%:*}/net/core"
	echo "void page_pool_alloc_netmems(void) { ${side#*:} }" |
		gcc -O2 -x c -c -o "$tmp/${side%%:*}/net/core/page_pool.o" -
done
rm "$tmp/nocfg/.config"
abrun()
{
	env AB_VMTEST="$TESTS_DIR/ab/fake-vmtest" FAKE_JOBS="$tmp/jobs" \
		VMTEST_CACHE="$tmp/cache" "$REPO/ab/ab.sh" "$@"
}
# sides ARG...: ab.sh on the built base and change
sides() { abrun --base-kdir "$tmp/base" --change-kdir "$tmp/change" "$@"; }
expect_rc "ab.sh: a kernel one instruction slower on one test: exit 0" 0 \
	"$tmp/ab.log" sides -o "$tmp/out"
expect_grep "ab.sh: ... which reads slower" "$tmp/ab.log" \
	'no-softirq-page_pool01 .*slower'
expect_no_grep "ab.sh: ... and only it" "$tmp/ab.log" \
	'(for_loop|no-softirq-page_pool03) .*(slower|faster)'
# jobs OUT: the boots ab.sh made, a job each
jobs() { cat "$1"/base-*.job "$1"/change-*.job | wc -l; }
check "ab.sh: one boot a side decides every row, where no task switched: 2 jobs" \
	test "$(jobs "$tmp/out")" -eq 2
export FAKE_SWITCH=1
rm -f "$tmp/jobs/calls"
expect_rc "ab.sh: a task switch in a row's chunks: exit 0" 0 "$tmp/ab-switch.log" \
	sides -o "$tmp/out-switch"
unset FAKE_SWITCH
check "ab.sh: ... a boot a side more, which decides it: 4 jobs" \
	test "$(jobs "$tmp/out-switch")" -eq 4
check "ab.sh: ... each side's second boot is its first job booted again" \
	test "$(grep -c '^again$' "$tmp/jobs/calls")" -eq 2
expect_grep "ab.sh: ... with the first's options" \
	<(tr '\0' ' ' <"$(head -n 1 "$tmp/out-switch/change-2.job")/args") \
	"--kdir $tmp/change .*--attribute"
expect_grep "ab.sh: ... and it still reads slower" "$tmp/ab-switch.log" \
	'no-softirq-page_pool01 .*slower'
expect_rc "ab.sh --no-attribute: exit 0" 0 "$tmp/ab-noattr.log" \
	sides --no-attribute -o "$tmp/out-noattr"
check "ab.sh --no-attribute: no word on task switches, 2 boots a side" \
	test "$(jobs "$tmp/out-noattr")" -eq 4
expect_rc "ab.sh -n 1 --no-attribute: exit 0" 0 "$tmp/ab-n1.log" \
	sides -n 1 --no-attribute -o "$tmp/out-n1"
check "ab.sh -n 1: one boot a side at most, the row that moved unknown" \
	test "$(jobs "$tmp/out-n1")" -eq 2 -a \
	"$(grep -c '^no-softirq-page_pool01 .*unknown (run more)' "$tmp/out-n1/table.text")" -eq 1
check "ab.sh: the table is kept with the boots" test -s "$tmp/out/table.text"
expect_rc "ab.sh --format json: exit 0" 0 "$tmp/ab-json.log" \
	sides --format json -o "$tmp/out-json"
check "ab.sh --format json: one JSON table, each boot's figure, the manifest" \
	python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))
[row] = [r for r in t["rows"] if r["test"] == "no-softirq-page_pool01"]
assert row["verdict"] == "slower" and len(row["base_runs"]) == 1, row
m = t["manifest"]
assert m["command"].startswith("ab.sh "), m
assert m["base qemu cpu"] == m["change qemu cpu"] == "Fake-Server", m' \
	"$tmp/out-json/table.json"
sides --format json -o "$tmp/out-json2" >"$tmp/json2.out" 2>/dev/null
check "ab.sh --format json: its standard output is the JSON alone" \
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/json2.out"
expect_rc "ab.sh --attribute: exit 0" 0 "$tmp/ab-attr.log" \
	sides --attribute -o "$tmp/out-attr"
expect_grep "ab.sh --attribute: ... the function that moved" \
	"$tmp/out-attr/table.text" '^no-softirq-page_pool01: page_pool_alloc_netmems \+1\.00$'
expect_grep "ab.sh --attribute: ... a test that ran no changed code is not covered, in both tables" \
	"$tmp/out-attr/table.text" '^for_loop +3\.00[1-3] +3\.00[1-3] .* not covered +[-+]0\.000$'
expect_grep "ab.sh --attribute: ... its model cycles too" \
	"$tmp/out-attr/table.text" '^for_loop:model +0\.750 +0\.750 .* not covered +[-+]0\.000$'
expect_rc "ab.sh --attribute, an A/A: exit 0" 0 "$tmp/ab-aa.log" \
	abrun --base-kdir "$tmp/base" --change-kdir "$tmp/base" --attribute \
	-o "$tmp/out-aa"
expect_grep "ab.sh --attribute: ... no function differs: same, not 'not covered'" \
	"$tmp/out-aa/table.text" '^for_loop( +[-+]?[0-9.]+%?){4} same +[-+]0\.000$'
check "ab.sh --attribute: ... one boot a side decides it where no task switched: 2 jobs" \
	test "$(jobs "$tmp/out-aa")" -eq 2
printf 'CONFIG_JUMP_LABEL=y\nCONFIG_PROVE_LOCKING=y\n' >"$tmp/change/.config"
expect_rc "ab.sh: sides whose debug options differ are refused, exit 2" 2 \
	"$tmp/ab-cfg.log" sides
expect_grep "ab.sh: ... naming the option" "$tmp/ab-cfg.log" \
	'change: CONFIG_PROVE_LOCKING=y'
expect_rc "ab.sh: --allow-config-diff compares them all the same" 0 \
	"$tmp/ab-allow.log" sides --allow-config-diff -n 2
printf 'CONFIG_JUMP_LABEL=y\n# CONFIG_PROVE_LOCKING is not set\n' >"$tmp/change/.config"
echo Other-Server >"$tmp/change/fake-cpu"
expect_rc "ab.sh: sides booted on different CPU models are refused, exit 2" 2 \
	"$tmp/ab-cpu.log" sides -n 1
expect_grep "ab.sh: ... naming both" "$tmp/ab-cpu.log" \
	"differ in qemu cpu: base 'Fake-Server', change 'Other-Server'"
rm "$tmp/change/fake-cpu"
cp "$tmp/base/.config" "$tmp/config"
echo 'CONFIG_CC_VERSION_TEXT="gcc (Debian 12.2.0-14) 12.2.0"' >>"$tmp/base/.config"
echo 'CONFIG_CC_VERSION_TEXT="gcc (Debian 14.2.0-19) 14.2.0"' >>"$tmp/change/.config"
expect_rc "ab.sh: sides built by different compilers are refused before booting, exit 2" 2 \
	"$tmp/ab-cc.log" sides -o "$tmp/out-cc"
expect_grep "ab.sh: ... naming both" "$tmp/ab-cc.log" \
	"differ in compiler: base '\"gcc .*12.2.0\"', change '\"gcc .*14.2.0\"'"
check "ab.sh: ... and nothing booted" test ! -e "$tmp/out-cc/base-1.log"
cp "$tmp/config" "$tmp/base/.config"
cp "$tmp/config" "$tmp/change/.config"
expect_rc "ab.sh: a side without a .config is refused, exit 2" 2 \
	"$tmp/ab-nocfg.log" abrun --base-kdir "$tmp/base" --change-kdir "$tmp/nocfg"
expect_grep "ab.sh: ... saying it is not recorded" "$tmp/ab-nocfg.log" \
	'\.config: not recorded'
expect_rc "ab.sh: nothing to compare: exit 2" 2 "$tmp/ab-none.log" abrun
# The change (ab/patches.sh): split, checked against the base's tree
# before anything is built, applied to a private copy that the build
# sees at the tree's path (a stand-in make counts the tree's nops), the
# runner's tree never written; the table lists what went in.
tree=$tmp/base.tree
mkdir -p "$tree/net/core" "$tmp/bin"
seq -f 'line %g' 40 >"$tree/net/core/page_pool.c"
seq -f 'user %g' 10 >"$tree/net/core/page_pool_user.c"
seq -f 'priv %g' 10 >"$tree/net/core/page_pool_priv.h"
standin "$tmp/bin/make" <<'STANDIN'
# make -C TREE O=KDIR ...: a "kernel" of 72 instructions, one more per nop
# in TREE's page_pool.c, its image and its object: page_pool_alloc_pages
# with those nops, then page_pool_init, moved but not changed; an
# external module (the layout probe: M=DIR) is pahole's text of a struct
# page_pool (FAKE_LAYOUT's), grown where TREE's page_pool/types.h says
# "grown", none with FAKE_NO_PROBE. With FAKE_OVERLAP: says .in, waits for
# .done (a build beside it), says .overlapped.
while [ $# -gt 0 ]; do
	case $1 in -C) tree=$2; shift ;; O=*) kdir=${1#O=} ;; M=*) probe=${1#M=} ;; esac
	shift
done
if [ -n "${probe:-}" ]; then
	[ -z "${FAKE_NO_PROBE:-}" ] || exit 2
	f=$FAKE_LAYOUT/pp-base.txt
	! grep -qs grown "$tree/include/net/page_pool/types.h" ||
		f=$FAKE_LAYOUT/pp-change.txt
	sed 's/^struct pp {/struct page_pool {/' "$f" >"$probe/layout_probe.o"
	exit 0
fi
echo "make $tree" >>"$FAKE_JOBS/calls"
nops=$(grep -c nop "$tree/net/core/page_pool.c")
if [ -n "${FAKE_OVERLAP:-}" ]; then
	touch "$FAKE_OVERLAP.in"
	for _ in $(seq 300); do
		[ ! -e "$FAKE_OVERLAP.done" ] || break
		sleep 0.1
	done
	[ ! -e "$FAKE_OVERLAP.done" ] || touch "$FAKE_OVERLAP.overlapped"
fi
echo $((72 + nops)) >"$kdir/fake-insn"
mkdir -p "$kdir/net/core" "$kdir/arch/x86/boot"
echo "image of $nops nops" >"$kdir/arch/x86/boot/bzImage"
{
	echo 'void page_pool_alloc_pages(void) {'
	yes 'asm volatile("nop");' | head -n "$nops"
	echo '}'
	echo 'void page_pool_init(void) { }'
} | gcc -O2 -x c -c -o "$kdir/net/core/page_pool.o" -
STANDIN
FAKE_JOBS=$tmp "$tmp/bin/make" -C "$tree" O="$tmp/base"
# mkdiff NAME SED-SCRIPT [FILE]: a git-style diff of FILE after SED-SCRIPT
mkdiff()
{
	local f=${3:-net/core/page_pool.c}

	mkdir -p "$tmp/d/a/${f%/*}" "$tmp/d/b/${f%/*}"
	cp "$tree/$f" "$tmp/d/a/$f"
	sed "$2" "$tree/$f" >"$tmp/d/b/$f"
	# exit 1: the files differ
	(cd "$tmp/d" && git diff --no-index --no-prefix "a/$f" "b/$f") >"$tmp/$1.patch"
	return 0
}
tree_sums() { (cd "$tree" && find . -type f -exec sha256sum {} + | sort); }
# scripts/config --file F --set-val OPTION VALUE, as the kernel's
mkdir -p "$tree/scripts"
standin "$tree/scripts/config" <<'STANDIN'
[ "$1" = --file ] && [ "$3" = --set-val ] || exit 1
sed -i "/^CONFIG_$4=/d; /^# CONFIG_$4 is not set/d" "$2"
echo "CONFIG_$4=$5" >>"$2"
STANDIN
before=$(tree_sums)
export FAKE_BASE=$tmp/base
abpatch()
{
	rm -f "$tmp/jobs/calls"
	env PATH="$tmp/bin:$PATH" AB_VMTEST="$TESTS_DIR/ab/fake-vmtest" \
		FAKE_JOBS="$tmp/jobs" VMTEST_CACHE="$tmp/cache" \
		FAKE_LAYOUT="$TESTS_DIR/ab/layout" \
		VMTEST_KBUILD_LOCK="$tmp/kbuild.lock" "$REPO/ab/ab.sh" -n 1 "$@"
}
mkdiff nop '5a nop'
sed 's|a/net|net|g; s|b/net|net|g' "$tmp/nop.patch" >"$tmp/noprefix.patch"
(cd "$tmp/d" && diff -urN a b) >"$tmp/urn.patch"
mkdiff fuzz '20a nop'
sed -i 's/^ line 18$/ line 18 moved/' "$tmp/fuzz.patch"		# its context
(cd "$tree" && git diff --no-index net/core/page_pool_user.c /dev/null) \
	>"$tmp/delete.patch"
printf 'diff --git a/net/core/page_pool_priv.h b/net/core/pp_priv.h\nsimilarity index 100%%\nrename from net/core/page_pool_priv.h\nrename to net/core/pp_priv.h\n' \
	>"$tmp/rename.patch"
{
	printf 'From 1 Mon Sep 17 00:00:00 2001\nFrom: A <a@b.c>\nSubject: [PATCH 0/2] two nops\n\ncover\n\n'
	printf '\nFrom 1 Mon Sep 17 00:00:00 2001\nFrom: R <r@b.c>\nSubject: Re: [PATCH 1/2] the first\n\nuntested:\n---\n'
	sed -n '/^diff /,$p' "$tmp/fuzz.patch"
	printf '\nFrom 1 Mon Sep 17 00:00:00 2001\nFrom: A <a@b.c>\nSubject: [PATCH 1/2] the first\n\nwhy\n---\n'
	sed -n '/^diff /,$p' "$tmp/nop.patch"
} >"$tmp/thread.patch"
: >"$tmp/empty.patch"
for case in noprefix:73 urn:73 delete:72 rename:72 thread:73; do
	name=${case%:*} insn=${case#*:}
	expect_rc "ab.sh --change: $name applies: exit 0" 0 "$tmp/ab-$name.log" \
		abpatch --change "$tmp/$name.patch" -o "$tmp/out-$name"
	check "ab.sh --change $name: the runner's tree is as it was" \
		test "$(tree_sums)" = "$before"
	expect_grep "ab.sh --change $name: the change's build saw it ($insn insn)" \
		"$tmp/ab-$name.log" "^no-softirq-page_pool01 .* ${insn}\.00[0-9] "
done
expect_grep "ab.sh --change nop: the table names the function whose code differs" \
	"$tmp/out-noprefix/table.text" '^# code: 1 functions differ: page_pool_alloc_pages$'
expect_grep "ab.sh --change rename: ... or that none does" \
	"$tmp/out-rename/table.text" '^# code: no built function differs between the sides$'
expect_grep "ab.sh --change thread: only its [PATCH] messages" \
	"$tmp/out-thread/table.text" '^# change: 0001 [0-9a-f]{12} \[PATCH 1/2\] the first$'
check "ab.sh --change thread: ... no reply, no cover letter" \
	test "$(grep -c '^# change: ' "$tmp/out-thread/table.text")" -eq 1
# The layout: the change's own headers, as its build saw them
printf '%s\n' 'diff --git a/include/net/page_pool/types.h b/include/net/page_pool/types.h' \
	'new file mode 100644' '--- /dev/null' '+++ b/include/net/page_pool/types.h' \
	'@@ -0,0 +1 @@' '+/* grown */' >"$tmp/grown.patch"
expect_rc "ab.sh --change: a header that grows struct page_pool: exit 0" 0 \
	"$tmp/ab-grown.log" abpatch --change "$tmp/grown.patch" -o "$tmp/out-grown"
expect_grep "ab.sh: ... its layout line, from the change's own headers" \
	"$tmp/out-grown/table.text" '^# layout: struct page_pool: 64 -> 80 bytes, 1 -> 2 cache lines$'
expect_grep "ab.sh: a change that moves no field says the layout is the same" \
	"$tmp/out-thread/table.text" '^# layout: the same: page_pool$'
FAKE_NO_PROBE=1 abpatch --change "$tmp/nop.patch" -o "$tmp/out-noprobe" \
	>"$tmp/ab-noprobe.log" 2>&1
expect_grep "ab.sh: a layout that could not be compared says so" \
	"$tmp/out-noprobe/table.text" "^# layout: not compared: a side's layout probe did not build"
expect_grep "ab.sh: the manifest names the patches and both sides" \
	"$tmp/out-thread/manifest" '^patch: 0001 .*the first$'
# The table keeps its evidence: with the runner's jobs gone, verdict.py
# on the boots ab.sh kept gives the same table
check "ab.sh keeps each boot's KTAP and QEMU facts in its output" \
	test -d "$tmp/out-thread/base-1/ktap" -a -f "$tmp/out-thread/change-1/qemu"
rm -rf "$tmp/jobs"/current.*
check "ab.sh: the boots it kept give the same table without the runner's jobs" \
	diff <(sed -n '/^test /,/^#/{/^#/q;p}' "$tmp/out-thread/table.text") \
	<("$REPO/ab/verdict.py" --deterministic \
	  --base "$tmp/out-thread"/base-[0-9]*/ \
	  --change "$tmp/out-thread"/change-[0-9]*/ \
	  --attribution "$tmp/out-thread/attribution" | sed -n '/^test /,$p')
# The change's build is keyed on what the base is (its .config, its
# compiler as compile.h records it, its image) and the patches: a
# change built once is "built before" the second time; after the base
# is rebuilt in place by another compiler, it is built again.
mkdir -p "$tmp/base/include/generated"
echo '#define LINUX_COMPILER "gcc (Debian 12.2.0-14) 12.2.0"' \
	>"$tmp/base/include/generated/compile.h"
abpatch --change "$tmp/nop.patch" -o "$tmp/out-cc1" >"$tmp/ab-cc1.log" 2>&1
expect_rc "ab.sh --change, the same change on the same base: exit 0" 0 \
	"$tmp/ab-cc2.log" abpatch --change "$tmp/nop.patch" -o "$tmp/out-cc2"
expect_grep "ab.sh --change, the same change on the same base: ... built before" \
	"$tmp/ab-cc2.log" '^ab.sh: change: .* \(built before\)$'
echo '#define LINUX_COMPILER "gcc (Debian 14.2.0-19) 14.2.0"' \
	>"$tmp/base/include/generated/compile.h"
echo 'CONFIG_CC_VERSION_TEXT="gcc (Debian 14.2.0-19) 14.2.0"' >>"$tmp/base/.config"
expect_rc "ab.sh --change, the base rebuilt by another compiler: exit 0" 0 \
	"$tmp/ab-cc3.log" abpatch --change "$tmp/nop.patch" -o "$tmp/out-cc3"
check "ab.sh --change, the base rebuilt by another compiler: ... the change is built again" \
	grep -q '^make ' "$tmp/jobs/calls"
expect_grep "ab.sh --change, the base rebuilt by another compiler: ... the manifest names the base's" \
	"$tmp/out-cc3/manifest" '^base compiler: "gcc \(Debian 14\.2\.0-19\) 14\.2\.0"$'
expect_grep "ab.sh --change, the base rebuilt by another compiler: ... and the change's" \
	"$tmp/out-cc3/manifest" '^change compiler: "gcc \(Debian 14\.2\.0-19\) 14\.2\.0"$'
cp "$tmp/config" "$tmp/base/.config"
# A base build beside the change's build (which waits for it) sees the
# runner's tree, not the change.
mkdiff beside '7a nop'
(
	for _ in $(seq 300); do
		[ ! -e "$tmp/overlap.in" ] || break
		sleep 0.1
	done
	mkdir -p "$tmp/beside"
	FAKE_JOBS=$tmp "$tmp/bin/make" -C "$tree" O="$tmp/beside"
	touch "$tmp/overlap.done"
) &
export FAKE_OVERLAP=$tmp/overlap
expect_rc "ab.sh --change, a base build beside it: exit 0" 0 "$tmp/ab-beside.log" \
	abpatch --change "$tmp/beside.patch" -o "$tmp/out-beside"
unset FAKE_OVERLAP
wait $!
check "ab.sh --change, a base build beside it: ... during the change's build" \
	test -e "$tmp/overlap.overlapped"
check "ab.sh --change, a base build beside it: ... which saw the runner's tree (72 insn)" \
	test "$(cat "$tmp/beside/fake-insn" 2>/dev/null)" = 72
expect_grep "ab.sh --change, a base build beside it: ... while the change's saw the change (73 insn)" \
	"$tmp/ab-beside.log" "^no-softirq-page_pool01 .* 73\.00[0-9] "
check "ab.sh --change, a base build beside it: ... and the runner's tree is as it was" \
	test "$(tree_sums)" = "$before"
# nothing_built: the stand-in make was not called
nothing_built() { ! grep -qE "^(build|make )" "$tmp/jobs/calls" 2>/dev/null; }
printf -- '--- a/tools/testing/selftests/x\n+++ b/tools/testing/selftests/x\n@@ -0,0 +1 @@\n+x\n' \
	>"$tmp/bench.patch"
expect_rc "ab.sh: an option without its value: exit 2" 2 "$tmp/novalue.log" \
	abpatch --change "$tmp/nop.patch" -o
expect_grep "... naming it" "$tmp/novalue.log" '-o needs a value'
head -n 9 "$tmp/nop.patch" >"$tmp/corrupt.patch"	# cut in its hunk
for case in fuzz:'does not apply to the base' empty:'changes nothing' \
	    corrupt:'corrupt patch at line' \
	    bench:'the patches change the benchmark itself'; do
	name=${case%%:*}
	expect_rc "ab.sh --change: $name is refused: exit 2" 2 "$tmp/ab-$name.log" \
		abpatch --change "$tmp/$name.patch"
	expect_grep "ab.sh --change $name: ... saying why" "$tmp/ab-$name.log" "${case#*:}"
	check "ab.sh --change $name: ... before anything is built" nothing_built
done
# A root that is no mount point (a plain chroot): no private namespace
mkdir -p "$tmp/nons"
standin "$tmp/nons/unshare" 'echo "unshare: cannot change root filesystem propagation: Invalid argument" >&2' 'exit 1'
nons() { PATH="$tmp/nons:$PATH" abpatch "$@"; }
expect_rc "ab.sh --change, no private mount namespace: exit 2" 2 "$tmp/ab-nons.log" \
	nons --change "$tmp/nop.patch"
expect_grep "ab.sh --change, no private mount namespace: ... saying why, in one line" \
	"$tmp/ab-nons.log" '^ab.sh: no private mount namespace .*Invalid argument.*a mount point'
check "ab.sh --change, no private mount namespace: ... before anything is built" \
	nothing_built
expect_rc "ab.sh --change-config PAGE_POOL_STATS=y: what an option costs, exit 0" 0 \
	"$tmp/ab-opt.log" abpatch --change-config PAGE_POOL_STATS=y -o "$tmp/out-opt"
expect_grep "ab.sh --change-config: ... the option named as the intended difference" \
	"$tmp/ab-opt.log" '^ab.sh: the sides differ in PAGE_POOL_STATS by intent$'
expect_grep "ab.sh --change-config: ... above the table and in the manifest" \
	"$tmp/out-opt/manifest" '^change config: CONFIG_PAGE_POOL_STATS=y$'
expect_grep "ab.sh --change-config: ... which says so" "$tmp/out-opt/table.text" \
	'^# change config: CONFIG_PAGE_POOL_STATS=y$'
expect_rc "ab.sh --change-config: a setting that is not OPTION=VALUE: exit 2" 2 \
	"$tmp/ab-opt-bad.log" abpatch --change-config 'PAGE_POOL_STATS'
expect_grep "ab.sh --change-config: ... saying so" "$tmp/ab-opt-bad.log" \
	"not 'PAGE_POOL_STATS'"
check "ab.sh: refused changes leave the runner's tree as it was" \
	test "$(tree_sums)" = "$before"
export FAKE_NOBUILD=1
expect_rc "ab.sh: a base the runner cannot build: exit 2" 2 \
	"$tmp/ab-nob.log" abpatch --change "$tmp/nop.patch"
expect_grep "ab.sh: ... saying so" "$tmp/ab-nob.log" 'the base does not build'
unset FAKE_BASE FAKE_NOBUILD
rm -rf "$tmp"

# ab.sh --ptr-ring (ab/ptr_ring.sh), natively on the pinned source's
# ptr_ring.h with the project's benchmark: a patch adding one load per
# consumed item is one instruction slower under callgrind, two identical
# headers the same; small counts keep it quick.
tmp=$(mktemp -d "$OUT/ab-ptr_ring.XXXXXX")
src=$(pinned_source)
need_tools "valgrind valgrind" "pgrep procps" "pahole dwarves"
if [ ! -d "$src" ] || ! overlay_ptr_ring "$src" "$tmp/base"; then
	not_ok "ab.sh --ptr-ring: a base tree from the pinned source" "no $src"
else
	# prrun NAME ARG...: a quick comparison in $tmp/NAME, its table's
	# callgrind part in $tmp/NAME.cg, its native part in $tmp/NAME.native
	prrun()
	{
		env PTR_RING_CG_ITEMS=5000 "$REPO/ab/ab.sh" --ptr-ring \
			--base-src "$tmp/base" -m single -n 1 --callgrind-runs 2 \
			-o "$tmp/$1" "${@:2}" -- -n 20000 -r 1 || return
		sed -n '/^# deterministic/,$p' "$tmp/$1/table.text" >"$tmp/$1.cg"
		sed -n '/^# native/,/^# deterministic/p' "$tmp/$1/table.text" >"$tmp/$1.native"
	}
	expect_rc "ab.sh --ptr-ring: one load more per item: exit 0" 0 \
		"$tmp/load.log" prrun load --change "$TESTS_DIR/ab/ptr_ring-load.patch"
	expect_grep "ab.sh --ptr-ring: ... slower by one instruction per item under callgrind" \
		"$tmp/load.cg" '^single +[0-9.]+insn +[0-9.]+insn +\+(0\.[89]|1\.[01])[0-9]* .* slower$'
	expect_grep "ab.sh --ptr-ring: ... and no locked operation more" \
		"$tmp/load.cg" '^single:locked +[0-9.]+ops +[0-9.]+ops +[-+]0\.00[0-9] .* same$'
	expect_grep "ab.sh --ptr-ring: ... and a native timing row" \
		"$tmp/load.native" '^single +[0-9.]+ +[0-9.]+ '
	expect_rc "ab.sh --ptr-ring: smp_mb() for smp_wmb() in produce: exit 0" 0 \
		"$tmp/mb.log" prrun mb --change "$TESTS_DIR/ab/ptr_ring-mb.patch"
	expect_grep "ab.sh --ptr-ring: ... one locked operation more per item" \
		"$tmp/mb.cg" '^single:locked +[0-9.]+ops +[0-9.]+ops +\+1\.000 .* slower$'
	expect_grep "ab.sh --ptr-ring: ... about 18 model cycles more (a locked operation's cost)" \
		"$tmp/mb.cg" '^single:model +[0-9.]+cyc +[0-9.]+cyc +\+1[789]\.[0-9]+ .* slower$'
	check "ab.sh --ptr-ring: ... and callgrind's per-function files are kept" \
		test -n "$(find "$tmp/mb/callgrind" -name 'change-*.single.*' -size +0)"
	check "ab.sh --ptr-ring: the base tree is not written" \
		cmp -s "$src/include/linux/ptr_ring.h" "$tmp/base/include/linux/ptr_ring.h"
	expect_rc "ab.sh --ptr-ring: the same header on both sides: exit 0" 0 \
		"$tmp/aa.log" prrun aa --change-src "$src"
	# single's callgrind counts repeat exactly; a threaded mode's vary by
	# up to 0.1 per item, so two runs a side may agree more closely than
	# a third: an A/A may read unknown, never slower or faster
	expect_grep "ab.sh --ptr-ring: ... is same or unknown under callgrind, never slower or faster" \
		"$tmp/aa.cg" '^single +[0-9.]+insn .* (same|unknown \(run more\))$'
	expect_grep "ab.sh --ptr-ring: ... and the same locked operations" \
		"$tmp/aa.cg" '^single:locked +[0-9.]+ops +[0-9.]+ops .* same$'
	expect_grep "ab.sh --ptr-ring: ... and the same model cycles" \
		"$tmp/aa.cg" '^single:model +[0-9.]+cyc +[0-9.]+cyc .* same$'
	expect_rc "ab.sh --ptr-ring: consumer_head without its own cache line: exit 0" 0 \
		"$tmp/head.log" prrun head --callgrind-runs 0 \
		--change "$TESTS_DIR/ab/ptr_ring-consumer-head.patch"
	expect_grep "ab.sh --ptr-ring: ... the layout names it, and what it now shares a line with" \
		"$tmp/head/table.text" '^# layout:   consumer_head: offset 64 -> 8, cache line 1 -> 0, now with producer, producer_lock$'
	expect_grep "ab.sh --ptr-ring: an A/A's layout line says it is the same" \
		"$tmp/aa/table.text" '^# layout: the same: ptr_ring$'
	expect_rc "ab.sh --ptr-ring: a patch that does not apply: exit 2" 2 \
		"$tmp/bad.log" prrun bad --change "$TESTS_DIR/ab/fake-vmtest"
	# SIGTERM while callgrind runs: 130, nothing of the run left
	PTR_RING_CG_ITEMS=5000000 "$REPO/ab/ab.sh" --ptr-ring --base-src "$tmp/base" \
		-m single -n 0 --callgrind-runs 1 --change-src "$src" -o "$tmp/int" \
		>"$tmp/int.log" 2>&1 &
	pid=$!
	await_process "valgrind.*$tmp/int/" 60
	signal_wait one TERM "$pid"
	check "ab.sh --ptr-ring: SIGTERM during callgrind exits 130" test $? -eq 130
	sleep 0.5
	check "ab.sh --ptr-ring: ... and leaves no process of the run" \
		no_process "$tmp/int/"
	expect_rc "ab.sh --ptr-ring: --runs 0 and --callgrind-runs 0: exit 2" 2 \
		"$tmp/none.log" "$REPO/ab/ab.sh" --ptr-ring --change-src "$src" \
		--runs 0 --callgrind-runs 0
fi
rm -rf "$tmp"

# A bad --change-src is refused before the runner fetches its source
expect_rc "ab.sh --ptr-ring --change-src /nonexistent: exit 2" 2 \
	"$OUT/pr-nosrc.log" env VMTEST_CACHE="$OUT/pr-nocache" timeout 60 \
	"$REPO/ab/ab.sh" --ptr-ring --change-src /nonexistent --callgrind-runs 0
expect_grep "... saying why" "$OUT/pr-nosrc.log" '/nonexistent: no include/linux/ptr_ring.h'
check "... having fetched nothing" test ! -e "$OUT/pr-nocache/src"

# ab/layout.py on canned pahole output: a struct grown in its first
# member, two members pushed to the next cache line, named first
L=$TESTS_DIR/ab/layout
"$REPO/ab/layout.py" "$L/pp-base.txt" "$L/pp-change.txt" pp >"$OUT/layout.log" 2>&1
check "layout.py: the members pushed to the next cache line, first" \
	test "$(sed -n 2,3p "$OUT/layout.log")" = "  ring_lock: offset 48 -> 64, cache line 0 -> 1
  stats: offset 56 -> 72, cache line 0 -> 1"
expect_grep "layout.py: ... then the grown member" "$OUT/layout.log" \
	'^  alloc: offset 0 -> 0, size 40 -> 56$'
check "layout.py: the same layout on both sides says so" \
	test "$("$REPO/ab/layout.py" "$L/pp-base.txt" "$L/pp-base.txt" pp)" = "the same: pp"
expect_rc "layout.py: none of the structs on a side: exit 2" 2 "$OUT/layout-none.log" \
	"$REPO/ab/layout.py" "$L/pp-base.txt" "$L/pp-base.txt" page_pool
expect_grep "... saying so" "$OUT/layout-none.log" 'none of page_pool: layouts not compared$'
expect_rc "layout.py: a side it cannot read: exit 2" 2 "$OUT/layout-bad.log" \
	"$REPO/ab/layout.py" "$L/pp-base.txt" /nonexistent pp

check "the Python files of ab/ and test_verdict.py: lines of at most 79 characters" \
	awk 'length > 79 { print FILENAME ":" FNR; bad = 1 } END { exit bad }' \
	"${FILES[@]}"
# The kernel source that tests/static fetches, when there
ckp=$(pinned_source)/scripts/checkpatch.pl
if [ -x "$ckp" ]; then
	check "the Python files of ab/ and test_verdict.py: checkpatch --strict" \
		"$ckp" --strict --quiet --no-tree -f "${FILES[@]}"
else
	echo "# no $ckp, checkpatch not run"
fi

subtests_report
tests_done ab
