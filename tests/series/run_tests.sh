#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series tooling (series/), no kernel built. A synthetic series from
# the pinned base, in a copy of the tooling: import/export round-trip
# byte for byte; check passes, and fails naming what drifted or undoes an
# earlier patch's line; send refuses a reserved identity and stamps the
# sender's. The real series: check passes; each patch's userspace parts
# build and pass; NIPA's checks pass but for excused ones; send
# --maintainers addresses every patch.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

work=$(mktemp -d)
# The farm of hard links beside the source, in the cache (/tmp may be a tmpfs)
mkdir -p "$VMTEST_CACHE"
farm=$(mktemp -d "$VMTEST_CACHE/series-farm.XXXXXX")
trap 'rm -rf "$work" "$farm"' EXIT

# Only unpacks the pinned Debian source (cached); builds nothing.
ksrc=$(pinned_source)
[ -f "$ksrc/MAINTAINERS" ] ||
	"$VMTEST" -t current --stop-after fetch >>"$OUT/prepare.log" 2>&1
if [ ! -f "$ksrc/MAINTAINERS" ]; then
	not_ok "the pinned 7.x source is there ($ksrc)" "see $OUT/prepare.log"
	tests_done series
	exit
fi
export SERIES_BASE=$ksrc

# NIPA's tools, from Debian: shellcheck, codespell (checkpatch.pl
# --codespell) and ply (its spdxcheck.py) for Debian's python3; requests,
# which NIPA's core imports (its pylint and ruff tests skip: the series
# has no Python).
need_tools "shellcheck shellcheck" \
	"/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt codespell" \
	"/usr/lib/python3/dist-packages/ply/__init__.py python3-ply" \
	"/usr/lib/python3/dist-packages/requests/__init__.py python3-requests"

# ---- the pin ---------------------------------------------------------------
# A pinned version Debian dropped: exit 2, naming the newest and the
# command that moves the pin; update-lock.sh moves it.
printf '# test\nlinux-source-7.3 7.3.0-0\n' >"$work/lock"
SOURCES_LOCK=$work/lock "$VMTEST" -t current --stop-after fetch >"$work/pin.log" 2>&1
check "a pinned version gone from Debian's index: exit 2" test $? -eq 2
expect_grep "naming the newest and the command that moves the pin" "$work/pin.log" \
	'linux-source-7.3 7.3.0-0 .* is gone from Debian.s index; the newest is linux-source-[0-9.]+ [^ ]+: run vmtest/update-lock.sh'
newest=$(sed -n 's/.*the newest is \(linux-source-[^ ]* [^:]*\): run .*/\1/p' "$work/pin.log")
SOURCES_LOCK=$work/lock "$REPO/vmtest/update-lock.sh" >"$work/lock.log" 2>&1
check "update-lock.sh moves the pin to it ($newest), comments kept" \
	test "$(cat "$work/lock")" = "$(printf '# test\n%s' "$newest")"
read -r pkg ver < <(basename "$ksrc" | sed 's/^\(linux-source-[0-9.]*\)-/\1 /')
for cover in "$REPO"/series/{virtio,net-next}/0000-cover-letter.patch; do
	check "$(basename "$(dirname "$cover")")'s cover letter names the base the lock pins ($pkg $ver)" \
		grep -qF "$pkg $ver" <(tr '\n' ' ' <"$cover")
done

# ---- a synthetic series, in a copy of the series tooling -------------
# proj: series.sh, series_files.py and record.sh/.py, with project files made
# from the base: virtio changes ringtest's Makefile, net-next adds a file
# and a MAINTAINERS line.
proj=$work/proj
mkdir -p "$proj/series" "$proj/vmtest/lib"
cp "$REPO/series/series.sh" "$REPO/series/recipients.py" "$proj/series/"
cp "$REPO/vmtest/lib/series_files.py" "$REPO/vmtest/lib/record.sh" \
	"$REPO/vmtest/lib/record.py" "$REPO/vmtest/lib/patch.sh" "$proj/vmtest/lib/"
