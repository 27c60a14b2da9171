#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Before/after verdicts on benchmark KTAP: same, slower, faster or unknown.

  verdict.py --base RUN... --change RUN... [--format text|markdown]
             [--deterministic] [--margin PCT] [--alpha A] [--fail-on-slower]

A RUN is a KTAP file, a runner job directory or a directory of either,
one run (boot) per file or job (see ktap.py).  Each run's mean of a test's
repetitions is one sample: the variance that matters lives between boots.
Lower figures are better (time or instructions per element or item).

Deterministic figures (unit insn, or all of them with --deterministic)
are instruction counts, which a disturbance (another task, an interrupt
inside a timed chunk) can only raise: a side's figure is its lowest run,
and its noise the gap between its two lowest runs, which does not grow
with the number of runs (a disturbed run is named in a note, not used).
They have a resolution R (0.5 instruction per element; page_pool's
counts repeat across boots to a few tenths, callgrind's to a few
hundredths, so a smaller difference is no change).  With S the larger
noise of the two sides and D the difference of their figures: "slower"
or "faster" when |D| >= R, |D| > 3 S and S < R / 2 (each side's
lowest run confirmed by its next: a side whose every run was disturbed
rarely has two that agree that closely); "same" when |D| + S < R;
"unknown (run more)" otherwise.  One run a side has no noise to measure: only
identical counts are "same".

Timings: Welch's t-test on the run means, Holm-corrected over the
table's tests at family-wise alpha A (0.05), decides "slower" or
"faster"; otherwise two one-sided Welch tests (TOST, also
Holm-corrected) must show the difference inside +-MARGIN % of the base
before it is "same"; anything else is "unknown".

A test only one side has is a row with that side's figure and "only in
base" or "only in change".

Exit 0; 1 with --fail-on-slower when a test is slower; 2 on bad input.
"""

import argparse
import os
import re
import sys
import warnings

try:
    import numpy as np
    from scipy import stats
except ImportError as missing:
    print(f'verdict.py: {missing}: install python3-scipy (Debian) for '
          f'{sys.executable}', file=sys.stderr)
    sys.exit(2)

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
# pylint: disable=wrong-import-position
import ktap

ALPHA = 0.05
NOISES = 3.0
# The smallest difference of a deterministic figure that is a change:
# half an instruction per element (ns under icount). page_pool's counts
# repeat across boots to a few tenths, callgrind's to a few hundredths.
RESOLUTION = 0.5
UNKNOWN = 'unknown (run more)'


def rule(exact, margin, alpha):
    """The rule a verdict follows, for the header."""
    if exact:
        return (f'deterministic: lowest run a side, resolution '
                f'{RESOLUTION:g}; slower/faster beyond it and {NOISES:g} '
                'noises, same when the difference plus the noise is within '
                'it')
    return (f"timing: Welch's t-test on run means, Holm alpha {alpha:g}; "
            f'same only if TOST shows |change| < {margin:g} % of base')


def noise(base, change):
    """The run-to-run noise of an exact count: the larger gap between a
    side's two lowest runs (0 without a side of two runs)."""
    return max((sorted(s)[1] - min(s) for s in (base, change) if len(s) > 1),
               default=0)


def judge_deterministic(base, change):
    """The verdict on two lists of run samples of an exact count."""
    if len(set(base + change)) == 1:
        return 'same'
    if max(len(base), len(change)) < 2:
        return UNKNOWN
    delta, width = min(change) - min(base), noise(base, change)
    if abs(delta) >= RESOLUTION and abs(delta) > NOISES * width and \
            width < RESOLUTION / 2:
        return 'slower' if delta > 0 else 'faster'
    if abs(delta) + width < RESOLUTION:
        return 'same'
    return UNKNOWN


def disturbed_notes(data, exact):
    """A note per side of an exact count whose runs lie more than the
    resolution above its lowest: disturbed, not its figure."""
    notes = []
    for name, (before, after, unit) in data.items():
        for side, values in (('base', before), ('change', after)):
            high = [f'{i + 1} (+{v - min(values):.3f})'
                    for i, v in enumerate(values)
                    if exact[name] and v - min(values) > RESOLUTION]
            if high:
                notes.append(f'{name}: {side} run {", ".join(high)}{unit} '
                             'above its lowest: disturbed, not counted')
    return notes


