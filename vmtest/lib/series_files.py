#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What the committed series touch, read from their patch files.

The runner applies the patch files themselves (vmtest/lib/tree.sh, every
target's tree), as listed here (--patches, which series.sh also takes);
from here it takes the selftest TARGETS the series add (--targets) and a
digest of the series files a kernel build reads (--kernel-digest, for
its build key). series/series.sh takes the MAINTAINERS entries a patched
MAINTAINERS adds (--entries), which is how the project keeps its
MAINTAINERS.
"""

import argparse
import hashlib
import os
import re
import signal
import sys

SELFTESTS = 'tools/testing/selftests'
FIELD = re.compile(r'^([A-Z]):\s')
SERIES = ('virtio', 'net-next')
# Series files that no kernel build reads.
NOT_BUILT = ('tools/testing/', 'tools/virtio/', 'Documentation/',
             'MAINTAINERS')
DIFF = re.compile(r'^diff --git a/(\S+) b/(\S+)$')


def patch_files(repo, names=SERIES):
    """The committed patch files of the series NAMES, in the order they
    apply (the cover letters left out)."""
    out = []
    for name in names:
        where = os.path.join(repo, 'series', name)
        if os.path.isdir(where):
            out += sorted(os.path.join(where, f) for f in os.listdir(where)
                          if re.match(r'\d{4}-.*\.patch$', f) and
                          not f.startswith('0000-'))
    return out


def read_patches(repo):
    """(paths in the order first touched, {path: deleted at the end})."""
    paths, deleted = [], {}
    for patch in patch_files(repo):
        cur = None
        for line in read(patch).split('\n'):
            diff = DIFF.match(line)
            if diff:
                cur = diff.group(2)
                if cur not in deleted:
                    paths.append(cur)
                deleted[cur] = False
            elif cur and line.startswith('deleted file mode'):
                deleted[cur] = True
    return paths, deleted


def kernel_digest(repo, paths):
    """A digest of the series files a kernel build reads (a change to
    net/core/page_pool.c, say), for the runner's build key."""
    digest = hashlib.sha256()
    for path in sorted(f for f in paths if not f.startswith(NOT_BUILT)):
        digest.update(path.encode() + b'\0')
        if os.path.isfile(os.path.join(repo, path)):
            with open(os.path.join(repo, path), 'rb') as file:
                digest.update(file.read())
    return digest.hexdigest()[:16]


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
    """TEXT's paragraphs (MAINTAINERS entries among them)."""
    return re.split(r'\n(?:[ \t]*\n)+', text)


def is_entry(block):
    """BLOCK is a MAINTAINERS entry: a title, then fields."""
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
    for entry in (b for b in blocks(text.strip('\n')) if is_entry(b)):
        lines = entry.split('\n')
        if lines[0] not in old:
            out.append(entry)
            continue
        added = [ln for ln in lines[1:] if ln not in old[lines[0]]]
        if added:
            out.append('\n'.join([lines[0]] + added))
    return out


def read(path):
    """PATH's text."""
    with open(path, encoding='utf-8') as file:
        return file.read()


def main():
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    parser.add_argument('--series', help='this repository')
    parser.add_argument('--kernel-digest', action='store_true',
                    help='print a digest of the files a kernel build reads')
    parser.add_argument('--targets', action='store_true',
                    help='print the selftest TARGETS the series add')
    parser.add_argument('--patches', nargs='*', choices=SERIES,
                        metavar='SERIES',
                        help='print the patch files of SERIES (default: '
                        'both), in the order they apply')
    parser.add_argument('--entries', nargs=2, metavar=('BASE', 'MAINTAINERS'),
                    help="print the entries MAINTAINERS adds to BASE's")
    parser.add_argument('--header', metavar='MAINTAINERS',
                    help="with --entries: print this file's text before "
                    'its first entry first')
    args = parser.parse_args()
    # A reader that stops early (head -n 1) ends us quietly, as it would
    # ls or find
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)

    if args.entries:
        head = []
        if args.header and os.path.exists(args.header):
            head = [b for b in blocks(read(args.header).strip('\n'))
                    if not is_entry(b)][:1]
        print('\n\n'.join(head + added_entries(*(read(f) for f in args.entries))))
        return
    if args.series and args.patches is not None:
        for path in patch_files(args.series, args.patches or SERIES):
            print(path)
        return
    if not args.series or args.kernel_digest == args.targets:
        parser.error('--series and one of --patches, --targets and '
                     '--kernel-digest')
    paths, deleted = read_patches(args.series)
    if not paths:
        sys.exit(f"series_files: no patch files in {args.series}/series/"
                 f"{{{','.join(SERIES)}}}")
    if args.kernel_digest:
        print(kernel_digest(args.series, paths))
    else:
        print(' '.join(os.path.relpath(d, SELFTESTS)
                       for d in owned_dirs(p for p in paths if not deleted[p])))


if __name__ == '__main__':
    main()
