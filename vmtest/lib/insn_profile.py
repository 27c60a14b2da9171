#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Where a deterministic run's instructions go, per test and function.

  insn_profile.py JOB [--ktap OUT] [--json OUT]
        the job's table; OUT: KTAP of each test's model cycles, the
        profile as JSON
  insn_profile.py --base JOB... --change JOB... [--changed F] [--attribution O]
        the functions that moved

A JOB is a vmtest.sh --attribute run's directory (or its saved
profile.json): insn.raw (vmtest/plugin/insn_count.c's blocks and events
per test), kallsyms and module.kallsyms (/proc/kallsyms before the tests
and the module's lines once it was loaded) and its KTAP, whose "Type:"
lines name the tests in order and say how many elements each timed.  A block counts for the
symbol at or below its start; calls are the executions of blocks that
start a symbol.  Counts are per element; the check says which tests lack
the functions their path needs (the path fingerprint).  --attribution
O gets a line a test, change - base, for ab/verdict.py's
--attribution: its name; with --changed F (ab/objdiff.py's "OBJECT
FUNCTION" lines) 1 when a job ran one of those functions, else 0,
without it -; the insn/elem every function but the mitigations' thunks
moved (what the change made run differently); the insn/elem the
thunks moved (placement: a return or an indirect branch takes a thunk
by where it lands, which any change moves); and how many jobs switched
tasks inside the test's timed chunks (the module runs them at
SCHED_FIFO in -D, so that another task's instructions in them are a
disturbance that one job alone cannot tell from the change).
"""

import argparse
import bisect
import glob
import json
import os
import re
import sys

import cycles

TYPE = re.compile(r'Type:(\S+) .*invoke count:(\d+)')
PERF = re.compile(r'^(?:# )*ok \d+ (\S+) # perf=([\d.]+)')
# The path fingerprint: (tests, functions, least, most) calls per element,
# summed over the functions a pattern names, that a test must make
PP = r'page_pool0[1-3]|bh_page_pool0[2-5]'
LOCK = r'^_raw_spin_lock(_bh)?$'
FINGERPRINT = (
    (PP, r'^page_pool_alloc_(pages|netmems?)$', 0.99, None),
    (PP, r'^page_pool_put_unrefed_(netmem|page)$', 0.99, 1.01),
    (r'page_pool01|napi_local', LOCK, None, 0.01),     # no ring
    (r'page_pool02|ptr_ring|napi_remote', LOCK, 0.99, None),
    (r'page_pool02|ptr_ring|napi_remote', r'^page_pool_refill_alloc_cache$',
     0.01, None),
    (r'page_pool03|_slow', r'^page_pool_return_(page|netmem)$', 0.99, None),
    (r'page_pool03_dma', r'^dma_unmap_page_attrs$', 0.99, None),
)
MOVED = 0.05            # insn/elem: a smaller difference is not shown
# Where a task switch shows in a test's timed chunks
SWITCH = ('__schedule', 'finish_task_switch')
# The mitigations' thunks (return and indirect branch)
THUNK = re.compile(r'^(its_return_thunk|__x86_return_thunk|srso_\w+|'
                   r'__x86_indirect_(its_)?thunk_\w+|retbleed_\w+)$')
# The plugin's event counts after a block's executions, in its order; the
# last two from its cache model, which an older plugin's output lacks
EVENTS = ('locked', 'fences', 'calls', 'rets', 'indirect',
          'string elements', 'string bytes', 'loads', 'stores',
          'l1 misses', 'll misses')
CACHE = 2


class ProfileError(Exception):
    """A job that lacks what the profile needs."""


def read(path):
    """The text of PATH, or a ProfileError naming it."""
    try:
        with open(path, encoding='utf-8', errors='replace') as text:
            return text.read()
    except OSError as err:
        raise ProfileError(f'{path}: {err.strerror}') from err


def symbols(job):
    """Sorted (address, name) of the kernel's text and the module's, from
    /proc/kallsyms before the tests and once the module was loaded."""
    syms = []
    for name in ('kallsyms', 'module.kallsyms'):
        for line in read(os.path.join(job, name)).splitlines():
            field = line.split()
            if len(field) >= 3 and field[1] in 'tTwW':
                syms.append((int(field[0], 16), field[2]))
    return sorted(set(syms))


def tests_of(job):
    """[(name, elements, figure)] in the order the tests printed."""
    taps = sorted(glob.glob(os.path.join(job, 'ktap', '*.tap')))
    text = ''.join(read(t) for t in taps)
    perf = dict(m.groups() for m in map(PERF.match, text.splitlines()) if m)
    return [(name, int(n), float(perf.get(name, 'nan')))
            for name, n in TYPE.findall(text)]


def add_block(funcs, syms, addrs, field):
    """Count the plugin's block line FIELD to its symbol in FUNCS."""
    vaddr, insns, execs = int(field[0], 16), int(field[1]), int(field[2])
    i = bisect.bisect_right(addrs, vaddr) - 1
    sym = syms[i][1] if i >= 0 and vaddr >= 1 << 63 else '?'
    insn, calls = funcs.get(sym, (0, 0))
    funcs[sym] = (insn + insns * execs,
                  calls + (execs if i >= 0 and addrs[i] == vaddr else 0))


def profile(job):
    """{test: [elements, figure, named share, {symbol: (insn, calls)},
    [events] or None when the plugin counted none]}, per element; JOB may
    be a profile saved as JSON (--json), or a job that holds one."""
    saved = job if job.endswith('.json') else os.path.join(job,
                                                           'profile.json')
    if saved == job or os.path.isfile(saved):
        with open(saved, encoding='utf-8') as handle:
            return json.load(handle)
    syms = symbols(job)
    addrs = [a for a, _ in syms]
    order = tests_of(job)
    result, per = {}, None
    for line in read(os.path.join(job, 'insn.raw')).splitlines():
        field = line.split()
        if field[0] == 'test':
            if int(field[1]) > len(order):
                raise ProfileError(f'{job}: more tests counted than printed')
            name, elems, figure = order[int(field[1]) - 1]
            per = result[name] = [elems, figure, 0, {}, [0] * len(EVENTS)]
            continue
        if per is None:
            raise ProfileError(f'{job}/insn.raw: a block before any test')
        add_block(per[3], syms, addrs, field)
        if per[4] is not None and len(field) - 3 in (len(EVENTS),
                                                     len(EVENTS) - CACHE):
            row = [int(b) for b in field[3:]]
            row += [None] * (len(EVENTS) - len(row))
            per[4] = [None if a is None or b is None else a + b
                      for a, b in zip(per[4], row)]
        else:
            per[4] = None
    for per in result.values():
        total = sum(i for i, _ in per[3].values())
        per[2] = 1 - per[3].get('?', (0, 0))[0] / total if total else 0
        per[3] = {s: (i / per[0], c / per[0]) for s, (i, c) in per[3].items()}
        if per[4] is not None:
            per[4] = [None if e is None else e / per[0] for e in per[4]]
    return result


def counted(events):
    """{event: per element} of the events a test's counts have (a saved
    profile's list may be shorter than EVENTS, a count None)."""
    return {e: v for e, v in zip(EVENTS, events) if v is not None}


def event_words(events):
    """A test's events per element in words."""
    if events is None:
        return 'not counted (the plugin wrote none)'
    have = counted(events)
    missing = [e for e in EVENTS if e not in have]
    return ', '.join([f'{e} {v:.3f}' for e, v in have.items()] +
                     [f'{" and ".join(missing)} not counted'] * bool(missing))


def counts(funcs, events):
    """A test's counts per element as cycles.py takes them."""
    return dict(counted(events), insn=sum(i for i, _ in funcs.values()))


def model(funcs, events):
    """The model cycles of a test's functions and events, in words."""
    if events is None:
        return 'not estimated (no events)'
    return cycles.words(counts(funcs, events))


def model_ktap(prof):
    """KTAP of each test's model cycles per element, TEST:model in cyc,
    for the tests whose events were counted."""
    rows = [(name, cycles.estimate(counts(funcs, events))[0])
            for name, (_, _, _, funcs, events) in prof.items()
            if events is not None]
    return ''.join(['TAP version 13\n', f'1..{len(rows)}\n'] + [
        f'ok {i} {name}:model # perf={c:.3f}cyc\n'
        for i, (name, c) in enumerate(rows, 1)])


def fingerprint(name, funcs):
    """What the test's path lacks or has too much of, as strings."""
    bad = []
    for tests, pattern, least, most in FINGERPRINT:
        if not re.search(tests, name):
            continue
        calls = sum(c for s, (_, c) in funcs.items() if re.search(pattern, s))
        if (least is not None and calls < least or
                most is not None and calls > most):
            bad.append(f'{pattern} {calls:.3f} calls/elem, not in '
                       f'[{least or 0}, {most or "-"}]')
    return bad


def table(prof, top=8):
    """The job's table, and whether every fingerprint holds."""
    lines, good = [], True
    for name, (elems, figure, named, funcs, events) in prof.items():
        total = sum(i for i, _ in funcs.values())
        lacks = fingerprint(name, funcs)
        good &= not lacks
        lines.append(f'{name}: {total:.3f} insn/elem counted, figure '
                     f'{figure:.3f} ({total / figure * 100:.2f} %), '
                     f'{named * 100:.2f} % named, {elems} elements'
                     + ''.join(f'; path: {m}' for m in lacks))
        for sym, (insn, calls) in sorted(funcs.items(),
                                         key=lambda kv: -kv[1][0])[:top]:
            lines.append(f'  {sym:40} {insn:9.3f} insn/elem '
                         f'{calls:7.3f} calls/elem')
        lines.append(f'  events/elem: {event_words(events)}')
        lines.append(f'  model: {model(funcs, events)}')
    return '\n'.join(lines), good


def mean(profiles):
    """{(test, symbol): mean insn/elem} over the jobs' profiles."""
    sums = {}
    for prof in profiles:
        for name, (_, _, _, funcs, _) in prof.items():
            for sym, (insn, _) in funcs.items():
                sums[name, sym] = sums.get((name, sym), 0) + insn
    return {k: v / len(profiles) for k, v in sums.items()}


def moved(base, change):
    """Per test, the symbols whose insn/elem moved, most first."""
    before, after = mean(base), mean(change)
    keys = set(before) | set(after)
    lines = []
    for test in sorted({t for t, _ in keys}):
        diff = sorted(((after.get(k, 0) - before.get(k, 0), k[1])
                       for k in keys if k[0] == test),
                      key=lambda x: -abs(x[0]))
        diff = [f'{sym} {d:+.2f}' for d, sym in diff if abs(d) >= MOVED]
        if diff:
            lines.append(f'{test}: ' + ', '.join(diff))
    lines += events_moved(base, change)
    thunks = sorted({k[1] for k in keys if THUNK.match(k[1]) and
                     abs(after.get(k, 0) - before.get(k, 0)) >= MOVED})
    if thunks:
        lines.append(f'note: {", ".join(thunks)} moved: the mitigations\' '
                     'thunks follow where code lands (ITS sends a return '
                     'or indirect branch in the lower half of a cache line '
                     'through one), so code that moved, not code that '
                     'changed, can move them')
    return '\n'.join(lines) or 'no function moved by 0.05 insn/elem or more'


def events_moved(base, change):
    """Per test, the events per element that moved, or that were not
    counted on a side."""
    lines = []
    tests = dict.fromkeys(t for prof in base + change for t in prof)
    for test in tests:
        sides = [[prof[test][4] for prof in profs if test in prof]
                 for profs in (base, change)]
        if any(e is None for side in sides for e in side):
            lines.append(f'{test} events: not counted on a side')
            continue
        have = [[counted(e) for e in side] for side in sides]
        both = [e for e in EVENTS if all(e in c for s in have for c in s)]
        before, after = ({e: sum(c[e] for c in s) / len(s) for e in both}
                         for s in have)
        words = [f'{e} {after[e] - before[e]:+.2f}' for e in both
                 if abs(after[e] - before[e]) >= MOVED]
        words += [f'{e} not counted on a side' for e in EVENTS
                  if e not in both and any(e in c for s in have for c in s)]
        # the model is linear: the mean of the estimates is the
        # estimate of the means
        est = [sum(cycles.estimate(counts(*prof[test][3:5]))[0]
                   for prof in profs if test in prof) / len(side)
               for profs, side in zip((base, change), sides)]
        if words or abs(est[1] - est[0]) >= MOVED:
            words.append(f'model cycles {est[1] - est[0]:+.2f} (estimate)')
            lines.append(f'{test} events/elem: ' + ', '.join(words))
    return lines


def attribution(base, change, changed=None):
    """Per test: (whether a job ran a function of CHANGED, None without
    it; the insn/elem every function but the thunks moved; the insn/elem
    the thunks moved; the jobs that switched tasks in its chunks)."""
    before, after = mean(base), mean(change)
    found = {}
    for test in dict.fromkeys(t for prof in base + change for t in prof):
        ran = None if changed is None else any(
            f in prof[test][3] for prof in base + change
            if test in prof for f in changed)
        keys = {k for k in set(before) | set(after) if k[0] == test}
        moved_by = [sum(after.get(k, 0) - before.get(k, 0) for k in keys
                        if bool(THUNK.match(k[1])) == thunk)
                    for thunk in (False, True)]
        switched = sum(any(f in prof[test][3] for f in SWITCH)
                       for prof in base + change if test in prof)
        found[test] = (ran, *moved_by, switched)
    return found


def attribution_lines(found):
    """The --attribution file's lines of ATTRIBUTION's result."""
    return [f'{t} {"-" if ran is None else int(ran)} {own:.3f} {place:.3f} '
            f'{switched}\n'
            for t, (ran, own, place, switched) in found.items()]


def main(argv=None):
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('job', nargs='?')
    parser.add_argument('--base', nargs='+', metavar='JOB')
    parser.add_argument('--change', nargs='+', metavar='JOB')
    parser.add_argument('--changed', metavar='FILE')
    parser.add_argument('--attribution', metavar='OUT')
    parser.add_argument('--ktap', metavar='OUT')
    parser.add_argument('--json', metavar='OUT')
    args = parser.parse_args(argv)
    if args.changed and not args.attribution:
        parser.error('--changed goes with --attribution')
    try:
        if args.base and args.change:
            base = [profile(j) for j in args.base]
            change = [profile(j) for j in args.change]
            print('per function, change - base, insn/elem:')
            print(moved(base, change))
            if args.attribution:
                funcs = None if not args.changed else {
                    line.split()[-1] for line in
                    read(args.changed).splitlines() if line.strip()}
                with open(args.attribution, 'w', encoding='utf-8') as out:
                    out.writelines(attribution_lines(
                        attribution(base, change, funcs)))
            return 0
        if not args.job:
            parser.error('a JOB, or --base and --change')
        prof = profile(args.job)
        text, good = table(prof)
        if args.ktap:
            with open(args.ktap, 'w', encoding='utf-8') as out:
                out.write(model_ktap(prof))
        if args.json:
            with open(args.json, 'w', encoding='utf-8') as out:
                json.dump(prof, out)
    except (ProfileError, ValueError, IndexError, OSError) as err:
        print(f'insn_profile.py: {err}', file=sys.stderr)
        return 2
    print(text)
    return 0 if good else 1


if __name__ == '__main__':
    sys.exit(main())
