#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare benchmark results in the kselftest-bench JSON format.

bench_page_pool (test_bench_page_pool.sh -j FILE) and ptr_ring_test --json
write one file per run.  This compares each later file with the first,
test by test, and prints a table to paste into mail: cycles and ns per
element before and after (means of the repetitions), the change, and
whether the change is larger than the noise of the repetitions (Welch's
t-test, two-sided, family-wise alpha 0.05 over the table's tests with
Holm's method, so that a table of many tests does not show noise as
significant).  Deterministic runs (instruction counts) are compared on
their mean; less than one instruction, DET_SAME_PCT or the repetitions'
own spread counts as the same.

The repetitions of one run share its boot, its CPU frequency and the
host's load of the moment; runs differ by more than that, most of all
under emulation.  Given several runs per side (--before A1 A2 A3 --after
B1 B2 B3, ideally alternated), each run's mean is one sample, so that the
test weighs the variation between runs.

Runs whose mode, estimator, units or test parameters differ are not
compared: the difference would be that, not the kernel's.  Runs whose
environment differs (CPU, counter, boot command line, CPU vulnerability
mitigations, preemption model, debug options, page_pool statistics, page
zeroing) are compared under a warning, and counter ticks of different
counters or rates are never compared: only the nanoseconds are.

With --report, test_bench_page_pool.sh hands it the module's log lines
for repetitions (-r), JSON (-j) or the gate (-b); the baselines for_loop,
atomic_inc and lock measure the machine and are never gated.

