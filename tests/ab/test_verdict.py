# SPDX-License-Identifier: GPL-2.0
"""Tests of vmtest/lib/ktap.py and ab/verdict.py on canned KTAP logs.

Each canned run is what test_bench_page_pool.sh (or ptr_ring_test) prints
in one boot; the figures are the deterministic kernel's instructions per
element, or nanoseconds, with a fixed boot-to-boot jitter.  Run as a
script, it prints "ok - NAME" or "not ok - NAME" per test.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

AB = os.path.join(os.path.dirname(os.path.realpath(__file__)), '..', '..',
                  'ab')
LIB = os.path.join(AB, '..', 'vmtest', 'lib')
sys.path[:0] = [AB, LIB]
# pylint: disable=wrong-import-position
import ktap
import numpy as np
import range as commits
import verdict

# Instructions per element in the deterministic kernel (about)
FIGURES = {'for_loop': 3.009, 'atomic_inc': 4.003, 'lock': 17.019,
           'no-softirq-page_pool01': 71.061, 'no-softirq-page_pool02': 155.448,
           'no-softirq-page_pool03': 496.748,
           'bh_page_pool02_ptr_ring': 144.433, 'bh_page_pool03_slow': 501.731,
           'bh_page_pool04_napi_local': 84.066,
           'bh_page_pool05_napi_remote': 147.435}
# Boot-to-boot jitter of the counts: a spread of 0.05 (0.04 on the slow
# path) in the base, the change's mean 0.005 higher
JITTER = ((0.0, 0.03, -0.02), (0.02, -0.01, 0.015))
KERNEL = '7.3.4 #1 SMP PREEMPT Tue Dec 1 15:24:59 UTC 2026'
CMDLINE = 'console=ttyS0,115200 loglevel=5 panic=-1 -- vmtest_job=/j/%d'
VULNS = ('spectre_v2:Vulnerable; STIBP: disabled; PBRSB-eIBRS: Not affected'
         ' mds:Not affected spectre_v1:Vulnerable: __user pointer '
         'sanitization and usercopy barriers only; no swapgs barriers')


def raw(figures, unit='insn', env=True, boot=0):
    """test_bench_page_pool.sh's KTAP of one boot."""
    lines = ['TAP version 13']
    if env:
        lines += [f'# kernel: {KERNEL}', f'# cmdline: {CMDLINE % boot}',
                  f'# vulnerabilities: {VULNS}']
    lines.append(f'1..{len(figures) + 2}')
    for i, (name, value) in enumerate(figures.items(), 1):
        lines += [f'# Type:{name} Per elem: 1.000 cycles(tsc) {value:.3f} ns',
                  f'ok {i} {name} # perf={value:.3f}{unit}']
    lines += [f'not ok {len(figures) + 1} no-softirq-page_pool01_dma',
              f'ok {len(figures) + 2} cross_cpu_return # SKIP',
              '# Totals: pass:10 fail:1 xfail:0 xpass:0 skip:1 error:0']
    return '\n'.join(lines) + '\n'


def wrapped(text, depth=1):
    """TEXT as run_kselftest.sh (DEPTH 1) or a runner of that prints it."""
    for _ in range(depth):
        text = ('TAP version 13\n1..1\n# timeout set to 300\n'
                '# selftests: net/bench: test_bench_page_pool.sh\n' +
                ''.join('# ' + line + '\n' for line in text.splitlines()) +
                'ok 1 selftests: net/bench: test_bench_page_pool.sh\n')
    return text


def boots(side, shift=None, scale=0.0, unit='insn', env=True):
    """KTAP of three boots of one side: FIGURES with the side's JITTER
    (for a timing, SCALE: the spread in percent of the figure), plus
    SHIFT {name: difference}."""
    runs = []
    for boot, jitter in enumerate(JITTER[side]):
        figures = {}
        for name, value in FIGURES.items():
            if scale:
                noise = value * scale / 100 * jitter / 0.05
            else:
                noise = jitter * (0.8 if value > 400 else 1.0)
            figures[name] = value + noise + (shift or {}).get(name, 0.0)
        runs.append(raw(figures, unit, env, boot))
    return runs


