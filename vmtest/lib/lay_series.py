#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Lay the series' final files over a kernel tree (a hard-link farm of it).

The runner lays the series over the distro target's 6.12 tree, which the
patches (made against 7.x) do not apply to; the current target's tree
gets the patches themselves (vmtest/lib/tree.sh), and from here only
--targets and --kernel-digest. series/series.sh check lays the files
over the pristine base too, and compares that with the patches' result.

What is laid comes from the committed patch files (series/virtio/, then
series/net-next/): every path a patch touches, as the project has it:
  - a file the project has: copied in;
  - a file the series deletes: removed;
  - MAINTAINERS: the project's entries merged into the tree's;
  - tools/testing/selftests/Makefile: the TARGETS lines the patches add;
  - a Documentation index.rst: the series' pages added to its toctree;
anything else a patch touches is an error (the project lacks the file).

The farm's files may be hard links to a tree the user named, so a file is
never written in place: every change is written to a new file that then
replaces the link. Files are only replaced when their content differs, so
an unchanged series leaves mtimes alone and nothing rebuilds, and every
merge below is idempotent, so laying the series twice changes nothing.
"""

import argparse
import hashlib
import os
import re
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


SERIES = ('virtio', 'net-next')
MAKEFILE = SELFTESTS + '/Makefile'
# Series files that no kernel build reads.
NOT_BUILT = ('tools/testing/', 'tools/virtio/', 'Documentation/',
             'MAINTAINERS')
DIFF = re.compile(r'^diff --git a/(\S+) b/(\S+)$')


def patch_files(repo):
    """The committed patch files of both series, in the order they apply
    (the cover letters left out)."""
    out = []
    for name in SERIES:
        d = os.path.join(repo, 'series', name)
        if os.path.isdir(d):
            out += sorted(os.path.join(d, f) for f in os.listdir(d)
                          if re.match(r'\d{4}-.*\.patch$', f) and
                          not f.startswith('0000-'))
    return out


def read_patches(repo):
    """(paths in the order first touched, {path: deleted at the end},
    TARGETS the patches add to the selftests Makefile)."""
    paths, deleted, targets = [], {}, []
    for patch in patch_files(repo):
        cur = None
        with open(patch, encoding='utf-8') as f:
            for line in f.read().split('\n'):
                m = DIFF.match(line)
                if m:
                    cur = m.group(2)
                    if cur not in deleted:
                        paths.append(cur)
                    deleted[cur] = False
                elif cur and line.startswith('deleted file mode'):
                    deleted[cur] = True
                elif cur == MAKEFILE and line.startswith('+TARGETS += '):
                    targets.append(line[len('+TARGETS += '):].strip())
                elif cur == MAKEFILE and line.startswith('-TARGETS += '):
                    t = line[len('-TARGETS += '):].strip()
                    targets = [x for x in targets if x != t]
    return paths, deleted, targets


def kernel_digest(repo, paths):
    """A digest of the series files a kernel build reads (a change to
    net/core/page_pool.c, say), for the runner's build key."""
    h = hashlib.sha256()
    for p in sorted(f for f in paths if not f.startswith(NOT_BUILT)):
        h.update(p.encode() + b'\0')
        if os.path.isfile(os.path.join(repo, p)):
            with open(os.path.join(repo, p), 'rb') as f:
                h.update(f.read())
    return h.hexdigest()[:16]


def owned_dirs(files):
    """Selftest directories of the series: the outermost ones holding a
    Makefile (a module's Makefile below a TARGET is not a TARGET)."""
    dirs = sorted(os.path.dirname(p) for p in files
                  if p.startswith(SELFTESTS + '/') and
                  os.path.basename(p) == 'Makefile' and
                  os.path.dirname(p) != SELFTESTS)
    return [d for d in dirs
            if not any(d.startswith(o + '/') for o in dirs)]


