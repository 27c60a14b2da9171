#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ab/ab.sh --tree (ab/git.sh, ab/range.py) with a stand-in make and
# runner, on a git tree of five commits shaped like the kernel's: the
# second changes a file the benchmark does not run, the third adds a nop
# to page_pool.c (one instruction per element more), the fourth does not
# build and the fifth changes documentation. The tree is never written.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

need_tools "git git" \
	"/usr/lib/python3/dist-packages/scipy/stats/__init__.py python3-scipy" \
	"/usr/lib/python3/dist-packages/matplotlib/__init__.py python3-matplotlib"
tmp=$(mktemp -d "$OUT/ab_git.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
linux=$tmp/linux
mkdir -p "$linux/net/core" "$linux/scripts/kconfig" "$linux/Documentation" \
	"$tmp/bin" "$tmp/jobs"

# The stand-in make: configuration targets make .config (olddefconfig
# drops CONFIG_ABSENT_*, options the tree lacks); a build fails on a tree
# with a BROKEN file, else writes a "kernel" of 72 instructions, one more
# per nop in page_pool.c, two fewer with PAGE_POOL_STATS=n, and logs
# "build" in FAKE_JOBS/calls
standin "$tmp/bin/make" <<'STANDIN'
while [ $# -gt 0 ]; do
	case $1 in
	-C) tree=$2; shift ;;
	O=*) kdir=${1#O=} ;;
	tinyconfig) touch "$kdir/.config"; exit 0 ;;
	olddefconfig) sed -i '/^CONFIG_ABSENT_/d' "$kdir/.config"; exit 0 ;;
	esac
	shift
done
echo build >>"$FAKE_JOBS/calls"
[ ! -e "$tree/BROKEN" ] || exit 2
mkdir -p "$kdir/arch/x86/boot" && : >"$kdir/arch/x86/boot/bzImage"
echo $((72 + $(grep -c nop "$tree/net/core/page_pool.c") -
	2 * $(grep -c '^CONFIG_PAGE_POOL_STATS=n' "$kdir/.config"))) >"$kdir/fake-insn"
STANDIN
# merge_config.sh -m -O DIR BASE FRAGMENT...: the fragments, merged (a
# later fragment's setting replaces an earlier one)
standin "$linux/scripts/kconfig/merge_config.sh" <<'STANDIN'
out=$3
shift 4
cat "$@" | tac | awk -F= '!seen[$1]++' | tac >"$out/.config"
STANDIN

seq -f 'line %g' 40 >"$linux/net/core/page_pool.c"
seq -f 'user %g' 10 >"$linux/net/core/page_pool_user.c"
echo docs >"$linux/Documentation/page_pool.rst"
g() { git -C "$linux" -c user.name=t -c user.email=t@t "$@"; }
commit() { g add -A && g commit -q -m "$1" && g rev-parse HEAD; }
g init -q
c1=$(commit "net: page_pool: the first")
echo 'user 11' >>"$linux/net/core/page_pool_user.c"
c2=$(commit "net: page_pool: netlink only")
sed -i '5a nop' "$linux/net/core/page_pool.c"
c3=$(commit "net: page_pool: one nop in the fast path")
touch "$linux/BROKEN"
c4=$(commit "net: page_pool: a commit that does not build")
rm "$linux/BROKEN" && echo more >>"$linux/Documentation/page_pool.rst"
c5=$(commit "docs: page_pool: more")
tree_sums() { (cd "$linux" && find . -type f -exec sha256sum {} + | sort); }
before=$(tree_sums)

# abgit CACHE ARG...: ab.sh --tree with the stand-ins, the cache CACHE
abgit()
{
	local cache=$1

	shift
	env PATH="$tmp/bin:$PATH" AB_VMTEST="$TESTS_DIR/ab/fake-vmtest" \
		FAKE_JOBS="$tmp/jobs" VMTEST_CACHE="$tmp/$cache" \
		VMTEST_KBUILD_LOCK="$tmp/kbuild.lock" "$REPO/ab/ab.sh" \
		--tree "$linux" -n 2 "$@"
}
builds() { grep -c build "$tmp/jobs/calls" 2>/dev/null; }
s() { cut -c1-9 <<<"$1"; }

