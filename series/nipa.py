#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""netdev's patch checks (NIPA's tests/patch and tests/series), run locally.

usage: series/nipa.py TREE PATCHDIR

TREE: the pristine kernel with PATCHDIR's format-patch files applied by
'git am', one commit each, HEAD at the last ('series.sh nipa' makes it).
Per patch, at its commit, as NIPA runs them: checkpatch, deprecated_api,
check_selftest, pylint and ruff (not reproduced: a patch with Python
fails), shellcheck, cc_maintainers; on the series: series_format and
maintainers. Prints "ok - PATCH CHECK: what it found", or "not ok - ..."
for a warning or failure no line "NIPA: CHECK: the reason" excuses in
the patch's notes (a series check's: in the cover letter or the notes of
the patch adding the file); exit 1 when one is not ok. Not reproduced:
git history (no git fallback or Fixes: blame), NIPA's mailmap aliasing
and staleness database.
"""

import collections
import email
import email.utils
import fnmatch
import functools
import glob
import itertools
import os
import pathlib
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

PASS, WARN, FAIL, SKIP = 'pass', 'warn', 'fail', 'skip'
MAX_PATCHES = 15
# cc_maintainers does not expect these (NIPA's ignore_emails)
IGNORED = {'linux-kernel@vger.kernel.org', 'davem@davemloft.net'}
SC_FLAGS = ['-x', '-e', 'SC2317', '-e', 'SC2329']
# tests/patch/checkpatch/checkpatch.sh
CP_IGNORED = ('COMMIT_LOG_LONG_LINE,MACRO_ARG_REUSE,ALLOC_SIZEOF_STRUCT,'
              'NO_AUTHOR_SIGN_OFF,GIT_COMMIT_ID,CAMELCASE,FILE_PATH_CHANGES,'
              'BAD_REPORTED_BY_LINK')
CP_FLAGS = ['--strict', '--codespell', '--max-line-length=80',
            '--ignore=' + CP_IGNORED]
# Debian's codespell (checkpatch.pl looks for codespell_lib with the
# python3 on PATH; Debian's has it, and python3-ply for spdxcheck.py)
CP_ENV = dict(os.environ, PATH='/usr/bin:/bin:' + os.environ.get('PATH', ''))
CODESPELL = ('/usr/share/codespell/dictionary.txt',
             '/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt')
# tests/patch/deprecated_api/deprecated_api.sh
DEPRECATED_ERRORS = ['module_param']
DEPRECATED_WARNINGS = [r'\Wdev_hold\(', r'\Wdev_put\(', r'\Wput_net\(',
                       r'\Wget_net\(', r'\Winit_dummy_netdev\(']
NOTE = re.compile(r'^\s*NIPA: ([a-z_]+): *(\S.*)$', re.MULTILINE)
EMAIL = re.compile(r'([^ <"]*@[^ >"]*)')
Result = collections.namedtuple('Result', 'check level desc detail',
                                defaults=[''])


def worse(*levels):
    """The worst of LEVELS."""
    return max(levels, key=[PASS, WARN, FAIL].index)


def read(path):
    """The text of the file at PATH."""
    return pathlib.Path(path).read_text(encoding='utf-8')


def arguments(doc):
    """(TREE, PATCHDIR, its patch files) from the command line, else DOC's
    usage."""
    if len(sys.argv) != 3:
        sys.exit(doc.split('\n\n')[1])
    tree, pdir = (os.path.abspath(a) for a in sys.argv[1:])
    return tree, pdir, sorted(glob.glob(os.path.join(
        pdir, '[0-9][0-9][0-9][0-9]-*.patch')))


def per_patch(func, *args):
    """FUNC on ARGS' items side by side (get_maintainer.pl takes a core)."""
    with ThreadPoolExecutor(os.cpu_count()) as pool:
        return list(pool.map(func, *args))


def run_in(tree, *args, ok=None, text=True, env=None):
    """ARGS run in TREE; OK: the exit codes that are no error."""
    proc = subprocess.run(args, cwd=tree, capture_output=True, text=text,
                          env=env, check=False)
    if ok is not None and proc.returncode not in ok:
        sys.exit(f"{os.path.basename(sys.argv[0])}: {' '.join(args)}: exit "
                 f"{proc.returncode}: {str(proc.stderr).strip()}")
    return proc


