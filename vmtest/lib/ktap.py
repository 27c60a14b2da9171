#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Read benchmark results from KTAP, whatever carried it.

A run is one boot: one file (raw KTAP of test_bench_page_pool.sh or
ptr_ring_test, kselftest output with its "# " prefixes, a console, NIPA
or LKP log) or one runner job directory (JOB/ktap/*.tap); a directory of
them is a run per file or job.  Each "ok N NAME # perf=VALUE<unit>" of a
name is a repetition; the run's sample is their mean.  "not ok", "# SKIP"
and the "# kernel:", "# cmdline:" and "# vulnerabilities:" diagnostics
are kept too.  A run with no such case is read from the module's raw
kernel log lines as people post them ("[ 12.3] time_bench: Type:<test>
Per elem: 19 cycles(tsc) 5.539 ns ..."), a repetition in ns each.

As a command, "ktap.py passed FILE" prints the cases of FILE's run that
passed with a figure, one a line (a shell's list of a benchmark's modes).
"""

import dataclasses
import os
import re
import sys

ENV_KEYS = ('kernel', 'cmdline', 'vulnerabilities')
# A metric prefix (its power of ten) on a known base unit: times become
# ns, instructions insn, events (locked operations) ops.
PREFIX = {'': 0, 'p': -12, 'n': -9, 'u': -6, 'µ': -6, 'm': -3, 'k': 3,
          'M': 6, 'G': 9}
BASE = {'s': ('ns', 9), 'insn': ('insn', 0), 'ops': ('ops', 0)}

TIMESTAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT = re.compile(r'^(not )?ok\s+\d+\b\s*(?:- )?(.*)$')
PERF = re.compile(r'^perf=([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)'
                  r'(\S+)')
DIAG = re.compile(rf'^({"|".join(ENV_KEYS)}):\s*(.*)$')
# time_bench's line, upstream's and this series'
TYPE = re.compile(r'^(?:[\w-]+: )*Type:(\S+) Per elem: [\d.]+ cycles\(\w+\) '
                  r'(\d+(?:\.\d+)?) ns\b')

# kselftest's line for a program, after its own KTAP (behind "# ")
PROGRAM = re.compile(r'^(not )?ok \d+ selftests: (\S+): (.*?)'
                     r'(?:\s+#\s*(.*))?$')


class KtapError(Exception):
    """Input that cannot be read or holds no result."""


@dataclasses.dataclass
class Run:
    """One boot's results: perf[name] = (unit, [values])."""
    source: str
    perf: dict = dataclasses.field(default_factory=dict)
    skipped: set = dataclasses.field(default_factory=set)
    failed: set = dataclasses.field(default_factory=set)
    env: dict = dataclasses.field(default_factory=dict)
    raw: dict = dataclasses.field(default_factory=dict)

    def sample(self, name):
        """The run's figure for NAME: the mean of its repetitions."""
        values = self.perf[name][1]
        return sum(values) / len(values)


def normalise(value, unit):
    """(value, unit) with a metric prefix of s or insn folded in."""
    for base, (shown, power) in BASE.items():
        if unit.endswith(base) and unit[:-len(base)] in PREFIX:
            power += PREFIX[unit[:-len(base)]]
            return value * 10 ** power if power >= 0 else \
                value / 10 ** -power, shown
    return value, unit


def parse_line(run, line):
    """Add what LINE holds to RUN."""
    line = TIMESTAMP.sub('', line.rstrip('\r\n'))
    depth = 0
    while line.startswith('#'):
        line = line[1:].lstrip(' ')
        depth += 1
    match = RESULT.match(line)
    if not match and not depth and (raw := TYPE.match(line)):
        run.raw.setdefault(raw.group(1), ('ns', []))[1].append(
            float(raw.group(2)))
        return
    if not match:
        match = DIAG.match(line)
        if match and depth:
            run.env.setdefault(match.group(1), match.group(2).strip())
        return
    failed, rest = match.group(1), match.group(2)
    name, _, directive = rest.partition('#')
    name, directive = name.strip(), directive.strip()
    if name.startswith('selftests:'):
        return              # kselftest's line for the whole program
    if re.match(r'SKIP\b', directive, re.IGNORECASE):
        # ksft_test_result_skip() puts the name after the directive
        name = name or (directive[4:].split() or ['?'])[0].rstrip(':')
        run.skipped.add(name)
    elif failed:
        run.failed.add(name)
    elif (perf := PERF.match(directive)) and name:
        value, unit = normalise(float(perf.group(1)), perf.group(2))
        known, values = run.perf.setdefault(name, (unit, []))
        if known != unit:
            raise KtapError(f'{run.source}: {name} in {known} and in {unit}')
        values.append(value)


def read_run(paths, source):
    """One run from the files PATHS."""
    run = Run(source)
    for path in paths:
        try:
            with open(path, encoding='utf-8', errors='replace') as log:
                for line in log:
                    parse_line(run, line)
        except OSError as err:
            raise KtapError(f'{path}: {err.strerror}') from err
    if not run.perf:
        run.perf = run.raw
    return run


def job_taps(path):
    """A runner job directory's KTAP files, or None if PATH is none."""
    ktap = os.path.join(path, 'ktap')
    if not os.path.isdir(ktap):
        return None
    return sorted(os.path.join(ktap, f) for f in os.listdir(ktap)
                  if f.endswith('.tap'))


def read_runs(path):
    """The runs of PATH: a file, a job directory or a directory of them.
    Files with no KTAP result in a directory (a README) are left out."""
    if os.path.isfile(path):
        return [read_run([path], path)]
    if not os.path.isdir(path):
        raise KtapError(f'{path}: no such file or directory')
    taps = job_taps(path)
    if taps is not None:
        return [read_run(taps, path)]
    runs = []
    for entry in sorted(os.listdir(path)):
        full = os.path.join(path, entry)
        if os.path.isfile(full) or job_taps(full) is not None:
            runs += [r for r in read_runs(full)
                     if r.perf or r.skipped or r.failed]
    return runs


@dataclasses.dataclass
class Program:  # pylint: disable=too-many-instance-attributes
    """A kselftest program's result and what its own KTAP reported."""
    target: str
    name: str
    passed: bool
    directive: str
    plan: int = None
    results: int = 0
    failed: int = 0             # not ok, neither SKIP nor TODO
    bare_xfail: int = 0         # XFAIL without a reason


def programs(lines):
    """The programs of a kselftest log (run_kselftest.sh or make
    run_tests), in order, each with its nested KTAP's plan and results."""
    found, cur = [], None
    for line in lines:
        line = TIMESTAMP.sub('', line.rstrip('\r\n'))
        if line.startswith('# selftests: '):
            cur = Program('', '', False, '')
        elif cur and line.startswith('# '):
            inner = line[2:]
            plan = re.match(r'1\.\.(\d+)', inner)
            if plan and cur.plan is None:
                cur.plan = int(plan.group(1))
            elif match := RESULT.match(inner):
                cur.results += 1
                directive = match.group(2).partition('#')[2].strip()
                if match.group(1) and not re.match(r'(SKIP|TODO)\b',
                                                   directive, re.IGNORECASE):
                    cur.failed += 1
                cur.bare_xfail += directive.upper() == 'XFAIL'
        elif match := PROGRAM.match(line):
            prog = cur or Program('', '', False, '')
            prog.target, prog.name = match.group(2), match.group(3)
            prog.passed = not match.group(1)
            prog.directive = match.group(4) or ''
            found.append(prog)
            cur = None
    return found


def main(argv):
    """ktap.py passed FILE: the names of FILE's cases with a figure."""
    if len(argv) != 3 or argv[1] != 'passed':
        print('usage: ktap.py passed FILE', file=sys.stderr)
        return 2
    try:
        run = read_run([argv[2]], argv[2])
    except KtapError as err:
        print(f'ktap.py: {err}', file=sys.stderr)
        return 2
    for name in run.perf:
        print(name)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