git -C "$proj" init -q
git -C "$proj" config user.name "Project Identity"
git -C "$proj" config user.email "project@users.noreply.example"
# The project carries ringtest's Makefile (as upstream has it, so far).
mkdir -p "$proj/tools/virtio/ringtest"
cp "$ksrc/tools/virtio/ringtest/Makefile" "$proj/tools/virtio/ringtest/"
ss=$proj/series/series.sh
sv=$work/v
sn=$work/n
expect_rc "import of a series with no patches yet: the base alone" 0 \
	"$work/import0.log" "$ss" import virtio "$sv"
check "the base is one commit, tagged base" \
	test "$(git -C "$sv" rev-list --count HEAD)" = 1 -a \
	"$(git -C "$sv" rev-parse HEAD)" = "$(git -C "$sv" rev-parse base)"
check "the base has what the tools need (checkpatch.pl, get_maintainer.pl, MAINTAINERS)" \
	test -f "$sv/scripts/checkpatch.pl" -a -f "$sv/scripts/get_maintainer.pl" \
	-a -f "$sv/MAINTAINERS"
echo '# a synthetic change' >>"$sv/tools/virtio/ringtest/Makefile"
git -C "$sv" commit -qs -am 'ringtest: a synthetic change'
git -C "$sv" notes add -m 'NIPA: checkpatch: a synthetic note' HEAD
"$ss" import net-next "$sn" >/dev/null
mkdir -p "$sn/tools/testing/selftests/net/bench"
printf 'one\ntwo\n' >"$sn/tools/testing/selftests/net/bench/synthetic.txt"
git -C "$sn" add -A && git -C "$sn" commit -qs -m 'selftests: net: bench: a synthetic file'
sed -i 's|^F:\tnet/core/page_pool.c$|&\nF:\ttools/testing/selftests/net/bench/synthetic.txt|' \
	"$sn/MAINTAINERS"
printf 'three\n' >>"$sn/tools/testing/selftests/net/bench/synthetic.txt"
git -C "$sn" commit -qs -am 'selftests: net: bench: a line more, and its maintainers'
expect_rc "export virtio" 0 "$work/export-v.log" "$ss" export virtio "$sv"
expect_rc "export net-next" 0 "$work/export-n.log" "$ss" export net-next "$sn"
check "export writes a cover letter and the patches" \
	test -f "$proj/series/virtio/0000-cover-letter.patch" -a \
	"$(find "$proj/series/net-next" -name '000[12]-*.patch' | wc -l)" = 2
check "export copies the resulting files into the project" \
	cmp "$sn/tools/testing/selftests/net/bench/synthetic.txt" \
	"$proj/tools/testing/selftests/net/bench/synthetic.txt"
check "export copies ringtest's Makefile as virtio leaves it" \
	cmp "$sv/tools/virtio/ringtest/Makefile" "$proj/tools/virtio/ringtest/Makefile"
check "MAINTAINERS in the project: only the added entry line" \
	diff "$proj/MAINTAINERS" - <<-'EOF'
	PAGE POOL
	F:	tools/testing/selftests/net/bench/synthetic.txt
	EOF
check "the note survives below the ---" \
	grep -qx '    NIPA: checkpatch: a synthetic note' "$proj/series/virtio/0001-"*.patch
# The cover letter's subject and text, written once, are kept.
sed -i 's/\*\*\* SUBJECT HERE \*\*\*/synthetic subject/; s/\*\*\* BLURB HERE \*\*\*/Synthetic text./' \
	"$proj/series/net-next/0000-cover-letter.patch"
git -C "$proj" add -A && git -C "$proj" commit -qm synthetic
cp -a "$proj" "$work/proj.before"
rm -rf "$sn"
"$ss" import net-next "$sn" >/dev/null && "$ss" import virtio "$sv.2" >/dev/null &&
	"$ss" export net-next "$sn" >/dev/null && "$ss" export virtio "$sv.2" >/dev/null