Exit status: 0, or 1 when --threshold is exceeded or --validate finds a
problem, 2 for unreadable or incomparable files and usage errors.
"""
# pylint: disable=invalid-name  # the formulas' names: a, b, x, t, df, n

import argparse
import datetime
import json
import math
import os
import platform
import re
import sys

import bench_stats
from bench_stats import ci95_half_width, mean, median, variance, welch

SCHEMA = 'kselftest-bench'
VERSION = 1
ALPHA = 0.05
# Under QEMU -icount a path's mean instructions per element repeat across
# boots within 0.35 % (the slow path; the fast path within 0.01 %): the
# page allocator's state moves the batched work.  Less is the same count.
DET_SAME_PCT = 0.5
BENCHMARKS = ('bench_page_pool', 'ptr_ring_test')
RUN_MODES = ('hardware', 'virtual-machine', 'emulated', 'deterministic',
             'unknown')
# The TSC's cycles, another counter's ticks (counter_hz), or instructions
CYCLE_UNITS = ('tsc-cycles', 'counter-ticks', 'instructions')
STATUSES = ('pass', 'fail', 'xfail', 'skip')
PATH_CHECKS = ('ok', 'failed', 'not checked')
STAT_KEYS = ('min', 'median', 'mean', 'stddev', 'ci95')
# Parameters that change how many samples a run has, not what it measures
INCIDENTAL_PARAMS = ('repeat', 'reps', 'run_flags', 'tag')
# They measure the machine, not page_pool: reported, never gated
BASELINE_TESTS = ('for_loop', 'atomic_inc', 'lock')
# What the figures depend on besides the kernel under test: in "run" and
# in "run"."config"; the counter: see counter_mismatch()
ENV_KEYS = ('cpu_model', 'cmdline', 'vulnerabilities')
CONFIG_KEYS = ('preempt', 'debug', 'page_pool_stats', 'init_on_alloc',
               'init_on_free')


class BenchError(Exception):
    """A file that cannot be read or compared: exit status 2."""


# Validation

def _is_num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and \
        math.isfinite(x)


def _close(got, want, slack=0.0):
    return abs(got - want) <= 1e-3 * max(1.0, abs(want)) + slack


def _check_stats(where, stats, values, problems):
    if not isinstance(stats, dict):
        problems.append(f'{where}: not an object')
        return
    for key in STAT_KEYS:
        if key not in stats:
            problems.append(f'{where}: no "{key}"')
    if any(k not in stats for k in STAT_KEYS):
        return
    n = len(values)
    want = {'min': min(values), 'median': median(values),
            'mean': mean(values)}
    for key, val in want.items():
        if not _is_num(stats[key]):
            problems.append(f'{where}.{key}: not a number')
        elif not _close(stats[key], val):
            problems.append(f'{where}.{key}: {stats[key]} but the reps '
                            f'give {val:.6f}')
    sd, ci = stats['stddev'], stats['ci95']
    if n < 2:
        if sd is not None and (not _is_num(sd) or sd != 0):
            problems.append(f'{where}.stddev: must be null or 0 with one rep')
        if ci is not None and not (isinstance(ci, list) and len(ci) == 2 and
                                   all(_is_num(x) for x in ci)):
            problems.append(f'{where}.ci95: must be null or [lo, hi]')
        return
    want_sd = math.sqrt(variance(values))
    if not _is_num(sd):
        problems.append(f'{where}.stddev: not a number')
    elif not _close(sd, want_sd):
        problems.append(f'{where}.stddev: {sd} but the reps give '
                        f'{want_sd:.6f}')
    if not (isinstance(ci, list) and len(ci) == 2 and
            all(_is_num(x) for x in ci)):
        problems.append(f'{where}.ci95: not a [lo, hi] pair of numbers')
        return
    m, half = mean(values), ci95_half_width(values)
    # 1 % of the half width: quantile tables rounded differently.
    for got, val, side in ((ci[0], m - half, 'lo'), (ci[1], m + half, 'hi')):
        if not _close(got, val, 0.01 * half):
            problems.append(f'{where}.ci95 {side}: {got} but the reps give '
                            f'{val:.6f}')


def _check_test(where, test, problems):
    if not isinstance(test, dict):
        problems.append(f'{where}: not an object')
        return
    for key in ('name', 'status', 'path_check', 'reps', 'stats'):
        if key not in test:
            problems.append(f'{where}: no "{key}"')
    if not isinstance(test.get('name'), str) or not test.get('name'):
        problems.append(f'{where}.name: not a non-empty string')
    else:
        where = f'test "{test["name"]}"'
    status = test.get('status')
    if status not in STATUSES:
        problems.append(f'{where}.status: {status!r} is not one of '
                        f'{", ".join(STATUSES)}')
    if 'path_check' in test and test['path_check'] not in PATH_CHECKS:
        problems.append(f'{where}.path_check: {test["path_check"]!r} is not '
                        f'one of {", ".join(PATH_CHECKS)}')
    reps = test.get('reps')
    if not isinstance(reps, list):
        problems.append(f'{where}.reps: not a list')
        return
    if not reps and status in ('pass', 'xfail'):
        problems.append(f'{where}.reps: empty, but status is {status!r}')
    ns, cycles, ok = [], [], True
    for i, rep in enumerate(reps):
        rw = f'{where}.reps[{i}]'
        if not isinstance(rep, dict):
            problems.append(f'{rw}: not an object')
            ok = False
            continue
        if not _is_num(rep.get('ns')) or rep['ns'] < 0:
            problems.append(f'{rw}.ns: not a number >= 0')
            ok = False
        else:
            ns.append(rep['ns'])
        cyc = rep.get('cycles')
        if cyc is not None:
            if not _is_num(cyc) or cyc < 0:
                problems.append(f'{rw}.cycles: not a number >= 0 or null')
                ok = False
            else:
                cycles.append(cyc)
        elem = rep.get('elements')
        if not isinstance(elem, int) or isinstance(elem, bool) or elem < 1:
            problems.append(f'{rw}.elements: not an integer >= 1')
    if cycles and len(cycles) != len(reps):
        problems.append(f'{where}.reps: "cycles" in some reps only')
        ok = False
    stats = test.get('stats')
    if 'stats' not in test or not ok:
        return
    if not reps:
        if stats is not None and stats != {}:
            problems.append(f'{where}.stats: must be null without reps')
        return
    if stats is None:
        return      # derived from the reps, which are what is compared
    if not isinstance(stats, dict):
        problems.append(f'{where}.stats: not an object')
        return
    _check_stats(f'{where}.stats.ns', stats.get('ns'), ns, problems)
    if cycles:
        _check_stats(f'{where}.stats.cycles', stats.get('cycles'), cycles,
                     problems)
    elif stats.get('cycles') is not None:
        problems.append(f'{where}.stats.cycles: present without cycles in '
                        'the reps')


def _check_run(run, problems):
    if not isinstance(run, dict):
        problems.append('run: not an object')
        return
    if run.get('mode') not in RUN_MODES:
        problems.append(f'run.mode: {run.get("mode")!r} is not one of '
                        f'{", ".join(RUN_MODES)}')
    for key in ('kernel_release', 'cpu_model', 'date'):
        if not isinstance(run.get(key), str):
            problems.append(f'run.{key}: not a string')
    if isinstance(run.get('date'), str):
        try:
            datetime.datetime.fromisoformat(run['date'].replace('Z',
                                                                '+00:00'))
        except ValueError:
            problems.append(f'run.date: {run["date"]!r} is not ISO 8601')
    params = run.get('parameters')
    if not isinstance(params, dict):
        problems.append('run.parameters: not an object')
    else:
        for key, val in params.items():
            if not isinstance(val, str) and not _is_num(val):
                problems.append(f'run.parameters.{key}: not a string or '
                                'number')
    hz, vulns = run.get('counter_hz'), run.get('vulnerabilities')
    for key, ok in (('counter', isinstance(run.get('counter'), str)),
                    ('counter_hz', _is_num(hz) and hz == int(hz) > 0),
                    ('cmdline', isinstance(run.get('cmdline'), str)),
                    ('vulnerabilities', isinstance(vulns, dict) and all(
                        isinstance(v, str) for v in vulns.values()))):
        if key not in run or not (ok or run[key] is None):
            problems.append(f'run.{key}: missing or of the wrong type')
    cfg = run.get('config')
    if not isinstance(cfg, dict):
        problems.append('run.config: not an object')
        return
    if not isinstance(cfg.get('preempt'), str):
        problems.append('run.config.preempt: not a string')
    debug = cfg.get('debug')
    if 'debug' not in cfg or debug is not None and (
            not isinstance(debug, list) or
            not all(isinstance(x, str) for x in debug)):
        problems.append('run.config.debug: not a list of strings or null')
    for key in ('page_pool_stats', 'init_on_alloc', 'init_on_free'):
        if key not in cfg or cfg[key] not in (True, False, None):
            problems.append(f'run.config.{key}: not true, false or null')


def validate(doc):
    """The problems of a parsed result file, as a list of strings."""
    problems = []
    if not isinstance(doc, dict):
        return ['not a JSON object']
    for key in ('schema', 'version', 'benchmark', 'run', 'unit', 'tests'):
        if key not in doc:
            problems.append(f'no "{key}"')
    if doc.get('schema') != SCHEMA:
        problems.append(f'schema: {doc.get("schema")!r}, expected {SCHEMA!r}')
    if doc.get('version') != VERSION or isinstance(doc.get('version'), bool):
        problems.append(f'version: {doc.get("version")!r}, expected '
                        f'{VERSION}')
    if doc.get('benchmark') not in BENCHMARKS:
        problems.append(f'benchmark: {doc.get("benchmark")!r} is not one of '
                        f'{", ".join(BENCHMARKS)}')
    if 'run' in doc:
        _check_run(doc['run'], problems)
    unit = doc.get('unit')
    if 'unit' in doc:
        if not isinstance(unit, dict):
            problems.append('unit: not an object')
        else:
            if unit.get('cycles') not in CYCLE_UNITS + (None,):
                problems.append(f'unit.cycles: {unit.get("cycles")!r} is not '
                                f'one of {", ".join(CYCLE_UNITS)} or null')
            if unit.get('time') != 'ns':
                problems.append(f'unit.time: {unit.get("time")!r}, '
                                'expected "ns"')
    tests = doc.get('tests')
    if 'tests' in doc and not isinstance(tests, list):
        problems.append('tests: not a list')
    elif isinstance(tests, list):
        names = set()
        for i, test in enumerate(tests):
            _check_test(f'tests[{i}]', test, problems)
            name = test.get('name') if isinstance(test, dict) else None
            if isinstance(name, str):
                if name in names:
                    problems.append(f'test "{name}": listed twice')
                names.add(name)
    return problems


def load(path):
    """The parsed JSON of PATH."""
    try:
        with open(path, encoding='utf-8') as f:
            return json.load(f)
    except OSError as e:
        raise BenchError(f'{path}: cannot read: {e.strerror}') from e
    except (ValueError, UnicodeDecodeError) as e:
        raise BenchError(f'{path}: not valid JSON: {e}') from e


def load_valid(path):
    """The parsed JSON of PATH, which must be a valid result file."""
    doc = load(path)
    problems = validate(doc)
    if problems:
        raise BenchError(f'{path}: not a valid {SCHEMA} file:\n  ' +
                         '\n  '.join(problems))
    return doc


# Comparison

def _per_rep(test, key):
    vals = [rep.get(key) for rep in test['reps']]
    return vals if vals and all(v is not None for v in vals) else []


def _describe(doc):
    run = doc['run']
    return (f'{run["kernel_release"]}, {run["mode"]}, {run["cpu_model"]}, '
            f'{run["date"]}')


def _differences(before, after, what):
    b, a = before or {}, after or {}
    out = []
    for key in sorted(set(b) | set(a)):
        if b.get(key, '-') != a.get(key, '-'):
            out.append(f'{key} {b.get(key, "-")} -> {a.get(key, "-")}')
    return f'{what}: ' + (', '.join(out) if out else 'same')


def _runs_of(docs, name, key):
    """The per-rep values of test NAME in each run that has them."""
    runs = [_per_rep(test, key) for doc in docs for test in doc['tests']
            if test['name'] == name]
    return [r for r in runs if r]


def _samples(runs, between_runs):
    """Each run's mean, or all the runs' repetitions."""
    return [mean(r) for r in runs] if between_runs else \
        [x for r in runs for x in r]


def _status(docs, name):
    return '/'.join(sorted({t['status'] for d in docs for t in d['tests']
                            if t['name'] == name})) or 'missing'


def compare_tests(before, after, deterministic, between_runs, alpha,
                  cycles=True):
    """Rows of the comparison of two groups of runs (lists of documents).

    With between_runs (at least two runs on each side), each run's mean is
    one sample: the test then sees the variation between runs (boots,
    host load, drift), which the repetitions of a single run do not show.
    Otherwise the repetitions of all the side's runs are the samples.
    Without cycles, the cycles are left out (see counter_mismatch()).
    """
    names = []
    for doc in before:
        names += [t['name'] for t in doc['tests'] if t['name'] not in names]
    rows = []
    for name in names:
        if not any(t['name'] == name for d in after for t in d['tests']):
            continue
        row = {'test': name, 'worse': None, 'pct': None, 'cycles': None}
        bns, ans = _runs_of(before, name, 'ns'), _runs_of(after, name, 'ns')
        # A test failed by a regression gate or a path check still has
        # its figures (the header notes failed path checks); a skipped
        # or broken one has none.
        if not (bns and ans):
            row.update(ns=None, verdict=f'n/a ({_status(before, name)} -> '
                       f'{_status(after, name)})')
            rows.append(row)
            continue
        bs, as_ = _samples(bns, between_runs), _samples(ans, between_runs)
        row['ns'] = (mean(bs), mean(as_))
        bcy = _runs_of(before, name, 'cycles') if cycles else []
        acy = _runs_of(after, name, 'cycles') if cycles else []
        if bcy and acy:
            row['cycles'] = (mean(_samples(bcy, between_runs)),
                             mean(_samples(acy, between_runs)))
        base = row['cycles'] if deterministic else row['ns']
        if base and base[0]:
            row['pct'] = (base[1] - base[0]) / base[0] * 100.0
        cyc = row['cycles'] or (None, None)
        if deterministic:
            if row['cycles'] is None:
                row['verdict'] = 'n/a (no counts)'
            elif not bench_stats.det_same(cyc, _samples(bcy, between_runs),
                                          _samples(acy, between_runs),
                                          DET_SAME_PCT):
                row['verdict'] = 'exact'
                row['worse'] = cyc[1] > cyc[0]
            else:
                row['verdict'] = 'same'
        elif len(bs) < 2 or len(as_) < 2:
            row['verdict'] = 'n/a (needs >= 2 ' + \
                ('runs)' if between_runs else 'reps)')
        else:
            row['p'] = welch(bs, as_)[2]
        rows.append(row)
    tested = sorted((r for r in rows if 'p' in r), key=lambda r: r['p'])
    rejecting = True
    for k, row in enumerate(tested):
        # Holm: the k-th smallest p against alpha / (m - k), until the
        # first that is not significant
        rejecting = rejecting and row['p'] < alpha / (len(tested) - k)
        row['verdict'] = 'significant' if rejecting else 'noise'
        if rejecting:
            row['worse'] = row['ns'][1] > row['ns'][0]
    return rows


def _fmt(pair, prec):
    if pair is None:
        return ['-', '-', '-']
    b, a = pair
    return [f'{b:.{prec}f}', f'{a:.{prec}f}', f'{a - b:+.{prec}f}']


def table(rows, deterministic, fmt):
    """The lines of the comparison table, text or Markdown."""
    cyc = 'instr' if deterministic else 'cycles'
    head = ['test', f'{cyc} before', f'{cyc} after', f'{cyc} diff',
            'ns before', 'ns after', 'ns diff',
            'change' if deterministic else 'change (ns)', 'verdict']
    body = []
    for r in rows:
        pct = '-' if r['pct'] is None else f'{r["pct"]:+.1f}%'
        body.append([r['test']] + _fmt(r['cycles'], 1) + _fmt(r['ns'], 3) +
                    [pct, r['verdict']])
    if fmt == 'markdown':
        lines = ['| ' + ' | '.join(head) + ' |',
                 '|' + '|'.join([':---'] + ['---:'] * 7 + [':---']) + '|']
        lines += ['| ' + ' | '.join(c.replace('|', '\\|') for c in row) +
                  ' |' for row in body]
        return lines
    widths = [max(len(row[i]) for row in [head] + body)
              for i in range(len(head))]
    lines = []
    for row in [head] + body:
        cells = [row[0].ljust(widths[0])]
        cells += [c.rjust(w) for c, w in zip(row[1:-1], widths[1:-1])]
        cells.append(row[-1])
        lines.append('  '.join(cells).rstrip())
    return lines


def _label(names):
    return names[0] if len(names) == 1 else \
        f'{len(names)} runs ({", ".join(names)})'


def _test_params(doc):
    return {k: v for k, v in doc['run']['parameters'].items()
            if k not in INCIDENTAL_PARAMS}


def incomparable(a, b):
    """Why runs A and B cannot be compared, or None: what differs would be
    the difference, not the kernel's."""
    if a['benchmark'] != b['benchmark']:
        return f'benchmark {a["benchmark"]!r} vs {b["benchmark"]!r}'
    if a['run']['mode'] != b['run']['mode']:
        return f'mode {a["run"]["mode"]!r} vs {b["run"]["mode"]!r}'
    for key in ('cycles', 'time'):
        if a['unit'].get(key) != b['unit'].get(key):
            return f'unit ({key}) {a["unit"].get(key)!r} vs ' \
                f'{b["unit"].get(key)!r}'
    pa, pb = _test_params(a), _test_params(b)
    for key in sorted(set(pa) | set(pb)):
        if pa.get(key) != pb.get(key):
            what = 'estimator' if key == 'estimator' else 'parameter ' + key
            return f'{what} {pa.get(key, "-")} vs {pb.get(key, "-")}'
    return None


