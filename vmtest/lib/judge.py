#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a runner job from its files alone, so that a saved job is judged
again as the run judged it (vmtest.sh judge JOB):

  qemu        QEMU's exit (rc=; 124: killed at the timeout, 125: it never
              reached userspace) and the limits it ran under
  console.log the serial console: a kernel splat fails the run
  kmemleak    what kmemleak reported after the tests
  rc          the guest command's exit code
  ktap/       kselftest runs (*.tap) of the targets in ktap/targets: each
              test judged by its own KTAP
  profile.json --attribute's per-function counts: a page_pool test whose
              path lacks a function it must call (insn_profile.py's
              fingerprint) fails the run

Prints what is wrong, "vmtest: " lines on stderr, and exits 0 (passed),
4 (everything skipped) or 1.  With --splats LOG, LOG's splat lines and
the kernel's RIP:/pc lines around them, on stdout, and whether LOG has a
kernel splat (exit 0) or not (1).
"""

import json
import os
import re
import sys

import insn_profile
import ktap

BOOT_MARKER = 'vmtest-initramfs: userspace started'
# Kernel reports that fail a run whatever the tests said: only kernel
# lines (a printk timestamp first), not the tests' own output. WARN()'s
# and lockdep's "WARNING:" opens its line; a subsystem's own warning
# ("RETBleed: WARNING: Spectre v2 mitigation leaves CPU vulnerable ...",
# a named CPU's mitigation choice) is no report.
SPLAT = re.compile(
    r'^\[ *\d+\.\d+\](\[ *[TC]\d+\])? ?(WARNING:|'
    r'.*(Oops|Unable to handle kernel|BUG:|'
    r'Kernel panic|general protection fault|KASAN:|UBSAN:|'
    r'unreferenced object|new suspected memory leak|soft lockup|'
    r'hard LOCKUP|rcu: INFO|rcu_(sched|preempt) (self-)?detected stall|'
    r'INFO: task .* blocked for more than|possible circular locking|'
    r'possible recursive locking|inconsistent lock state|'
    r'suspicious RCU usage|ODEBUG:|list_(add|del) corruption|'
    r'kernel BUG at))')
# Where a crash was: a kernel line with the faulting address
CRASH_SITE = re.compile(r'^\[ *\d+\.\d+\].*(RIP:|pc : )')


def say(*words):
    """A finding, on stderr."""
    print('vmtest:', *words, file=sys.stderr)


def read(*path):
    """A file (a job's, by its name), or '' if there is none."""
    try:
        with open(os.path.join(*path), encoding='utf-8',
                  errors='replace') as handle:
            return handle.read()
    except OSError:
        return ''


def splats(lines):
    """Indices of the splat lines."""
    return [i for i, line in enumerate(lines) if SPLAT.match(line)]


def report_splats(lines):
    """Show up to three splats with the lines around them: any?"""
    found = splats(lines)
    if not found:
        return False
    say(f'the kernel reported {len(found)} problem line(s):')
    for i in found[:3]:
        first, last = max(i - 5, 0), i + 31
        print(f'----- console lines {first + 1}-{last} -----',
              file=sys.stderr)
        sys.stderr.write(''.join(lines[first:last]))
    print('-----', file=sys.stderr)
    return True


def tail(lines, what):
    """WHAT, with the console's last lines."""
    say(f'{what}; last console lines:')
    sys.stderr.write(''.join(lines[-30:]))


def fold(worst, new):
    """kselftest exit codes folded: a failure wins, skips alone give 4."""
    if new == 0:
        return 1 if worst == 1 else 0
    if new == 4:
        return 4 if worst is None else worst
    return 1


def judge_tap(path, targets):
    """A kselftest log's code; each test of TARGETS by its own KTAP."""
    with open(path, encoding='utf-8', errors='replace') as handle:
        progs = ktap.programs(handle)
    bad = 0
    for target in targets:
        if not any(p.target == target for p in progs):
            say(f'no result from {target} (did it build?)')
            bad += 1
    for prog in progs:
        if prog.target not in targets:
            continue
        problems = []
        # KTAP's plan is optional where the count is not known before
        # (test_bench_page_pool.sh streams its cases): not its results
        if prog.plan is None and not prog.results:
            problems.append('printed no KTAP plan and no result')
        elif prog.plan is not None and prog.results != prog.plan:
            problems.append(f'planned {prog.plan} results, '
                            f'reported {prog.results}')
        if prog.failed and prog.passed:
            problems.append(f'{prog.failed} failed result(s), yet it passed')
        if prog.bare_xfail:
            problems.append(f'{prog.bare_xfail} XFAIL(s) without a reason')
        if prog.directive.upper().startswith('XFAIL'):
            problems.append('exited 2 (XFAIL), which no test of the series '
                            'gives (a shell that cannot run it?)')
        for problem in problems:
            say(f'KTAP of {prog.target}: {prog.name}:', problem)
        bad += len(problems)
    if bad or not progs or any(not prog.passed for prog in progs):
        return 1
    skips = sum(prog.directive.upper().startswith('SKIP') for prog in progs)
    return 4 if skips == len(progs) else 0


def boot_failed(qemu, lines):
    """Did QEMU's run fail (it says why)?"""
    code = int(qemu.get('rc', 1))
    if 'rc' not in qemu:
        say('the job has no qemu file: its guest did not run')
    elif code == 125:
        tail(lines, "the guest did not reach userspace "
             f"('{BOOT_MARKER}') within {qemu.get('boot_timeout', '?')} s "
             f"and was killed ({qemu.get('accel', '?')})")
    elif code == 124:
        tail(lines, f"guest timed out after {qemu.get('timeout', '?')} s "
             'and was killed')
        report_splats(lines)
    elif code:
        say(f'qemu failed (exit {code})')
    return code != 0


def judge(job):
    """The job's code, saying why it is not 0 or 4; a job prepared by
    --stop-after, which boots nothing, has its run's 0."""
    result = dict(word.split('=', 1) for word in read(job, 'result').split()
                  if '=' in word)
    if result.get('result') == 'prepared':
        say(f"prepared up to {result.get('phase', '?')} (--stop-after), "
            'not booted: nothing to judge')
        return 0
    qemu = dict(word.split('=', 1) for word in read(job, 'qemu').split()
                if '=' in word)
    lines = read(job, 'console.log').splitlines(keepends=True)
    if boot_failed(qemu, lines) or report_splats(lines):
        return 1
    leaks = read(job, 'kmemleak')
    if leaks:
        say(f"kmemleak reported {leaks.count('unreferenced object')} "
            'suspected leak(s):')
        sys.stderr.write(''.join(leaks.splitlines(keepends=True)[:40]))
        return 1
    guest = read(job, 'rc').strip()
    if not guest:
        tail(lines, 'the guest ended without a result (crash or panic?)')
        return 1
    taps = ktap.job_taps(job)
    worst = None if taps else int(guest) if guest in ('0', '4') else 1
    targets = read(job, os.path.join('ktap', 'targets')).split()
    for tap in taps or []:
        worst = fold(worst, judge_tap(tap, targets))
    return 1 if profile_fails(job) else worst


def profile_fails(job):
    """Whether a test's path in the job's profile.json lacks what it must
    call (or calls too much), saying what."""
    text = read(job, 'profile.json')
    try:
        prof = json.loads(text) if text else {}
        lacks = [(name, lack) for name, entry in prof.items()
                 for lack in insn_profile.fingerprint(name, entry[3])]
    except (ValueError, TypeError, IndexError, AttributeError):
        say(f'{job}/profile.json: not a profile')
        return True
    for name, lack in lacks:
        say(f'{name}: its counted path has {lack}')
    return bool(lacks)


def skipped(job):
    """The programs of JOB's KTAP that were skipped whole, once each, in
    the order they ran: "TARGET: NAME, ..." (--skipped: for the
    runner's summary row)."""
    names = []
    for tap in ktap.job_taps(job) or []:
        with open(tap, encoding='utf-8', errors='replace') as handle:
            names += [f'{p.target}: {p.name}' for p in ktap.programs(handle)
                      if p.directive.upper().startswith('SKIP')]
    return ', '.join(dict.fromkeys(names))


def main(argv):
    """judge.py JOB, judge.py --skipped JOB or judge.py --splats LOG."""
    if len(argv) == 3 and argv[1] == '--skipped':
        names = skipped(argv[2])
        print(f' (skipped: {names})' if names else '')
        return 0
    if len(argv) == 3 and argv[1] == '--splats':
        lines = read(argv[2]).splitlines(keepends=True)
        sys.stdout.write(''.join(line for line in lines if
                                 SPLAT.match(line) or CRASH_SITE.match(line)))
        return 0 if splats(lines) else 1
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print('usage: judge.py JOB | --skipped JOB | --splats LOG',
              file=sys.stderr)
        return 2
    return judge(argv[1])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
