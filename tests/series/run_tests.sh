#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series as patches: from a fresh clone, series/export.sh writes the
# format-patch files against the runner's pristine 7.x source; they apply
# with 'git am' (series/apply.sh) to a git repository made from that
# source; checkpatch.pl --strict finds nothing in a patch that its notes
# do not explain; the applied tree's series paths are what the runner's
# lay-over makes of the project's files; get_maintainer.pl names the
# page_pool, virtio and kselftest maintainers, and each patch is addressed
# to them; NIPA's patch checks (series/nipa.py) pass or are explained in
# the patch's notes; the cover letter's results table comes from runner
# jobs (canned here); series.py key follows the series, not the tooling.
# No kernel is built.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Only unpacks the newest Debian source (cached); builds nothing.
ksrc=$("$VMTEST" -t current --stop-after fetch 2>>"$OUT/prepare.log" |
       sed -n 's/^current src=\([^ ]*\).*/\1/p')
if [ -z "$ksrc" ] || [ ! -f "$ksrc/MAINTAINERS" ]; then
	not_ok "the runner's 7.x source is there" "see $OUT/prepare.log"
	tests_done series
	exit
fi

# A fresh clone, under an identity of its own: the sign-offs must be
# the exporting user's, not a name written into the series.
clone=$work/clone
check "the repository clones" git clone -q "$REPO" "$clone"
git -C "$clone" config user.name "Series Tester"
git -C "$clone" config user.email "series-tester@example.org"
sob='Signed-off-by: Series Tester <series-tester@example.org>'

out=$work/out
expect_rc "export.sh --maintainers writes the series from the fresh clone" 0 \
	"$work/export.log" "$clone/series/export.sh" "$out" --tree "$ksrc" \
	--maintainers || { tests_done series; exit; }
mapfile -t patches < <(find "$out" -name '[0-9][0-9][0-9][0-9]-*.patch' \
		       ! -name '0000-*' | sort)
