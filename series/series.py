#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The series as data (series/*.txt), turned into git commits.

Each patch file says which files the patch carries. A file's content in
a patch is:
  - the project's file (this repository's work tree), in the last patch
    that carries it, so that after the last patch the series paths are
    the project's files;
  - in an earlier patch, the file as the newest of that patch's Steps
    left it (the project commit with that exact subject that changed the
    file), so that intermediate states are reproducible from git history.

A Files line "PATH: ARG" carries a merge into a file the kernel already
has, done by vmtest/lib/lay_series.py's own functions (imported, not
copied, so that the patches and the runner's lay-over agree):
  MAINTAINERS: F-PATH         the project entry's "F: F-PATH" line
  tools/testing/selftests/Makefile: TARGET
  Documentation/.../index.rst: PAGE   a toctree entry

The commits are made with git plumbing in a repository whose work tree
is the pristine kernel source, which is only read: nothing is copied,
and the source (often a hard-link farm or a cache) is never written.
"""

import argparse
import glob
import hashlib
import os
import re
import subprocess
import sys

SERIES_DIR = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(SERIES_DIR)
sys.path.insert(0, os.path.join(REPO, 'vmtest', 'lib'))
# pylint: disable-next=import-error,wrong-import-position
import lay_series  # noqa: E402

# netdev's limit on patches per series.
MAX_PATCHES = 15


class Patch:
    """One series/NNNN-*.txt file."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.subject = None
        self.files = []		# (path, merge argument or None)
        self.steps = []
        body, notes = [], []
        part = 'head'
        with open(path, encoding='utf-8') as f:
            lines = f.read().split('\n')
        for line in lines:
            if part == 'head' and line.startswith('Subject: '):
                self.subject = line[len('Subject: '):].strip()
            elif part == 'head' and line == 'Files:':
                part = 'files'
            elif part == 'files' and line.startswith('\t'):
                p, _, arg = line.strip().partition(': ')
                self.files.append((p, arg or None))
            elif part == 'files':
                part = 'body'
            elif line == 'Notes:' and part == 'body':
                part = 'notes'
            elif line == 'Steps:':
                part = 'steps'
            elif part == 'body':
                body.append(line)
            elif part == 'notes':
                notes.append(line)
            elif part == 'steps' and line.strip():
                self.steps.append(line.strip())
        if not self.subject or not self.files:
            sys.exit('%s: no Subject or no Files' % path)
        self.body = '\n'.join(body).strip('\n')
        self.notes = '\n'.join(notes).strip('\n')

    def plain_files(self):
        return [p for p, arg in self.files if arg is None]


def patches():
    return [Patch(p) for p in sorted(glob.glob(os.path.join(SERIES_DIR,
                                                            '[0-9]*.txt')))]


def run(args, **kw):
    kw.setdefault('check', True)
    kw.setdefault('capture_output', True)
    return subprocess.run(args, **kw)


def project_git(*args):
    return run(['git', '-C', REPO] + list(args)).stdout


class History:
    """The project's commits, by subject."""

    def __init__(self):
        out = project_git('log', '--format=%H%x09%s', 'HEAD').decode()
        self.by_subject = {}
        for line in out.splitlines():
            sha, _, subject = line.partition('\t')
            self.by_subject.setdefault(subject, []).append(sha)

    def commit(self, step):
        """The commit a Step names: its exact subject, or the subject
        before a trailing parenthesis; a Step that is all parenthesis
        (a summary of older history) names none."""
        if step.startswith('('):
            return None
        for subject in (step, step[:step.rfind(' (')] if ' (' in step else None):
            shas = self.by_subject.get(subject)
            if shas and len(shas) == 1:
                return shas[0]
            if shas:
                raise LookupError('step "%s" names %d commits' %
                                  (subject, len(shas)))
        raise LookupError('no project commit has the subject "%s" (a '
                          'shallow clone?)' % step)

    def state(self, patch, path):
        """path as the newest of patch's Steps that changed it left it:
        (content, mode, that commit)."""
        for step in reversed(patch.steps):
            sha = self.commit(step)
            if sha is None:
                continue
            changed = run(['git', '-C', REPO, 'diff', '--quiet', sha + '^1',
                           sha, '--', path], check=False).returncode
            if changed == 1:
                mode = project_git('ls-tree', sha, '--', path).split()[0]
                return project_git('show', '%s:%s' % (sha, path)), \
                    mode.decode(), sha
        sys.exit('series: %s carries %s before its last patch, but none of '
                 'its Steps changed it' % (patch.name, path))