def _counter(doc):
    """The counter behind a run's cycles, and its rate."""
    run = doc['run']
    hz = run.get('counter_hz')
    return f'{run.get("counter") or "an unknown counter"} at ' + \
        (f'{hz / 1e6:g} MHz' if hz else 'an unknown rate')


def counter_mismatch(a, b):
    """Why the cycles of runs A and B are not comparable, or None: ticks of
    different counters, or of a counter at different or unknown rates (a
    calibrated TSC's rate may differ by a fraction of a percent)."""
    if a['unit'].get('cycles') == 'instructions':
        return None
    ra, rb = a['run'], b['run']
    ha, hb = ra.get('counter_hz'), rb.get('counter_hz')
    if ra.get('counter') == rb.get('counter') and ha and hb and \
       abs(ha - hb) <= ha / 100:
        return None
    return f'{_counter(a)} vs {_counter(b)}'


def _env(doc):
    env = {k: doc['run'].get(k) for k in ENV_KEYS}
    env.update((k, doc['run']['config'].get(k)) for k in CONFIG_KEYS)
    # The kernel's parameters: not init's (after "--"), nor the boot
    # loader's names of the kernel's and initrd's files
    env['cmdline'] = env['cmdline'] and ' '.join(
        w for w in (' ' + env['cmdline']).split(' -- ')[0].split()
        if not w.startswith(('BOOT_IMAGE=', 'initrd=')))
    return env