class Case(unittest.TestCase):
    """A temporary directory for the canned logs."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()  # pylint: disable=R1732
        self.addCleanup(self.tmp.cleanup)
        self.notes = []

    def write(self, label, texts):
        """TEXTS as files LABEL.N in the temporary directory."""
        paths = []
        for i, text in enumerate(texts):
            paths.append(os.path.join(self.tmp.name, f'{label}.{i}'))
            with open(paths[-1], 'w', encoding='utf-8') as out:
                out.write(text)
        return paths

    def table(self, base, change, deterministic=False):
        """{test: verdict} of two sides' texts; the notes in self.notes."""
        runs = [[r for p in self.write(label, texts)
                 for r in ktap.read_runs(p)]
                for label, texts in (('base', base), ('change', change))]
        rows, _, self.notes, _ = verdict.compare(*runs, deterministic, 2.0)
        return {row[0]: row[5] for row in rows}

    def cli(self, *args):
        """(exit code, stdout, stderr) of verdict.py ARGS."""
        proc = subprocess.run([sys.executable, os.path.join(AB, 'verdict.py'),
                               *args], capture_output=True, text=True,
                              check=False)
        return proc.returncode, proc.stdout, proc.stderr

    def cli_on(self, base, change, *args):
        """verdict.py ARGS on the texts BASE and CHANGE, as cli()."""
        return self.cli('--base', *self.write('b', base),
                        '--change', *self.write('c', change), *args)

    def expect(self, base, change, want, deterministic=False):
        """Every test of WANT {test: verdict} has its verdict."""
        table = self.table(base, change, deterministic)
        self.assertEqual({t: table.get(t) for t in want}, want)


class Deterministic(Case):
    """Instruction counts, judged by the boot-to-boot spread."""

    def test_aa_is_same(self):
        """an A/A pair, 3 boots a side: "same" on every test"""
        self.assertEqual(self.table(boots(0), boots(1)),
                         dict.fromkeys(FIGURES, 'same'))

    def test_one_insn_slower_only_there(self):
        """+1 instruction on one test: "slower" there, "same" elsewhere"""
        self.expect(boots(0), boots(1, {'no-softirq-page_pool01': 1}),
                    {**dict.fromkeys(FIGURES, 'same'),
                     'no-softirq-page_pool01': 'slower'})

    def test_nop_kernel_and_slow_path(self):
        """+0.96 (spread 0.05), +2.0 on 496 (spread 0.04): slower; -1 faster"""
        self.expect(boots(0), boots(1, {
            'no-softirq-page_pool02': 0.96, 'no-softirq-page_pool03': 2.0,
            'lock': -1}), {'no-softirq-page_pool02': 'slower',
                           'no-softirq-page_pool03': 'slower',
                           'lock': 'faster', 'for_loop': 'same'})

    def test_one_boot_a_side(self):
        """one boot a side, no word on task switches (--attribution's):
        "unknown" unless identical"""
        self.expect(boots(0)[:1], boots(0, {'lock': 1})[:1],
                    {**dict.fromkeys(FIGURES, 'same'),
                     'lock': verdict.UNKNOWN})

    def test_below_resolution(self):
        """+0.1 is no change ("same"); +0.48 with a noise of 0.025 could
        hide +0.5: "unknown" """
        self.expect(boots(0), boots(1, {'lock': 0.1, 'atomic_inc': 0.48}),
                    {'lock': 'same', 'atomic_inc': verdict.UNKNOWN})

    def test_exact_levels_aa(self):
        """counts on discrete levels, no spread within a side, sides a
        level apart (callgrind's A/A at two runs): "same", never slower"""
        self.assertEqual(self.table([raw({'single': 83.79})] * 2,
                                    [raw({'single': 83.81})] * 2),
                         {'single': 'same'})

    def test_disturbed_boot_is_left_out(self):
        """one boot of a side disturbed (+30): the lowest runs decide
        ("same", a +2 "slower"), and the boot is named in a note"""
        self.expect(boots(0)[:2] + boots(0, {'lock': 30, 'for_loop': 30})[2:],
                    boots(1, {'for_loop': 2}),
                    {'lock': 'same', 'for_loop': 'slower'})
        self.assertIn('lock: base run 3 (+29.980)insn above its lowest: '
                      'disturbed, not counted', self.notes)

    def test_two_disturbed_is_unknown(self):
        """two of three boots disturbed apart: the lowest is not
        confirmed, "unknown" whatever the difference"""
        base = [raw({'lock': v}) for v in (17.0, 25.0, 31.0)]
        change = [raw({'lock': v}) for v in (17.02, 17.01, 17.03)]
        self.assertEqual(self.table(base, change)['lock'], verdict.UNKNOWN)
        self.assertEqual(self.table(change, base)['lock'], verdict.UNKNOWN)

    def test_dma_spread(self):
        """+1 on a path whose boots differ by 0.3: "slower" """
        self.expect([raw({'dma': v}) for v in (5866.6, 5866.9, 5866.7)],
                    [raw({'dma': v}) for v in (5867.7, 5867.9, 5867.6)],
                    {'dma': 'slower'})

    def test_flag_makes_ns_exact(self):
        """--deterministic judges ns figures (icount) by the spread"""
        self.expect(boots(0, unit='ns'), boots(1, {'lock': 1}, unit='ns'),
                    {**dict.fromkeys(FIGURES, 'same'), 'lock': 'slower'},
                    True)


