#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Project tests for the before/after statistics, ab/ktap.py and
# ab/verdict.py (not part of the kernel series), on canned KTAP logs that
# tests/ab/test_verdict.py writes:
#
#   - an A/A pair gives "same" for every test; a one-instruction shift on
#     one test is "slower" on that test only; +0.96 with a 0.05 spread and
#     +2.0 on the 496-instruction slow path are "slower"; one boot a side
#     is "unknown" unless the counts are identical,
#   - timings: a difference inside the run-to-run spread is "unknown",
#     never "slower"; a shift well outside it is "slower",
#   - raw, kselftest-wrapped, timestamped KTAP and a runner job read the
#     same; ptr_ring's repetitions within a run are one sample,
#   - the table, Markdown, environment notes, --fail-on-slower, and exit 2
#     with a message on bad input,
#   - pylint, ruff and line length on the files.
#
# The statistics need Debian's python3-scipy and python3-numpy for the
# system's python3; they are installed with apt-get when missing.

set -u

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$(realpath "$0")")/../lib.sh"

PY=/usr/bin/python3
FILES=("$REPO/ab/ktap.py" "$REPO/ab/verdict.py" "$TESTS_DIR/ab/test_verdict.py")

has_scipy() { "$PY" -c 'import numpy, scipy.stats' 2>/dev/null; }
if ! has_scipy; then
	echo "# installing python3-scipy and python3-numpy"
	{ apt-get install -y python3-scipy python3-numpy ||
		{ apt-get update && apt-get install -y python3-scipy python3-numpy; }
	} >"$OUT/ab-apt.log" 2>&1
fi
if ! has_scipy; then
	not_ok "python3-scipy and python3-numpy are installed" "see $OUT/ab-apt.log"
	tests_done ab
	exit 1
fi

while IFS= read -r line; do
	case $line in
	'ok - '*) ok "${line#ok - }" ;;
	'not ok - '*) not_ok "${line#not ok - }" ;;
	*) echo "$line" ;;
	esac
done < <("$PY" "$TESTS_DIR/ab/test_verdict.py" 2>&1)

if awk 'length > 79 { print FILENAME ":" FNR; bad = 1 } END { exit bad }' \
   "${FILES[@]}" >"$OUT/ab-len.log"; then
	ok "ktap.py, verdict.py, test_verdict.py: lines of at most 79 characters"
else
	not_ok "ktap.py, verdict.py, test_verdict.py: lines of at most 79 characters" \
		"$(cat "$OUT/ab-len.log")"
fi
if command -v pylint >/dev/null; then
	check "ktap.py, verdict.py, test_verdict.py: pylint finds nothing" \
		pylint --score=n "${FILES[@]}"
else
	echo "# pylint not installed, not run"
fi
if ensure_ruff; then
	check "ktap.py, verdict.py, test_verdict.py: ruff ($(ruff --version)) finds nothing" \
		ruff check --no-cache "${FILES[@]}"
else
	not_ok "ruff is available (from Debian's newer suites)" \
		"see $OUT/ruff-download.log"
fi

tests_done ab
