#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Project tests for ab/bench_compare.py (not
# part of the kernel series):
#
#   - the Student t distribution and Welch's test against known values, and
#     the false positive rate of A/A comparisons close to alpha,
#   - --validate accepts good files and rejects each kind of bad one,
#   - unreadable, invalid or incomparable files and usage errors exit 2,
#   - A/A: no significant difference; +10 % ns on one test: significant,
#     --threshold 5 fails, --threshold 20 passes,
#   - deterministic files: +1 % instructions on one test is "exact" and
#     fails --threshold 0, +0.4 % (the spread across boots) is "same",
#   - --format markdown is a pipe table, emulated runs carry a note,
#   - runs in different environments (command line, mitigations, preemption,
#     debug options, counter) are compared under a WARNING; counter ticks
#     of different counters or rates are not compared (that column is
#     dropped, saying why), those of different units refused.
# (ptr_ring_test has no --json: its own checks are in tests/ptr_ring.)
#
# Fixtures are generated in a temporary directory by gen() below, with
# their statistics computed by Python's statistics module, independently of
# bench_compare.py.  Prints "ok - ..." / "not ok - ..." per check; exits 1
# if anything failed.

set -u

# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
need_tools "pylint pylint"

# The newest kernel source the QEMU runner unpacked (for checkpatch.pl);
# fetched when missing.
[ -n "${KSRC:-}" ] || [ -d "$(pinned_source)" ] ||
	"$VMTEST" -t current --stop-after fetch >>"$OUT/prepare.log" 2>&1
KSRC=${KSRC:-$(pinned_source)}
BENCH=$REPO/ab
CMP=$BENCH/bench_compare.py

tmp=$(mktemp -d "${TMPDIR:-/tmp}/compare_tests.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# gen OUT.json [key=value...]: a synthetic result file (see the defaults).
gen()
{
	python3 - "$@" <<'EOF'
import json
import random
import statistics
import sys

T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
        2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101,
        2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
        2.048, 2.045, 2.042)
opt = {'seed': '1', 'reps': '10', 'mode': 'hardware', 'unit': 'tsc-cycles',
       'benchmark': 'ptr_ring_test', 'slow': '', 'pct': '0', 'extra': '0',
       'count': '100000', 'noise': '0.01', 'drift': '1', 'counter': 'tsc',
       'hz': '2100000000'}
opt.update(a.split('=', 1) for a in sys.argv[2:])
rnd = random.Random(int(opt['seed']))
base = {'single': 20.0, 'spsc': 12.0, 'batch_consume': 8.0,
        'batch_produce': 10.0, 'resize': 15.0}


def stats(v):
    n, m = len(v), statistics.mean(v)
    sd = statistics.stdev(v) if n > 1 else None
    half = (T975[n - 2] if n <= 31 else 1.96) * sd / n ** 0.5 \
        if n > 1 else None
    return {'min': min(v), 'median': statistics.median(v), 'mean': m,
            'stddev': sd,
            'ci95': [m - half, m + half] if n > 1 else None}


tests = []
for name, ns in base.items():
    reps = []
    # drift: the whole run slower or faster, as runs differ by boot
    scale = 1 + float(opt['pct']) / 100 if name == opt['slow'] else 1
    scale *= float(opt['drift'])
    for _ in range(int(opt['reps'])):
        t = ns * scale * rnd.gauss(1, float(opt['noise']))
        if opt['unit'] == 'instructions':
            cyc = 1000.0 + (int(opt['extra']) if name == opt['slow'] else 0)
        else:
            cyc = round(t * 2.1, 6)
        reps.append({'cycles': cyc, 'ns': round(t, 6),
                     'elements': int(opt['count'])})
    tests.append({'name': name, 'status': 'pass', 'path_check': 'not checked',
                  'reps': reps,
                  'stats': {k: stats([r[k] for r in reps])
                            for k in ('cycles', 'ns')}})
doc = {'schema': 'kselftest-bench', 'version': 1,
       'benchmark': opt['benchmark'],
       'run': {'mode': opt['mode'], 'kernel_release': '7.2.0-test',
               'cpu_model': 'Test CPU "quoted" \\ 3.0GHz',
               'date': '2026-11-30T12:00:00Z',
               'parameters': {'size': 1024, 'count': int(opt['count']),
                              'reps': int(opt['reps'])},
               'counter': opt['counter'], 'counter_hz': int(opt['hz']),
               'cmdline': 'BOOT_IMAGE=/boot/vmlinuz-7.2.0-test ro quiet',
               'vulnerabilities': {'spec_rstack_overflow': 'Safe RET'},
               'config': {'preempt': 'full', 'debug': [],
                          'page_pool_stats': None, 'init_on_alloc': False,
                          'init_on_free': False}},
       'unit': {'cycles': opt['unit'], 'time': 'ns'},
       'tests': tests}
with open(sys.argv[1], 'w') as f:
    json.dump(doc, f, indent=1)
EOF
}