class Simulation(unittest.TestCase):
    """The deterministic rule on simulated boots: a clean count plus
    jitter that only adds (uniform up to 0.3 insn/elem, the DMA paths'
    boot-to-boot spread), and one boot in three disturbed (other tasks in
    a timed chunk), which adds +1 to +30 to each of the four
    process-context rows of a ten-row table, as measured."""

    RNG_SEED = 1
    ROWS, PROCESS, DISTURBED = 10, 4, 1 / 3

    def table(self, rng, count, shift=0.0):
        """[(base runs, change runs)] of one simulated table of COUNT
        boots a side; SHIFT is added to the change's first row."""
        sides = []
        for delta in (0.0, shift):
            runs = 100 + rng.uniform(0, 0.3, (count, self.ROWS))
            runs[:, 0] += delta
            hit = rng.random(count) < self.DISTURBED
            runs[hit, -self.PROCESS:] += rng.uniform(
                1, 30, (hit.sum(), self.PROCESS))
            sides.append(runs)
        return [(list(sides[0][:, r]), list(sides[1][:, r]))
                for r in range(self.ROWS)]

    def rates(self, count, tables=2000):
        """(tables with a false row, +1 rows called "slower"), COUNT boots
        a side"""
        rng = np.random.default_rng(self.RNG_SEED)
        false = power = 0
        for _ in range(tables):
            false += any(verdict.judge_deterministic(*row) in
                         ('slower', 'faster')
                         for row in self.table(rng, count))
            power += verdict.judge_deterministic(
                *self.table(rng, count, 1.0)[0]) == 'slower'
        return false / tables, power / tables

    def test_aa_and_power(self):
        """A/A tables: a false row at most 1 % and +1 insn/elem "slower"
        at least 95 % from 3 boots (ab.sh's default), never less as boots
        are added"""
        last = 0
        for count in (2, 3, 5, 10):
            false, power = self.rates(count)
            print(f'# simulated, {count} boots a side: A/A tables with a '
                  f'false row {100 * false:.2f} %, +1 insn/elem slower '
                  f'{100 * power:.1f} %')
            if count >= 3:
                self.assertLessEqual(false, 0.01)
                self.assertGreaterEqual(power, 0.95)
            self.assertGreaterEqual(power, last - 0.005)
            last = power

    def test_staged(self):
        """ab.sh's boots: one a side, one more while a row is "unknown",
        up to 3. A disturbed boot (another task in a timed chunk) is one
        with a task switch there, which --attribution sees: A/A tables
        with a false row at most 1 %, +1 insn/elem "slower" at least 95 %;
        with no disturbance (the ten boots measured), one boot a side
        decides"""
        for disturbed in (self.DISTURBED, 0):
            rng = np.random.default_rng(self.RNG_SEED)
            false = power = made = 0
            tables = 2000
            for _ in range(tables):
                for shift in (0.0, 1.0):
                    rows, hit = self.staged_table(rng, shift, disturbed)
                    for count in (1, 2, 3):
                        clean = not (hit[0][0] or hit[1][0])
                        got = [verdict.judge_deterministic(
                            b[:count], c[:count],
                            clean or r < self.ROWS - self.PROCESS)
                            for r, (b, c) in enumerate(rows)]
                        if verdict.UNKNOWN not in got:
                            break
                    made += count
                    if shift:
                        power += got[0] == 'slower'
                    else:
                        false += any(v in ('slower', 'faster') for v in got)
            print(f'# simulated, a boot a side while a row is unknown, up '
                  f'to 3, one boot in {1 / disturbed if disturbed else 0:g} '
                  f'disturbed: A/A tables with a false row '
                  f'{100 * false / tables:.2f} %, +1 insn/elem slower '
                  f'{100 * power / tables:.1f} %, '
                  f'{made / tables / 2:.2f} boots a side')
            self.assertLessEqual(false / tables, 0.01)
            self.assertGreaterEqual(power / tables, 0.95)
            if not disturbed:
                self.assertEqual(made, 2 * tables)

    def staged_table(self, rng, shift, disturbed):
        """table()'s rows at 3 boots a side, the measured spread (0.041)
        where no boot is DISTURBED, and which boots were: [side][boot]"""
        sides, hits = [], []
        for delta in (0.0, shift):
            runs = 100 + rng.uniform(0, 0.041, (3, self.ROWS))
            runs[:, 0] += delta
            hit = rng.random(3) < disturbed
            runs[hit, -self.PROCESS:] += rng.uniform(
                1, 30, (hit.sum(), self.PROCESS))
            sides.append(runs)
            hits.append(hit)
        return [(list(sides[0][:, r]), list(sides[1][:, r]))
                for r in range(self.ROWS)], hits

    def test_callgrind_levels(self):
        """callgrind's counts on discrete levels (0.02 apart, up to ten),
        two runs a side: an A/A row is never slower or faster"""
        rng = np.random.default_rng(self.RNG_SEED)
        for _ in range(5000):
            levels = 83.79 + 0.02 * rng.integers(0, 10, 4)
            self.assertEqual(verdict.judge_deterministic(
                list(levels[:2]), list(levels[2:])), 'same')


