#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Figures commit by commit, from ab/git.sh's store.

A COMMIT_DIR is the store's directory of one commit (its name the full
hash): its boots (boot-N, runner jobs' KTAP), its subject, and no-build
when it did not build.  "table" prints a column per commit, in the order
given: the first commit's figures, then each next commit's difference
from the commit before it, marked with the verdict of ab/verdict.py's
deterministic rule (* slower or faster, ? unknown); then a line per
commit naming what it moved.  Where both commits' boots have their
per-function profiles (ab.sh --tree --attribute), a verdict is the
commit's, not its code placement's, as ab/verdict.py --attribution
rules (~ placement: only the thunks moved).  With --out it also draws
DIR/range.png and DIR/range.svg: per test, instructions per element
against commits, the commits that moved it marked and named.  "differs"
exits 0 when a test (NAME, or any) differs between the two commits (a
move of placement only with --placement), 1 when none does, 3 when the
boots cannot tell.  "unsure" exits 0 when a row the boots of two commits
should decide (one the profiles cover, where they have them) is unknown,
1 when none is.
"""

import argparse
import glob
import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, '..', 'vmtest', 'lib')]
# pylint: disable=wrong-import-position
import insn_profile  # pylint: disable=import-error
import ktap  # pylint: disable=import-error
import verdict

MOVED = ('slower', 'faster')
HEADER = (("# deterministic: instructions per element; the first commit's "
           'figure, then each'),
          ("# commit's change from the one before (* slower or faster, ? "
           'unknown)'))
MARK = {'slower': '*', 'faster': '*', 'same': '', 'not covered': '',
        'placement': '~'}


class Commit:  # pylint: disable=too-few-public-methods
    """One commit of the store: its hash, subject and boots."""

    def __init__(self, path):
        self.sha = os.path.basename(os.path.normpath(path))
        try:
            with open(os.path.join(path, 'subject'),
                      encoding='utf-8') as text:
                self.subject = text.read().strip()
        except OSError:
            self.subject = '?'
        self.runs = [r for b in sorted(glob.glob(os.path.join(path,
                                                             'boot-*')))
                     for r in ktap.read_runs(b)]
        self.built = not os.path.exists(os.path.join(path, 'no-build'))
        self.profiles = sorted(glob.glob(os.path.join(path, 'boot-*',
                                                      'profile.json')))

    def label(self):
        """The commit's short name."""
        return self.sha[:12]

    def figure(self, name):
        """Its deterministic figure of NAME: the lowest boot, or None."""
        values = [r.sample(name) for r in self.runs if name in r.perf]
        return min(values) if values else None


def compare(before, after):
    """verdict.py's rows of BEFORE against AFTER (Commits), the commit's
    own where both have profiles"""
    rows, _, _, data = verdict.compare(before.runs, after.runs, True, 2.0)
    if before.profiles and after.profiles:
        try:
            found = insn_profile.attribution(
                [insn_profile.profile(p) for p in before.profiles],
                [insn_profile.profile(p) for p in after.profiles])
        except insn_profile.ProfileError as err:
            raise ktap.KtapError(str(err)) from err
        verdict.attribute(rows, data, found, True)
    return rows


def steps(commits):
    """[(commit, previous commit, {test: (delta, verdict)})] for each
    commit that has boots after the first that has them."""
    done, prev = [], None
    for commit in commits:
        if not commit.runs:
            continue
        if prev:
            done.append((commit, prev, {r[0]: (float(r[3]), r[5])
                                        for r in compare(prev, commit)
                                        if r[3] != '-'}))
        prev = commit
    return done


def summary(commit, first, moves):
    """What COMMIT moved, in words."""
    if commit is first:
        return 'the first'
    if not commit.runs:
        return 'does not build' if not commit.built else 'not measured'
    words = [f'{t} {d:+.2f} {w}' for t, (d, w) in moves[commit.sha].items()
             if w in MOVED]
    words += [f'{t} {d:+.2f} placement' for t, (d, w) in
              moves[commit.sha].items() if w == 'placement']
    words += [f'{t} {d:+.2f} unknown' for t, (d, w) in
              moves[commit.sha].items() if w not in MARK and w not in MOVED]
    return ', '.join(words) or 'nothing moved'


def table(commits):
    """The text table and the per-commit lines."""
    measured = [c for c in commits if c.runs]
    if not measured:
        raise ktap.KtapError('no commit of the range has boots in the store')
    first = measured[0]
    tests = list(dict.fromkeys(n for c in measured for r in c.runs
                               for n in r.perf))
    moves = {c.sha: d for c, _, d in steps(commits)}
    width = max(len(t) for t in tests)
    head = [c.label()[:9] for c in commits]
    lines = [HEADER[0], HEADER[1],
             'test'.ljust(width) + ''.join(f' {h:>10}' for h in head)]
    for test in tests:
        cells = []
        for commit in commits:
            if commit is first:
                value = first.figure(test)
                cells.append('-' if value is None else f'{value:.3f}')
            elif not commit.runs:
                cells.append('no build' if not commit.built else '-')
            elif test in moves.get(commit.sha, {}):
                delta, word = moves[commit.sha][test]
                cells.append(f'{delta:+.3f}{MARK.get(word, "?")}')
            else:
                cells.append('-')
        lines.append(test.ljust(width) + ''.join(f' {c:>10}' for c in cells))
    lines += [f'{c.label()} {c.subject}: {summary(c, first, moves)}'
              for c in commits]
    return '\n'.join(lines) + '\n', moves


def panel(axis, commits, moves, test):
    """One test's figures against the commits, the moves in red."""
    values = [c.figure(test) for c in commits]
    axis.plot([i for i, v in enumerate(values) if v is not None],
              [v for v in values if v is not None], 'o-', color='tab:blue')
    for index, commit in enumerate(commits):
        delta, word = moves.get(commit.sha, {}).get(test, (0, ''))
        if word in MOVED:
            axis.plot([index], [values[index]], 'o', color='tab:red')
            axis.annotate(f'{delta:+.2f}', (index, values[index]),
                          textcoords='offset points', xytext=(4, 4),
                          color='tab:red', fontsize=8)
    # A scale of at least 2 insn/elem: differences below the verdict's
    # resolution stay flat instead of filling the panel
    low, high = (min(v for v in values if v is not None),
                 max(v for v in values if v is not None))
    pad = max(0.1 * (high - low), 1 - (high - low) / 2)
    axis.set_ylim(low - pad, high + pad)
    axis.set_title(test, fontsize=9)
    axis.set_xticks(range(len(commits)))
    axis.set_xticklabels([c.label()[:7] for c in commits], rotation=45,
                         fontsize=7, ha='right')
    axis.ticklabel_format(axis='y', useOffset=False)
    axis.set_ylabel('insn/elem', fontsize=8)
    axis.grid(alpha=0.3)


def plot(commits, moves, out):
    """range.png and range.svg in OUT: a panel per test."""
    # pylint: disable=import-outside-toplevel
    import matplotlib
    matplotlib.use('Agg')
    # text stays text in the SVG: the commits can be searched for
    matplotlib.rcParams['svg.fonttype'] = 'none'
    import matplotlib.pyplot as plt
    tests = list(dict.fromkeys(n for c in commits for r in c.runs
                               for n in r.perf))
    rows = (len(tests) + 2) // 3
    fig, axes = plt.subplots(rows, 3, figsize=(15, 2.6 * rows + 0.6),
                             squeeze=False)
    for axis, test in zip(axes.flat, tests):
        panel(axis, commits, moves, test)
    for axis in list(axes.flat)[len(tests):]:
        axis.set_visible(False)
    named = [f'{c.label()[:7]} {c.subject}' for c in commits
             if any(w in MOVED for _, w in moves.get(c.sha, {}).values())]
    fig.suptitle('instructions per element by commit (QEMU -icount); '
                 'red: moved' + ''.join('\n' + n for n in named),
                 fontsize=10)
    fig.tight_layout()
    for ext in ('png', 'svg'):
        fig.savefig(os.path.join(out, f'range.{ext}'), dpi=110)
    plt.close(fig)


def differs(first, other, test, placement=False):
    """0 when TEST (or any test) moved from FIRST to OTHER (or, with
    PLACEMENT, its code placement did), 1 when none did, 3 when a
    verdict is unknown."""
    words = [r[5] for r in compare(first, other) if test in (None, r[0])]
    if not words:
        raise ktap.KtapError(f'no test {test} in the boots')
    if any(w in MOVED or (placement and w == 'placement') for w in words):
        return 0
    return 1 if all(w in MARK for w in words) else 3


def unsure(first, other):
    """0 when a row the boots should decide is unknown: of the rows the
    profiles cover, where both commits have them (the others take the
    verdict their boots made), 1 when none is."""
    return 0 if verdict.undecided(compare(first, other)) else 1


def main(argv=None):
    """The command line; returns the exit code."""
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest='cmd', required=True)
    tab = sub.add_parser('table')
    tab.add_argument('--out', metavar='DIR')
    tab.add_argument('commits', nargs='+', metavar='COMMIT_DIR')
    dif = sub.add_parser('differs')
    dif.add_argument('--test', metavar='NAME')
    dif.add_argument('--placement', action='store_true',
                     help='a move of code placement only is a difference')
    dif.add_argument('commits', nargs=2, metavar=('FIRST_DIR', 'COMMIT_DIR'))
    uns = sub.add_parser('unsure')
    uns.add_argument('commits', nargs=2, metavar=('FIRST_DIR', 'COMMIT_DIR'))
    args = parser.parse_args(argv)
    try:
        commits = [Commit(p) for p in args.commits]
        if args.cmd == 'differs':
            return differs(*commits, args.test, args.placement)
        if args.cmd == 'unsure':
            return unsure(*commits)
        text, moves = table(commits)
        sys.stdout.write(text)
        if args.out:
            plot(commits, moves, args.out)
    except ktap.KtapError as err:
        print(f'range.py: {err}', file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
