#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A console's perf= figures, as NIPA's parse_nested_tests() keeps them.

usage: check_perf.py NIPA_LIB CONSOLE...
    NIPA_LIB: contest/remote/lib of a NIPA checkout with series/nipa/
    applied. For each CONSOLE ('make ... run_tests' output), the nested
    cases NIPA parses are matched, in order, with the console's own
    '# ok N name # ...' lines, read here with a regex of this file's: a
    case whose line has perf=<value><unit> must come back with that value
    and unit, a case without one with none. A line a console; exit 1 when
    a case differs or a console has no case.
"""

import os
import re
import sys

# A case of the test's own KTAP: one '# ' deep, as run_tests nests it
CASE = re.compile(r'^# (?:not )?ok \d+ (\S+)(?: +# +(.*))?$')
PERF = re.compile(r'perf=(\d+(?:\.\d+)?)([a-zA-Z]+)$')


def expected(text):
    """(name, {'value', 'unit'} or None) for each case line of text."""
    cases = []
    for line in text.split('\n'):
        case = CASE.match(line)
        if not case:
            continue
        perf = PERF.search(case.group(2) or '')
        cases.append((case.group(1), perf and
                      {'value': float(perf.group(1)), 'unit': perf.group(2)}))
    return cases


def check(parse, path):
    """Problems of path's cases as parse (NIPA's) keeps them, a summary,
    and what holds when there are none."""
    with open(path, encoding='utf-8') as console:
        text = console.read()
    want = expected(text)
    # Names as printed: namify() is NIPA's fetcher's, which needs requests
    got = [(case['test'], case.get('perf'))
           for case in parse(text, lambda name: name)]
    problems = [f'case {i}: NIPA kept {g}, its line says {w}'
                for i, (w, g) in enumerate(zip(want, got), 1) if w != g]
    if len(want) != len(got):
        problems.append(f'{len(want)} case lines, NIPA parsed {len(got)}')
    if not want:
        problems.append('no case')
    figures = sum(1 for _, perf in want if perf)
    units = sorted({perf['unit'] for _, perf in want if perf})
    summary = f'{len(want)} cases, {figures} with perf=' + (
        f' (unit {", ".join(units)})' if units else '')
    return problems, summary, ('each kept with its value and unit' if figures
                               else 'none given one')


def main(argv):
    """Check each console of argv[2:] with NIPA's lib at argv[1]."""
    if len(argv) < 3:
        print(__doc__[__doc__.index('usage:'):].rstrip(), file=sys.stderr)
        sys.exit(2)
    # results.py alone: the package's __init__ needs requests and psutil
    sys.path.insert(0, argv[1])
    # pylint: disable-next=import-outside-toplevel,import-error
    from results import parse_nested_tests

    bad = 0
    for path in argv[2:]:
        problems, summary, fine = check(parse_nested_tests, path)
        name = os.path.basename(path)
        # The first few differences say what went wrong
        print(f'{name}: {summary}: ' +
              ('; '.join(problems[:3] + [f'{len(problems)} in all'])
               if problems else fine))
        bad += bool(problems)
    sys.exit(bad > 0)


if __name__ == '__main__':
    main(sys.argv)
