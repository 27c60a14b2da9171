#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What the committed series touch, read from their patch files.

The runner applies the patch files themselves (vmtest/lib/tree.sh, every
target's tree); from here it takes the selftest TARGETS the series add
(--targets) and a digest of the series files a kernel build reads
(--kernel-digest, for its build key). series/series.sh takes the
MAINTAINERS entries a patched MAINTAINERS adds (--entries), which is how
the project keeps its MAINTAINERS.
"""

import argparse
import hashlib
import os
import re
import sys

SELFTESTS = 'tools/testing/selftests'
FIELD = re.compile(r'^([A-Z]):\s')
SERIES = ('virtio', 'net-next')
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
    """(paths in the order first touched, {path: deleted at the end})."""
    paths, deleted = [], {}
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
    return paths, deleted


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


def blocks(text):
    return re.split(r'\n(?:[ \t]*\n)+', text)


def is_entry(block):
    lines = block.split('\n')
    return len(lines) > 1 and not FIELD.match(lines[0]) and \
        bool(FIELD.match(lines[1]))


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--series', help='this repository')
    ap.add_argument('--kernel-digest', action='store_true',
                    help='print a digest of the files a kernel build reads')
    ap.add_argument('--targets', action='store_true',
                    help='print the selftest TARGETS the series add')
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
    if not args.series or args.kernel_digest == args.targets:
        ap.error('--series and one of --targets and --kernel-digest')
    paths, deleted = read_patches(args.series)
    if not paths:
        sys.exit('series_files: no patch files in %s/series/{%s}' %
                 (args.series, ','.join(SERIES)))
    if args.kernel_digest:
        print(kernel_digest(args.series, paths))
    else:
        print(' '.join(os.path.relpath(d, SELFTESTS)
                       for d in owned_dirs(p for p in paths if not deleted[p])))


if __name__ == '__main__':
    main()
