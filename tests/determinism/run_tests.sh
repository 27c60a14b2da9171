#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Deterministic mode proves its worth through the product: ab.sh with
# the README's example, ab/examples/nop.patch (one nop at the top of
# page_pool's allocation fast path, __page_pool_get_cached()), on the
# runner's built 7.x kernel (the tiny profile, which the ci tier builds).
# The change's code differs where that is inlined alone; each fast path's
# figure repeats within one instruction per element across the base's
# three boots; and no-softirq-page_pool01 reads "slower" by 0.5 to 1.5
# instructions per element. That is the "fail if the fast path is more
# than N instructions" check asked for upstream.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

NOP=$REPO/ab/examples/nop.patch
WORK=$VMTEST_CACHE/determinism-test

rm -rf "$WORK"
check "the change adds one line, a nop, and nothing else" \
	[ "$(grep -E '^[-+]([^-+]|$)' "$NOP")" = '+	asm volatile("nop");' ]
expect_rc "ab.sh --change nop.patch: three boots a side" 0 \
	"$OUT/determinism-ab.log" "$REPO/ab/ab.sh" --change "$NOP" \
	--profile tiny --format json -o "$WORK"
# The tiny profile inlines __page_pool_get_cached() into both
check "the change's code differs in page_pool_alloc_{netmems,pages}() alone" \
	diff - "$WORK/changed-functions" <<'EOF'
net/core/page_pool.o page_pool_alloc_netmems
net/core/page_pool.o page_pool_alloc_pages
EOF

# The table's rows as "test verdict delta spread boots", the spread and
# number of the base's boots (a sample each), shown
python3 - "$WORK/table.json" >"$WORK/rows" <<'PY'
import json
import sys

with open(sys.argv[1], encoding='utf-8') as table:
    for row in json.load(table)['rows']:
        runs = row.get('base_runs') or [float('inf')]
        print(row['test'], row['verdict'].split()[0], row['delta'],
              f"{max(runs) - min(runs):.3f}", len(runs))
PY
sed 's/^/#   /' "$WORK/rows"
# shellcheck disable=SC2016 # awk's programs
check "the fast paths repeat within one instruction per element across the base's three boots" \
	awk '$1 ~ /^(no-softirq-page_pool01|bh_page_pool04_napi_local)$/ {
		n++; if (!($4 < 1 && $5 == 3)) bad++ } END { exit n != 2 || bad }' \
	"$WORK/rows"
# shellcheck disable=SC2016
check "the nop: no-softirq-page_pool01 slower by 0.5 to 1.5 instructions per element" \
	awk '$1 == "no-softirq-page_pool01" && $2 == "slower" &&
		$3 >= 0.5 && $3 <= 1.5 { f = 1 } END { exit !f }' "$WORK/rows"
tests_done determinism
