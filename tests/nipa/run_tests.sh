#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NIPA's own way, end to end (on request: it builds a kernel in a tree):
# the kernel built in the source tree, the selftests on the host from it
# with no KDIR and no O=, 'make run_tests' per target in a VM. The tree:
# a hard-link copy of the runner's with the series applied (an in-tree
# .config would break the runner's O= builds of its own), its config.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"
need_tools "shellcheck shellcheck"

TARGETS='net/bench ptr_ring'
nipa=$VMTEST_CACHE/nipa-tree

# in_tree FARM KDIR: $nipa is FARM with a kernel built in it from KDIR's
# config; kept between runs, the series' directories copied again.
in_tree()
{
	local farm=$1 kdir=$2 d

	if [ "$(cat "$nipa.id" 2>/dev/null)" != "$(cat "$farm.id")" ]; then
		rm -rf "$nipa" && cp -al "$farm" "$nipa" || return 1
		cat "$farm.id" >"$nipa.id"
	fi
	for d in tools/testing/selftests/net/bench tools/testing/selftests/ptr_ring \
		 tools/virtio/ringtest; do
		rm -rf "${nipa:?}/$d" && cp -a "$farm/$d" "$nipa/$d" || return 1
	done
	cp "$kdir/.config" "$nipa/.config" &&
		make -C "$nipa" -s olddefconfig &&
		flock "${VMTEST_KBUILD_LOCK:-/run/lock/vmtest-kbuild.lock}" \
			nice make -C "$nipa" -s -j"$(nproc)"
}

read -r farm kdir < <(prepared current)
if [ -z "$kdir" ]; then
	not_ok "current kernel tree prepared and built" "see $OUT/prepare.log"
	tests_done nipa
	exit
fi

start=$(date +%s)
check "a kernel builds in a copy of the tree" in_tree "$farm" "$kdir"
echo "# in-tree kernel build: $(($(date +%s) - start)) s"

log=$OUT/nipa-host-build.log
ko=$nipa/tools/testing/selftests/net/bench/page_pool/bench_page_pool.ko
make -C "$nipa/tools/testing/selftests" TARGETS="$TARGETS" clean >/dev/null 2>&1
if make -C "$nipa/tools/testing/selftests" TARGETS="$TARGETS" >"$log" 2>&1 &&
   [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = \
     "$(cat "$nipa/include/config/kernel.release")" ]; then
	ok "selftests built on the host, no KDIR: module for the tree's kernel"
else
	not_ok "selftests built on the host, no KDIR: module for the tree's kernel" \
		"see $log" "$(tail -n 5 "$log")"
fi

for t in $TARGETS; do
	log=$OUT/nipa-${t//\//-}.log
	expect_rc "$t: make run_tests in the guest passes" 0 "$log" \
		"$VMTEST" -t current --kdir "$nipa" -- \
		make -C "$nipa/tools/testing/selftests" TARGETS="$t" run_tests
	expect_grep "$t: its result line says ok" "$log" \
		"^ok [0-9]+ selftests: $t: "
	# NIPA turns any ' # SKIP' line into a skip of the whole test.
	expect_no_grep "$t: no SKIP and no failure anywhere" "$log" \
		'( # SKIP|^not ok|^# not ok)'
done

tests_done nipa