def changed(tree, rev, filt, suffix):
    """The files ending in SUFFIX that REV changes (--diff-filter=FILT)."""
    out = run_in(tree, 'git', 'show', '--diff-filter=' + filt, '--pretty=',
                 '--name-only', rev, ok=[0]).stdout.split()
    return [f for f in out if f.endswith(suffix)]


# -- checkpatch, deprecated_api -----------------------------------------

def checkpatch(tree):
    """NIPA's checkpatch.sh at HEAD: an error fails, a warning or check
    warns."""
    if not any(os.path.exists(d) for d in CODESPELL):
        return Result('checkpatch', FAIL, "no codespell dictionary for "
                      "--codespell (apt-get install codespell)")
    proc = run_in(tree, './scripts/checkpatch.pl', '-g', 'HEAD', *CP_FLAGS,
                  env=CP_ENV)
    total = re.search(r'total: (\d+) errors, (\d+) warnings, (\d+) checks.*',
                      proc.stdout)
    if not total:
        return Result('checkpatch', FAIL, 'checkpatch.pl did not finish: ' +
                      (proc.stderr.strip().split('\n') or [''])[-1])
    found = sorted(set(re.findall(r'^(?:WARNING|ERROR|CHECK): .*$',
                                  proc.stdout, re.MULTILINE)))
    level = (FAIL if total[1] != '0' else
             PASS if total[2] == total[3] == '0' else WARN)
    return Result('checkpatch', level, total[0], '; '.join(found))


def deprecated_api(tree):
    """NIPA's deprecated_api.sh at HEAD: an item on more lines added than
    removed warns, or fails for DEPRECATED_ERRORS (which warn when added
    on no more lines than removed)."""
    diff = run_in(tree, 'git', 'show', 'HEAD', ok=[0]).stdout.split('\n')
    level, msg = PASS, []
    for item, bad in ([(i, WARN) for i in DEPRECATED_WARNINGS] +
                      [(i, FAIL) for i in DEPRECATED_ERRORS]):
        new, old = (sum(1 for ln in diff if re.match(f'^[{sign}].*{item}', ln,
                                                     re.IGNORECASE))
                    for sign in '+-')
        if new:
            name = item.replace('\\W', '').replace('\\', '')
            msg.append(f"'{name}' was: {old} now: {new}")
            level = worse(level, bad if new > old else
                          WARN if bad == FAIL else PASS)
    return Result('deprecated_api', level,
                  'Found: ' + '; '.join(msg) if msg else 'None detected')


# -- check_selftest ---------------------------------------------------

def written(text):
    """[(path, whether new)]: the files a patch TEXT writes."""
    return [(nxt[len('+++ b/'):], line == '--- /dev/null')
            for line, nxt in itertools.pairwise(text.split('\n'))
            if nxt.startswith('+++ b/')]


def config_errors(text):
    """Keys out of order, '_' ignored (validate_config_format.py)."""
    keys = [ln.split('=')[0].strip().replace('_', '') for ln in
            text.split('\n') if '=' in ln and not ln.strip().startswith('#')]
    return [f'{b} before {a}' for a, b in itertools.pairwise(keys) if b < a]


def makefile_blocks(text):
    """{VAR: [(line number, line)]}: the multi-line assignments NIPA
    checks (not $-valued, FLAGS, LIBS or names under three letters)."""
    blocks, var = collections.defaultdict(list), None
    for num, line in enumerate(text.split('\n'), 1):
        match = re.match(r'^([A-Z_][A-Z0-9_]*)\s*(:?=|\+=)(.*)$', line)
        if match:
            var, entry = match.group(1), match.group(3).strip()
            if entry.startswith('$') or len(var) < 3 or 'FLAGS' in var \
               or 'LIBS' in var:
                var = None
            elif entry != '\\':
                blocks[var].append((num, '\t' + entry))
        elif var:
            blocks[var].append((num, line))
        if var and not line.endswith('\\'):
            var = None
    return blocks


def makefile_errors(text):
    """validate_makefile_format.py's rules: one item per tab-indented line,
    sorted (fewer '/' first), a closing '# ... VAR' line, one block each."""
    errors = []
    for var, block in makefile_blocks(text).items():
        nums, lines = zip(*block)
        items = lines[:-1] if lines[-1].strip().startswith('#') else lines
        names = []
        for num, line in zip(nums, items):
            item = line[1:]
            if item.endswith(' \\'):
                item = item[:-2].strip()
            if not line.startswith('\t'):
                errors.append(f'{var} line {num}: not indented by a tab')
            if ' ' in item and '$' not in item:
                errors.append(f'{var} line {num}: several values: {item}')
            names.append(item)
        if len(lines) > 1:
            last = lines[-1].strip()
            if not last.startswith('#'):
                errors.append(f'{var}: no closing comment')
            elif len(last) > 5 and var not in last:
                errors.append(f'{var}: closing comment without its name')
        names = [i for i in names if not i.startswith('$')]
        for before, after in itertools.pairwise(names):
            if before >= after and ((before.count('/'), before.lower()) >
                                    (after.count('/'), after.lower())):
                errors.append(f'{var}: {after} after {before}')
        if any(b != a + 1 for a, b in itertools.pairwise(nums)):
            errors.append(f'{var}: assigned in several blocks')
    return errors


