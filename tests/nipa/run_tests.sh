#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NIPA's own VM executor, contest/remote/vmksft-p.py, on a tree with both
# series (on request: it builds a kernel as NIPA does, 20-40 min cold on
# 2 cores). NIPA's code (tests/lib.sh's NIPA_GIT, with series/nipa/ so
# that the JSON keeps perf=) drives everything but its configuration
# (vmksft.py): virtme-ng 1.35 from Debian's trixie under TCG, NIPA's
# build, its program list, each program run by 'make run_tests' in a
# guest of 2 vCPUs, its classification. Its results JSON must have a row
# per program, each "pass", with its nested cases and their figures.
# The tree: a hard-link copy of the runner's with the series applied
# (NIPA builds in the tree, whose .config would break the runner's O=
# builds), its kernel built again only for another source.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"
need_tools "qemu-system-x86_64 qemu-system-x86" "rsync rsync" \
	"/usr/lib/python3/dist-packages/psutil/__init__.py python3-psutil" \
	"/usr/lib/python3/dist-packages/requests/__init__.py python3-requests"

VNG=1.35-1
tree=$VMTEST_CACHE/nipa-tree
work=$(mktemp -d "$OUT/nipa.XXXXXX")
trap 'rm -rf "$work"' EXIT

# virtme-ng VERSION from Debian's newer suites, the runner's private apt
# setup (it is arch-independent Python and runs on bookworm)
virtme_ng()
(
	runner_libs
	[ "$(dpkg-query -W -f '${Version}' virtme-ng 2>/dev/null)" = "$1" ] &&
		return 0
	newer_apt_update
	mapfile -t opts < <(newer_apt_opts)
	cd "$work" && apt-get "${opts[@]}" download "virtme-ng=$1" &&
		dpkg -i virtme-ng_*.deb
) >"$OUT/nipa-vng.log" 2>&1

# nipa_tree FARM SRC: $tree is a copy of FARM, the runner's tree of the
# source SRC with the series; one made from an earlier FARM of SRC keeps
# its kernel build (the series change tools/ only) and takes FARM's
# series directories anew
nipa_tree()
{
	local d

	if [ "$(cat "$tree.src" 2>/dev/null)" != "$2" ]; then
		rm -rf "$tree" "$tree.built" && cp -al "$1" "$tree" &&
			echo "$2" >"$tree.src" || return 1
	fi
	for d in tools/testing/selftests/net/bench tools/testing/selftests/ptr_ring \
		 tools/virtio/ringtest; do
		rm -rf "${tree:?}/$d" && cp -a "$1/$d" "$tree/$d" || return 1
	done
}

why=$(nipa_missing)
if [ -n "$why" ]; then
	ok "NIPA's executor on the series # SKIP $why"
	tests_done nipa
	exit
fi
check "virtme-ng $VNG installed" virtme_ng "$VNG"
check "NIPA at ${NIPA_COMMIT:0:12} with series/nipa/" nipa_checkout "$work/nipa"
rec=$(runner_record current tree)
src=$(record_get src <<<"$rec")
check "a copy of the runner's tree with both series" \
	nipa_tree "$(record_get tree <<<"$rec")" "$src"

# NIPA's build once per source: test() runs it, --built skips it after
built=() how="with NIPA's build"
[ "$(cat "$tree.built" 2>/dev/null)" != "$src" ] ||
	built=(--built) how="the kernel built before"
start=$(date +%s)
expect_rc "vmksft-p's test() on the tree, $how" 0 \
	"$OUT/nipa-vmksft.log" \
	"$TESTS_DIR/nipa/vmksft.py" "$work/nipa" "$tree" "$work/out" 2 "${built[@]}" &&
	echo "$src" >"$tree.built"
echo "# vmksft-p: $(($(date +%s) - start)) s"
cp -r "$work/out" "$OUT/nipa-out" 2>/dev/null

# rows PROGRAM: its row of the results JSON, the nested cases' figures
rows()
{
	python3 - "$work/out/results.json" "$1" <<'PY'
import json
import sys

rows = [r for r in json.load(open(sys.argv[1], encoding='utf-8'))
        if r['test'] == sys.argv[2]]
for r in rows:
    nested = r.get('results', [])
    print(r['group'], r['test'], r['result'], len(nested),
          sum(1 for n in nested if n['result'] == 'pass'),
          sum(1 for n in nested if 'perf' in n))
PY
}

for prog in test-bench-page-pool-sh ptr-ring-check ptr-ring-test; do
	read -r group _ result cases passed perf < <(rows "$prog")
	echo "# $group $prog: $result, $passed of $cases cases passed, $perf with perf"
	check "NIPA's row for $prog reads pass" test "$result" = pass
	check "... with every nested case passed" test "${cases:-0}" -gt 0 -a "$passed" = "$cases"
	[ "$prog" = ptr-ring-check ] ||
		check "... each with its perf=" test "$perf" = "$cases"
done

tests_done nipa