def env_differences(a, b):
    """What differs between the environments of runs A and B."""
    ea, eb = _env(a), _env(b)
    va, vb = ea.pop('vulnerabilities') or {}, eb.pop('vulnerabilities') or {}
    why = counter_mismatch(a, b)
    return ([f'counter: {why}'] if why else []) + \
        [f'{k}: {ea[k]} -> {eb[k]}' for k in ea if ea[k] != eb[k]] + \
        [f'vulnerability {n}: {va.get(n, "-")} -> {vb.get(n, "-")}'
         for n in sorted(set(va) | set(vb)) if va.get(n) != vb.get(n)]


def _check_comparable(docs, names):
    for doc, name in zip(docs[1:], names[1:]):
        why = incomparable(docs[0], doc)
        if why:
            raise BenchError(f'{name} is not comparable with {names[0]}: '
                             f'{why}')


def _warnings(docs, names):
    """Loud lines on each run whose environment differs from the first's."""
    out = []
    for doc, name in zip(docs[1:], names[1:]):
        diffs = env_differences(docs[0], doc)
        if diffs:
            out.append(f'WARNING: {name} ran in another environment than '
                       f'{names[0]}: the figures may differ by that, not '
                       'by the kernel:')
            out += [f'WARNING:   {d}' for d in diffs]
    return out


