#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Before/after verdicts on benchmark KTAP: same, slower, faster or unknown.

A RUN is a KTAP file, a runner job directory or a directory of either,
one run (boot) per file or job (see vmtest/lib/ktap.py).  Each run's mean
of a test's repetitions is one sample: the variance that matters lives
between boots.
Lower figures are better (time or instructions per element or item).

Deterministic figures (unit insn, or all with --deterministic) are
instruction counts, which a disturbance can only raise: a side's figure
is its lowest run, its noise the gap between its two lowest (a disturbed
run is named in a note, not used).  With the resolution R (0.5
instruction per element: page_pool's counts repeat across boots to a
few tenths, callgrind's to a few hundredths), S the larger noise of the
sides and D the difference of their figures: "slower" or "faster" when
|D| >= R, |D| > 3 S and S < R / 2 (each side's lowest run confirmed by
its next); "same" when |D| + S < R; else "unknown (run more)".  With one
run a side, S is the spread measured between boots, 0.05 (ten boots of
the distro kernel agree within 0.041 on every test); a disturbance only
adds, and one run cannot show it, so a verdict from one run a side (but
"same" on identical counts) needs --attribution's word that no task
switched in the test's timed chunks (else "unknown").

Timings vary by a factor, so they are compared on a log scale: Welch's
t-test on the logs of the run means, Holm-corrected over the table at
family-wise alpha A (0.01: of 4000 simulated A/A tables of ten rows with
a 5 % log-normal spread, 0.53 %, 0.35 % and 0.80 % had a false row at 3,
5 and 10 runs a side).  "slower" or "faster" needs that test and a change
of at least MARGIN % (2: a real 0.3 % is no finding in a timing); "same"
needs two one-sided tests (TOST, Holm too) to put the change inside
+-MARGIN %.  Else "unknown", with the runs a side with which a change of
MARGIN % would reach the test at 80 % power, given the spread seen.

A test only one side has reads "only in base" or "only in change".

With --attribution (vmtest/lib/insn_profile.py's per-test lines: whether
the test ran a function whose code the change altered, or - when that
is not known; the insn/elem every function but the mitigations' thunks
moved; the insn/elem the thunks moved) a verdict is the change's, not
its code placement's.  Where a change grows or shrinks a function, the
functions after it move, and returns and indirect branches elsewhere
gain or lose a thunk (ITS) by where they land: real instructions of
that build, but luck of placement.  So a test that ran none of the
changed code and in which nothing but thunks moved reads "not covered",
whatever its figure did; one in which nothing but thunks moved reads
"placement" where its figure moved; the others are judged on the
change's figures less the thunks' difference (a test that moved though
it ran no changed code is judged too: data, or code not compared).  The thunks'
difference is a column of its own, and the verdict as built (placement
included) is in --format json, as "as_built".

--format json gives the rows with each side's per-run samples, the
header, the notes and, with --manifest, ab.sh's "key: value" lines.

Exit 0; 1 with --fail-on-slower when a test is slower; 2 on bad input.
"""

import argparse
import json
import os
import re
import sys
import textwrap
import warnings

try:
    import numpy as np
    from scipy import stats
except ImportError as missing:
    print(f'verdict.py: {missing}: install python3-scipy (Debian) for '
          f'{sys.executable}', file=sys.stderr)
    sys.exit(2)

# The runner's KTAP reader
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)),
                                '..', 'vmtest', 'lib'))
# pylint: disable=wrong-import-position
import ktap  # pylint: disable=import-error

ALPHA = 0.01
NOISES = 3.0
# The smallest change of a deterministic figure (see the docstring)
RESOLUTION = 0.5
# A deterministic count's spread between boots, measured: a side's noise
# when it has one run
BOOT_SPREAD = 0.05
UNKNOWN = 'unknown (run more)'
# insn/elem: functions that moved less did not move (the attribution's
# counts are means of per-element counts)
MOVED = 0.05


def rule(exact, margin, alpha):
    """The rule a verdict follows, for the header."""
    if exact:
        return (f'deterministic: lowest run a side, resolution '
                f'{RESOLUTION:g}; slower/faster beyond it and {NOISES:g} '
                'noises, same when the difference plus the noise is within '
                'it')
    return (f"timing: Welch's t-test on log run means, Holm alpha "
            f'{alpha:g}; slower/faster from {margin:g} %, same if TOST '
            f'shows |change| < {margin:g} %')


def noise(base, change):
    """An exact count's noise: the larger gap of a side's two lowest runs,
    the boots' measured spread where neither side has two."""
    return max((sorted(s)[1] - min(s) for s in (base, change) if len(s) > 1),
               default=BOOT_SPREAD)


def judge_deterministic(base, change, undisturbed=False):
    """The verdict on two lists of run samples of an exact count;
    UNDISTURBED: no run had a task switch in the test's chunks."""
    if len(set(base + change)) == 1:
        return 'same'
    if min(len(base), len(change)) < 2 and not undisturbed:
        return UNKNOWN
    delta, width = min(change) - min(base), noise(base, change)
    if abs(delta) >= RESOLUTION and abs(delta) > NOISES * width and \
            width < RESOLUTION / 2:
        return 'slower' if delta > 0 else 'faster'
    if abs(delta) + width < RESOLUTION:
        return 'same'
    return UNKNOWN


def shown_unit(unit, exact):
    """A figure's unit: exact ns are insn (-icount shift=0: 1 ns, 1 insn)."""
    return 'insn' if exact and unit == 'ns' else unit


def disturbed_notes(data, exact):
    """A note per side of an exact count with runs disturbed: more than
    the resolution above its lowest."""
    notes = []
    for name, (before, after, unit) in data.items():
        unit = shown_unit(unit, exact[name])
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
    """(p of a difference, p of TOST equivalence within +-margin), on logs."""
    base, change = np.log(base), np.log(change)
    margin = np.log1p(margin)
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


def runs_needed(base, change, margin_pct, alpha):
    """Runs a side with which a change of MARGIN_PCT % reaches a
    two-sided test at ALPHA with 80 % power, given the samples' spread on
    the log scale (a normal approximation)."""
    spread = np.sqrt((np.var(np.log(base), ddof=1) +
                      np.var(np.log(change), ddof=1)) / 2)
    quantiles = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(0.8)
    return max(int(np.ceil(2 * (quantiles * spread /
                                np.log1p(margin_pct / 100)) ** 2)),
               len(base) + 1, len(change) + 1)


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
    pvalues = [welch(*pairs[n], margin_pct / 100) for n in tested]
    p_diff = holm([p[0] for p in pvalues])
    p_eq = holm([p[1] for p in pvalues])
    for i, name in enumerate(tested):
        base, change = pairs[name]
        ratio = np.exp(np.mean(np.log(change)) - np.mean(np.log(base)))
        if p_diff[i] < alpha and abs(ratio - 1) * 100 >= margin_pct:
            verdicts[name] = 'slower' if ratio > 1 else 'faster'
        elif p_eq[i] < alpha:
            verdicts[name] = 'same'
        else:
            runs = runs_needed(base, change, margin_pct, alpha)
            verdicts[name] = f'unknown (about {runs} runs a side)'
    return verdicts


def samples(runs, name):
    """The run samples of NAME, with its unit."""
    have = [r for r in runs if name in r.perf]
    return [r.sample(name) for r in have], have[0].perf[name][0]


def env_words(key, value):
    """A diagnostic's comparable parts: the kernel line without build
    number or date, kernel parameters (not init's, after "--"), one item
    per vulnerability."""
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
    """{name: (base samples, change samples, unit)} of the common tests."""
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


def is_exact(unit, deterministic):
    """Whether UNIT is exact: insn, or ns under -icount (--deterministic)."""
    return deterministic or unit == 'insn'


def figure(values, exact):
    """A side's figure: its lowest run when exact, else the mean."""
    return min(values) if exact else np.mean(values)


def one_sided(base, change, deterministic):
    """Rows of the tests one side has: that side's figure, no verdict."""
    rows = []
    for side, runs, other in (('base', base, change),
                              ('change', change, base)):
        for name in dict.fromkeys(n for r in runs for n in r.perf):
            if not any(name in r.perf for r in other):
                values, unit = samples(runs, name)
                exact = is_exact(unit, deterministic)
                shown = f'{figure(values, exact):.3f}{shown_unit(unit, exact)}'
                cells = [shown, '-']
                rows.append([name] + cells[::1 if side == 'base' else -1] +
                            ['-', '-', f'only in {side}'])
    return rows


def compare(base, change, deterministic, margin, alpha=ALPHA):
    """(rows, header, notes, samples) of the table of BASE against CHANGE;
    samples[name] is (base runs' samples, change runs' samples, unit)."""
    data = common(base, change)
    exact = {n: is_exact(d[2], deterministic) for n, d in data.items()}
    verdicts = judge_timing({n: d[:2] for n, d in data.items()
                             if not exact[n]}, margin, alpha)
    rows = []
    for name, (before, after, unit) in data.items():
        if exact[name]:
            verdicts[name] = judge_deterministic(before, after)
        before, after = (figure(v, exact[name]) for v in (before, after))
        unit = shown_unit(unit, exact[name])
        rows.append([name, f'{before:.3f}{unit}', f'{after:.3f}{unit}',
                     f'{after - before:+.3f}',
                     f'{100 * (after - before) / before:+.2f}%'
                     if before else '-', verdicts[name]])
    rows += one_sided(base, change, deterministic)
    rules = sorted({(shown_unit(d[2], exact[n]), exact[n])
                    for n, d in data.items()})
    header = (f'base {len(base)} run(s), change {len(change)} run(s); ' +
              '; '.join(f'unit {u}, {rule(e, margin, alpha)}'
                        for u, e in rules))
    return rows, header, (env_notes(base, change) +
                          case_notes(base, change) +
                          disturbed_notes(data, exact)), data


def read_attribution(path):
    """{test: (ran changed code, own insn/elem, placement insn/elem, runs
    with a task switch)}."""
    found = {}
    with open(path, encoding='utf-8') as lines:
        for line in lines:
            try:
                test, ran, own, place, switched = line.split()
                found[test] = (None if ran == '-' else ran == '1',
                               float(own), float(place), int(switched))
            except ValueError as err:
                raise ktap.KtapError(f'{path}: not an attribution line: '
                                     f'{line.strip()!r}') from err
    return found


def attribute(rows, data, found, deterministic):
    """Each row's verdict made the change's (see the docstring), its
    thunks' difference appended; {test: verdict as built}."""
    as_built = {}
    for row in rows:
        test = row[0].split(':')[0]
        if test not in found or row[5].startswith('only'):
            row.append('-')
            continue
        ran, own, place, switched = found[test]
        as_built[row[0]] = row[5]
        row.append(f'{round(place, 3) + 0.0:+.3f}')  # no -0.000
        before, after, unit = data[row[0]]
        if ran is False and abs(own) < MOVED:
            row[5] = 'not covered'
        elif abs(own) < MOVED:
            # the figure as built, one boot a side deciding where no
            # task switched; what moved it, the thunks
            if is_exact(unit, deterministic):
                row[5] = judge_deterministic(before, after, not switched)
            if row[5] not in ('same', UNKNOWN):
                row[5] = 'placement'
        elif is_exact(unit, deterministic):
            # the thunks' instructions apart; model cycles as estimated
            shift = place if unit in ('insn', 'ns') else 0
            row[5] = judge_deterministic(before, [a - shift for a in after],
                                         not switched)
    return as_built


def undecided(rows):
    """Whether a row the boots should decide reads unknown: of the rows
    the attribution covers (a placement that is not "-"), where it covers
    any (ptr_ring_test's take the verdict of the boots these needed)."""
    covered = [r for r in rows if len(r) > 6 and r[6] != '-'] or rows
    return any(r[5].startswith('unknown') for r in covered)


def manifest(path):
    """{key: value, or [values] of a repeated key} of FILE's lines."""
    found = {}
    with open(path, encoding='utf-8') as lines:
        for line in lines:
            key, _, value = line.rstrip('\n').partition(': ')
            found.setdefault(key, []).append(value)
    return {k: v[0] if len(v) == 1 else v for k, v in found.items()}


def as_json(table, data, extra, as_built):
    """The table (rows, header, notes) as JSON, with the per-run
    samples."""
    rows, header, notes = table
    keys = ('test', 'base', 'change', 'delta', 'percent', 'verdict',
            'placement')
    found = [dict(zip(keys, row)) for row in rows]
    for row in found:
        if row['test'] in data:
            before, after, unit = data[row['test']]
            row.update(unit=unit, base_runs=before, change_runs=after)
        if row['test'] in as_built:
            row['as_built'] = as_built[row['test']]
    return json.dumps({'header': header, 'notes': notes, 'rows': found,
                       **extra}, indent=1, ensure_ascii=False) + '\n'


def render(rows, header, notes, fmt):
    """The table as text for a mail or as Markdown."""
    head = ['test', 'base', 'change', 'Δ/elem', '%', 'verdict',
            'placement'][:len(rows[0])]
    if fmt == 'markdown':
        lines = [header, ''] + ['- note: ' + n for n in notes] + [
            '', '| ' + ' | '.join(head) + ' |',
            '|' + '---|' * len(head)] + [
            '| ' + ' | '.join(r) + ' |' for r in rows]
        return '\n'.join(lines) + '\n'
    # One unit for the whole table: the header says it
    units = {re.sub(r'^[-+\d.]+', '', c) for r in rows for c in r[1:3]}
    if len(units - {'-'}) == 1:
        unit = (units - {'-'}).pop()
        rows = [[r[0]] + [c.removesuffix(unit) for c in r[1:3]] + r[3:]
                for r in rows]
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    lines = [textwrap.fill(line, 79, subsequent_indent='  ',
                           break_on_hyphens=False)
             for line in [header] + ['note: ' + n for n in notes]] + [
        ' '.join(c.ljust(w) if i in (0, 5) else c.rjust(w)
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
    parser.add_argument('--format', choices=('text', 'markdown', 'json'),
                        default='text')
    parser.add_argument('--manifest', metavar='FILE',
                        help="ab.sh's record of what was compared, for json")
    parser.add_argument('--deterministic', action='store_true',
                    help='judge every figure as an exact count')
    parser.add_argument('--margin', type=float, default=2.0, metavar='PCT',
                    help='equivalence margin for timings (default 2)')
    parser.add_argument('--alpha', type=float, default=ALPHA, metavar='A',
                        help='family-wise error rate of the timing tests '
                        f'(default {ALPHA:g})')
    parser.add_argument('--attribution', metavar='FILE',
                        help="insn_profile.py's per-test attribution: "
                        "verdicts the change's, not its placement's")
    parser.add_argument('--fail-on-slower', action='store_true',
                        help='exit 1 when a test is slower')
    parser.add_argument('--undecided', action='store_true',
                        help='no table: exit 0 when a row the boots should '
                        'decide is unknown, 1 when none is')
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
        rows, header, notes, data = compare(sides[0], sides[1],
                                            args.deterministic, args.margin,
                                            args.alpha)
        extra = {'manifest': manifest(args.manifest)} if args.manifest \
            else {}
        as_built = {}
        if args.attribution:
            as_built = attribute(rows, data,
                                 read_attribution(args.attribution),
                                 args.deterministic)
            header += ('; verdicts the change\'s: placement (the thunks\' '
                       'insn/elem) apart')
    except ktap.KtapError as err:
        print(f'verdict.py: {err}', file=sys.stderr)
        return 2
    except OSError as err:
        print(f'verdict.py: {err.filename}: {err.strerror}', file=sys.stderr)
        return 2
    if args.undecided:
        return 0 if undecided(rows) else 1
    if args.format == 'json':
        sys.stdout.write(as_json((rows, header, notes), data, extra,
                                 as_built))
    else:
        sys.stdout.write(render(rows, header, notes, args.format))
    slower = any(r[5] == 'slower' for r in rows)
    return 1 if slower and args.fail_on_slower else 0


if __name__ == '__main__':
    sys.exit(main())
