#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What NIPA (linux-netdev/nipa), netdev's CI, makes of the benchmarks'
# output. series/nipa/ applied to the NIPA commit it is against: NIPA's
# unit tests of it pass, and its parser keeps every perf= of the
# captured consoles (console/) with its unit. nipa_rules.py, the
# project's copy of NIPA's result rules, is still NIPA's, and reads the
# consoles as pass, one with a skipped case as skip, one with a failed
# case as fail. NIPA is the git repository NIPA_GIT (default: the local
# mirror); without it, or without the commit, the checks that need it
# are skipped, saying why. Nothing is fetched.

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

PY=/usr/bin/python3
here=$TESTS_DIR/nipa_rules
rules=$here/nipa_rules.py
# Bytecode of NIPA's modules would land in the checkout, of ours in the tree
export PYTHONDONTWRITEBYTECODE=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
consoles=("$here"/console/*.console)
mapfile -t with_perf < <(grep -l ' # perf=' "${consoles[@]}")
why=$(nipa_missing)

# fails CMD...: CMD exits non-zero, a check of a check's other side
fails()
{
	! "$@"
}

# perf_kept NAME LIB CONSOLE: check_perf.py's line for CONSOLE with
# LIB's parser, in the check's name when it passes
perf_kept()
{
	local line

	if line=$("$PY" "$here/check_perf.py" "$2" "$3" 2>&1); then
		ok "$1: ${line#*: }"
	else
		not_ok "$1" "$line"
	fi
}

# same_rules OURS NIPAS: the two functions' ASTs are the same in both
# Python files (docstrings and code; comments and layout aside); the
# ones that differ are named.
same_rules()
{
	"$PY" - "$1" "$2" <<'PY'
import ast
import sys


def defs(path):
    with open(path, encoding='utf-8') as src:
        tree = ast.parse(src.read())
    return {node.name: ast.dump(node) for node in tree.body
            if isinstance(node, ast.FunctionDef)}


ours, nipas = defs(sys.argv[1]), defs(sys.argv[2])
names = ('guess_indicators', 'result_from_indicators')
differ = [n for n in names if n not in nipas or ours.get(n) != nipas[n]]
print('differ: ' + ' '.join(differ) if differ else 'the same')
sys.exit(bool(differ))
PY
}

# ---- series/nipa/ on NIPA -----------------------------------------------
nipa=$work/nipa
names="series/nipa/ applies to NIPA ${NIPA_COMMIT:0:12} (git am, no fuzz)
NIPA's unit tests of the patch pass"
for c in "${with_perf[@]}"; do
	names+="
the unpatched parser fails the perf= check on ${c##*/} (it drops perf=)"
done
for c in "${consoles[@]}"; do
	names+="
the patched parser keeps each perf= of ${c##*/}"
done
names+="
nipa_rules.py's guess_indicators() and result_from_indicators() are NIPA's at ${NIPA_COMMIT:0:12}
the AST comparison tells a changed rule apart"
if [ -n "$why" ]; then
	while read -r name; do skip_check "$name" "$why"; done <<<"$names"
else
	echo "# NIPA: $NIPA_GIT at ${NIPA_COMMIT:0:12}"
	lib=$nipa/contest/remote/lib
	check "series/nipa/ applies to NIPA ${NIPA_COMMIT:0:12} (git am, no fuzz)" \
		nipa_checkout "$nipa"
	log=$OUT/nipa_rules-unittest.log
	expect_rc "NIPA's unit tests of the patch pass" 0 "$log" \
		"$PY" -m unittest discover -v -s "$nipa/contest/remote/tests"
	echo "# NIPA's unittest: $(grep -E '^Ran [0-9]+ tests?' "$log") $(tail -n 1 "$log")"

	# The parser as NIPA has it: the check must see the difference
	mkdir -p "$work/unpatched"
	git -C "$NIPA_GIT" show "$NIPA_COMMIT:contest/remote/lib/results.py" \
		>"$work/unpatched/results.py"
	for c in "${with_perf[@]}"; do
		check "the unpatched parser fails the perf= check on ${c##*/} (it drops perf=)" \
			fails "$PY" "$here/check_perf.py" "$work/unpatched" "$c"
	done
	for c in "${consoles[@]}"; do
		perf_kept "the patched parser keeps each perf= of ${c##*/}" "$lib" "$c"
	done

	check "nipa_rules.py's guess_indicators() and result_from_indicators() are NIPA's at ${NIPA_COMMIT:0:12}" \
		same_rules "$rules" "$work/unpatched/results.py"
	sed 's/"\[FAIL\]"/"[FAILED]"/' "$rules" >"$work/changed.py"
	check "the AST comparison tells a changed rule apart" \
		fails same_rules "$work/changed.py" "$work/unpatched/results.py"
fi

# ---- NIPA's rules on the consoles --------------------------------------
# reads RETCODE CONSOLE WANT NAME: nipa_rules.py reads CONSOLE with
# RETCODE as WANT
reads()
{
	local got

	got=$("$PY" "$rules" "$1" <"$2" 2>&1)
	if [ "$got" = "$3" ]; then
		ok "$4 reads $3"
	else
		not_ok "$4 reads $3" "nipa_rules.py $1 < $2: $got"
	fi
}

for c in "${consoles[@]}"; do
	n=${c##*/}
	reads 0 "$c" pass "$n (exit 0)"
	# One case turned skipped, as a test prints one it cannot run: NIPA
	# then reports the whole test as skipped
	sed -E '0,/^# ok ([0-9]+) ([^ ]+)( # .*)?$/s//# ok \1 \2 # SKIP a case skipped/' \
		"$c" >"$work/$n.skip"
	if cmp -s "$c" "$work/$n.skip"; then
		not_ok "$n has a case to turn skipped"
	else
		reads 0 "$work/$n.skip" skip "$n with a ' # SKIP' case (exit 0)"
	fi
	# One case failed, and kselftest's line for the test 'not ok', as when
	# the test exits 1; make's exit code left 0, the line alone fails it
	sed -E '0,/^# ok ([0-9]+) ([^ ]+)( # .*)?$/s//# not ok \1 \2\3/
		s/^ok ([0-9]+) selftests: /not ok \1 selftests: /' "$c" >"$work/$n.fail"
	if ! grep -q '^# not ok ' "$work/$n.fail" ||
	   ! grep -q '^not ok [0-9]* selftests: ' "$work/$n.fail"; then
		not_ok "$n has a case and a kselftest result line to turn 'not ok'"
	else
		reads 0 "$work/$n.fail" fail "$n with a 'not ok' case (exit 0)"
	fi
done
expect_rc "nipa_rules.py without RETCODE: usage, exit 2" 2 "$work/usage.log" \
	"$PY" "$rules" </dev/null

tests_done nipa_rules