def _header(before, after, bnames, anames, deterministic, between_runs,
            rows, alpha):
    b0, a0 = before[0], after[0]
    hdr = [(f'{b0["benchmark"]}: {_label(bnames)} (before) vs '
            f'{_label(anames)} (after)')]
    hdr += [f'before: {_describe(d)}' for d in before]
    hdr += [f'after:  {_describe(d)}' for d in after]
    hdr.append(_differences(b0['run']['parameters'], a0['run']['parameters'],
                            'parameters that differ (sample counts)'))
    hdr += _warnings(before + after, bnames + anames)
    if deterministic:
        hdr.append('deterministic runs: mean instructions per element, a '
                   f'change under one instruction, of {DET_SAME_PCT:g} % '
                   'or less, or within the repetitions\' spread is the same '
                   '(the spread across boots); change is of instructions')
    else:
        hdr.append(f"test: Welch's t-test, two-sided, family-wise alpha "
                   f"{alpha:g} over the tests (Holm), on " +
                   ('the mean ns per element of each run; figures are means '
                    'of the runs' if between_runs else
                    'the ns per element of each rep; figures are means of '
                    'the reps') + ', cycles are ' +
                   (f'{b0["unit"]["cycles"]} ({_counter(b0)})'
                    if b0['unit'].get('cycles') else 'not measured'))
    for doc, name in zip(before[1:] + after, bnames[1:] + anames):
        why = counter_mismatch(b0, doc)
        if why:
            hdr.append(f'cycles not compared ({name}): {why}: ticks of '
                       'different counters or rates are not comparable, '
                       'the nanoseconds are')
            break
    tested = {r['test'] for r in rows}
    for doc, name in zip(before + after, bnames + anames):
        if doc['run']['mode'] == 'emulated':
            hdr.append(f'note: {name}: figures are from emulation, not '
                       'hardware')
        failed = [t['name'] for t in doc['tests']
                  if t['path_check'] == 'failed' and t['name'] in tested]
        if failed:
            hdr.append(f'note: {name}: path check failed for '
                       f'{", ".join(failed)}: those figures may not be of '
                       'the path the test names')
        if doc['run']['config']['debug']:
            hdr.append(f'note: {name}: debug options '
                       f'{", ".join(doc["run"]["config"]["debug"])}: '
                       'figures are not those of a production kernel')
    return hdr


def compare(before, after, bnames, anames, args):
    """Print one comparison of two groups of runs; returns the tests over
    the threshold."""
    _check_comparable(before + after, bnames + anames)
    deterministic = before[0]['unit'].get('cycles') == 'instructions'
    between_runs = len(before) > 1 and len(after) > 1
    cycles = not any(counter_mismatch(before[0], d)
                     for d in before[1:] + after)
    rows = compare_tests(before, after, deterministic, between_runs,
                         args.alpha, cycles)
    if not rows:
        raise BenchError(f'{_label(bnames)} and {_label(anames)} have no '
                         'test in common')

    hdr = _header(before, after, bnames, anames, deterministic,
                  between_runs, rows, args.alpha)
    if any(line.startswith('WARNING:') for line in hdr):
        print(f'{os.path.basename(sys.argv[0])}: WARNING: the runs\' '
              'environments differ (see the header)', file=sys.stderr)
    if args.format == 'markdown':
        # Two trailing spaces: a line break in Markdown, harmless in mail.
        print('\n'.join(line + '  ' for line in hdr))
    else:
        print('\n'.join(hdr))
    print()
    print('\n'.join(table(rows, deterministic, args.format)))

    over = []
    if args.threshold is not None:
        for r in rows:
            if r['worse'] and r['pct'] is not None and \
               r['pct'] > args.threshold:
                over.append(f'{r["test"]}: {r["pct"]:+.1f}% ({r["verdict"]})')
    return over



