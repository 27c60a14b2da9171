#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The cover letter's results table, from vmtest.sh job directories.

usage: series/results.py [--before JOB] [--fill COVER] JOB...

A JOB is the directory a run of vmtest/vmtest.sh printed ("results in
..."; CACHE/jobs/TARGET is the newest of a target): its result file says
the target, verdict and acceleration, its console.log the guest's kernel
and CPUs, its ktap/*.tap files the selftests' KTAP. Prints one line per
run (target, kernel, what the figures are) and a table with a row per
subtest and a column per run: the "# perf=" figure, or what the test
did instead (fail, skip). The figures' mode comes from the run, never
from the reader: QEMU TCG emulation, a KVM guest, or QEMU -icount
instruction counts. After the table, each run's environment: the
"# environment:" lines its KTAP has (the module's "run env" line, the
boot command line, the CPU vulnerabilities, the mode).

--before JOB adds a first column, "upstream": a vmtest.sh job whose
command loaded the base tree's own bench_page_pool.ko (series/measure.sh
does it) and printed its "Type:" lines; the figure of each is its
tsc_interval (-icount: instructions) or time_interval (ns) over its
invoke count, the mean per element as our module reports it.

--fill COVER writes the table into a cover letter (a series' committed
0000-cover-letter.patch) instead of printing it: in place of a line
"@RESULTS@", or of the table an earlier --fill wrote there.
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
ENV = re.compile(r'^#(?: #)? environment: (.*)$')
UPSTREAM = re.compile(
    r'Type:(\S+) Per elem: \d+ cycles\(tsc\) \S+ ns \(step:\d+\) - '
    r'\(measurement period time:\S+ sec time_interval:(\d+)\) - '
    r'\(invoke count:(\d+) tsc_interval:(\d+)\)')
UNITS = ('Units: insn, instructions per element (net/bench) or item (ptr_ring)'
         '\nunder QEMU -icount, whose TSC counts instructions; ns, '
         'nanoseconds (QEMU\'s\nvirtual time under -icount).')


def fail(msg):
    sys.exit('results.py: ' + msg)


def read_head(job):
    """The job's result (as a dict), mode, kernel and vCPUs."""
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
    return result, mode, kernel, cpus


def read_before(job):
    """The upstream column: (label, kernel, cpus, mode, verdict, cells,
    environment lines) from the Type: lines upstream's module printed."""
    result, mode, kernel, cpus = read_head(job)
    icount = result.get('accel') == 'icount'
    cells = {}
    with open(os.path.join(job, 'console.log'), encoding='utf-8',
              errors='replace') as f:
        for line in f:
            m = UPSTREAM.search(line)
            if m:
                name, time, cnt, tsc = m.groups()
                cells[('net/bench', name)] = '%.3f%s' % (
                    int(tsc if icount else time) / int(cnt),
                    'insn' if icount else 'ns')
    if not cells:
        fail("%s: no Type: line of upstream's module in console.log" % job)
    return ('upstream', kernel, cpus, mode, result.get('result', '?'), cells,
            ["Linux %s's own bench_page_pool.ko, loaded once with its "
             "defaults" % kernel])


def read_job(job):
    """(label, kernel, cpus, mode, verdict, {(target, case): cell},
    environment lines) per KTAP file of the job."""
    result, mode, kernel, cpus = read_head(job)
    taps = sorted(glob.glob(os.path.join(job, 'ktap', '*.tap')))
    if not taps:
        fail('%s: no ktap/*.tap (the guest ran no selftests)' % job)
    runs = []
    for tap in taps:
        label = result.get('target', '?')
        if len(taps) > 1:
            label += '/' + os.path.basename(tap)[:-len('.tap')]
        cells, target, env = {}, None, []
        with open(tap, encoding='utf-8', errors='replace') as f:
            for line in f:
                line = line.rstrip('\r\n')
                m = ENV.match(line)
                if m:
                    env.append(m.group(1))
                    continue
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
                     cells, env))
    return runs


def table(jobs, before=None):
    runs = [read_before(before)] if before else []
    runs += [run for job in jobs for run in read_job(job)]
    out = ['One vmtest/vmtest.sh run per column; figures per element'
           ' (net/bench)', 'or item (ptr_ring):']
    for label, kernel, cpus, mode, verdict, *_ in runs:
        out.append('  %s: Linux %s, %s vCPUs, run: %s' %
                   (label, kernel, cpus, verdict))
        out.append('    %s' % mode)
    rows = []
    # Rows in the order our module runs them; upstream's are among them
    for *_, cells, _ in (runs[1:] + runs[:1]) if before else runs:
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
    out += ['', UNITS]
    for label, *_, env in runs:
        out += ['', 'Environment of %s (its "# environment:" lines, the '
                'module\'s "run env"\nfirst):' % label if env and
                label != 'upstream' else 'Environment of %s:' % label]
        out += ['  ' + e for e in env] or ['  (none on record)']
    return '\n'.join(out)


HEAD = 'One vmtest/vmtest.sh run per column; figures per element'


def fill(cover, text):
    """TEXT in place of COVER's @RESULTS@ line or of its earlier table:
    from its first line to the last line that is blank, indented or one
    of the table's own."""
    with open(cover, encoding='utf-8') as f:
        lines = f.read().split('\n')
    own = set(UNITS.split('\n')) | {'or item (ptr_ring):', 'first):'}
    if '@RESULTS@' in lines:
        start = lines.index('@RESULTS@')
        end = start + 1
    else:
        start = next((i for i, ln in enumerate(lines)
                      if ln.startswith(HEAD)), None)
        if start is None:
            fail('%s has no @RESULTS@ line and no results table' % cover)
        end = start + 1
        for i in range(start + 1, len(lines)):
            ln = lines[i]
            if ln and not ln.startswith((' ', '\t', 'Environment of ')) \
               and ln not in own:
                break
            if ln.strip():
                end = i + 1
    lines[start:end] = text.split('\n')
    with open(cover, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines))


def main():
    args, before, cover = sys.argv[1:], None, None
    while args[:1] in (['--before'], ['--fill']) and len(args) > 1:
        if args[0] == '--before':
            before = os.path.abspath(args[1])
        else:
            cover = args[1]
        args = args[2:]
    if not args or args[0].startswith('-'):
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        sys.exit(2)
    text = table([os.path.abspath(j) for j in args], before)
    if cover:
        fill(cover, text)
    else:
        print(text)


if __name__ == '__main__':
    main()