def check_selftest(tree, text):
    """NIPA's check_selftest on the patch TEXT, with TREE at the patch:
    new net selftest files named in their directory's Makefile (.sh, .py,
    .c) and .gitignore (.c); touched Makefiles, config and .gitignore
    files in NIPA's format."""
    paths = [(p, is_new) for p, is_new in written(text)
             if 'tools/testing/selftests/' in p and '/net/' in p]
    new = sorted({p for p, is_new in paths if is_new})
    mod = sorted({p for p, _ in paths} - set(new))
    if not new and not mod:
        return Result('check_selftest', PASS, 'No changes to selftests')
    bad, notes = [], []
    for path in new + mod:
        if path.endswith(('/config', '/.gitignore', '/Makefile')):
            errors = (makefile_errors if path.endswith('/Makefile')
                      else config_errors)(read(os.path.join(tree, path)))
            if errors:
                bad.append('Bad format: ' + path)
                notes += errors
    for path in new:
        stem = os.path.basename(path.split('.')[0])
        looks = []
        if path.endswith(('.sh', '.py')):
            looks.append(('Makefile', os.path.basename(path), path))
        elif path.endswith('.c') and not path.endswith('.bpf.c'):
            looks += [('Makefile', stem, path), ('.gitignore', stem, stem)]
        for where, needle, what in looks:
            if run_in(tree, 'git', 'grep', '-q', needle, '--', os.path.join(
                    os.path.dirname(path), where)).returncode:
                bad.append(f'{what} not found in {where}')
    if bad:
        return Result('check_selftest', FAIL, '; '.join(bad + notes))
    return Result('check_selftest', PASS,
                  f'New files {len(new)}, modified {len(mod)}, '
                  'in their Makefile and .gitignore, formats good')


# -- shellcheck: findings before and after the patch -----------------

CACHE = {}


def findings(tree, path):
    """shellcheck's output on the script at PATH, in its directory; once
    per content of its directory's .sh files (-x follows what it sources)."""
    where = os.path.dirname(path)
    listing = run_in(tree, 'git', 'ls-tree', 'HEAD', where + '/',
                     ok=[0]).stdout
    key = (path,) + tuple(ln for ln in listing.splitlines()
                          if ln.endswith('.sh'))
    if key not in CACHE:
        CACHE[key] = run_in(os.path.join(tree, where), 'shellcheck',
                            *SC_FLAGS, os.path.basename(path)).stdout
    return CACHE[key]


def python(tree):
    """NIPA's pylint and ruff are not reproduced (the series' selftests are
    C and shell): a patch with Python fails, rather than pass unchecked."""
    found = changed(tree, 'HEAD', 'AM', '.py')
    return Result('pylint', FAIL if found else PASS,
                  'not reproduced here: ' + ' '.join(found) if found
                  else 'No python scripts touched, skip')


def shellcheck(tree):
    """shellcheck's findings in the .sh files the patch at HEAD adds or
    modifies, before and after it: more errors fail, more warnings warn,
    and a new or compliant script must have no finding."""
    old = changed(tree, 'HEAD', 'M', '.sh')
    now = changed(tree, 'HEAD', 'AM', '.sh')
    if not now:
        return Result('shellcheck', PASS, 'No shell scripts touched, skip')
    run_in(tree, 'git', 'checkout', '-q', 'HEAD~', ok=[0])
    try:
        before = {f: findings(tree, f) for f in old}
    finally:
        run_in(tree, 'git', 'checkout', '-q', '-', ok=[0])
    after = {f: findings(tree, f) for f in now}
    (errors_before, warns_before), (errors_after, warns_after) = (
        [sum(o.count(f' ({kind}):') for o in r.values())
         for kind in ('error', 'warning')] for r in (before, after))
    # A new script, or one that was compliant, must stay so entirely
    for script, out in after.items():
        if out and not before.get(script):
            errors_after += len(re.findall(r' \((warning|info|style)\):',
                                           out))
    desc = (f'Errors before: {errors_before} (+warn: {warns_before}) '
            f'this patch: {errors_after} (+warn: {warns_after})')
    return Result('shellcheck', FAIL if errors_after > errors_before
                  else WARN if warns_after > warns_before else PASS, desc)