def last_carrier(series):
    last = {}
    for i, patch in enumerate(series):
        for p in patch.plain_files():
            last[p] = i
    return last


def project_file(path):
    full = os.path.join(REPO, path)
    with open(full, 'rb') as f:
        data = f.read()
    return data, '100755' if os.stat(full).st_mode & 0o111 else '100644'


def maintainers_hunk(tree_text, fpath):
    """The project's MAINTAINERS entry reduced to its "F: fpath" line,
    with the entry's other lines too when the tree lacks the entry."""
    with open(os.path.join(REPO, 'MAINTAINERS'), encoding='utf-8') as f:
        entries = [b for b in lay_series.blocks(f.read().strip('\n'))
                   if lay_series.is_entry(b)]
    line = 'F:\t' + fpath
    for entry in entries:
        lines = entry.split('\n')
        if line not in lines:
            continue
        titles = [b.split('\n')[0] for b in lay_series.blocks(tree_text)
                  if lay_series.is_entry(b)]
        if lines[0] in titles:
            return lines[0] + '\n' + line
        return '\n'.join(l for l in lines if l == line or
                         not l.startswith('F:'))
    sys.exit('series: no MAINTAINERS entry of the project has "%s"' % line)


def merged(path, arg, text):
    if path == 'MAINTAINERS':
        return lay_series.merge_maintainers(text,
                                            maintainers_hunk(text, arg))
    if path == lay_series.SELFTESTS + '/Makefile':
        return lay_series.add_targets(text, [arg])
    if path.startswith('Documentation/') and path.endswith('/index.rst'):
        return lay_series.add_to_toctree(text, arg)
    sys.exit('series: no way to merge "%s" into %s' % (arg, path))


def check(series, ksrc):
    """Every series file carried, every merge the lay-over makes made,
    at most MAX_PATCHES patches; returns the list of problems."""
    problems = []
    if len(series) > MAX_PATCHES:
        problems.append('%d patches, more than %d' %
                        (len(series), MAX_PATCHES))
    files = lay_series.series_files(REPO)
    carried = set(p for patch in series for p in patch.plain_files())
    merges = set((p, a) for patch in series for p, a in patch.files if a)
    for p in files:
        if p != 'MAINTAINERS' and p not in carried:
            problems.append('%s is carried by no patch' % p)
    for p in carried:
        if p not in files:
            problems.append('%s is carried but not a series file' % p)
    with open(os.path.join(REPO, 'MAINTAINERS'), encoding='utf-8') as f:
        for line in f.read().split('\n'):
            if line.startswith('F:\t') and \
               ('MAINTAINERS', line[3:]) not in merges:
                problems.append('MAINTAINERS "%s" is carried by no patch' %
                                line)
    history = History()
    for patch in series:
        for step in patch.steps:
            try:
                history.commit(step)
            except LookupError as e:
                problems.append('%s: %s' % (patch.name, e))
    dirs = lay_series.owned_dirs(files)
    for d in dirs:
        t = os.path.relpath(d, lay_series.SELFTESTS)
        if (lay_series.SELFTESTS + '/Makefile', t) not in merges:
            problems.append('TARGETS += %s is carried by no patch' % t)
        # The lay-over deletes upstream files of a directory the series
        # owns; patches would have to, and none does.
        for root, _, names in os.walk(os.path.join(ksrc, d)):
            for n in names:
                rel = os.path.relpath(os.path.join(root, n), ksrc)
                if rel not in carried:
                    problems.append('%s (upstream) is deleted by no patch' %
                                    rel)
    for p in files:
        if p.startswith('Documentation/') and p.endswith('.rst') and \
           os.path.basename(p) != 'index.rst':
            idx = os.path.join(os.path.dirname(p), 'index.rst')
            page = os.path.splitext(os.path.basename(p))[0]
            if (idx, page) not in merges:
                problems.append('%s in %s is carried by no patch' %
                                (page, idx))
    return problems


def ident():
    """The exporting user's identity, as git would sign off with it."""
    out = project_git('var', 'GIT_COMMITTER_IDENT').decode().strip()
    m = re.match(r'(.*) <(.*)> \d+ [-+]\d{4}$', out)
    if not m:
        sys.exit('series: cannot read your git identity: %s' % out)
    return m.group(1), m.group(2)