# --range
expect_rc "--range: five commits, exit 0" 0 "$tmp/range.log" \
	abgit cache --range "$c1..$c5" -o "$tmp/range"
expect_grep "--range: no-softirq-page_pool01 is +1 slower at the nop's commit" \
	"$tmp/range/table.text" \
	'^no-softirq-page_pool01 +72\.00[0-9] +[-+]0\.00[0-9] +\+(0\.99[0-9]|1\.00[0-9])\* +no build +[-+]0\.00[0-9]$'
check "--range: ... and no other cell is marked" \
	test "$(grep -c '[0-9]\*' "$tmp/range/table.text")" -eq 1
expect_grep "--range: ... the nop's line names what moved" "$tmp/range/table.text" \
	"^$(s "$c3")[0-9a-f]* net: page_pool: one nop in the fast path: no-softirq-page_pool01 \+1\.00 slower"
expect_grep "--range: ... the commit that does not build is skipped" \
	"$tmp/range/table.text" "^$(s "$c4")[0-9a-f]* .*: does not build$"
check "--range: five builds, the fourth failing" \
	test "$(builds)" -eq 5
# shellcheck disable=SC2016 # the script reads its own arguments
check "--range: range.png is a PNG" bash -c \
	'[ "$(head -c 8 "$1" | od -An -tx1 | tr -d " ")" = 89504e470d0a1a0a ]' _ \
	"$tmp/range/range.png"
check "--range: range.svg is an SVG naming the commit that moved a figure" \
	grep -q "$(s "$c3" | cut -c1-7) net: page_pool: one nop" "$tmp/range/range.svg"
check "--range: the tree is as it was" test "$(tree_sums)" = "$before"

# The store
: >"$tmp/jobs/calls"
expect_rc "--range again, overlapping: exit 0" 0 "$tmp/again.log" \
	abgit cache --range "$c2..$c5" -o "$tmp/again"
check "--range again: nothing built" test "$(builds)" -eq 0
expect_rc "--report: exit 0" 0 "$tmp/report.log" \
	abgit cache --report "$c1..$c5" -o "$tmp/report"
check "--report: the same table" cmp -s "$tmp/range/table.text" "$tmp/report/table.text"
check "--report: nothing built" test "$(builds)" -eq 0
expect_rc "--report on a store without those commits: exit 2, not 0" 2 \
	"$tmp/report-empty.log" abgit empty --report "$c1..$c5" -o "$tmp/report-empty"
expect_grep "... saying why" "$tmp/report-empty.log" \
	'range.py: no commit of the range has boots in the store'

# --bisect, in a cache of its own
: >"$tmp/jobs/calls"
expect_rc "--bisect --test no-softirq-page_pool01: exit 0" 0 "$tmp/bisect.log" \
	abgit fresh --bisect "$c1..$c5" --test no-softirq-page_pool01 -o "$tmp/bisect"
expect_grep "--bisect: the nop's commit" "$tmp/bisect.log" \
	"^ab.sh: first commit that moves no-softirq-page_pool01: $c3 net: page_pool: one nop"
check "--bisect: in at most three builds" test "$(builds)" -le 3
expect_rc "--bisect, any test, from the store: exit 0" 0 "$tmp/bisect-any.log" \
	abgit fresh --bisect "$c1..$c5"
expect_grep "--bisect: ... any test, the same commit" "$tmp/bisect-any.log" \
	"^ab.sh: first commit that moves a test: $c3 "
expect_rc "--bisect over commits that move nothing: exit 0" 0 "$tmp/bisect-none.log" \
	abgit fresh --bisect "$c1..$c2"
expect_grep "--bisect: ... saying so" "$tmp/bisect-none.log" \
	"^ab.sh: no commit of $c1..$c2 moves any test$"