class Timing(Case):
    """Nanoseconds: Welch's test on log boot means, Holm, a practical
    threshold, TOST."""

    def test_inside_spread_is_unknown(self):
        """a difference inside the run-to-run spread: "unknown", with the
        runs a side that would resolve it"""
        table = self.table(boots(0, scale=6, unit='ns'),
                           boots(1, {'lock': 0.5}, scale=6, unit='ns'))
        for cell in table.values():
            runs = re.fullmatch(r'unknown \(about (\d+) runs a side\)', cell)
            self.assertTrue(runs, cell)
            self.assertGreater(int(runs.group(1)), 3)

    def test_below_threshold_is_same(self):
        """a real 0.5 % in quiet timings: significant, but below the 2 %
        practical threshold: "same", never "slower" """
        self.expect(boots(0, scale=0.02, unit='ns'), boots(
            1, {'no-softirq-page_pool01': 0.36}, scale=0.02, unit='ns'),
            {'no-softirq-page_pool01': 'same'})

    def test_well_outside_is_slower(self):
        """a shift well outside the spread: "slower" on that test only"""
        table = self.table(boots(0, scale=0.3, unit='ns'), boots(
            1, {'no-softirq-page_pool01': 10.0}, scale=0.3, unit='ns'))
        self.assertEqual(table.pop('no-softirq-page_pool01'), 'slower')
        self.assertNotIn('slower', table.values())

    def test_quiet_aa_is_same(self):
        """an A/A pair with 0.3 % jitter: "same" (TOST, 2 % margin)"""
        self.assertEqual(self.table(boots(0, scale=0.3, unit='ns'),
                                    boots(1, scale=0.3, unit='ns')),
                         dict.fromkeys(FIGURES, 'same'))

    def test_alpha(self):
        """--alpha 0.01: a shift at Holm's p 0.04 is "slower" at 0.05
        only"""
        base = boots(0, scale=1, unit='ns')
        change = boots(1, {'lock': 0.4}, scale=1, unit='ns')
        for alpha, want in (('0.05', 'slower'),
                            ('0.01', 'unknown (about 4 runs a side)')):
            code, out, _ = self.cli_on(base, change, '--alpha', alpha)
            self.assertEqual(code, 0)
            self.assertIn(f'Holm alpha {alpha};', out)
            self.assertRegex(out, rf'\nlock .* {re.escape(want)}\n')
        code, out, err = self.cli_on(base, change, '--alpha', '1.5')
        self.assertEqual((code, out), (2, ''))
        self.assertIn('--alpha must lie between 0 and 1', err)

    def test_aa_and_power(self):
        """simulated timings, log-normal run-to-run spread of 1 %, 5 % and
        20 %: A/A tables of ten rows with a false row at most 1 % at 3 runs
        a side (ab.sh's default, 600 tables); 5 and 10 runs, and how often
        +10 % is "slower", printed (150 tables)"""
        rng = np.random.default_rng(1)

        def runs(scale, spread, count):
            return list(scale * np.exp(rng.normal(0, spread, count)))
        for spread in (0.01, 0.05, 0.2):
            for count, tables in ((3, 600), (5, 150), (10, 150)):
                false = power = 0
                for _ in range(tables):
                    table = verdict.judge_timing(
                        {r: (runs(100, spread, count),
                             runs(100, spread, count)) for r in range(10)},
                        2.0)
                    false += any(v in ('slower', 'faster')
                                 for v in table.values())
                    power += verdict.judge_timing(
                        {0: (runs(100, spread, count),
                             runs(110, spread, count))}, 2.0)[0] == 'slower'
                print(f'# simulated timings, spread {100 * spread:g} %, '
                      f'{count} runs a side: A/A tables with a false row '
                      f'{100 * false / tables:.1f} %, +10 % slower '
                      f'{100 * power / tables:.1f} %')
                if count == 3:
                    self.assertLessEqual(false / tables, 0.01)

    def test_holm(self):
        """Holm's adjustment: step-down, monotone, at most 1"""
        self.assertEqual(verdict.holm([0.01, 0.04, 0.03, 0.5]),
                         [0.04, 0.09, 0.09, 0.5])