def build(gitdir, ksrc, base_name):
    """Commit ksrc as the base, then one commit per patch; print the
    base commit."""
    series = patches()
    problems = check(series, ksrc)
    if problems:
        sys.exit('series: ' + '\nseries: '.join(problems))
    name, email = ident()
    env = dict(os.environ, GIT_DIR=gitdir, GIT_AUTHOR_NAME=name,
               GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=name,
               GIT_COMMITTER_EMAIL=email)
    env.pop('GIT_WORK_TREE', None)

    def git(*args, data=None):
        return run(['git'] + list(args), env=env, input=data).stdout

    run(['git', 'init', '-q', '--bare', gitdir])
    # The base holds the pristine files the patches touch, ignored ones
    # included (a tree's .gitignore must not drop a source file): the
    # patches, their diffstat and the applied tree's series paths are
    # what the whole tree would give, and hashing the whole tree took
    # minutes.
    touched = sorted(set(p for patch in series for p, _ in patch.files
                         if os.path.lexists(os.path.join(ksrc, p))))
    git('--work-tree=' + ksrc, 'add', '-f', '--', *touched)
    head = git('commit-tree', git('write-tree').decode().strip(), '-m',
               base_name).decode().strip()
    base = head
    history = History()
    last = last_carrier(series)
    since = {}      # path: the commit its state in the series came from
    for i, patch in enumerate(series):
        for path, arg in patch.files:
            if arg is not None:
                text = git('cat-file', 'blob', '%s:%s' % (head, path))
                data = merged(path, arg, text.decode()).encode()
                mode = git('ls-tree', head, '--', path).split()[0].decode()
            elif last[path] == i:
                data, mode = project_file(path)
            else:
                data, mode, sha = history.state(patch, path)
                # A Step from a branch that forked before an earlier
                # patch's would undo that patch's change to the file
                if path in since and run(['git', '-C', REPO, 'merge-base',
                                          '--is-ancestor', since[path], sha],
                                         check=False).returncode:
                    sys.exit('series: %s takes %s from %s, which does not '
                             'descend from %s, its state in an earlier '
                             'patch' % (patch.name, path, sha[:12],
                                        since[path][:12]))
                since[path] = sha
            blob = git('hash-object', '-w', '--stdin', data=data)
            git('update-index', '--add', '--cacheinfo',
                '%s,%s,%s' % (mode, blob.decode().strip(), path))
        msg = '%s\n\n%s\n\nSigned-off-by: %s <%s>\n' % (
            patch.subject, patch.body, name, email)
        head = git('commit-tree', git('write-tree').decode().strip(),
                   '-p', head, data=msg.encode()).decode().strip()
        if patch.notes:
            git('notes', 'add', '-F', '-', head, data=patch.notes.encode())
    git('update-ref', 'refs/heads/series', head)
    git('symbolic-ref', 'HEAD', 'refs/heads/series')
    print(base)


def key():
    """A digest of what an export's patches are made of: the patch files,
    the commits their Steps name, the series files (content and mode) and
    the code that turns them into commits. The runner exports once per
    key; computing it reads no kernel tree."""
    h = hashlib.sha256()
    history = History()
    for patch in patches():
        with open(patch.path, 'rb') as f:
            h.update(f.read())
        for step in patch.steps:
            try:
                h.update((history.commit(step) or step).encode())
            except LookupError:
                # The export says why; the key only has to differ.
                h.update(step.encode())
    for p in sorted(lay_series.series_files(REPO)):
        data, mode = project_file(p)
        h.update(('%s %s %d\0' % (p, mode, len(data))).encode() + data)
    for code in (__file__, os.path.join(SERIES_DIR, 'export.sh'),
                 lay_series.__file__):
        with open(code, 'rb') as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    b = sub.add_parser('build', help='make the commits (export.sh)')
    b.add_argument('gitdir')
    b.add_argument('ksrc')
    b.add_argument('base_name')
    c = sub.add_parser('check', help='every series file carried')
    c.add_argument('ksrc')
    sub.add_parser('paths', help='the series paths of the kernel tree')
    sub.add_parser('key', help='a digest of what the patches are made of')
    args = ap.parse_args()
    if args.cmd == 'build':
        build(os.path.abspath(args.gitdir), os.path.abspath(args.ksrc),
              args.base_name)
    elif args.cmd == 'check':
        problems = check(patches(), args.ksrc)
        for p in problems:
            print(p)
        sys.exit(1 if problems else 0)
    elif args.cmd == 'key':
        print(key())
    else:
        # Files the patches write, merges included (MAINTAINERS etc.)
        for p in sorted(set(p for patch in patches() for p, _ in
                            patch.files)):
            print(p)


if __name__ == '__main__':
    main()