def is_index(path):
    return path.startswith('Documentation/') and \
        os.path.basename(path) == 'index.rst'


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
    """Insert page into the first toctree of an index.rst."""
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
    # Before the first entry that sorts after it: a toctree sorted only
    # in parts gets the page next to its neighbours (page_pool_bench
    # after page_pool)
    after = [e for e in entries if lines[e].strip() > page]
    pos = after[0] if after else (entries[-1] + 1 if entries else i)
    lines.insert(pos, indent + page)
    return '\n'.join(lines)


def added_entries(base_text, text):
    """The MAINTAINERS entries TEXT adds to BASE_TEXT, as the project
    keeps them: a new entry whole, an existing one as its title and the
    lines added to it, in TEXT's order."""
    old = {b.split('\n')[0]: b.split('\n')
           for b in blocks(base_text.strip('\n')) if is_entry(b)}
    out = []
    for b in (b for b in blocks(text.strip('\n')) if is_entry(b)):
        lines = b.split('\n')
        if lines[0] not in old:
            out.append(b)
            continue
        added = [ln for ln in lines[1:] if ln not in old[lines[0]]]
        if added:
            out.append('\n'.join([lines[0]] + added))
    return out


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def lay(repo, farm, paths, deleted, targets):
    """Lay the series' final files over FARM."""
    merged = []
    for p in paths:
        dst = os.path.join(farm, p)
        src = os.path.join(repo, p)
        if deleted[p]:
            if os.path.lexists(dst):
                os.unlink(dst)
        elif p == 'MAINTAINERS':
            text = merge_maintainers(read(dst), read(src))
            replace_file(dst, text.encode())
        elif p == MAKEFILE:
            replace_file(dst, add_targets(read(dst), targets).encode())
        elif is_index(p):
            merged.append(p)
        elif os.path.isfile(src):
            with open(src, 'rb') as f:
                replace_file(dst, f.read(), os.stat(src).st_mode & 0o777)
        else:
            sys.exit('lay_series: a patch changes %s, which the project '
                     'does not have' % p)
    for index in merged:
        text = read(os.path.join(farm, index))
        for p in paths:
            if os.path.dirname(p) == os.path.dirname(index) and \
               p.endswith('.rst') and not is_index(p) and not deleted[p]:
                page = os.path.splitext(os.path.basename(p))[0]
                text = add_to_toctree(text, page)
        replace_file(os.path.join(farm, index), text.encode())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--series', help='this repository')
    ap.add_argument('--farm', help='the tree to lay over')
    ap.add_argument('--kernel-digest', action='store_true',
                    help='print a digest of the files a kernel build reads')
    ap.add_argument('--targets', action='store_true',
                    help='print the selftest TARGETS, lay nothing')
    ap.add_argument('--entries', nargs=2, metavar=('BASE', 'MAINTAINERS'),
                    help="print the entries MAINTAINERS adds to BASE's")
    ap.add_argument('--header', metavar='MAINTAINERS',
                    help="with --entries: print this file's text before "
                    'its first entry first')
    args = ap.parse_args()

    if args.entries:
        head = []
        if args.header and os.path.exists(args.header):
            head = [b for b in blocks(read(args.header).strip('\n'))
                    if not is_entry(b)][:1]
        print('\n\n'.join(head + added_entries(*(read(f) for f in args.entries))))
        return
    if not args.series:
        ap.error('--series is required')
    paths, deleted, targets = read_patches(args.series)
    if not paths:
        sys.exit('lay_series: no patch files in %s/series/{%s}' %
                 (args.series, ','.join(SERIES)))
    if args.kernel_digest:
        print(kernel_digest(args.series, paths))
        return
    dirs = owned_dirs(p for p in paths if not deleted[p])
    if args.targets:
        print(' '.join(os.path.relpath(d, SELFTESTS) for d in dirs))
        return
    if not args.farm:
        ap.error('--farm is required')
    lay(args.series, args.farm, paths, deleted, targets)
    print(' '.join(os.path.relpath(d, SELFTESTS) for d in dirs))


if __name__ == '__main__':
    main()