# -- cc_maintainers -----------------------------------------------------

def get_maintainer(tree, commit, path, *flags):
    """get_maintainer.pl's output (with FLAGS) for the patch at PATH, with
    MAINTAINERS as COMMIT has it (as NIPA runs it), no git history."""
    with tempfile.NamedTemporaryFile() as file:
        file.write(run_in(tree, 'git', 'show', commit + ':MAINTAINERS',
                          ok=[0], text=False).stdout)
        file.flush()
        return run_in(tree, 'perl', 'scripts/get_maintainer.pl', '--mpath',
                      file.name, '--no-git-fallback', *flags, '--', path,
                      ok=[0]).stdout


def cc_maintainers(path, gm_out):
    """Whether the patch at PATH is addressed (To:, Cc:, From:) to the
    maintainers get_maintainer.pl's output GM_OUT names; skipped when it
    has no To: yet."""
    msg = email.message_from_string(read(path))
    if not msg.get_all('to'):
        return Result('cc_maintainers', SKIP, 'not addressed yet (series.sh '
                      'send --maintainers addresses it)')
    addrs = [a for h in ('to', 'cc', 'from', 'sender')
             for a in msg.get_all(h, [])]
    included = {a.lower() for _, a in email.utils.getaddresses(addrs)}
    expected = {m.group(1).lower() for m in map(EMAIL.search,
                                                gm_out.splitlines())
                if m} - IGNORED
    missing = sorted(expected - included)
    found = expected & included
    if missing:
        return Result('cc_maintainers', WARN if len(found) > 1 else FAIL,
                      f"{len(missing)} maintainers not CCed: "
                      f"{' '.join(missing)}")
    return Result('cc_maintainers', PASS,
                  f'CCed {len(found)} of {len(expected)} maintainers')


# -- the series ---------------------------------------------------------

def subject(path):
    """The subject of the patch at PATH, its whitespace folded."""
    msg = email.message_from_string(read(path))
    return ' '.join(msg.get('subject', '').split())


def series_format(covers, patches, netdev=True):
    """NIPA's series_format on the cover letter COVERS (none or one) and
    PATCHES: a cover letter (from 3 patches), at most MAX_PATCHES, every
    subject numbered in order with the cover letter's prefix, which names
    net or net-next (NETDEV)."""
    total, bad = len(patches), []
    if not covers and total >= 3:
        bad.append((WARN, 'Series does not have a cover letter'))
    if total > MAX_PATCHES:
        bad.append((FAIL, f'Series longer than {MAX_PATCHES} patches'))
    head = subject((covers + patches)[0])
    match = re.match(r'\[(.*?)\s*0*(\d+)/(\d+)\]', head)
    if not match or (netdev and
                     not re.search(r'\bnet(-next)?\b', match.group(1))):
        bad.append((WARN, 'Target tree name not specified in the subject'))
    else:
        pfx, width = match.group(1), len(match.group(3))
        for i, patch in enumerate(patches, 1):
            want = f'[{pfx} {i:0{width}d}/{total}] '
            if not subject(patch).startswith(want):
                name = os.path.basename(patch)
                bad.append((FAIL, f'{name}: subject not "{want}..."'))
    if not bad:
        return Result('series_format', PASS,
                      f'Posting correctly formatted ({total} patches)')
    return Result('series_format', worse(*(lv for lv, _ in bad)),
                  '; '.join(d for _, d in bad))


def section_files(tree, section, enough=500):
    """How many files the F: patterns of a MAINTAINERS section cover,
    counted up to ENOUGH (NIPA fails a section of 500 or more)."""
    total = 0
    for line in section.split('\n'):
        if not line.startswith('F:'):
            continue
        pat = line[2:].strip()
        where, what = os.path.split(pat + '*' if pat.endswith('/') else pat)
        for _, _, names in os.walk(os.path.join(tree, where)):
            total += len(fnmatch.filter(names, what))
            if total >= enough:
                return total
    return total