class Reading(Case):
    """KTAP from any source reads the same."""

    def runs(self, text):
        """The one run of TEXT as a file."""
        [run] = ktap.read_runs(self.write('run', [text])[0])
        return run

    def test_wrapped_reads_same(self):
        """raw, kselftest-wrapped, twice wrapped, timestamped, runner job"""
        text = boots(0)[0]
        want = self.runs(text)
        job = os.path.join(self.tmp.name, 'job')
        os.makedirs(os.path.join(job, 'ktap'))
        with open(os.path.join(job, 'ktap', 'install.tap'), 'w',
                  encoding='utf-8') as out:
            out.write(wrapped(text))
        stamped = ''.join(f'[   {i}.000001] {line}\n'
                          for i, line in enumerate(text.splitlines()))
        for got in (self.runs(wrapped(text)), self.runs(wrapped(text, 2)),
                    self.runs(stamped), ktap.read_runs(job)[0]):
            self.assertEqual((got.perf, got.skipped, got.failed, got.env),
                             (want.perf, want.skipped, want.failed,
                              want.env))
        self.assertEqual(want.failed, {'no-softirq-page_pool01_dma'})
        self.assertEqual(want.skipped, {'cross_cpu_return'})
        self.assertEqual(want.env['kernel'], KERNEL)
        code, out, _ = self.cli_on(boots(0), [wrapped(t) for t in boots(1)])
        self.assertEqual(code, 0)
        self.assertNotIn('note: kernel', out)

    def test_directory_and_ptr_ring(self):
        """a directory: a run a file; ptr_ring: repetitions averaged, SKIP"""
        logs = os.path.join(self.tmp.name, 'logs')
        os.mkdir(logs)
        self.write('logs/boot', ['TAP version 13\n1..2\n# size 1024 count 1\n'
                                 f'ok 1 spsc # perf={10 + i}ns\n'
                                 f'ok 1 spsc # perf={12 + i}ns\n'
                                 'ok 2 # SKIP batch: needs two CPUs\n'
                                 for i in range(3)])
        self.write('logs/README', ['three boots\n'])
        runs = ktap.read_runs(logs)
        self.assertEqual([r.sample('spsc') for r in runs], [11.0, 12.0, 13.0])
        self.assertEqual(runs[0].skipped, {'batch'})
        # ab/ptr_ring.sh's list of the modes that ran
        passed = subprocess.run(
            [sys.executable, os.path.join(LIB, 'ktap.py'), 'passed',
             os.path.join(logs, 'boot.0')], capture_output=True,
            text=True, check=False)
        self.assertEqual((passed.returncode, passed.stdout), (0, 'spsc\n'))

    def test_units(self):
        """metric prefixes: 0.005us is 5 ns, 1.2kinsn 1200 insn"""
        run = self.runs('ok 1 a # perf=0.005us\nok 2 b # perf=1.2kinsn\n'
                        'ok 3 c # perf=7pps\n')
        self.assertEqual(run.perf['a'][0], 'ns')
        self.assertAlmostEqual(run.perf['a'][1][0], 5.0)
        self.assertEqual(run.perf['b'], ('insn', [1200.0]))
        self.assertEqual(run.perf['c'], ('pps', [7.0]))

    def test_raw_kernel_log(self):
        """posted dmesg, upstream's time_bench lines and the series', give
        a table; a KTAP run's "# Type:" diagnostics are not counted twice"""
        upstream = ('[   {t}] bench_page_pool_simple: time_bench: Type:'
                    'no-softirq-page_pool01 Per elem: 19 cycles(tsc) {ns} ns '
                    '(step:0) - (measurement period time:0.055 sec time_'
                    'interval:55 ) - (invoke count:10000000 tsc_interval:1)\n'
                    '[   {t}] e1000e: eth0 NIC Link is Up\n'
                    '[   {t}] time_bench: Type:for_loop Per elem: 0 '
                    'cycles(tsc) 0.326 ns (step:0) - (x)\n')
        logs = [upstream.format(t=f'{10 + i}.5', ns=ns) for i, ns in
                enumerate(('5.539', '5.541', '5.538', '6.039', '6.041',
                           '6.042'))]
        code, out, err = self.cli_on(logs[:3], logs[3:])
        self.assertEqual((code, err), (0, ''))
        self.assertRegex(out, r'\nno-softirq-page_pool01 +5\.539 +6\.041'
                         r' .* slower\n')
        self.assertRegex(out, r'\nfor_loop +0\.326 +0\.326 .* same\n')
        self.assertEqual(self.runs(raw({'lock': 17.0})).perf['lock'],
                         ('insn', [17.0]))

    def test_environment_notes(self):
        """notes: cmdline, mitigations, "not recorded"; none for build date"""
        base = boots(0)
        rebuilt = '#2 SMP PREEMPT Wed Dec 2'
        change = [t.replace('panic=-1', 'panic=-1 mitigations=off')
                  .replace('spectre_v2:Vulnerable;', 'spectre_v2:Mitigation;')
                  .replace('#1 SMP PREEMPT Tue Dec 1', rebuilt)
                  for t in boots(1)]
        code, out, _ = self.cli_on(base, change)
        self.assertEqual(code, 0)
        self.assertIn('note: cmdline differs: base - / change mitigations=off',
                      out)
        self.assertIn('note: vulnerabilities differs: base spectre_v2:', out)
        self.assertNotIn('note: kernel', out)
        code, out, _ = self.cli_on(base, boots(1, env=0))
        self.assertIn('note: kernel differs: base 7.3.4 PREEMPT SMP / change '
                      'not recorded', out)