# --base/--change
expect_rc "--base/--change: exit 0" 0 "$tmp/pair.log" \
	abgit cache --base "$c2" --change "$c3"
expect_grep "--base/--change: the before/after table" "$tmp/pair.log" \
	'^no-softirq-page_pool01 +72\.00[0-9] +73\.00[0-9] .* slower( +[-+][0-9.]+)?$'

# --base REV --change PATCH: the base commit with the patch applied
g diff "$c2" "$c3" >"$tmp/nop.patch"
: >"$tmp/jobs/calls"
expect_rc "--base REV --change PATCH: exit 0" 0 "$tmp/patch.log" \
	abgit cache --base "$c1" --change "$tmp/nop.patch" -o "$tmp/patch"
expect_grep "--base REV --change PATCH: ... slower by the nop" "$tmp/patch/table.text" \
	'^no-softirq-page_pool01 +72\.00[0-9] +73\.00[0-9] .* slower( +[-+][0-9.]+)?$'
expect_grep "--base REV --change PATCH: ... what went in is listed" "$tmp/patch.log" \
	'^  0001 [0-9a-f]{12} nop\.patch$'
check "--base REV --change PATCH: one build, the base's from the store" \
	test "$(builds)" -eq 1
check "--base REV --change PATCH: the tree is as it was" test "$(tree_sums)" = "$before"

# --change-config: what an option costs on a commit
: >"$tmp/jobs/calls"
expect_rc "--base REV --change-config PAGE_POOL_STATS=n: exit 0" 0 "$tmp/cfg.log" \
	abgit cache --base "$c1" --change-config PAGE_POOL_STATS=n -o "$tmp/cfg"
expect_grep "--change-config: ... two instructions faster" "$tmp/cfg/table.text" \
	'^no-softirq-page_pool01 +72\.00[0-9] +70\.00[0-9] .* faster( +[-+][0-9.]+)?$'
expect_grep "--change-config: ... the build names the setting" "$tmp/cfg.log" \
	"^ab.sh: building $(s "$c1" | cut -c1-7)[0-9a-f]* net: page_pool: the first with CONFIG_PAGE_POOL_STATS=n$"
check "--change-config: one build, the base's from the store" test "$(builds)" -eq 1
: >"$tmp/jobs/calls"
expect_rc "--change-config again, then the base again: exit 0" 0 "$tmp/cfg2.log" \
	abgit cache --base "$c1" --change "$c2" --change-config PAGE_POOL_STATS=n
check "... one build, the other commit's with the setting" test "$(builds)" -eq 1
expect_rc "a plain build after one with a setting: exit 0" 0 "$tmp/plain.log" \
	abgit cache --base "$c2" --change "$tmp/nop.patch"
expect_grep "... is built without it" "$tmp/plain.log" \
	'^no-softirq-page_pool01 +72\.00[0-9] +73\.00[0-9] .* slower( +[-+][0-9.]+)?$'
expect_rc "--change-config with an option the tree lacks: exit 2" 2 "$tmp/absent.log" \
	abgit cache --base "$c1" --change-config ABSENT_OPTION=y
expect_grep "... saying it does not hold" "$tmp/absent.log" \
	'^ab.sh: CONFIG_ABSENT_OPTION=y does not hold in '

printf '%s\n' '--- a/net/core/page_pool.c' '+++ b/net/core/page_pool.c' \
	'@@ -1,2 +1,2 @@' ' no such line' '-nor this' '+x' >"$tmp/bad.patch"
printf '%s\n' '--- /dev/null' '+++ b/tools/testing/selftests/net/bench/x' \
	'@@ -0,0 +1 @@' '+x' >"$tmp/bench.patch"

# --attribute: per step, the functions that moved (the boots' profiles)
expect_rc "--range --attribute: exit 0" 0 "$tmp/attr.log" \
	abgit attr --range "$c1..$c3" --attribute -o "$tmp/attr"