def new_files(patches):
    """{file: the patch adding it}: PATCHES' new files that need an entry."""
    return {path: patch for patch in patches for path, is_new in
            written(read(patch))
            if is_new and not path.startswith(('Documentation/',
                                               'tools/testing/'))
            and not path.endswith(('/Makefile', '/Kconfig'))}


def maintainers_coverage(tree, patches):
    """(Result, the patch that adds each uncovered file): a new file
    outside Documentation/ and tools/testing/ has a MAINTAINERS entry of
    fewer than 75 files."""
    new = new_files(patches)
    level, uncovered, notes = PASS, [], []
    for path in sorted(new):
        out = run_in(tree, 'perl', 'scripts/get_maintainer.pl', '--sections',
                     path, ok=[0]).stdout
        sections = [s for s in re.split(r'\n\s*\n', out) if 'F:' in s]
        counts = [section_files(tree, s) for s in sections]
        notes.append(f'{path}: ' + ', '.join(
            s.split('\n')[0] + (f' ~{c}' if c < 500 else ' 500+') + ' files'
            for s, c in zip(sections, counts)))
        if not any(0 < c < 75 for c in counts):
            level = worse(level, FAIL if min(counts, default=999999) >= 500
                          else WARN)
            uncovered.append(path)
    where = sorted({new[f] for f in uncovered})
    if not new:
        return Result('maintainers', PASS, 'No new files, skip'), where
    desc = 'MAINTAINERS coverage looks sufficient'
    if level != PASS:
        desc = 'Expecting a new MAINTAINERS entry for ' + ' '.join(uncovered)
    return Result('maintainers', level, desc, '; '.join(notes)), where


# -- report -------------------------------------------------------------

def notes_text(path):
    """A patch's notes (below the '---' up to the diff), or a cover's text."""
    text = read(path)
    if os.path.basename(path).startswith('0000-'):
        return text.partition('\n\n')[2]
    return text.partition('\n---\n')[2].partition('\ndiff --git ')[0]


def report(name, res, paths):
    """Print RES's line for NAME; whether it is ok (or excused by name in
    the notes of one of PATHS)."""
    if res.level in (PASS, SKIP):
        print(f'ok - {name} {res.check}' +
              (f' # SKIP {res.desc}' if res.level == SKIP else f': {res.desc}'))
        return True
    reason = next((r for p in paths for check, r in
                   NOTE.findall(notes_text(p)) if check == res.check), None)
    if reason:
        print(f'ok - {name} {res.check}: {res.level}: {res.desc} '
              f'(excused in the notes: {reason})')
        return True
    print(f'not ok - {name} {res.check}: {res.level}: {res.desc}')
    if res.detail:
        print('# ' + res.detail)
    return False


def check_patch(tree, path, commit, gm_out):
    """Report the checks of the patch at PATH at its COMMIT; whether all
    are ok."""
    run_in(tree, 'git', 'checkout', '-q', commit, ok=[0])
    name = os.path.basename(path)[:4]
    title = run_in(tree, 'git', 'log', '-1', '--format=%s', ok=[0])
    if title.stdout.strip() not in subject(path):
        sys.exit(f'nipa.py: {commit} is not {path}')
    results = (checkpatch(tree), deprecated_api(tree),
               check_selftest(tree, read(path)), python(tree),
               shellcheck(tree), cc_maintainers(path, gm_out))
    oks = [report(name, res, [path]) for res in results]
    return all(oks)


def main():
    """Check the series in PATCHDIR, applied in TREE; exit 1 when a check
    is not ok."""
    tree, pdir, files = arguments(__doc__)
    covers = files[:1] if files and '/0000-' in files[0] else []
    patches = files[len(covers):]
    commits = run_in(tree, 'git', 'rev-list', '--reverse',
                     f'HEAD~{len(patches)}..HEAD', ok=[0]).stdout.split()
    head = run_in(tree, 'git', 'rev-parse', '--abbrev-ref', 'HEAD',
                  ok=[0]).stdout.strip()
    good = report('series', series_format(
        covers, patches, os.path.basename(pdir) == 'net-next'), covers)
    res, where = maintainers_coverage(tree, patches)
    good &= report('series', res, where + covers)
    gm_outs = per_patch(functools.partial(get_maintainer, tree), commits,
                        patches)
    try:
        for path, commit, gm_out in zip(patches, commits, gm_outs):
            good &= check_patch(tree, path, commit, gm_out)
    finally:
        run_in(tree, 'git', 'checkout', '-q', head, ok=[0])
    sys.exit(0 if good else 1)


if __name__ == '__main__':
    main()