n=${#patches[@]}
cover=$out/0000-cover-letter.patch

check "there is a cover letter" test -s "$cover"
if [ "$n" -ge 1 ] && [ "$n" -le 15 ]; then
	ok "$n patches, within netdev's 15"
else
	not_ok "1 to 15 patches" "$n patches"
fi

# Subjects: numbered net-next patches, in upstream's prefixes.
bad=$(for p in "${patches[@]}"; do
	s=$(sed -n 's/^Subject: //p' "$p" | head -n 1)
	[[ $s =~ ^\[PATCH\ net-next\ [0-9]+/$n\]\ (selftests:\ (pp-bench|ptr_ring):\ |tools/virtio:\ ringtest:\ |Documentation:\ networking:\ ) ]] ||
		echo "${p##*/}: $s"
done)
if [ -z "$bad" ]; then
	ok "subjects: [PATCH net-next N/$n] and upstream's prefixes"
else
	not_ok "subjects: [PATCH net-next N/$n] and upstream's prefixes" "$bad"
fi
# (git pads the numbers of ten or more patches: 00/13)
expect_grep "the cover letter is [PATCH net-next 0/$n]" "$cover" \
	"^Subject: \[PATCH net-next 0+/$n\] [a-z]"
expect_no_grep "the cover letter's template is filled" "$cover" \
	'\*\*\*|@[A-Z]+@'
expect_grep "the cover letter has a diffstat" "$cover" \
	'^ [0-9]+ files changed, '
expect_grep "the cover letter names the base's version" "$cover" \
	'^Base: Linux 7\.[0-9]+\.[0-9]+'
expect_no_grep "no invented base-commit" "$cover" '^base-commit:'
expect_grep "without --results the table says how to fill it" "$cover" \
	'^\(no run given: export with --results JOB'

# The results table from canned runner jobs: one TCG run of the current
# target (a pass, a skip, a failure), one -icount run of another kernel.
job()
{
	local dir=$work/jobs/$1

	mkdir -p "$dir/ktap"
	echo "target=$1 result=$2 rc=0 seconds=60 accel=$3 job=$dir" >"$dir/result"
	printf '[    0.5] booting\nvmtest-guest: %s, 3 CPUs, running %s/job.sh\n' \
		"$4" "$dir" >"$dir/console.log"
	shift 4
	printf '%s\n' 'TAP version 13' '1..2' \
		'# selftests: net/bench: test_bench_page_pool.sh' '# 1..3' "$@" \
		'ok 1 selftests: net/bench: test_bench_page_pool.sh' \
		'# selftests: ptr_ring: ptr_ring_test' '# ok 1 single # perf=42.500ns' \
		'ok 2 selftests: ptr_ring: ptr_ring_test' >"$dir/ktap/install.tap"
}
job current fail tcg 7.2.13 '# ok 1 for_loop # perf=5.240ns' \
	'# ok 2 lock # SKIP no lock' '# not ok 3 cross_cpu_return'
job distro pass icount 6.12.57+deb13-amd64 '# # environment: counter:tsc preempt:lazy' \
	'# # environment: mode:deterministic' '# ok 1 for_loop # perf=12.000instructions' \
	'# ok 2 lock # perf=50.000instructions' '# ok 3 cross_cpu_return # perf=99.000instructions'
expect_rc "export.sh --results: two runner jobs" 0 "$work/results.log" \
	"$clone/series/export.sh" "$work/res" --tree "$ksrc" \
	--results "$work/jobs/current" --results "$work/jobs/distro"
table=$(sed -n '/^Results/,/^Reproduce/p' "$work/res/0000-cover-letter.patch")
want=$(cat <<'TABLE'
  current: Linux 7.2.13, 3 vCPUs, run: fail
    QEMU TCG emulation: emulated time, not hardware figures
  distro: Linux 6.12.57+deb13-amd64, 3 vCPUs, run: pass
    QEMU TCG -icount: instructions, deterministic, not time

  test                         current              distro
  net/bench for_loop           5.240ns  12.000instructions
  net/bench lock                  skip  50.000instructions
  net/bench cross_cpu_return      fail  99.000instructions
  ptr_ring single             42.500ns            42.500ns
TABLE
)
if [[ $table == *"$want"* ]]; then
	ok "the table: a run's kernel and mode, a row per subtest, its figure per run"
else
	not_ok "the table: a run's kernel and mode, a row per subtest, its figure per run" \
		"$table"
fi
# --before: upstream's module in a deterministic boot, its Type: lines
# on the console; the figure is tsc_interval over the invoke count.
up=$work/jobs/upstream
mkdir -p "$up"
echo "target=current result=pass rc=0 seconds=60 accel=icount job=$up" >"$up/result"
printf '%s\n' "vmtest-guest: 7.2.13, 3 CPUs, running $up/job.sh" \
	'[   20.5] Type:for_loop Per elem: 12 cycles(tsc) 12.345 ns (step:0) - (measurement period time:1.234500000 sec time_interval:1234500000) - (invoke count:100000000 tsc_interval:1234567890)' \
	'[   30.5] Type:lock Per elem: 49 cycles(tsc) 49.990 ns (step:0) - (measurement period time:0.499900000 sec time_interval:499900000) - (invoke count:10000000 tsc_interval:499912345)' \
	>"$up/console.log"
expect_rc "export.sh --before JOB --results JOB: upstream's column first" 0 \
	"$work/results.log" "$clone/series/export.sh" "$work/res3" --tree "$ksrc" \
	--before "$up" --results "$work/jobs/distro"
table=$(sed -n '/^Results/,/^Reproduce/p' "$work/res3/0000-cover-letter.patch")
want=$(cat <<'TABLE'
  upstream: Linux 7.2.13, 3 vCPUs, run: pass
    QEMU TCG -icount: instructions, deterministic, not time
  distro: Linux 6.12.57+deb13-amd64, 3 vCPUs, run: pass
    QEMU TCG -icount: instructions, deterministic, not time

  test                          upstream              distro
  net/bench for_loop          12.346insn  12.000instructions
  net/bench lock              49.991insn  50.000instructions
  net/bench cross_cpu_return           -  99.000instructions
  ptr_ring single                      -            42.500ns

Units: insn, instructions per element (net/bench) or item (ptr_ring)
under QEMU -icount, whose TSC counts instructions; ns, nanoseconds (QEMU's
virtual time under -icount).

Environment of upstream:
  Linux 7.2.13's own bench_page_pool.ko, loaded once with its defaults

Environment of distro (its "# environment:" lines, the module's "run env"
first):
  counter:tsc preempt:lazy
  mode:deterministic
TABLE
)
if [[ $table == *"$want"* ]]; then
	ok "the table: upstream's figures per element from its Type: lines, each run's environment"
else
	not_ok "the table: upstream's figures per element from its Type: lines, each run's environment" \
		"$table"
fi
rm "$work/jobs/distro/result"
expect_rc "export.sh --results: a job that did not finish is refused" 1 \
	"$work/results.log" "$clone/series/export.sh" "$work/res2" --tree "$ksrc" \
	--results "$work/jobs/distro"
expect_grep "and the job is named" "$work/results.log" \
	"results.py: $work/jobs/distro: no result of a finished run"

# The runner exports once per key: it follows what the patches are made
# of, not the tooling.
key=$(python3 "$clone/series/series.py" key)
echo '/* changed */' >>"$clone/tools/testing/selftests/ptr_ring/ptr_ring_test.c"
check "series.py key follows a series file" \
	test "$key" != "$(python3 "$clone/series/series.py" key)"
git -C "$clone" checkout -q -- tools
echo changed >>"$clone/README.md"
check "series.py key ignores the tooling (README.md)" \
	test "$key" = "$(python3 "$clone/series/series.py" key)"
git -C "$clone" checkout -q -- README.md

# A patch must not take an earlier patch's work back out: 0065 without
# the Step of the merge that put the cross-CPU driver on top of 0052-0056's
x=$clone/series/0065-cross-cpu-concurrent.txt
sed -i "/^\tMerge branch 'wt-xcpu'/d" "$x"
expect_rc "series.py check refuses a patch that undoes an earlier one's work" 1 \
	"$work/lost.log" python3 "$clone/series/series.py" check "$ksrc"
expect_grep "and says which file and which patch" "$work/lost.log" \
	'^0065-[^ ]*: tools/testing/selftests/net/bench/test_bench_page_pool\.sh as .* lacks .*0056-'
git -C "$clone" checkout -q -- series
# A picked Step whose change does not apply (here: a second time) stops
# the export
pick=$(grep '^.picked: .*cross-CPU rows check their path' "$x")
echo "$pick" >>"$x"
expect_rc "export.sh stops at a picked Step that does not apply" 1 \
	"$work/picked.log" "$clone/series/export.sh" "$work/picked" --tree "$ksrc"
expect_grep "saying which" "$work/picked.log" \
	'^series: 0065-[^ ]*: the change of [0-9a-f]+ to .*bench_page_pool_simple\.c does not apply'
git -C "$clone" checkout -q -- series
missing=$(for p in "${patches[@]}"; do
	grep -qxF "$sob" "$p" || echo "${p##*/}"
done)
if [ -z "$missing" ]; then
	ok "every patch is signed off by the exporting user"
else
	not_ok "every patch is signed off by the exporting user" "$missing"
fi
grep -h '^Signed-off-by:' "${patches[@]}" | grep -vxF "$sob" >"$work/other-sob"
expect_no_grep "no patch signs off a person written into the series" \
	"$work/other-sob" '.'

# A git repository of the pristine source: a hard-link copy (GNU patch
# and git write files anew, so the cache is never written through).
linux=$work/linux
cp -al "$ksrc" "$linux"
git -C "$linux" init -q
git -C "$linux" config user.name "Series Tester"
git -C "$linux" config user.email "series-tester@example.org"
git -C "$linux" add -A -f . && git -C "$linux" commit -q -m base
base=$(git -C "$linux" rev-parse HEAD)
expect_rc "git am applies the series to the pristine tree (apply.sh)" 0 \
	"$work/apply.log" "$clone/series/apply.sh" "$linux" --patches "$out"
applied=$(git -C "$linux" rev-list --count "$base..HEAD")
check "git am made one commit per patch ($applied of $n)" test "$applied" -eq "$n"
check "the work tree is clean after git am" \
	test -z "$(git -C "$linux" status --porcelain)"

# The applied tree's series paths are what the runner lays over a copy
# of the same source (same merges of MAINTAINERS, TARGETS, toctree).
lay=$work/lay
cp -al "$ksrc" "$lay"
python3 "$REPO/vmtest/lib/lay_series.py" --series "$clone" --farm "$lay" >/dev/null
diffs=$(python3 "$clone/series/series.py" paths | while read -r f; do
	if ! cmp -s "$linux/$f" "$lay/$f"; then
		echo "$f differs"
	elif [ "$(stat -c %a "$linux/$f")" != "$(stat -c %a "$lay/$f")" ]; then
		echo "$f: mode differs"
	fi
done)
if [ -z "$diffs" ]; then
	ok "after the last patch the series paths equal the project's files"
else
	not_ok "after the last patch the series paths equal the project's files" "$diffs"
fi

# checkpatch --strict: nothing, or each finding's message is in that
# patch's notes below the '---' (format-patch prints them there).
for p in "${patches[@]}"; do
	name=${p##*/}
	findings=$(cd "$linux" && perl scripts/checkpatch.pl --strict -q \
		   --no-summary "$p" 2>&1 | sed -n 's/^\(ERROR\|WARNING\|CHECK\): //p')
	notes=$(sed -n '/^---$/,/^diff --git/p' "$p" | tr -s ' \n\t' ' ')
	unexplained=$(while IFS= read -r f; do
		[ -n "$f" ] || continue
		[[ $notes == *"$f"* ]] || echo "$f"
	done <<<"$findings")
	if [ -z "$unexplained" ]; then
		ok "checkpatch --strict $name: $(grep -c . <<<"$findings") findings, all explained in its notes"
	else
		not_ok "checkpatch --strict $name: findings explained" "$unexplained"
	fi
done

# get_maintainer.pl, in the applied tree (its MAINTAINERS has the
# series' entries): the lists and maintainers of what each patch touches.
for p in "${patches[@]}"; do
	name=${p##*/}
	files=$(sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$p")
	want=()
	grep -q '^tools/testing/selftests/' <<<"$files" &&
		want+=(shuah@kernel.org linux-kselftest@vger.kernel.org)
	grep -qE '^tools/virtio/|^tools/testing/selftests/ptr_ring/' <<<"$files" &&
		want+=(mst@redhat.com virtualization@lists.linux.dev)
	grep -qE '^tools/testing/selftests/net/bench/|page_pool' <<<"$files" &&
		want+=(hawk@kernel.org netdev@vger.kernel.org)
	got=$(cd "$linux" && perl scripts/get_maintainer.pl --no-git \
	      --no-git-fallback --no-rolestats "$p" 2>&1)
	lack=$(for w in "${want[@]}"; do grep -qF "$w" <<<"$got" || echo "$w"; done)
	if [ ${#want[@]} -gt 0 ] && [ -z "$lack" ]; then
		ok "get_maintainer $name names ${want[*]}"
	else
		not_ok "get_maintainer $name names the maintainers" \
			"missing: ${lack:-nothing expected}" "$got"
	fi
done

# --maintainers: each patch goes to its maintainers and to netdev (whose
# patchwork must see the whole series), the cover letter to everyone.
unaddressed=$(for p in "$cover" "${patches[@]}"; do
	head=$(sed '/^$/q' "$p")
	grep -q '^To: ' <<<"$head" && grep -q 'netdev@vger\.kernel\.org' <<<"$head" ||
		echo "${p##*/}"
done)
if [ -z "$unaddressed" ]; then
	ok "every patch and the cover letter have To:, netdev among the addresses"
else
	not_ok "every patch and the cover letter have To:, netdev among the addresses" \
		"$unaddressed"
fi
check "the cover letter goes to the page_pool and virtio maintainers" \
	grep -qE '(Jesper Dangaard Brouer <hawk|"Michael S. Tsirkin" <mst)@' "$cover"

# NIPA's patch checks (series/nipa.py) on each patch in the tree as git
# am left it: one line per patch and check, a finding passing only when
# the patch's notes quote it. First, that its rules catch what NIPA's do.
rules=$(python3 - "$clone/series" "$work/nomail" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import nipa
with open(sys.argv[2], 'w', encoding='utf-8') as f:
    f.write('From: Series Tester <series-tester@example.org>\n\nbody\n')
print(bool(nipa.makefile_errors('TEST_FILES := a.py b.py\n')),
      nipa.makefile_errors('TEST_FILES := \\\n\ta.py \\\n\tb.py \\\n'
                           '# end of TEST_FILES\n'),
      bool(nipa.makefile_errors('TEST_PROGS := \\\n\tb.sh \\\n\ta.sh \\\n'
                                '# end of TEST_PROGS\n')),
      nipa.cc_maintainers(sys.argv[2], 'A <a@example.org> (maintainer:X)\n'
                          'netdev@vger.kernel.org (open list:X)\n').level)
PY
)
check "nipa.py's rules: two values on a line, unsorted items are bad formats, netdev's is good; maintainers not in To:/Cc: fail" \
	test "$rules" = "True [] True fail"
if ensure_ruff; then
	echo "# $(ruff --version), $(pylint --version | head -n 1), shellcheck $(shellcheck --version | sed -n 's/^version: //p')"
	start=$(date +%s)
	python3 "$clone/series/nipa.py" "$linux" "$out" >"$work/nipa.log" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		'ok - '*) ok "nipa: ${line#ok - }" ;;
		'not ok - '*) not_ok "nipa: ${line#not ok - }" ;;
		*) echo "# $line" ;;
		esac
	done <"$work/nipa.log"
	echo "# nipa.py took $(($(date +%s) - start)) s"
	check "nipa.py exits 0 (it exited $rc)" test "$rc" -eq 0
else
	not_ok "ruff is available for NIPA's checks" "see $OUT/ruff-download.log"
fi

# Every step builds what needs no kernel: ringtest's ptr_ring (from the
# patch that fixes it on), the ptr_ring selftest, the Python helper and
# the driver's syntax. The module's per-step build needs a built kernel
# (the on-request tier).
branch=$(git -C "$linux" symbolic-ref --short HEAD)
i=0
for c in $(git -C "$linux" rev-list --reverse "$base..HEAD"); do
	i=$((i + 1))
	git -C "$linux" checkout -q "$c"
	fails=()
	rt=$linux/tools/virtio/ringtest
	if [ -f "$rt/ptr_ring_shim.h" ] || git -C "$linux" log -1 --format=%s |
	   grep -q 'ringtest: fix the ptr_ring build'; then
		make -s -C "$rt" ptr_ring >"$work/step.log" 2>&1 || fails+=("ringtest ptr_ring")
	fi
	if [ -f "$linux/tools/testing/selftests/ptr_ring/Makefile" ]; then
		make -s -C "$linux/tools/testing/selftests/ptr_ring" >>"$work/step.log" 2>&1 ||
			fails+=("ptr_ring_test")
	fi
	b=$linux/tools/testing/selftests/net/bench
	if [ -f "$b/bench_compare.py" ]; then
		python3 -m py_compile "$b/bench_compare.py" 2>>"$work/step.log" ||
			fails+=("bench_compare.py")
	fi
	bash -n "$b/test_bench_page_pool.sh" 2>>"$work/step.log" || fails+=("driver syntax")
	git -C "$linux" clean -fdxq -- tools >/dev/null
	if [ ${#fails[@]} -eq 0 ]; then
		ok "after patch $i the userspace parts build"
	else
		not_ok "after patch $i the userspace parts build" "${fails[*]}" \
			"$(tail -n 20 "$work/step.log")"
	fi
done
git -C "$linux" checkout -q "$branch"

tests_done series