check "import then export gives the same files, byte for byte (cover letter kept)" \
	diff -r -x .git "$work/proj.before" "$proj"
check "the imported commits carry the notes" \
	git -C "$sv.2" notes show HEAD
expect_rc "check passes on the synthetic series" 0 "$work/check.log" "$ss" check
expect_grep "check: both series in order" "$work/check.log" \
	'^ok - series/net-next: every patch applies in order after virtio'
expect_grep "check prints net-next's diffstat" "$work/check.log" \
	'^#  +2 files changed, 4 insertions'

# export_change DIR SUBJECT: DIR's change committed and exported.
export_change()
{
	git -C "$1" add -A && git -C "$1" commit -qs -m "$2" &&
		"$ss" export net-next "$1" >/dev/null
}

# refused WHAT LOG NAMING REGEX: check fails and names what; the
# project's files are restored.
refused()
{
	expect_rc "check fails $1" 1 "$work/$2" "$ss" check
	expect_grep "and names $3" "$work/$2" "$4"
	git -C "$proj" checkout -q -- . && git -C "$proj" clean -qfd
}

# A project file that drifted from the patches.
echo drift >>"$proj/tools/testing/selftests/net/bench/synthetic.txt"
refused "on a drifted project file" drift.log "the file's difference" \
	'^# \+\+\+ tools/testing/selftests/net/bench/synthetic.txt \(project\)'
printf 'F:\tdrifted/\n' >>"$proj/MAINTAINERS"
refused "on a MAINTAINERS entry no patch adds" drift.log "the entry line" '^# \+F:	drifted/'

# A later patch undoing an earlier one's line.
"$ss" import net-next "$work/u" >/dev/null
sed -i '/^two$/d' "$work/u/tools/testing/selftests/net/bench/synthetic.txt"
export_change "$work/u" 'selftests: net: bench: two goes again'
refused "when a later patch removes an earlier one's line" undo.log \
	"both patches, the file and the line" \
	'^# patch 3 removes or rewrites a line patch 1 added: tools/testing/selftests/net/bench/synthetic.txt:2\) two'

# A new selftest directory that no TARGETS line names.
"$ss" import net-next "$work/t" >/dev/null
mkdir -p "$work/t/tools/testing/selftests/synthetic"
echo 'include ../lib.mk' >"$work/t/tools/testing/selftests/synthetic/Makefile"
export_change "$work/t" 'selftests: a synthetic target'
refused "on a selftest directory no TARGETS line names" targets.log \
	"the missing line" "^# tools/testing/selftests/Makefile: no 'TARGETS \\+= synthetic'"

# Identity: the project's is in a reserved domain; send refuses it.
expect_rc "send refuses an identity in a reserved domain: exit 2" 2 \
	"$work/send.log" "$ss" send net-next "$work/post"
expect_grep "and says how to set one" "$work/send.log" 'git -C .* config user.email'
GIT_COMMITTER_NAME='Jane Developer' GIT_COMMITTER_EMAIL=jane@kernel.org \
	"$ss" send net-next "$work/post" >"$work/send.log" 2>&1
check "send stamps From: and Signed-off-by: with the sender's identity" \
	test "$(grep -lx 'From: Jane Developer <jane@kernel.org>' "$work/post/"*.patch | wc -l)" = 3 -a \
	"$(grep -lx 'Signed-off-by: Jane Developer <jane@kernel.org>' "$work/post/"*.patch | wc -l)" = 2
check "the committed patch files keep the project's identity" \
	diff -r -x .git "$work/proj.before/series" "$proj/series"

# ---- the real series ---------------------------------------------------
expect_rc "series.sh check on the project" 0 "$work/real.log" "$REPO/series/series.sh" check
grep -E '^(not )?ok - |^#' "$work/real.log" | sed 's/^\(not \)\?ok - /&real: /'

