#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Lay the series over a kernel tree (a hard-link farm of it).

The runner lays the series over the distro target's 6.12 tree, which the
patches (made against 7.x) do not apply to; the current target's tree
gets the patches (series/apply.sh), made with this file's merge functions
(series/series.py), and only --targets from here.

The farm's files may be hard links to a tree the user named, so a file is
never written in place: every change is written to a new file that then
replaces the link. Files are only replaced when their content differs, so
an unchanged series leaves mtimes alone and nothing rebuilds, and every
merge below is idempotent, so laying the series twice changes nothing.

What the series adds (every file of this repository but its tooling):
  - its files, copied in; directories it owns (a selftest TARGET dir)
    lose files that are not in the series (e.g. an upstream version);
  - its MAINTAINERS entries, merged into the tree's MAINTAINERS;
  - its selftest directories, added to TARGETS in
    tools/testing/selftests/Makefile;
  - its Documentation pages, added to the toctree of their index.rst.
"""

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile

SELFTESTS = 'tools/testing/selftests'
FIELD = re.compile(r'^([A-Z]):\s')
FIELD_ORDER = 'MRLSWQBCPTFXNK'


def replace_file(path, data, mode=0o644):
    """Write data to path through a new inode, if the content differs."""
    try:
        with open(path, 'rb') as f:
            if f.read() == data:
                return False
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix='.lay-')
    with os.fdopen(fd, 'wb') as f:
        f.write(data)
    os.chmod(tmp, mode)
    os.replace(tmp, path)
    return True


# The project's own tooling, which is not part of the series.
TOOLING = ('vmtest/', 'tests/', 'series/', '.ci/', 'README.md', '.gitignore')
# Series files that no kernel build reads.
NOT_BUILT = ('tools/testing/', 'Documentation/', 'MAINTAINERS')


def series_files(series):
    out = subprocess.run(['git', '-C', series, 'ls-files', '-z', '-co',
                          '--exclude-standard'],
                         check=True, capture_output=True).stdout
    return [p for p in out.decode().split('\0')
            if p and not p.startswith(TOOLING) and
            os.path.isfile(os.path.join(series, p))]


def kernel_digest(series, files):
    """A digest of the series files a kernel build reads (a change to
    net/core/page_pool.c, say), for the runner's build key."""
    h = hashlib.sha256()
    for p in sorted(f for f in files if not f.startswith(NOT_BUILT)):
        with open(os.path.join(series, p), 'rb') as f:
            h.update(p.encode() + b'\0' + f.read())
    return h.hexdigest()[:16]


def ignored(series, paths):
    if not paths:
        return set()
    res = subprocess.run(['git', '-C', series, 'check-ignore', '--no-index',
                          '--stdin', '-z'], input='\0'.join(paths).encode(),
                         capture_output=True)
    return set(p for p in res.stdout.decode().split('\0') if p)


def owned_dirs(files):
    """Selftest directories of the series: the outermost ones holding a
    Makefile (a module's Makefile below a TARGET is not a TARGET)."""
    dirs = sorted(os.path.dirname(p) for p in files
                  if p.startswith(SELFTESTS + '/') and
                  os.path.basename(p) == 'Makefile' and
                  os.path.dirname(p) != SELFTESTS)
    return [d for d in dirs
            if not any(d.startswith(o + '/') for o in dirs)]


def copy_files(series, farm, files):
    changed = 0
    for p in files:
        if os.path.basename(p) == 'MAINTAINERS' and '/' not in p:
            continue
        src = os.path.join(series, p)
        with open(src, 'rb') as f:
            data = f.read()
        changed += replace_file(os.path.join(farm, p), data,
                                os.stat(src).st_mode & 0o777)
    return changed


def prune_owned(series, farm, files, dirs):
    """Remove files of owned dirs that the series does not have."""
    keep = set(files)
    stale = []
    for d in dirs:
        for root, _, names in os.walk(os.path.join(farm, d)):
            for n in names:
                rel = os.path.relpath(os.path.join(root, n), farm)
                if rel not in keep:
                    stale.append(rel)
    ign = ignored(series, stale)
    for rel in stale:
        if rel not in ign:
            os.unlink(os.path.join(farm, rel))


def blocks(text):
    return re.split(r'\n(?:[ \t]*\n)+', text)


def is_entry(block):
    lines = block.split('\n')
    return len(lines) > 1 and not FIELD.match(lines[0]) and \
        bool(FIELD.match(lines[1]))


def field_key(line):
    m = FIELD.match(line)
    return (FIELD_ORDER.find(m.group(1)) if m else 99, line)


