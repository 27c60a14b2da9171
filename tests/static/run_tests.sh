#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Static checks: shellcheck on every shell script, pylint and ruff on
# every (the tooling's) Python file, and, in the pinned tree with the
# series applied, checkpatch.pl --strict on the series' files, docutils on
# its reST (as make htmldocs reads it), get_maintainer.pl's people.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"
# checkpatch.pl runs scripts/spdxcheck.py, which needs python3-ply; pylint
# follows ab/range.py's import of matplotlib
need_tools "shellcheck shellcheck" "pylint pylint" \
	"/usr/lib/python3/dist-packages/ply/__init__.py python3-ply" \
	"/usr/lib/python3/dist-packages/matplotlib/__init__.py python3-matplotlib" \
	"/usr/lib/python3/dist-packages/docutils/__init__.py python3-docutils"

cd "$REPO" || exit 1

# Python, with both linters' defaults, as NIPA runs them on patches;
# pylint, the slow one, on a core of its own beside the other checks.
mapfile -t py < <(git ls-files '*.py')
if command -v pylint >/dev/null; then
	beside check "pylint finds nothing in the ${#py[@]} Python files" \
		pylint --score=n "${py[@]}"
else
	not_ok "pylint is installed (Debian package pylint)"
fi

# Shell scripts: *.sh, and files whose first line names bash or sh.
while IFS= read -r f; do
	case $f in
	*.sh) ;;
	*) head -n 1 "$f" | grep -qE '^#!.*\b(ba)?sh\b' || continue ;;
	esac
	# A selftest sources kselftest's helpers, which only the kernel
	# tree has (series.sh nipa runs shellcheck there, following them)
	opts=(-x)
	[[ $f != tools/testing/selftests/* ]] || opts+=(-e SC1091)
	check "shellcheck $f" shellcheck "${opts[@]}" "$f"
done < <(git ls-files -co --exclude-standard | grep -v '^tests/out/')

# docutils reads the series' reST without a warning (it drops a bad table).
for f in Documentation/*/*.rst; do
	check "docutils reads $f without a warning" /usr/bin/python3 -c '
import io, sys, docutils.core
err = io.StringIO()
docutils.core.publish_doctree(open(sys.argv[1]).read(), settings_overrides={
    "warning_stream": err, "report_level": 2})
sys.exit(print(err.getvalue(), end="") or bool(err.getvalue()))' "$f"
done

# Every environment variable the tooling reads with a default is in
# vmtest/README.md's table (but the ones its options set, HOME and the like).
missing=$(git ls-files vmtest ab series | grep -vE '\.(patch|md|lock)$' |
	xargs grep -hoE '\$\{[A-Z][A-Z0-9_]*:-' 2>/dev/null |
	sed 's/^\${//; s/:-$//' | sort -u | grep -vxE 'HOME|XDG_CACHE_HOME|TERM|VERSION_CODENAME|STOP_AFTER|VM_DMA|VM_APPEND|DISTRO_[A-Z]*' |
	while read -r v; do
		grep -q "\`$v\`" vmtest/README.md || echo "$v"
	done)
check "vmtest/README.md names every environment variable the tooling reads${missing:+ (not: $missing)}" \
	test -z "$missing"

# Python: ruff (pylint runs beside, above).
if ensure_ruff; then
	check "ruff ($(ruff --version)) finds nothing in the ${#py[@]} Python files" \
		ruff check --no-cache "${py[@]}"
else
	not_ok "ruff is available (from Debian's newer suites)" \
		"see $OUT/ruff-download.log"
fi

# pp_field_reads FILE...: lines reading a field of a struct page_pool (by
# pointer or variable). Its layout is no interface (upstream's review
# said so): the module's counters come from page_pool_get_stats().
pp_field_reads()
{
	local ptrs vars

	ptrs=$(cat "$@" | grep -oE 'struct page_pool[[:space:]]*\*+[[:space:]]*[A-Za-z_][A-Za-z0-9_]*' |
		sed -E 's/.*[*[:space:]]//' | sort -u | paste -sd'|')
	vars=$(cat "$@" | grep -oE 'struct page_pool[[:space:]]+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*[;=,)]' |
		sed -E 's/struct page_pool[[:space:]]+//; s/[[:space:]]*[;=,)]$//' | sort -u | paste -sd'|')
	{
		[ -z "$ptrs" ] || grep -HnE "(^|[^A-Za-z0-9_])($ptrs)[[:space:]]*->" "$@"
		[ -z "$vars" ] || grep -HnE "(^|[^A-Za-z0-9_])($vars)[[:space:]]*\\.[A-Za-z_]" "$@"
	} | grep -vE '^[^:]*:[0-9]+:[[:space:]]*(\*|/\*|//)'
}
sample=$(mktemp)
printf '%s\n' 'struct x { struct page_pool *pp; };' 'static u32 f(struct x *b)' \
	'{ return READ_ONCE(b->pp->alloc.count); }' >"$sample"
check "the struct page_pool field check finds b->pp->alloc.count" \
	test -n "$(pp_field_reads "$sample")"
rm -f "$sample"
reads=$(pp_field_reads tools/testing/selftests/net/bench/page_pool/*.[ch])
check "bench_page_pool reads no field of struct page_pool${reads:+: $reads}" \
	test -z "$reads"

read -r tree _ < <(prepared current tree)
[ -n "$tree" ] || { not_ok "the newest tree is prepared" "see $OUT/prepare.log"; exit 0; }
# Read under the farm's lock: another checkout's run sharing the cache
# (tests/runner_tree forces a re-apply) rewrites its files meanwhile.
exec {lock}>"$tree.lock" && flock "$lock"

# checkpatch --strict on each file of the series, in the tree: a new file
# whole, another on the series' change to it (not upstream's findings).
# ALLOWED: findings a file's comments explain (the shim defines the
# kernel's types and attributes for ringtest) or its patch's notes do
# (virtio's patch 2 moves lines as they were; userspace noinline, __cold).
ALLOWED='tools/virtio/ringtest/ptr_ring_shim.h NEW_TYPEDEFS,PREFER_DEFINED_ATTRIBUTE_MACRO,ARCH_DEFINES,COMPLEX_MACRO,SPACING,MACRO_ARG_REUSE,LINE_SPACING,UNSPECIFIED_INT
tools/testing/selftests/ptr_ring/ptr_ring_test.c PREFER_DEFINED_ATTRIBUTE_MACRO'
src=$(pinned_source)
checkpatch()
{
	local allowed

	allowed=$(awk -v f="$1" '$1 == f { print $2 }' <<<"$ALLOWED")
	shift
	"$tree/scripts/checkpatch.pl" --strict --quiet --no-summary \
		--root="$tree" --ignore "COMMIT_MESSAGE${allowed:+,$allowed}" "$@"
}
cp_change()
{
	diff -u --label "a/$1" --label "b/$1" "$src/$1" "$REPO/$1" |
		checkpatch "$1" --no-signoff -
}
while IFS= read -r f; do
	if [ -f "$src/$f" ]; then
		check "checkpatch --strict on the change to $f" cp_change "$f"
	else
		check "checkpatch --strict $f" checkpatch "$f" -f "$tree/$f"
	fi
done < <(git ls-files -- tools Documentation | grep -E '\.(c|h|sh|rst)$|Makefile$')

# get_maintainer.pl: page_pool's people for the benchmark, virtio's the rest.
while read -r f who; do
	(cd "$tree" && scripts/get_maintainer.pl --nogit --nogit-fallback \
		--norolestats -f "$f") </dev/null >"$OUT/maintainers.txt"
	expect_grep "get_maintainer.pl names $who for $f" \
		"$OUT/maintainers.txt" "$who"
done <<'EOF'
tools/testing/selftests/net/bench/page_pool/time_bench.c hawk@kernel.org
tools/testing/selftests/net/bench/test_bench_page_pool.sh hawk@kernel.org
tools/testing/selftests/ptr_ring/ptr_ring_test.c mst@redhat.com
tools/virtio/ringtest/ptr_ring_shim.h mst@redhat.com
EOF

subtests_report
tests_done static
