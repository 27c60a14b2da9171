#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series as patches: from a fresh clone, series/export.sh writes the
# format-patch files against the runner's pristine 7.x source; they apply
# with 'git am' (series/apply.sh) to a git repository made from that
# source; checkpatch.pl --strict finds nothing in a patch that its notes
# do not explain; the applied tree's series paths are what the runner's
# lay-over makes of the project's files; get_maintainer.pl names the
# page_pool, virtio and kselftest maintainers. No kernel is built.

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
expect_rc "export.sh writes the series from the fresh clone" 0 \
	"$work/export.log" "$clone/series/export.sh" "$out" --tree "$ksrc" ||
	{ tests_done series; exit; }
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
# (git format-patch pads the numbers: 00/10 from ten patches on)
expect_grep "the cover letter is [PATCH net-next 0/$n]" "$cover" \
	"^Subject: \[PATCH net-next 0+/$n\] [a-z]"
expect_no_grep "the cover letter's template is filled" "$cover" \
	'\*\*\*|@[A-Z]+@'
expect_grep "the cover letter has a diffstat" "$cover" \
	'^ [0-9]+ files changed, '
expect_grep "the cover letter names the base's version" "$cover" \
	'^Base: Linux 7\.[0-9]+\.[0-9]+'
expect_no_grep "no invented base-commit" "$cover" '^base-commit:'
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