# Each patch's userspace parts build: ringtest's ptr_ring, the ptr_ring
# selftest, the driver's syntax (hard links of the whole source; patch
# -p1 writes new files).
cp -al "$ksrc/." "$farm/"
mapfile -t patches < <(python3 "$REPO/vmtest/lib/series_files.py" --series "$REPO" --patches)
for p in "${patches[@]}"; do
	name=${p#"$REPO"/series/}
	if ! apply_patch "$farm" "$p" >"$work/step.log" 2>&1; then
		not_ok "$name applies to the farm" "$(cat "$work/step.log")"
		break
	fi
	fails=()
	rt=$farm/tools/virtio/ringtest
	st=$farm/tools/testing/selftests/ptr_ring
	: >"$work/step.log"
	if [ -f "$rt/ptr_ring_shim.h" ]; then
		make -s -C "$rt" ptr_ring >>"$work/step.log" 2>&1 &&
			timeout 60 "$rt/ptr_ring" --run-cycles 1000000 >/dev/null 2>&1 ||
			fails+=("ringtest ptr_ring")
	fi
	if [ -f "$st/Makefile" ]; then
		make -s -C "$st" >>"$work/step.log" 2>&1 || fails+=("ptr_ring selftests")
		# each patch's programs pass on their own, quickly
		[ ! -x "$st/ptr_ring_check" ] || timeout 120 "$st/ptr_ring_check" -n 20000 \
			>>"$work/step.log" 2>&1 || fails+=(ptr_ring_check)
		[ ! -x "$st/ptr_ring_test" ] || timeout 120 "$st/ptr_ring_test" -n 20000 -r 1 \
			>>"$work/step.log" 2>&1 || fails+=(ptr_ring_test)
	fi
	! grep -q 'warning:' "$work/step.log" || fails+=("warnings")
	b=$farm/tools/testing/selftests/net/bench
	bash -n "$b/test_bench_page_pool.sh" 2>>"$work/step.log" || fails+=("driver syntax")
	rm -rf "$rt/ptr_ring" "$st/ptr_ring_check" "$st/ptr_ring_test"
	if [ ${#fails[@]} -eq 0 ]; then
		ok "after $name the userspace parts build without warnings and pass"
	else
		not_ok "after $name the userspace parts build without warnings and pass" "${fails[*]}" \
			"$(tail -n 20 "$work/step.log")"
	fi
done
rm -rf "$farm"

# NIPA's own patch tests, per patch, each series alone on the base.
why=$(nipa_missing)
if [ -n "$why" ]; then
	skip_check "NIPA's patch tests" "$why"
else
	git clone -q --shared "$NIPA_GIT" "$work/nipa" &&
		git -C "$work/nipa" checkout -q --detach "$NIPA_COMMIT"
	start=$(date +%s)
	NIPA=$work/nipa "$REPO/series/series.sh" nipa >"$work/nipa.log" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		'ok - '*) ok "nipa: ${line#ok - }" ;;
		'not ok - '*) not_ok "nipa: ${line#not ok - }" ;;
		*) echo "# $line" ;;
		esac
	done <"$work/nipa.log"
	echo "# series.sh nipa took $(($(date +%s) - start)) s"
	check "series.sh nipa exits 0 (it exited $rc)" test "$rc" -eq 0
fi
# Its judge, on NIPA's results as a stand-in writes them: a warning no
# note excuses fails, the notes' excuses pass, a dying NIPA is named.
fake=$work/fake-nipa
mkdir -p "$fake"
cat >"$fake/ingest_mdir.py" <<'PY'
import os, sys
res = sys.argv[sys.argv.index('--result-dir') + 1]
if os.environ.get('FAKE_NIPA_DIE'):
    sys.exit('Exception in thread Thread-2')
for d, rc, desc in (('1/1/checkpatch', 250, 'WARNING: x'),
                    ('1/2/deprecated_api', 1, "Found: 'module_param'"),
                    ('1/maintainers', 0, 'MAINTAINERS coverage looks sufficient')):
    os.makedirs(os.path.join(res, d))
    for f, v in (('retcode', rc), ('desc', desc)):
        with open(os.path.join(res, d, f), 'w') as fp:
            fp.write(f'{v}\n')