class Command(Case):
    """The command line: table, formats, exit codes."""

    def test_json(self):
        """--format json: the rows with each side's runs, and ab.sh's
        manifest; a missing manifest is exit 2"""
        change = boots(1, {'lock': 1})
        lines = 'command: ab.sh --change x\npatch: 0001 a\npatch: 0002 b\n'
        manifest = self.write('m', [lines])[0]
        code, out, _ = self.cli_on(boots(0), change, '--format', 'json',
                                   '--manifest', manifest)
        self.assertEqual(code, 0)
        table = json.loads(out)
        [lock] = [r for r in table['rows'] if r['test'] == 'lock']
        self.assertEqual((lock['verdict'], lock['unit']), ('slower', 'insn'))
        self.assertEqual(len(lock['base_runs']), 3)
        self.assertEqual(table['manifest']['patch'], ['0001 a', '0002 b'])
        code, out, err = self.cli_on(boots(0), change, '--format', 'json',
                                     '--manifest', 'nope')
        self.assertEqual((code, out), (2, ''))
        self.assertIn('nope: No such file', err)

    def test_table_and_fail_on_slower(self):
        """the text table and its header; exit 1 with --fail-on-slower"""
        change = boots(1, {'lock': 1})
        code, out, _ = self.cli_on(boots(0), change)
        self.assertEqual(code, 0)
        self.assertRegex(out, r'^base 3 run\(s\), change 3 run\(s\); '
                         r'unit insn, deterministic: ')
        self.assertRegex(out, r'\nlock +16\.999 +18\.009 +\+1\.010 '
                         r'+\+5\.94% +slower\n')
        self.assertIn('note: not ok in base: no-softirq-page_pool01_dma', out)
        self.assertEqual(self.cli_on(boots(0), change, '--fail-on-slower')[0],
                         1)
        self.assertEqual(self.cli_on(boots(0), boots(0),
                                     '--fail-on-slower')[0], 0)

    def test_attribution(self):
        """--attribution: verdicts the change's, not its placement's. A
        test that ran no changed code: "not covered", even when its
        thunks moved it by 2 insn/elem; one whose changed functions did
        not move, only its thunks: "placement", never slower/faster; one
        whose changed function moved keeps its verdict, judged without
        the thunks' difference, and so does one that moved though it ran
        no changed code; the thunks apart, in a column; the as-built
        verdict in JSON"""
        shift = {'lock': 2, 'no-softirq-page_pool01': -1,
                 'no-softirq-page_pool02': 3, 'no-softirq-page_pool03': 1,
                 'atomic_inc': 1}
        # ran none of it; only thunks moved; its own +2 and a thunk's +1;
        # thunks all of it; moved, though it ran none of it (data?)
        attr = self.write('a', [(
            'atomic_inc 0 1.000 0.000 0\n'
            'lock 0 0.000 2.000 0\n'
            'no-softirq-page_pool01 1 0.000 -1.000 0\n'
            'no-softirq-page_pool02 1 2.000 1.000 0\n'
            'no-softirq-page_pool03 1 1.000 1.000 0\n'
            'for_loop 0 0.000 0.000 0\n')])[0]
        code, out, _ = self.cli_on(boots(0), boots(1, shift),
                                   '--attribution', attr)
        self.assertEqual(code, 0)
        self.assertRegex(out, r'\nlock +.* \+2\.\d+ .* not covered +'
                         r'\+2\.000\n')
        self.assertRegex(out, r'\nno-softirq-page_pool01 +.* placement +'
                         r'-1\.000\n')
        self.assertRegex(out, r'\nno-softirq-page_pool02 +.* \+3\.\d+ .* '
                         r'slower +\+1\.000\n')
        self.assertRegex(out, r'\nno-softirq-page_pool03 +.* same +\+1\.000\n')
        self.assertRegex(out, r'\nfor_loop +.* not covered +\+0\.000\n')
        self.assertRegex(out, r'\natomic_inc +.* slower +\+0\.000\n')
        self.assertRegex(out, r'\ntest +base .* verdict +placement\n')
        code, out, _ = self.cli_on(boots(0), boots(1, shift),
                                   '--attribution', attr, '--format', 'json')
        rows = {r['test']: r for r in json.loads(out)['rows']}
        self.assertEqual((rows['lock']['verdict'], rows['lock']['as_built'],
                          rows['lock']['placement']),
                         ('not covered', 'slower', '+2.000'))
        self.assertEqual((rows['no-softirq-page_pool01']['verdict'],
                          rows['no-softirq-page_pool01']['as_built']),
                         ('placement', 'faster'))
        self.assertEqual(rows['no-softirq-page_pool03']['as_built'], 'slower')
        # One boot a side: a verdict where no task switched in the chunks,
        # "unknown" where one did
        one = self.write('o', [('lock 1 1.000 0.000 0\n'
                                'atomic_inc 1 1.000 0.000 1\n'
                                'for_loop 1 0.100 0.000 0\n')])[0]
        code, out, _ = self.cli_on(
            boots(0)[:1], boots(1, {'lock': 1, 'atomic_inc': 1,
                                    'for_loop': 0.1})[:1],
            '--attribution', one)
        self.assertRegex(out, r'\nlock +.* slower +\+0\.000\n')
        self.assertRegex(out, r'\natomic_inc +.* unknown \(run more\) +'
                         r'\+0\.000\n')
        self.assertRegex(out, r'\nfor_loop +.* same +\+0\.000\n')
        # --undecided: atomic_inc's unknown needs a boot more; the tests
        # the attribution does not cover (unknown too) do not count
        shifted = boots(1, {'lock': 1, 'atomic_inc': 1, 'for_loop': 0.1})[:1]
        self.assertEqual(self.cli_on(boots(0)[:1], shifted, '--attribution',
                                     one, '--undecided')[0], 0)
        calm = self.write('q', [('lock 1 1.000 0.000 0\n'
                                 'atomic_inc 1 1.000 0.000 0\n'
                                 'for_loop 1 0.100 0.000 0\n')])[0]
        self.assertEqual(self.cli_on(boots(0)[:1], shifted, '--attribution',
                                     calm, '--undecided')[0], 1)
        bad = self.write('x', ['lock yes\n'])[0]
        code, _, err = self.cli_on(boots(0), boots(1), '--attribution', bad)
        self.assertEqual(code, 2)
        self.assertIn("not an attribution line: 'lock yes'", err)

    def test_range_placement(self):
        """ab.sh --tree's steps (range.py) with the boots' profiles: a
        commit whose only move is a thunk's reads placement (~), and a
        bisect does not stop there unless asked (--placement); without
        the profiles it reads slower"""
        def commit(name, side, shift, thunk):
            path = os.path.join(self.tmp.name, name)
            for i, text in enumerate(boots(side, shift)):
                boot = os.path.join(path, f'boot-{i + 1}')
                os.makedirs(os.path.join(boot, 'ktap'))
                with open(os.path.join(boot, 'ktap', 'install.tap'), 'w',
                          encoding='utf-8') as out:
                    out.write(wrapped(text))
                with open(os.path.join(boot, 'profile.json'), 'w',
                          encoding='utf-8') as out:
                    json.dump({'lock': [1000, 17.0, 1.0, {
                        '_raw_spin_lock': [12.0, 1.0],
                        'its_return_thunk': [5.0 + thunk, 5.0 + thunk]},
                        None]}, out)
            return commits.Commit(path)
        first, moved = commit('a', 0, {}, 0), commit('b', 1, {'lock': 1}, 1)
        self.assertEqual(commits.differs(first, moved, None), 1)
        self.assertEqual(commits.differs(first, moved, None, True), 0)
        text, _ = commits.table([first, moved])
        self.assertRegex(text, r'\nlock +16\.999 +\+1\.010~\n')
        self.assertIn('lock +1.01 placement', text)
        moved.profiles = []
        self.assertEqual(commits.differs(first, moved, None), 0)

    def test_one_side_only(self):
        """a test one side lacks: its figure (the lowest run, as both
        sides' are), "only in" that side"""
        new = [t.replace('ok 1 for_loop', 'ok 1 bh_new') for t in boots(1)]
        code, out, _ = self.cli_on(boots(0), new)
        self.assertEqual(code, 0)
        self.assertRegex(out, r'\nfor_loop +2\.989insn +- +- +- +'
                         r'only in base\n')
        self.assertRegex(out, r'\nbh_new +- +2\.999insn +- +- +'
                         r'only in change\n')
        new = [t.replace('ok 1 for_loop', 'ok 1 bh_new')
               for t in boots(1, unit='ns')]
        code, out, _ = self.cli_on(boots(0, unit='ns'), new, '--deterministic')
        self.assertEqual(code, 0)
        self.assertRegex(out, r'\nbh_new +- +2\.999insn +- +- +'
                         r'only in change\n', 'an icount ns is an insn')

    def test_markdown(self):
        """--format markdown: a pipe table"""
        code, out, _ = self.cli_on(boots(0), boots(1), '--format', 'markdown')
        self.assertEqual(code, 0)
        self.assertIn('\n| test | base | change | Δ/elem | % | verdict |\n'
                      '|---|---|---|---|---|---|\n| for_loop | ', out)

    def test_bad_input(self):
        """exit 2 and a message: no file, no perf=, nothing common, units"""
        good = self.write('g', boots(0)[:1])
        empty = self.write('e', ['TAP version 13\n1..1\nok 1 x # SKIP\n'])
        other = self.write('o', ['ok 1 spsc # perf=5ns\n'])
        units = self.write('u', boots(0, unit='ns')[:1])
        for change, message in (
                (['/nonexistent'], '/nonexistent: no such file'),
                (empty, 'change: no perf= case in '),
                (other, 'the sides have no perf= test in common'),
                (units, 'for_loop: base in insn, change in ns')):
            code, out, err = self.cli('--base', *good, '--change', *change)
            self.assertEqual((code, out), (2, ''))
            self.assertIn(message, err)
            self.assertTrue(err.startswith('verdict.py: '))


class Lines(unittest.TextTestResult):
    """Prints "ok - NAME" or "not ok - NAME" and the reason per test."""

    def addSuccess(self, test):
        print(f'ok - {test.shortDescription() or test.id()}', flush=True)

    def report(self, test, err):
        """A failure or error, the reason on '#' lines."""
        print(f'not ok - {test.shortDescription() or test.id()}')
        for line in self._exc_info_to_string(err, test).splitlines():
            print(f'#   {line}')
        sys.stdout.flush()

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.report(test, err)

    def addError(self, test, err):
        super().addError(test, err)
        self.report(test, err)


if __name__ == '__main__':
    with open(os.devnull, 'w', encoding='utf-8') as devnull:
        RESULT = unittest.TextTestRunner(devnull, resultclass=Lines).run(
            unittest.defaultTestLoader.loadTestsFromModule(
                sys.modules[__name__]))
    sys.exit(0 if RESULT.wasSuccessful() else 1)