def holm(pvalues):
    """Holm's step-down adjustment of a list of p-values."""
    adjusted, running = [1.0] * len(pvalues), 0.0
    for i, k in enumerate(np.argsort(pvalues)):
        running = max(running, min(1.0, (len(pvalues) - i) * pvalues[k]))
        adjusted[k] = running
    return adjusted


def welch(base, change, margin):
    """(p of any difference, p of TOST equivalence within +-margin)."""
    base, change = np.asarray(base), np.asarray(change)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', RuntimeWarning)
        p_diff = stats.ttest_ind(change, base, equal_var=False).pvalue
        # H0: change - base <= -margin, and H0: change - base >= margin
        p_low = stats.ttest_ind(change + margin, base, equal_var=False,
                                alternative='greater').pvalue
        p_high = stats.ttest_ind(change - margin, base, equal_var=False,
                                 alternative='less').pvalue
    p_eq = max(p_low, p_high)
    return (1.0 if np.isnan(p_diff) else p_diff,
            1.0 if np.isnan(p_eq) else p_eq)


def judge_timing(pairs, margin_pct, alpha=ALPHA):
    """{name: verdict} for {name: (base samples, change samples)}."""
    verdicts, tested = {}, []
    for name, (base, change) in pairs.items():
        if len(set(base + change)) == 1:
            verdicts[name] = 'same'
        elif min(len(base), len(change)) < 2:
            verdicts[name] = UNKNOWN
        else:
            tested.append(name)
    pvalues = [welch(*pairs[n], abs(np.mean(pairs[n][0])) * margin_pct / 100)
               for n in tested]
    p_diff = holm([p[0] for p in pvalues])
    p_eq = holm([p[1] for p in pvalues])
    for i, name in enumerate(tested):
        delta = np.mean(pairs[name][1]) - np.mean(pairs[name][0])
        if p_diff[i] < alpha:
            verdicts[name] = 'slower' if delta > 0 else 'faster'
        else:
            verdicts[name] = 'same' if p_eq[i] < alpha else UNKNOWN
    return verdicts


def samples(runs, name):
    """The run samples of NAME, with its unit."""
    have = [r for r in runs if name in r.perf]
    return [r.sample(name) for r in have], have[0].perf[name][0]


def env_words(key, value):
    """The comparable parts of a diagnostic: no build number or date in
    the kernel line, kernel parameters only (not init's, after "--"),
    one item per vulnerability."""
    if value is None:
        return {'not recorded'}
    if key == 'kernel':
        value = re.sub(r'#\d+|\(\d{4}-\d\d-\d\d\)|\w{3} \w{3} +\d+ '
                       r'[\d:]+ \w+ \d{4}', '', value)
    elif key == 'cmdline':
        value = value.split(' -- ')[0]
    else:
        return set(re.split(r' (?=[a-z0-9_]+:\S)', value))
    return set(value.split())


def env_notes(base, change):
    """A note per diagnostic whose comparable parts differ."""
    notes = []
    for key in ktap.ENV_KEYS:
        sides = [set().union(*(env_words(key, r.env.get(key))
                               for r in runs)) for runs in (base, change)]
        if sides[0] != sides[1]:
            only = [(' | ' if key == 'vulnerabilities' else ' ').join(
                sorted(one - other)) or '-' for one, other in (
                    sides, sides[::-1])]
            notes.append(f'{key} differs: base {only[0]} / change {only[1]}')
    return notes


def case_notes(base, change):
    """A note per side on the tests it failed or skipped."""
    notes = []
    for side, runs in (('base', base), ('change', change)):
        for what, found in (
                ('not ok in', set().union(*(r.failed for r in runs))),
                ('skipped in', set().union(*(r.skipped for r in runs)))):
            if found:
                notes.append(f'{what} {side}: {" ".join(sorted(found))}')
    return notes


def common(base, change):
    """{name: (base samples, change samples, unit)} of the tests both
    sides have, in the base's order."""
    data = {}
    for name in dict.fromkeys(n for r in base for n in r.perf):
        if any(name in r.perf for r in change):
            (before, unit), (after, other) = (samples(base, name),
                                              samples(change, name))
            if unit != other:
                raise ktap.KtapError(
                    f'{name}: base in {unit}, change in {other}')
            data[name] = before, after, unit
    if not data:
        raise ktap.KtapError('the sides have no perf= test in common')
    return data