# mutate IN OUT PYTHON: OUT is IN after PYTHON ran on its parsed form 'd'.
mutate()
{
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))' "$@"
}

# py NAME EXPR: ok when the Python EXPR, with bench_compare imported as b
# and bench_stats as s, is true.
py()
{
	local out

	if out=$(PYTHONPATH=$BENCH python3 -c "
import sys
import bench_compare as b
import bench_stats as s
v = $2
print(v)
sys.exit(0 if v else 1)" 2>&1); then
		ok "$1"
	else
		not_ok "$1" "$2" "$out"
	fi
}

test_stats()
{
	py "t=2.228, df=10: two-sided p = 0.05" \
		"abs(s.t_two_sided_p(2.228, 10) - 0.05) < 5e-4"
	py "t=12.706, df=1: two-sided p = 0.05" \
		"abs(s.t_two_sided_p(12.706, 1) - 0.05) < 5e-4"
	py "t=1.96, df=1e6: two-sided p = 0.05 (normal limit)" \
		"abs(s.t_two_sided_p(1.96, 1e6) - 0.05) < 5e-4"
	py "t=2.0, df=5: two-sided p = 0.10194" \
		"abs(s.t_two_sided_p(-2.0, 5) - 0.101939) < 1e-5"
	py "t=0: p = 1" "s.t_two_sided_p(0, 4) == 1"
	py "incomplete beta: I_x(a,b) = 1 - I_(1-x)(b,a), I_.5(2,2) = .5" \
		"abs(s.betainc(2.5, 0.5, 0.3) + s.betainc(0.5, 2.5, 0.7) - 1) < 1e-12 and abs(s.betainc(2, 2, 0.5) - 0.5) < 1e-12"
	py "Welch: 1..5 vs 2,4..10: t=1.897, df=5.882, p=0.1075 (R t.test)" \
		"all(abs(x - y) < 1e-3 for x, y in zip(s.welch([1, 2, 3, 4, 5], [2, 4, 6, 8, 10]), (1.8974, 5.8824, 0.1075)))"
	py "A/A false positive rate over 2000 pairs is alpha (3.5..6.5 %)" \
		"(lambda r: 0.035 < sum(s.welch([r.gauss(0, 1) for _ in range(8)], [r.gauss(0, 2) for _ in range(5)])[2] < 0.05 for _ in range(2000)) / 2000 < 0.065)(__import__('random').Random(5))"
}

# rejects NAME PYTHON ERE: a file mutated by PYTHON fails --validate with
# exit 1 and a message matching ERE.
rejects()
{
	local f=$tmp/bad-$RANDOM.json

	mutate "$tmp/good.json" "$f" "$2"
	if expect_rc "--validate rejects $1 (exit 1)" 1 "$tmp/v.log" \
	   "$CMP" --validate "$f"; then
		expect_grep "--validate says why: $1" "$tmp/v.log" "$3"
	fi
}

test_validate()
{
	local t='d["tests"][0]'

	gen "$tmp/good.json"
	gen "$tmp/det.json" unit=instructions mode=deterministic
	gen "$tmp/one.json" reps=1
	mutate "$tmp/good.json" "$tmp/skip.json" \
		"${t}['status'] = 'skip'; ${t}['reps'] = []; ${t}['stats'] = None"
	mutate "$tmp/good.json" "$tmp/nocyc.json" \
		"d['unit']['cycles'] = None
for t in d['tests']:
    [r.pop('cycles') for r in t['reps']]; t['stats'].pop('cycles')"
	expect_rc "--validate accepts good files (plain, deterministic, 1 rep, skipped test, no cycles)" \
		0 "$tmp/v.log" "$CMP" --validate "$tmp/good.json" \
		"$tmp/det.json" "$tmp/one.json" "$tmp/skip.json" "$tmp/nocyc.json"
	expect_grep "--validate prints 'FILE: ok'" "$tmp/v.log" 'good\.json: ok$'

	rejects "a missing key" "del d['run']" 'no "run"'
	rejects "another schema" "d['schema'] = 'other'" "schema: 'other'"
	rejects "another version" "d['version'] = 2" 'version: 2'
	rejects "an unknown benchmark" "d['benchmark'] = 'x'" "benchmark: 'x'"
	rejects "an unknown run mode" "d['run']['mode'] = 'cloud'" "run.mode: 'cloud'"
	rejects "a date that is not ISO 8601" "d['run']['date'] = 'yesterday'" 'run.date'
	rejects "a parameter that is a list" "d['run']['parameters']['x'] = [1]" 'run.parameters.x'
	rejects "a page_pool_stats string" "d['run']['config']['page_pool_stats'] = 'y'" 'page_pool_stats'
	rejects "an unknown cycles unit" "d['unit']['cycles'] = 'ms'" "unit.cycles: 'ms'"
	rejects "an unknown status" "${t}['status'] = 'ok'" "status: 'ok'"
	rejects "an unknown path_check" "${t}['path_check'] = 'yes'" "path_check: 'yes'"
	rejects "no reps on a passed test" "${t}['reps'] = []; ${t}['stats'] = None" 'reps: empty'
	rejects "a string ns" "${t}['reps'][0]['ns'] = '1.0'" 'reps\[0\]\.ns'
	rejects "zero elements" "${t}['reps'][1]['elements'] = 0" 'reps\[1\]\.elements'
	rejects "cycles in some reps only" "${t}['reps'][0].pop('cycles')" 'in some reps only'
	rejects "a mean that is not the reps' mean" "${t}['stats']['ns']['mean'] *= 1.01" 'stats\.ns\.mean: .* but the reps give'
	rejects "a wrong median" "${t}['stats']['cycles']['median'] += 1" 'stats\.cycles\.median'
	rejects "a wrong stddev" "${t}['stats']['ns']['stddev'] *= 2" 'stats\.ns\.stddev'
	rejects "a wrong ci95" "${t}['stats']['ns']['ci95'][1] += 1" 'stats\.ns\.ci95 hi'
	rejects "a missing stat" "del ${t}['stats']['ns']['min']" 'no "min"'
	rejects "a test listed twice" "d['tests'].append(d['tests'][0])" 'listed twice'
	rejects "the old unit name 'cycles'" "d['unit']['cycles'] = 'cycles'" "unit.cycles: 'cycles'"
	rejects "a counter_hz of 0" "d['run']['counter_hz'] = 0" 'run\.counter_hz'
	rejects "a counter_hz string" "d['run']['counter_hz'] = '62.5 MHz'" 'run\.counter_hz'
	rejects "no cmdline" "del d['run']['cmdline']" 'run\.cmdline'
	rejects "vulnerabilities as a string" "d['run']['vulnerabilities'] = 'none'" 'run\.vulnerabilities'
	rejects "an init_on_alloc string" "d['run']['config']['init_on_alloc'] = 'on'" 'init_on_alloc'
	rejects "debug options as a string" "d['run']['config']['debug'] = 'KASAN'" 'run\.config\.debug'
	mutate "$tmp/good.json" "$tmp/unknown.json" "d['run']['mode'] = 'unknown'
d['run'].update(counter=None, counter_hz=None, cmdline=None, vulnerabilities=None)
d['run']['config'].update(debug=None, init_on_alloc=None, init_on_free=None)"
	expect_rc "--validate accepts an environment not known (mode unknown, null fields)" \
		0 "$tmp/v.log" "$CMP" --validate "$tmp/unknown.json"
}

test_errors()
{
	local f

	printf '{"schema": ' >"$tmp/trunc.json"
	mutate "$tmp/good.json" "$tmp/pp.json" "d['benchmark'] = 'bench_page_pool'"
	expect_rc "invalid JSON: exit 2" 2 "$tmp/e.log" \
		"$CMP" "$tmp/trunc.json" "$tmp/good.json" &&
		expect_grep "invalid JSON: says so" "$tmp/e.log" 'trunc\.json: not valid JSON'
	expect_rc "invalid JSON under --validate: exit 2" 2 "$tmp/e.log" \
		"$CMP" --validate "$tmp/trunc.json"
	expect_rc "missing file: exit 2" 2 "$tmp/e.log" \
		"$CMP" "$tmp/good.json" "$tmp/none.json" &&
		expect_grep "missing file: says so" "$tmp/e.log" 'none\.json: cannot read'
	f=$tmp/badmean.json
	mutate "$tmp/good.json" "$f" "d['tests'][1]['stats']['ns']['mean'] += 1"
	expect_rc "an invalid file given to compare: exit 2" 2 "$tmp/e.log" \
		"$CMP" "$tmp/good.json" "$f" &&
		expect_grep "an invalid file given to compare: says why" \
			"$tmp/e.log" 'not a valid kselftest-bench file'
	expect_rc "different benchmarks: exit 2" 2 "$tmp/e.log" \
		"$CMP" "$tmp/good.json" "$tmp/pp.json" &&
		expect_grep "different benchmarks: says so" "$tmp/e.log" \
			"not comparable with .*good\.json: benchmark 'ptr_ring_test' vs 'bench_page_pool'"
	expect_rc "unit mismatch (tsc-cycles vs instructions): exit 2" 2 \
		"$tmp/e.log" "$CMP" "$tmp/good.json" "$tmp/det.json" &&
		expect_grep "unit mismatch: says so" "$tmp/e.log" 'not comparable'
	expect_rc "one file only: exit 2" 2 "$tmp/e.log" "$CMP" "$tmp/good.json"
	expect_rc "--format html: exit 2" 2 "$tmp/e.log" \
		"$CMP" --format html "$tmp/good.json" "$tmp/good.json"
	expect_rc "--threshold abc: exit 2" 2 "$tmp/e.log" \
		"$CMP" --threshold abc "$tmp/good.json" "$tmp/good.json"
	expect_rc "--threshold -1: exit 2" 2 "$tmp/e.log" \
		"$CMP" --threshold -1 "$tmp/good.json" "$tmp/good.json"
}

# verdict LOG TEST: the verdict column of TEST in a text table.
verdict()
{
	awk -v t="$2" '$1 == t { print $NF }' "$1"
}

test_compare()
{
	local log=$tmp/c.log

	gen "$tmp/a1.json" seed=11
	gen "$tmp/a2.json" seed=12
	gen "$tmp/slow.json" seed=13 slow=spsc pct=10
	expect_rc "A/A: exit 0 with --threshold 0" 0 "$log" \
		"$CMP" --threshold 0 "$tmp/a1.json" "$tmp/a2.json"
	expect_no_grep "A/A: no test reported significant" "$log" significant
	expect_grep "header names the test used" "$log" "Welch's t-test, two-sided, family-wise alpha 0.05 over the tests \(Holm\)"
	expect_grep "header names both runs" "$log" '^before: 7\.2\.0-test, hardware'
	expect_grep "table has a row per test" "$log" '^batch_produce +[0-9]'

	"$CMP" "$tmp/a1.json" "$tmp/slow.json" >"$log" 2>&1
	if [ "$(verdict "$log" spsc)" = significant ]; then
		ok "+10 % ns on spsc: significant"
	else
		not_ok "+10 % ns on spsc: significant" "$(cat "$log")"
	fi
	if [ "$(grep -c ' significant$' "$log")" -eq 1 ]; then
		ok "+10 % ns on spsc: the other tests are not significant"
	else
		not_ok "+10 % ns on spsc: the other tests are not significant" "$(cat "$log")"
	fi
	expect_grep "+10 % ns on spsc: change is about +10 %" "$log" \
		'^spsc .* \+(9|10|11)\.[0-9]%  significant$'
	expect_rc "+10 % ns: --threshold 5 exits 1" 1 "$log" \
		"$CMP" --threshold 5 "$tmp/a1.json" "$tmp/slow.json" &&
		expect_grep "--threshold 5 names the test" "$log" '^  spsc: \+'
	expect_rc "+10 % ns: --threshold 20 exits 0" 0 "$log" \
		"$CMP" --threshold 20 "$tmp/a1.json" "$tmp/slow.json"
	expect_rc "a speed-up does not fail --threshold 0" 0 "$log" \
		"$CMP" --threshold 0 "$tmp/slow.json" "$tmp/a1.json"

	expect_rc "three files: exit 1 at --threshold 5 (second after is slower)" 1 \
		"$log" "$CMP" --threshold 5 "$tmp/a1.json" "$tmp/a2.json" "$tmp/slow.json"
	if [ "$(grep -c '(before) vs ' "$log")" -eq 2 ]; then
		ok "three files: two comparisons against the first"
	else
		not_ok "three files: two comparisons against the first" "$(cat "$log")"
	fi

	gen "$tmp/r1a.json" reps=1 seed=1
	gen "$tmp/r1b.json" reps=1 seed=2 slow=spsc pct=50
	expect_rc "one rep: exit 0 at --threshold 5 (not significant)" 0 "$log" \
		"$CMP" --threshold 5 "$tmp/r1a.json" "$tmp/r1b.json"
	expect_grep "one rep: verdict n/a (needs >= 2 reps)" "$log" \
		'^spsc .*n/a \(needs >= 2 reps\)$'

	gen "$tmp/d1.json" unit=instructions mode=deterministic seed=1
	gen "$tmp/d2.json" unit=instructions mode=deterministic seed=2
	gen "$tmp/d3.json" unit=instructions mode=deterministic seed=3 \
		slow=resize extra=10
	gen "$tmp/d4.json" unit=instructions mode=deterministic seed=4 \
		slow=resize extra=4
	expect_rc "deterministic, same counts: exit 0 at --threshold 0" 0 "$log" \
		"$CMP" --threshold 0 "$tmp/d1.json" "$tmp/d2.json"
	expect_rc "deterministic, +10 instructions: exit 1 at --threshold 0" 1 \
		"$log" "$CMP" --threshold 0 "$tmp/d1.json" "$tmp/d3.json"
	expect_grep "deterministic, +10 instructions: 'exact'" "$log" \
		'^resize +1000\.0 +1010\.0 +\+10\.0 .* \+1\.0%  exact$'
	expect_grep "deterministic: other tests 'same'" "$log" '^spsc .* same$'
	expect_rc "deterministic, +10 instructions: exit 0 at --threshold 2" 0 \
		"$log" "$CMP" --threshold 2 "$tmp/d1.json" "$tmp/d3.json"
	expect_rc "deterministic, +0.4 %: the spread across boots, exit 0 at --threshold 0" 0 \
		"$log" "$CMP" --threshold 0 "$tmp/d1.json" "$tmp/d4.json"
	expect_grep "deterministic, +0.4 %: 'same'" "$log" \
		'^resize +1000\.0 +1004\.0 +\+4\.0 .* \+0\.4%  same$'

	gen "$tmp/emu.json" mode=emulated seed=4
	gen "$tmp/emu2.json" mode=emulated seed=5
	"$CMP" "$tmp/emu.json" "$tmp/emu2.json" >"$log" 2>&1
	expect_grep "emulated run: header note" "$log" \
		'emu2\.json: figures are from emulation, not hardware'
	expect_rc "different run modes: refused, exit 2" 2 "$log" \
		"$CMP" "$tmp/a1.json" "$tmp/emu.json" &&
		expect_grep "different run modes: says why" "$log" \
			"emu\.json is not comparable with .*a1\.json: mode 'hardware' vs 'emulated'"
	mutate "$tmp/a1.json" "$tmp/dbg.json" \
		"d['run']['config']['debug'] = ['CONFIG_KASAN']"
	"$CMP" "$tmp/a1.json" "$tmp/dbg.json" >"$log" 2>&1
	expect_grep "debug options: header note" "$log" \
		'dbg\.json: debug options CONFIG_KASAN: figures are not those'
	mutate "$tmp/a2.json" "$tmp/pc.json" "d['tests'][2]['path_check'] = 'failed'"
	"$CMP" "$tmp/a1.json" "$tmp/pc.json" >"$log" 2>&1
	expect_grep "failed path check: header note" "$log" \
		'^note: .*pc\.json: path check failed for batch_consume'
	mutate "$tmp/a2.json" "$tmp/a2r.json" "del d['tests'][4]"
	"$CMP" "$tmp/a1.json" "$tmp/a2r.json" >"$log" 2>&1
	if [ "$(grep -cE '  (noise|significant)$' "$log")" -eq 4 ] &&
	   ! grep -q '^resize ' "$log"; then
		ok "a test missing from one file is left out"
	else
		not_ok "a test missing from one file is left out" "$(cat "$log")"
	fi
	mutate "$tmp/a2.json" "$tmp/a2x.json" \
		"[t.update(name='x' + t['name']) for t in d['tests']]"
	expect_rc "no test in common: exit 2" 2 "$log" \
		"$CMP" "$tmp/a1.json" "$tmp/a2x.json"
	mutate "$tmp/a1.json" "$tmp/a1p.json" "d['run']['parameters']['count'] = 5"
	expect_rc "different test parameters: refused, exit 2" 2 "$log" \
		"$CMP" "$tmp/a1.json" "$tmp/a1p.json" &&
		expect_grep "different test parameters: says which" "$log" \
			'not comparable with .*: parameter count 100000 vs 5$'
	mutate "$tmp/a1.json" "$tmp/a1e.json" \
		"d['run']['parameters']['estimator'] = 'min-chunk'"
	expect_rc "different estimators: refused, exit 2" 2 "$log" \
		"$CMP" "$tmp/a1.json" "$tmp/a1e.json" &&
		expect_grep "different estimators: says so" "$log" \
			'not comparable with .*: estimator - vs min-chunk$'
	mutate "$tmp/a1.json" "$tmp/a1r.json" "d['run']['parameters']['reps'] = 5"
	"$CMP" "$tmp/a1.json" "$tmp/a1r.json" >"$log" 2>&1
	expect_grep "header lists the sample counts that differ" "$log" \
		'^parameters that differ \(sample counts\): reps 10 -> 5$'

	"$CMP" --format markdown "$tmp/a1.json" "$tmp/slow.json" >"$log" 2>&1
	if python3 - "$log" <<'EOF'; then
import re
import sys

rows = [ln.rstrip('\n') for ln in open(sys.argv[1]) if ln.startswith('|')]
cells = [len(re.split(r'(?<!\\)\|', r)) - 2 for r in rows]
assert len(rows) == 7, rows
assert all(r.endswith('|') for r in rows), rows
assert len(set(cells)) == 1 and cells[0] == 9, cells
assert re.fullmatch(r'\|(:?-+:?\|)+', rows[1]), rows[1]
assert rows[0].startswith('| test |'), rows[0]
EOF
		ok "--format markdown: a pipe table (header, separator, 5 rows of 9 cells)"
	else
		not_ok "--format markdown: a pipe table" "$(cat "$log")"
	fi
}

# Groups of runs: runs that drift apart by more than their repetitions'
# spread are noise when each run's mean is one sample.
test_runs()
{
	local log=$tmp/g.log d i a=() b=() slow=()

	i=0
	for d in 1.00 1.06 0.97; do
		i=$((i + 1))
		gen "$tmp/ga$i.json" seed=$((20 + i)) noise=0.005 drift=$d
		a+=("$tmp/ga$i.json")
	done
	i=0
	for d in 1.04 0.95 1.02; do
		i=$((i + 1))
		gen "$tmp/gb$i.json" seed=$((30 + i)) noise=0.005 drift=$d
		gen "$tmp/gs$i.json" seed=$((40 + i)) noise=0.005 drift=$d \
			slow=spsc pct=30
		b+=("$tmp/gb$i.json")
		slow+=("$tmp/gs$i.json")
	done

	"$CMP" "${a[1]}" "${b[1]}" >"$log" 2>&1
	expect_grep "drifting runs, one run per side: the drift looks significant" \
		"$log" ' significant$'
	expect_rc "drifting runs, 3 per side: exit 0 at --threshold 0" 0 "$log" \
		"$CMP" --threshold 0 --before "${a[@]}" --after "${b[@]}"
	expect_no_grep "drifting runs, 3 per side: nothing significant" "$log" \
		significant
	expect_grep "runs: the header says each run's mean is a sample" "$log" \
		'on the mean ns per element of each run; figures are means of the runs'
	expect_grep "runs: the header names the groups" "$log" \
		'^ptr_ring_test: 3 runs \(.*ga1\.json, .*\) \(before\) vs 3 runs'
	expect_grep "runs: the header describes every run" "$log" \
		'^after:  7\.2\.0-test'

	"$CMP" --before "${a[@]}" --after "${slow[@]}" >"$log" 2>&1
	if [ "$(verdict "$log" spsc)" = significant ] &&
	   [ "$(grep -c ' significant$' "$log")" -eq 1 ]; then
		ok "runs: +30 % on spsc significant, nothing else"
	else
		not_ok "runs: +30 % on spsc significant, nothing else" "$(cat "$log")"
	fi
	expect_rc "runs: +30 % on spsc: --threshold 5 exits 1" 1 "$log" \
		"$CMP" --threshold 5 --before "${a[@]}" --after "${slow[@]}"
	"$CMP" --before "${a[0]}" --after "${slow[@]}" >"$log" 2>&1
	expect_grep "runs: one run before: the reps of all runs are the samples" \
		"$log" 'on the ns per element of each rep'

	gen "$tmp/gd1.json" unit=instructions mode=deterministic seed=1
	mutate "$tmp/gd1.json" "$tmp/gd2.json" \
		"d['tests'][0]['reps'][0]['cycles'] = 990.0
d['tests'][0]['stats']['cycles']['min'] = 990.0
c = [r['cycles'] for r in d['tests'][0]['reps']]
d['tests'][0]['stats']['cycles']['mean'] = sum(c) / len(c)
import statistics
d['tests'][0]['stats']['cycles']['stddev'] = statistics.stdev(c)
m, h = sum(c) / len(c), 2.262 * statistics.stdev(c) / len(c) ** 0.5
d['tests'][0]['stats']['cycles']['ci95'] = [m - h, m + h]"
	"$CMP" --before "$tmp/gd1.json" "$tmp/gd2.json" \
		--after "$tmp/gd1.json" "$tmp/gd1.json" >"$log" 2>&1
	expect_grep "runs, deterministic: the mean of the runs' means" \
		"$log" '^single +999\.5 +1000\.0 +\+0\.5 .* same$'

	expect_rc "--before without --after: exit 2" 2 "$log" \
		"$CMP" --before "${a[@]}"
	expect_grep "--before without --after: says so" "$log" \
		'--before and --after go together'
	expect_rc "--before/--after and another FILE: exit 2" 2 "$log" \
		"$CMP" "${a[0]}" --before "${a[@]}" --after "${b[@]}"
	expect_rc "runs of another benchmark in a group: exit 2" 2 "$log" \
		"$CMP" --before "${a[@]}" --after "${b[0]}" "$tmp/pp.json"
	expect_rc "--alpha 0: exit 2" 2 "$log" \
		"$CMP" --alpha 0 "${a[0]}" "${b[0]}"
	expect_rc "--alpha 1.5: exit 2" 2 "$log" \
		"$CMP" --alpha 1.5 "${a[0]}" "${b[0]}"
	"$CMP" --alpha 0.01 "${a[0]}" "${b[0]}" >"$log" 2>&1
	expect_grep "--alpha 0.01: the header says so" "$log" \
		'family-wise alpha 0.01 over the tests'
}

# bench_compare.py reads as a kernel tools/ script: SPDX line, executable,
# stdlib only, PEP 8 line lengths (pycodestyle when installed), checkpatch.
test_style()
{
	local ckp=$KSRC/scripts/checkpatch.pl

	if [ -x "$CMP" ] && sed -n 2p "$CMP" |
	   grep -qx '# SPDX-License-Identifier: GPL-2.0'; then
		ok "bench_compare.py: executable, SPDX line"
	else
		not_ok "bench_compare.py: executable, SPDX line"
	fi
	py "bench_compare.py and bench_stats.py import the standard library only (and bench_stats)" \
		"all(m in sys.stdlib_module_names or m == 'bench_stats' for f in (b.__file__, s.__file__) for m in (n.split('.')[0] for n in __import__('re').findall(r'(?m)^(?:import|from) (\\S+)', open(f).read())))"
	if awk 'length > 79 { print FILENAME ":" FNR; bad = 1 } END { exit bad }' \
	   "$CMP" "$BENCH/bench_stats.py" >"$tmp/len.log"; then
		ok "bench_compare.py: lines of at most 79 characters"
	else
		not_ok "bench_compare.py: lines of at most 79 characters" \
			"$(cat "$tmp/len.log")"
	fi
	if command -v pylint >/dev/null; then
		# NIPA counts errors, warnings and conventions (E, W, C)
		check "bench_compare.py, bench_stats.py: pylint finds no E, W or C message" \
			pylint --score=n --disable=R "$CMP" "$BENCH/bench_stats.py"
	else
		echo "# pylint not installed, not run"
	fi
	if ensure_ruff; then
		check "bench_compare.py, bench_stats.py: ruff ($(ruff --version)) finds nothing" \
			ruff check --no-cache "$CMP" "$BENCH/bench_stats.py"
	else
		not_ok "ruff is available (from Debian's newer suites)" \
			"see $OUT/ruff-download.log"
	fi
	if python3 -m pycodestyle --version >/dev/null 2>&1; then
		check "bench_compare.py, bench_stats.py: pycodestyle" \
			python3 -m pycodestyle "$CMP" "$BENCH/bench_stats.py"
	else
		echo "# pycodestyle not installed, PEP 8 not checked beyond line length"
	fi
	if [ -x "$ckp" ]; then
		check "checkpatch --strict bench_compare.py" \
			"$ckp" --strict --quiet --no-tree -f "$CMP"
		check "checkpatch --strict bench_stats.py" \
			"$ckp" --strict --quiet --no-tree -f "$BENCH/bench_stats.py"
	fi
}

# Runs in different environments: compared under a WARNING; counter ticks
# of different counters or rates never compared.
test_environment()
{
	local log=$tmp/env.log

	gen "$tmp/e1.json" seed=51
	gen "$tmp/e2.json" seed=52
	mutate "$tmp/e2.json" "$tmp/e2boot.json" \
		"d['run']['cmdline'] = 'BOOT_IMAGE=/boot/vmlinuz-7.3.0 ro quiet -- job=2'"
	"$CMP" "$tmp/e1.json" "$tmp/e2boot.json" >"$log" 2>&1
	expect_no_grep "a command line that differs in the kernel's file name and init's arguments only: no warning" \
		"$log" WARNING
	mutate "$tmp/e2.json" "$tmp/e2env.json" \
		"d['run']['cmdline'] += ' mitigations=off'
d['run']['vulnerabilities']['spec_rstack_overflow'] = 'Vulnerable'
d['run']['config'].update(preempt='voluntary', debug=['PROVE_LOCKING'])"
	expect_rc "another environment: compared, exit 0" 0 "$log" \
		"$CMP" "$tmp/e1.json" "$tmp/e2env.json"
	expect_grep "another environment: a WARNING names the runs" "$log" \
		'^WARNING: .*e2env\.json ran in another environment than .*e1\.json'
	expect_grep "another environment: the command line" "$log" \
		'^WARNING:   cmdline: ro quiet -> ro quiet mitigations=off$'
	expect_grep "another environment: the mitigation" "$log" \
		'^WARNING:   vulnerability spec_rstack_overflow: Safe RET -> Vulnerable$'
	expect_grep "another environment: the preemption model" "$log" \
		'^WARNING:   preempt: full -> voluntary$'
	expect_grep "another environment: the debug options" "$log" \
		"^WARNING:   debug: \[\] -> \['PROVE_LOCKING'\]$"
	"$CMP" "$tmp/e1.json" "$tmp/e2env.json" 2>"$tmp/env.err" >/dev/null
	expect_grep "another environment: a warning on stderr too" "$tmp/env.err" \
		"WARNING: the runs' environments differ"

	gen "$tmp/e3.json" seed=53 hz=2100500000
	"$CMP" "$tmp/e1.json" "$tmp/e3.json" >"$log" 2>&1
	expect_no_grep "a TSC calibrated 0.02 % apart: no warning" "$log" 'WARNING|not compared'
	expect_grep "a TSC calibrated 0.02 % apart: cycles compared" "$log" \
		'^single +[0-9]+\.[0-9] +[0-9]+\.[0-9] '
	gen "$tmp/e4.json" seed=54 hz=3000000000
	"$CMP" "$tmp/e1.json" "$tmp/e4.json" >"$log" 2>&1
	expect_grep "another TSC rate: the cycles are not compared, saying why" "$log" \
		'^cycles not compared \(.*e4\.json\): tsc at 2100 MHz vs tsc at 3000 MHz'
	expect_grep "another TSC rate: the cycles columns are empty" "$log" \
		'^single +- +- +- +[0-9]+\.[0-9]{3} '
	expect_grep "another TSC rate: warned" "$log" \
		'^WARNING:   counter: tsc at 2100 MHz vs tsc at 3000 MHz$'

	# arm64: the generic timer's ticks, at 62.5 MHz (QEMU virt) or 1 GHz
	gen "$tmp/t1.json" seed=55 unit=counter-ticks counter=arch_timer hz=62500000
	gen "$tmp/t2.json" seed=56 unit=counter-ticks counter=arch_timer hz=62500000
	gen "$tmp/t3.json" seed=57 unit=counter-ticks counter=arch_timer hz=1000000000
	"$CMP" "$tmp/t1.json" "$tmp/t2.json" >"$log" 2>&1
	expect_grep "counter ticks: the header names the counter and its rate" "$log" \
		'cycles are counter-ticks \(arch_timer at 62\.5 MHz\)'
	expect_grep "counter ticks of one counter at one rate: compared" "$log" \
		'^single +[0-9]+\.[0-9] +[0-9]+\.[0-9] '
	"$CMP" "$tmp/t1.json" "$tmp/t3.json" >"$log" 2>&1
	expect_grep "counter ticks at another rate: not compared, saying why" "$log" \
		'^cycles not compared \(.*t3\.json\): arch_timer at 62\.5 MHz vs arch_timer at 1000 MHz'
	expect_grep "counter ticks at another rate: the cycles columns are empty" "$log" \
		'^single +- +- +- +[0-9]+\.[0-9]{3} '
	expect_rc "TSC cycles against counter ticks (x86 vs arm64): refused, exit 2" 2 \
		"$log" "$CMP" "$tmp/e1.json" "$tmp/t1.json" &&
		expect_grep "TSC cycles against counter ticks: says why" "$log" \
			"unit \(cycles\) 'tsc-cycles' vs 'counter-ticks'"
}

main()
{
	test_style
	test_stats
	test_validate
	test_errors
	test_compare
	test_runs
	test_environment
}

main 2>&1 | tee "$tmp/results"
! grep -q '^not ok' "$tmp/results"