# The module's kernel log, for test_bench_page_pool.sh

TYPE_RE = re.compile(
    r'^Type:(?P<name>\S+)(?P<cpu> cpu:\d+)?(?: rep:\d+/\d+)? Per elem: '
    r'\S+ \S+ \S+ ns \(step:\d+\) - \(measurement period time:\S+ sec '
    r'time_interval:(?P<time>\d+)\) - \(invoke count:(?P<cnt>\d+) '
    r'tsc_interval:(?P<tsc>\d+)\)$')
START_RE = re.compile(r'^run start tag:\S+ (?P<params>.*)$')
# The module's "run env" line of KEY:VALUE fields, the driver's "env KEY:..."
ENV_RE = re.compile(r'^(?P<module>run )?env (?P<key>\w+):(?P<rest>.*)$')
PATH_RE = re.compile(r'^Path:(?P<name>\S+) expect:\S+ (?P<rest>.*)$')


def _rep(m):
    """One repetition of a Type: line match: its means per element."""
    cnt = int(m['cnt'])
    return {'cycles': int(m['tsc']) / cnt, 'ns': int(m['time']) / cnt,
            'elements': cnt}


def _path(rest):
    """The path_check and a summary of a Path: line's counters."""
    if rest.startswith('not checked'):
        return 'not checked', 'path not checked: ' + rest.split(': ', 1)[-1]
    num = {k: int(v) for k, v in (f.split(':', 1) for f in rest.split()
                                  if ':' in f) if v.isdigit()}
    out = []
    for what, keys in (('allocations', (('fast', 'fast'), (
            'refill', 'refill'), ('slow', 'slow'))),
                       ('returned to', (('cache', 'cached'), ('ring', 'ring'),
                                        ('released', 'released')))):
        total = sum(num.get(k, 0) for _, k in keys)
        if not total:
            continue    # nothing counted: the test stopped at once
        out.append(what + ' ' + ' '.join(
            f'{w} {100.0 * num.get(k, 0) / total:.1f}%'
            for w, k in keys) + f' of {total}')
    return 'ok', 'path: ' + '; '.join(out)


def parse_log(lines, names):
    """Parameters, environment, and per test of NAMES: reps, path check,
    error lines."""
    params, env = {}, {}
    tests = {n: {'reps': [], 'path': ('not checked', None), 'errors': [],
                 'failed': False} for n in names}
    for line in lines:
        line = line.rstrip('\n')
        m = ENV_RE.match(line)
        if m and m['module']:
            env.update(f.split(':', 1) for f in line.split()[2:] if ':' in f)
        elif m:
            env[m['key']] = m['rest']
        m = START_RE.match(line)
        if m:
            for field in m['params'].split():
                key, _, val = field.partition(':')
                params[key] = int(val, 0) if re.fullmatch(
                    r'-?\d+|0x[0-9a-f]+', val) else val
            continue
        m = TYPE_RE.match(line)
        if m:
            name = m['name']
            if m['cpu']:
                continue        # one side of a cross-CPU row: diagnostics
            if name in tests:
                tests[name]['reps'].append(_rep(m))
            continue
        m = PATH_RE.match(line)
        if m and m['name'] in tests:
            tests[m['name']]['path'] = _path(m['rest'])
            continue
        m = re.match(r'^(FAIL )?(?:Type|Row):(\S+) ', line)
        if m and m[2] in tests:
            tests[m[2]]['errors'].append(line)
            tests[m[2]]['failed'] |= bool(m[1])
    return params, env, tests


def _environment(env, deterministic, stats_seen):
    """The run's fields on what the figures depend on, from the log's
    "env" lines (the module's and the driver's), as far as known."""
    try:
        with open('/proc/cpuinfo', encoding='utf-8', errors='replace') as f:
            model = re.search(r'^model name\s*:\s*(.*)$', f.read(),
                              re.MULTILINE)
    except OSError:
        model = None
    hz, debug, vulns = (env.get(k) for k in ('counter_hz', 'debug',
                                             'vulnerabilities'))
    onoff = {'on': True, 'off': False}
    run = {'mode': 'deterministic' if deterministic else
           env.get('mode', 'unknown'),
           'kernel_release': platform.release(),
           'cpu_model': model[1] if model else platform.machine(),
           'counter': env.get('counter'),
           'counter_hz': int(hz) if hz and hz.isdigit() and int(hz) else None,
           'cmdline': env.get('cmdline'),
           # "A=x|B=y" of those not "Not affected", "none", or "unknown"
           'vulnerabilities': None if vulns in (None, 'unknown') else
           dict(v.split('=', 1) for v in vulns.split('|') if '=' in v)}
    run['config'] = {
        'preempt': env.get('preempt', 'unknown'),
        'debug': None if debug is None else
        [] if debug == 'none' else debug.split(','),
        'page_pool_stats': onoff.get(env.get('page_pool_stats'), stats_seen),
        'init_on_alloc': onoff.get(env.get('init_on_alloc')),
        'init_on_free': onoff.get(env.get('init_on_free'))}
    return run


