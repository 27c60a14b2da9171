#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The cover letter's results table, from vmtest.sh job directories.

usage: series/results.py JOB...

A JOB is the directory a run of vmtest/vmtest.sh printed ("results in
..."; CACHE/jobs/TARGET is the newest of a target): its result file says
the target, verdict and acceleration, its console.log the guest's kernel
and CPUs, its ktap/*.tap files the selftests' KTAP. Prints one line per
run (target, kernel, what the figures are) and a table with a row per
subtest and a column per run: the "# perf=" figure, or what the test
did instead (fail, skip). The figures' mode comes from the run, never
from the reader: QEMU TCG emulation, a KVM guest, or QEMU -icount
instruction counts.
"""

import glob
import os
import re
import sys

MODES = {
    'tcg': 'QEMU TCG emulation: emulated time, not hardware figures',
    'kvm': 'QEMU/KVM guest: VM time, not bare-metal figures',
    'icount': 'QEMU TCG -icount: instructions, deterministic, not time',
}
TARGET = re.compile(r'^# selftests: (\S+): ')
CASE = re.compile(r'^# (not )?ok \d+ (\S+)(?: # (.*))?$')
GUEST = re.compile(r'^vmtest-guest: (\S+), (\d+) CPUs, running ')


def fail(msg):
    sys.exit('results.py: ' + msg)


def read_job(job):
    """(label, kernel, cpus, mode, {(target, case): cell}...) per KTAP
    file of the job."""
    try:
        with open(os.path.join(job, 'result'), encoding='utf-8') as f:
            result = dict(w.split('=', 1) for w in f.read().split()
                          if '=' in w)
    except OSError as e:
        fail('%s: no result of a finished run (%s)' % (job, e.strerror))
    mode = MODES.get(result.get('accel'))
    if not mode:
        fail('%s: unknown acceleration "%s"' % (job, result.get('accel')))
    kernel, cpus = '?', '?'
    with open(os.path.join(job, 'console.log'), encoding='utf-8',
              errors='replace') as f:
        for line in f:
            m = GUEST.match(line.strip())
            if m:
                kernel, cpus = m.groups()
                break
    taps = sorted(glob.glob(os.path.join(job, 'ktap', '*.tap')))
    if not taps:
        fail('%s: no ktap/*.tap (the guest ran no selftests)' % job)
    runs = []
    for tap in taps:
        label = result.get('target', '?')
        if len(taps) > 1:
            label += '/' + os.path.basename(tap)[:-len('.tap')]
        cells, target = {}, None
        with open(tap, encoding='utf-8', errors='replace') as f:
            for line in f:
                line = line.rstrip('\r\n')
                m = TARGET.match(line)
                if m:
                    target = m.group(1)
                    continue
                m = CASE.match(line)
                if not m or not target:
                    continue
                directive = m.group(3) or ''
                if m.group(1):
                    cell = 'fail'
                elif directive.startswith('perf='):
                    cell = directive[len('perf='):]
                elif directive.upper().startswith('SKIP'):
                    cell = 'skip'
                else:
                    cell = 'pass'
                cells[(target, m.group(2))] = cell
        runs.append((label, kernel, cpus, mode, result.get('result', '?'),
                     cells))
    return runs


def table(jobs):
    runs = [run for job in jobs for run in read_job(job)]
    out = ['One vmtest/vmtest.sh run per column; figures per element'
           ' (net/bench)', 'or item (ptr_ring):']
    for label, kernel, cpus, mode, verdict, _ in runs:
        out.append('  %s: Linux %s, %s vCPUs, run: %s' %
                   (label, kernel, cpus, verdict))
        out.append('    %s' % mode)
    rows = []
    for *_, cells in runs:
        rows += [k for k in cells if k not in rows]
    if not rows:
        fail('no subtest results in %s' % ' '.join(jobs))
    names = ['%s %s' % k for k in rows]
    width = max(len(n) for n in names + ['test'])
    cols = [max(len(c) for c in [r[0]] + list(r[5].values())) for r in runs]
    out.append('')
    out.append('  %-*s  %s' % (width, 'test', '  '.join(
        '%*s' % (w, r[0]) for w, r in zip(cols, runs))))
    for name, k in zip(names, rows):
        out.append('  %-*s  %s' % (width, name, '  '.join(
            '%*s' % (w, r[5].get(k, '-')) for w, r in zip(cols, runs))))
    return '\n'.join(out)


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith('-'):
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        sys.exit(2)
    print(table([os.path.abspath(j) for j in sys.argv[1:]]))


if __name__ == '__main__':
    main()