def one_sided(base, change):
    """Rows of the tests only one side has (a new one, say): that
    side's figure, no verdict."""
    rows = []
    for side, runs, other in (('base', base, change),
                              ('change', change, base)):
        for name in dict.fromkeys(n for r in runs for n in r.perf):
            if not any(name in r.perf for r in other):
                values, unit = samples(runs, name)
                cells = [f'{np.mean(values):.3f}{unit}', '-']
                rows.append([name] + cells[::1 if side == 'base' else -1] +
                            ['-', '-', f'only in {side}'])
    return rows


def compare(base, change, deterministic, margin, alpha=ALPHA):
    """(rows, header, notes) of the table of BASE against CHANGE."""
    data = common(base, change)
    exact = {n: deterministic or d[2] == 'insn' for n, d in data.items()}
    verdicts = judge_timing({n: d[:2] for n, d in data.items()
                             if not exact[n]}, margin, alpha)
    rows = []
    for name, (before, after, unit) in data.items():
        if exact[name]:
            verdicts[name] = judge_deterministic(before, after)
            before, after = min(before), min(after)
        else:
            before, after = np.mean(before), np.mean(after)
        rows.append([name, f'{before:.3f}{unit}', f'{after:.3f}{unit}',
                     f'{after - before:+.3f}',
                     f'{100 * (after - before) / before:+.2f}%'
                     if before else '-', verdicts[name]])
    rows += one_sided(base, change)
    rules = sorted({(d[2], exact[n]) for n, d in data.items()})
    header = (f'base {len(base)} run(s), change {len(change)} run(s); ' +
              '; '.join(f'unit {u}, {rule(e, margin, alpha)}'
                        for u, e in rules))
    return rows, header, (env_notes(base, change) +
                          case_notes(base, change) +
                          disturbed_notes(data, exact))


def render(rows, header, notes, fmt):
    """The table as text for a mail or as Markdown."""
    head = ['test', 'base', 'change', 'Δ/elem', '%', 'verdict']
    if fmt == 'markdown':
        lines = [header, ''] + ['- note: ' + n for n in notes] + [
            '', '| ' + ' | '.join(head) + ' |',
            '|' + '---|' * 5 + '---|'] + [
            '| ' + ' | '.join(r) + ' |' for r in rows]
        return '\n'.join(lines) + '\n'
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(6)]
    lines = [header] + ['note: ' + n for n in notes] + [
        '  '.join(c.ljust(w) if i in (0, 5) else c.rjust(w)
                  for i, (c, w) in enumerate(zip(r, widths))).rstrip()
        for r in [head] + rows]
    return '\n'.join(lines) + '\n'


def main(argv=None):
    """The command line; returns the exit code."""
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--base', nargs='+', required=True, metavar='RUN',
                        help='the runs before the change')
    parser.add_argument('--change', nargs='+', required=True, metavar='RUN',
                        help='the runs with the change')
    parser.add_argument('--format', choices=('text', 'markdown'),
                    default='text')
    parser.add_argument('--deterministic', action='store_true',
                    help='judge every figure as an exact count')
    parser.add_argument('--margin', type=float, default=2.0, metavar='PCT',
                    help='equivalence margin for timings (default 2)')
    parser.add_argument('--alpha', type=float, default=ALPHA, metavar='A',
                        help='family-wise error rate of the timing tests '
                        f'(default {ALPHA:g})')
    parser.add_argument('--fail-on-slower', action='store_true',
                        help='exit 1 when a test is slower')
    args = parser.parse_args(argv)
    if not 0 < args.alpha < 1:
        parser.error('--alpha must lie between 0 and 1')
    try:
        sides = []
        for label, paths in (('base', args.base), ('change', args.change)):
            runs = [r for p in paths for r in ktap.read_runs(p)]
            if not any(r.perf for r in runs):
                raise ktap.KtapError(
                    f'{label}: no perf= case in {" ".join(paths)}')
            sides.append(runs)
        rows, header, notes = compare(sides[0], sides[1],
                                      args.deterministic, args.margin,
                                      args.alpha)
    except ktap.KtapError as err:
        print(f'verdict.py: {err}', file=sys.stderr)
        return 2
    sys.stdout.write(render(rows, header, notes, args.format))
    slower = any(r[5] == 'slower' for r in rows)
    return 1 if slower and args.fail_on_slower else 0


if __name__ == '__main__':
    sys.exit(main())