def _stats(values):
    n, m = len(values), mean(values)
    half = ci95_half_width(values) if n > 1 else None
    return {'min': min(values), 'median': median(values), 'mean': m,
            'stddev': math.sqrt(variance(values)) if n > 1 else None,
            'ci95': [m - half, m + half] if n > 1 else None}


def build_doc(params, env, tests, skipped, deterministic):
    """The run as a kselftest-bench document."""
    seen = [t['path'][0] for t in tests.values()]
    run = _environment(env, deterministic, True if 'ok' in seen else None)
    params = dict(params, estimator='mean')
    unit = 'instructions' if deterministic else \
        ('tsc-cycles' if run['counter'] == 'tsc' else 'counter-ticks')
    doc_tests = []
    for name, t in tests.items():
        if name in skipped:
            status = 'skip'
        elif t['failed'] or not t['reps']:
            status = 'fail'
        else:
            status = 'pass'
        check = 'failed' if any('pages were returned via' in e
                                for e in t['errors']) else t['path'][0]
        doc_tests.append({
            'name': name, 'status': status, 'path_check': check,
            'reps': t['reps'] if status != 'skip' else [],
            'stats': None if status == 'skip' or not t['reps'] else
            {k: _stats([r[k] for r in t['reps']]) for k in ('cycles', 'ns')}})
    return {'schema': SCHEMA, 'version': VERSION,
            'benchmark': 'bench_page_pool',
            'run': dict(run, parameters=params,
                        date=datetime.datetime.now(datetime.timezone.utc)
                        .strftime('%Y-%m-%dT%H:%M:%SZ')),
            'unit': {'cycles': unit, 'time': 'ns'}, 'tests': doc_tests}


def _gate(doc, base, threshold, alpha):
    """Per gated test, why it regressed against BASE (empty: it did not),
    and lines to print; raises BenchError when BASE is not comparable."""
    why = incomparable(base, doc)
    if why:
        raise BenchError(f'the baseline is not comparable with this run: '
                         f'{why}')

    def gated(d):
        return dict(d, tests=[t for t in d['tests']
                              if t['name'] not in BASELINE_TESTS])
    deterministic = doc['unit']['cycles'] == 'instructions'
    rows = compare_tests([gated(base)], [gated(doc)], deterministic, False,
                         alpha, not counter_mismatch(base, doc))
    out = {}
    notes = _warnings([base, doc], ['the baseline', 'this run'])
    notes += [f'{r["test"]}: ' + ('-' if r['pct'] is None else
                                  f'{r["pct"]:+.1f}%') +
              f' against the baseline, {r["verdict"]}' for r in rows]
    for r in rows:
        if r['worse'] and r['pct'] is not None and r['pct'] > threshold:
            out[r['test']] = f'regression {r["pct"]:+.1f}% ({r["verdict"]})'
    return out, notes


def _fmt_stats(st, n):
    more = f' stddev {st["stddev"]:.3f} ci95 [{st["ci95"][0]:.3f}, ' \
        f'{st["ci95"][1]:.3f}]' if n > 1 else ''
    return f'min {st["min"]:.3f} median {st["median"]:.3f} mean ' \
        f'{st["mean"]:.3f}{more} over {n} reps'


def report(args):
    """For the driver: '# ' lines, then per test 'pass NAME PERF', 'fail
    NAME', 'xfail NAME REASON' or 'skip NAME'."""
    deterministic = args.deterministic
    names = args.tests.split()
    skipped = set(args.skip.split()) if args.skip else set()
    try:
        with open(args.report, encoding='utf-8', errors='replace') as f:
            params, env, tests = parse_log(f, names)
    except OSError as e:
        raise BenchError(f'{args.report}: cannot read: {e.strerror}') from e
    doc = build_doc(params, env, tests, skipped, deterministic)
    regressed, gate_failed = {}, None
    if args.baseline:
        try:
            regressed, notes = _gate(doc, load_valid(args.baseline),
                                     args.threshold, args.alpha)
            print('\n'.join(f'# gate: {n}' for n in notes) or
                  '# gate: no test in common with the baseline')
        except BenchError as e:
            gate_failed = str(e)
    if args.json:
        try:
            with open(args.json, 'w', encoding='utf-8') as f:
                json.dump(doc, f, indent=1)
                f.write('\n')
            print(f'# results written to {args.json}')
        except OSError as e:
            print(f'# cannot write {args.json}: {e.strerror}')
    cyc = doc['unit']['cycles']
    if cyc == 'counter-ticks':
        cyc = f'counter ticks ({_counter(doc)})'
    unit = 'insn' if deterministic else 'ns'
    slow = os.environ.get('KSFT_MACHINE_SLOW') == 'yes'
    for t in doc['tests']:
        name, reps = t['name'], t['reps']
        if t['status'] == 'skip':
            print(f'skip {name}')
            continue
        for e in tests[name]['errors']:
            print(f'# {e}')
        if tests[name]['path'][1]:
            print(f'# {name}: {tests[name]["path"][1]}')
        if t['stats']:
            st = t['stats']
            print(f'# {name}: {cyc} {_fmt_stats(st["cycles"], len(reps))}; '
                  f'ns {_fmt_stats(st["ns"], len(reps))}')
        if t['status'] == 'fail':
            print(f'# {name}: ' + ('failed' if reps else 'no result'))
            print(f'fail {name}')
            continue
        value = t['stats']['cycles' if deterministic else 'ns']['mean']
        perf = f'{value:.3f}{unit}'
        if gate_failed:
            print(f'# {name}: {gate_failed}')
            print(f'fail {name}')
        elif name in regressed and slow:
            print(f'xfail {name} {regressed[name]} on a slow machine '
                  f'(perf={perf})')
        elif name in regressed:
            print(f'# {name}: {regressed[name]}')
            print(f'fail {name}')
        else:
            print(f'pass {name} {perf}')
    return 0