expect_grep "--range --attribute: the nop's step names its function" \
	"$tmp/attr/table.text" '^no-softirq-page_pool01: page_pool_alloc_netmems \+1\.00$'
check "--range --attribute: ... after the step's commit" \
	test "$(grep -A1 "^step ${c3:0:7}" "$tmp/attr/table.text" | tail -n 1)" = \
	"no-softirq-page_pool01: page_pool_alloc_netmems +1.00"
expect_grep "--range --attribute: ... and the step that moved nothing says so" \
	"$tmp/attr/table.text" '^no function moved by 0\.05 insn/elem or more$'
check "--range --attribute: one boot a commit decides every row (3 jobs)" \
	test "$(cat "$tmp/attr"/*.job | wc -l)" -eq 3
: >"$tmp/jobs/calls"
expect_rc "--range --attribute again: exit 0" 0 "$tmp/attr2.log" \
	abgit attr --range "$c1..$c3" --attribute -o "$tmp/attr2"
check "--range --attribute again: nothing built" test "$(builds)" -eq 0
expect_rc "--base/--change --attribute: exit 0" 0 "$tmp/attr3.log" \
	abgit attr --base "$c2" --change "$c3" --attribute -o "$tmp/attr3"
expect_grep "--base/--change --attribute: ... a table of model cycles" \
	"$tmp/attr3/table.text" '^no-softirq-page_pool01:model +18\.250 +18\.250 '
# A task switch in a boot's chunks: a boot more of both commits, each
# built again where the other's kernel is in the build directory
: >"$tmp/jobs/calls"
FAKE_SWITCH=1 expect_rc "--base/--change --attribute, a task switch: exit 0" 0 \
	"$tmp/switch.log" abgit switch --base "$c2" --change "$c3" --attribute -o "$tmp/switch"
expect_grep "... one boot more of both" "$tmp/switch.log" \
	"^ab.sh: a row is unknown after 1 boot\(s\) a commit: one more for $(s "$c2")"
check "... 4 jobs, 4 builds" \
	test "$(cat "$tmp/switch"/*.job | wc -l) $(builds)" = "4 4"
expect_grep "... and the nop reads slower" "$tmp/switch/table.text" \
	'^no-softirq-page_pool01 +72\.00[0-9] +73\.00[0-9] .* slower'

# Bad input: one line, exit 2, nothing built
: >"$tmp/jobs/calls"
mkdir -p "$tmp/plain"
for case in "not a git tree:--tree $tmp/plain --range a..b" \
	    "is no commit:--range $c1..nope" \
	    "no commits:--range $c3..$c3" \
	    "no test of the benchmark is named:--bisect $c1..$c5 --test nope" \
	    "needs A..B:--range $c1" \
	    "--base REV and --change REV:--base $c1" \
	    "does not apply:--base $c1 --change $tmp/bad.patch" \
	    "change the benchmark:--base $c1 --change $tmp/bench.patch" \
	    "takes A..B, not --base, --change or config settings:--range $c1..$c3 --change $tmp/nop.patch" \
	    "a config setting is OPTION=:--base $c1 --change-config nonsense" \
	    "nothing to compare:--base $c1 --change $c1"; do
	read -ra args <<<"${case#*:}"
	expect_rc "bad input, ${case%%:*}: exit 2" 2 "$tmp/bad.log" abgit cache "${args[@]}"
	expect_grep "... one line saying so" "$tmp/bad.log" "^ab.sh: .*${case%%:*}"
done
check "bad input: nothing built" test "$(builds)" -eq 0
check "the tree is as it was" test "$(tree_sums)" = "$before"
echo dirty >>"$linux/Documentation/page_pool.rst"
expect_rc "a tree with uncommitted changes: measured all the same, exit 0" 0 \
	"$tmp/dirty.log" abgit cache --report "$c1..$c5"
expect_grep "... saying they are not measured" "$tmp/dirty.log" \
	'uncommitted changes: not measured'

tests_done ab_git
