#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""NIPA's rules for a kselftest's result, as the project's copy.

guess_indicators() and result_from_indicators() are copied unchanged
from NIPA (https://github.com/linux-netdev/nipa),
contest/remote/lib/results.py at commit
95a29267a0450eb1b061a3a5b386a7fbff00fe0c; NIPA is GPL-2.0, and so is
this file. hwksft calls them on a test's output; vmksft-p has the same
rule inline. tests/nipa_rules/run_tests.sh checks that they are still
NIPA's at that commit (their ASTs compared).

usage: nipa_rules.py RETCODE < CONSOLE
    prints what NIPA makes of a test's output (CONSOLE, as vmksft-p reads
    'make ... run_tests') and exit code: pass, skip or fail; exit 2 on
    wrong usage
"""

import re
import sys

USAGE = __doc__[__doc__.index('usage:'):].rstrip()


def guess_indicators(output):
    """Scan test output for pass/fail/skip indicator strings.

    Returns a dict with 'pass', 'fail', 'skip' boolean values.
    """
    return {
        "fail": output.find("[FAIL]") != -1 or output.find("[fail]") != -1 or
                output.find(" FAIL:") != -1 or
                bool(re.search(r"\nnot ok \d+( \d+)? selftests: ", output)) or
                output.find("\n# not ok 1") != -1,
        "skip": output.find("[SKIP]") != -1 or output.find("[skip]") != -1 or
                output.find(" # SKIP") != -1 or output.find("SKIP:") != -1,
        "pass": output.find("[OKAY]") != -1 or output.find("[PASS]") != -1 or
                output.find("[ OK ]") != -1 or output.find("[OK]") != -1 or
                output.find("[ ok ]") != -1 or output.find("[pass]") != -1 or
                output.find("PASSED all ") != -1 or
                bool(re.search(r"\nok \d+( \d+)? selftests: ", output)) or
                bool(re.search(
                    r"# Totals: pass:[1-9]\d* fail:0 (xfail:0 )?(xpass:0 )?skip:0 error:0",
                    output)),
    }


def result_from_indicators(retcode, indicators):
    """Determine test result from return code and output indicators."""
    result = 'pass'
    if indicators["skip"] or not indicators["pass"]:
        result = 'skip'
    if retcode == 4:
        result = 'skip'
    elif retcode:
        result = 'fail'
    if indicators["fail"]:
        result = 'fail'
    return result


def main(argv):
    """The result of the console on stdin with exit code argv[1]."""
    if len(argv) != 2 or not re.fullmatch(r'-?\d+', argv[1]):
        print(USAGE, file=sys.stderr)
        sys.exit(2)
    print(result_from_indicators(int(argv[1]),
                                 guess_indicators(sys.stdin.read())))


if __name__ == '__main__':
    main(sys.argv)