def main(argv=None):
    """Command line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(
        description='Compare kselftest-bench result files (JSON written by '
        'bench_page_pool and ptr_ring_test --json): each later file against '
        'the first, test by test; or a group of runs before against a group '
        'after (--before/--after), tested on the variation between runs.',
        epilog='Exit status: 0; 1 when a test got slower than --threshold '
        'or --validate found a problem; 2 for unreadable, invalid or '
        'incomparable files and usage errors.')
    parser.add_argument('files', nargs='*', metavar='FILE',
                        help='BEFORE.json AFTER.json [MORE.json ...], or the '
                        'files to check with --validate')
    parser.add_argument('--before', nargs='+', metavar='FILE',
                        help='several runs (boots) of the old kernel; with '
                        '--after')
    parser.add_argument('--after', nargs='+', metavar='FILE',
                        help='several runs of the new kernel; with --before')
    parser.add_argument('--format', choices=('text', 'markdown'),
                        default='text',
                        help='aligned text columns (default) or a Markdown '
                        'pipe table')
    parser.add_argument('--threshold', type=float, metavar='PCT',
                        help='exit 1 if a test got significantly slower (or, '
                        'for deterministic runs, more instructions) by more '
                        'than PCT percent')
    parser.add_argument('--alpha', type=float, default=ALPHA,
                        help='family-wise significance level (default '
                        f'{ALPHA:g})')
    parser.add_argument('--validate', action='store_true',
                        help='only check FILEs against the schema')
    drv = parser.add_argument_group(
        'for test_bench_page_pool.sh: the module\'s kernel log lines')
    drv.add_argument('--report', metavar='LOG',
                     help='summarise the Type: lines of this run\'s LOG '
                     'and print a result line per test')
    drv.add_argument('--tests', default='',
                     help='the selected tests, space-separated, in order')
    drv.add_argument('--skip', metavar='NAMES',
                     help='tests that were skipped, space-separated')
    drv.add_argument('--deterministic', action='store_true',
                     help='cycles are instructions (QEMU -icount): report '
                     'the mean instructions per element')
    drv.add_argument('--json', metavar='FILE', help='write the run as JSON')
    drv.add_argument('--baseline', metavar='FILE',
                     help='fail tests significantly slower than in this '
                     'earlier run by more than --threshold (default 5)')
    args = parser.parse_args(argv)
    if args.report:
        if args.files or args.before or args.validate:
            parser.error('--report takes no other FILE')
        if not args.tests.split():
            parser.error('--report needs --tests')
        if args.threshold is None:
            args.threshold = 5.0
    elif args.json or args.baseline or args.deterministic or args.skip:
        parser.error('--json, --baseline, --skip and --deterministic go '
                     'with --report')
    if args.threshold is not None and (not math.isfinite(args.threshold) or
                                       args.threshold < 0):
        parser.error('--threshold: PCT must be a number >= 0')
    if not 0.0 < args.alpha < 1.0:
        parser.error('--alpha: must be between 0 and 1')
    if (args.before is None) != (args.after is None):
        parser.error('--before and --after go together')
    if args.before and (args.files or args.validate):
        parser.error('--before/--after take the files: no other FILE, '
                     'no --validate')

    try:
        if args.report:
            return report(args)
        if args.validate:
            if not args.files:
                parser.error('--validate: which FILEs?')
            bad = 0
            for path in args.files:
                problems = validate(load(path))
                for p in problems:
                    print(f'{path}: {p}', file=sys.stderr)
                if not problems:
                    print(f'{path}: ok')
                bad += bool(problems)
            return 1 if bad else 0

        if args.before:
            over = compare([load_valid(f) for f in args.before],
                           [load_valid(f) for f in args.after],
                           args.before, args.after, args)
        else:
            if len(args.files) < 2:
                parser.error('need BEFORE.json and at least one AFTER.json')
            docs = [load_valid(path) for path in args.files]
            over = []
            for i in range(1, len(docs)):
                if i > 1:
                    print()
                over += compare(docs[:1], [docs[i]], args.files[:1],
                                [args.files[i]], args)
    except BenchError as e:
        print(f'{parser.prog}: {e}', file=sys.stderr)
        return 2
    if over:
        print(f'\nslower than the {args.threshold:g}% threshold:\n  ' +
              '\n  '.join(over))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