PY
NIPA=$fake "$REPO/series/series.sh" nipa net-next >"$work/fake-nipa.log" 2>&1
rc=$?
grep -A1 '^not ok - 0001-[^ ]* checkpatch: warning$' "$work/fake-nipa.log" >"$work/fake-nipa.warn"
expect_grep "nipa: a warning without a note fails, naming the patch, the test and NIPA's finding" \
	"$work/fake-nipa.warn" '^#   WARNING: x$'
check "... the note of net-next 2 excuses its deprecated_api failure" \
	grep -q "^ok - 0002-[^ ]* deprecated_api: excused (\"tag\" is a parameter" "$work/fake-nipa.log"
check "... a series test reads ok" \
	grep -q "^ok - series/net-next maintainers: MAINTAINERS coverage" "$work/fake-nipa.log"
check "... and series.sh exits 1 (it exited $rc)" test "$rc" -eq 1
FAKE_NIPA_DIE=1 NIPA=$fake "$REPO/series/series.sh" nipa virtio >"$work/fake-nipa.log" 2>&1
rc=$?
check "nipa: a NIPA that dies is a failure that says so" \
	grep -q "^not ok - series/virtio: NIPA's ingest_mdir.py failed" "$work/fake-nipa.log"
check "... exit 1 (it exited $rc)" test "$rc" -eq 1
expect_rc "nipa without NIPA=: exit 2" 2 "$work/nonipa.log" env -u NIPA "$REPO/series/series.sh" nipa
expect_grep "and says where to get it" "$work/nonipa.log" 'NIPA=DIR names a checkout of NIPA'

# send --maintainers: every patch and the cover letter addressed, netdev
# among them; each series' cover letter to its maintainers.
for s in virtio net-next; do
	GIT_COMMITTER_NAME='Jane Developer' GIT_COMMITTER_EMAIL=jane@kernel.org \
		"$REPO/series/series.sh" send "$s" "$work/send-$s" --maintainers \
		>"$work/send-$s.log" 2>&1
	unaddressed=$(for p in "$work/send-$s"/*.patch; do
		head=$(sed '/^$/q' "$p")
		grep -q '^To: ' <<<"$head" && grep -q 'netdev@vger\.kernel\.org' <<<"$head" ||
			echo "${p##*/}"
	done)
	check "send $s --maintainers: every file has To:, netdev among the addresses" \
		test -n "$(ls "$work/send-$s"/*.patch 2>/dev/null)" -a -z "$unaddressed"
done
check "the virtio cover letter goes to the virtio maintainers" \
	grep -q '"Michael S. Tsirkin" <mst@' "$work/send-virtio/0000-cover-letter.patch"
check "the net-next cover letter goes to the page_pool maintainers" \
	grep -q 'Jesper Dangaard Brouer <hawk@' "$work/send-net-next/0000-cover-letter.patch"

# The posting is for hardware: what only deterministic mode needs (the
# tick alignment, SCHED_FIFO, RCU barriers between chunks, held pages) is
# in vmtest/guest/deterministic.patch, which -D applies, and in no patch.
emu='TICK_NSEC|bench_tick|bench_pause|rcu_barrier|sched_set_fifo|BENCH_SETTLE|held\['
expect_no_grep "the posted series has no code only deterministic mode needs" \
	<(cat "$REPO"/series/net-next/*.patch) "^\+.*($emu)"
expect_grep "... which the runner's -D patch adds" \
	"$REPO/vmtest/guest/deterministic.patch" "^\+.*bench_tick\(ns\)"
expect_grep "... applied in -D mode" "$REPO/vmtest/vmtest.sh" \
	'DETERMINISTIC.* patches\+=\(.*/guest/deterministic\.patch'

# measure.sh refuses what it cannot use before it builds or boots
expect_rc "measure.sh --loops x: exit 2" 2 "$work/measure.log" \
	"$REPO/series/measure.sh" --loops x
expect_grep "and says why" "$work/measure.log" 'measure.sh: --loops takes a number'

tests_done series