def merge_entry(old, new):
    """Add new's field lines missing from old, in MAINTAINERS order."""
    lines = old.split('\n')
    for line in new.split('\n')[1:]:
        if line in lines:
            continue
        pos = len(lines)
        for i in range(1, len(lines)):
            if field_key(lines[i]) > field_key(line):
                pos = i
                break
        lines.insert(pos, line)
    return '\n'.join(lines)


def merge_maintainers(tree_text, series_text):
    out = blocks(tree_text.rstrip('\n'))
    for new in (b for b in blocks(series_text.strip('\n')) if is_entry(b)):
        title = new.split('\n')[0]
        idx = [i for i, b in enumerate(out) if is_entry(b)]
        same = [i for i in idx if out[i].split('\n')[0] == title]
        if same:
            out[same[0]] = merge_entry(out[same[0]], new)
            continue
        after = [i for i in idx if out[i].split('\n')[0] > title]
        # Keep the trailing non-entry text (THE REST, the end) in place.
        pos = after[0] if after else (idx[-1] + 1 if idx else len(out))
        out.insert(pos, new)
    return '\n\n'.join(out) + '\n'


def add_targets(text, targets):
    lines = text.split('\n')
    for t in targets:
        entry = 'TARGETS += ' + t
        if entry in lines:
            continue
        idx = [i for i, l in enumerate(lines) if l.startswith('TARGETS += ')]
        if not idx:
            sys.exit('lay_series: no TARGETS in the selftests Makefile')
        later = [i for i in idx if lines[i] > entry]
        lines.insert(later[0] if later else idx[-1] + 1, entry)
    return '\n'.join(lines)


def add_to_toctree(text, page):
    """Insert page into the first toctree of an index.rst, sorted."""
    lines = text.split('\n')
    start = next((i for i, l in enumerate(lines)
                  if l.strip().startswith('.. toctree::')), None)
    if start is None:
        sys.exit('lay_series: no toctree to add %s to' % page)
    entries = []
    i = start + 1
    while i < len(lines) and (not lines[i].strip() or
                              lines[i].startswith((' ', '\t'))):
        s = lines[i].strip()
        if s and not s.startswith(':'):
            entries.append(i)
        i += 1
    if any(lines[e].strip() == page for e in entries):
        return text
    indent = re.match(r'\s*', lines[entries[0]]).group(0) if entries else '   '
    before = [e for e in entries if lines[e].strip() < page]
    pos = (before[-1] + 1) if before else (entries[0] if entries else i)
    lines.insert(pos, indent + page)
    return '\n'.join(lines)


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--series', required=True, help='this repository')
    ap.add_argument('--farm', help='the tree to lay over')
    ap.add_argument('--kernel-digest', action='store_true',
                    help='print a digest of the files a kernel build reads')
    ap.add_argument('--targets', action='store_true',
                    help='print the selftest TARGETS, lay nothing')
    args = ap.parse_args()

    files = series_files(args.series)
    if args.kernel_digest:
        print(kernel_digest(args.series, files))
        return
    dirs = owned_dirs(files)
    targets = [os.path.relpath(d, SELFTESTS) for d in dirs]
    if args.targets:
        print(' '.join(targets))
        return
    if not args.farm:
        ap.error('--farm is required')
    copy_files(args.series, args.farm, files)
    prune_owned(args.series, args.farm, files, dirs)

    if 'MAINTAINERS' in files:
        merged = merge_maintainers(read(os.path.join(args.farm, 'MAINTAINERS')),
                                   read(os.path.join(args.series, 'MAINTAINERS')))
        replace_file(os.path.join(args.farm, 'MAINTAINERS'), merged.encode())

    mk = os.path.join(SELFTESTS, 'Makefile')
    text = add_targets(read(os.path.join(args.farm, mk)), targets)
    replace_file(os.path.join(args.farm, mk), text.encode())

    for p in files:
        if not (p.startswith('Documentation/') and p.endswith('.rst')) or \
           os.path.basename(p) == 'index.rst':
            continue
        index = os.path.join(os.path.dirname(p), 'index.rst')
        if not os.path.exists(os.path.join(args.farm, index)):
            sys.exit('lay_series: %s has no index.rst to link it from' % p)
        page = os.path.splitext(os.path.basename(p))[0]
        text = add_to_toctree(read(os.path.join(args.farm, index)), page)
        replace_file(os.path.join(args.farm, index), text.encode())

    print(' '.join(targets))


if __name__ == '__main__':
    main()
