#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Where a change to ptr_ring.h moved ptr_ring_test's instructions.

usage: ab/cgsplit.py DIR ITEMS MODE... [--format text|markdown]

DIR holds callgrind's files of ab/ptr_ring.sh, named SIDE-RUN.MODE.N
(SIDE base or change; runs of N and 2N items, each a warm-up and one
repetition). Per mode, the instructions per item (the 2N run's less the
N run's, over 2 * ITEMS items), averaged over the runs, of each source
file and function, as callgrind_annotate --inclusive=no attributes
them: the ring's calls are inlined into the harness's loops, and built
with -g their instructions keep ptr_ring.h's file name. Three parts:
ring (ptr_ring.h), shims (the shim's and main.h's stand-ins for the
kernel's locks and READ_ONCE(), glibc's spinlocks) and harness (the
rest); then the file-and-function rows that moved by MOVED or more,
named.
"""

import argparse
import collections
import glob
import os
import re
import subprocess
import sys

MOVED = 0.05
SHIMS = ('ptr_ring_shim.h', 'main.h', 'pthread_spin_lock.S',
         'pthread_spin_unlock.S')
ROW = re.compile(r'^\s*([\d,]+)\s+\([ \d.]+%\)\s+(\S+?):(\S+)')


def rows(path):
    """{(file, function): Ir} of a callgrind file, self cost."""
    out = subprocess.run(['callgrind_annotate', '--inclusive=no',
                          '--threshold=100', '--show=Ir', '--auto=no',
                          path], capture_output=True, text=True, check=True)
    cost = collections.Counter()
    for line in out.stdout.splitlines():
        m = ROW.match(line)
        if m and m.group(2) != 'PROGRAM':
            fn = m.group(3).split('@')[0]
            cost[(os.path.basename(m.group(2)), fn)] += int(
                m.group(1).replace(',', ''))
    return cost


def part(key):
    """ring, shims or harness: the part a (file, function) row is of."""
    return ('ring' if key[0] == 'ptr_ring.h' else
            'shims' if key[0] in SHIMS else 'harness')


def per_item(d, side, mode, items):
    """{(file, function): Ir per item} of SIDE's MODE, over its runs."""
    total = collections.Counter()
    runs = 0
    for small in sorted(glob.glob(f'{d}/{side}-*.{mode}.{items}')):
        big = small[:-len(str(items))] + str(2 * items)
        if not os.path.exists(big):
            continue
        a, b = rows(small), rows(big)
        for k in set(a) | set(b):
            total[k] += (b[k] - a[k]) / (2 * items)
        runs += 1
    return {k: v / runs for k, v in total.items()} if runs else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('dir')
    ap.add_argument('items', type=int)
    ap.add_argument('modes', nargs='+')
    ap.add_argument('--format', choices=('text', 'markdown'), default='text')
    args = ap.parse_args()
    md = args.format == 'markdown'
    print('| mode | part | base | change | delta |\n|---|---|---|---|---|'
          if md else f'{"mode":16}{"part":9}{"base":>9}{"change":>9}'
          f'{"delta":>9}')
    for mode in args.modes:
        base = per_item(args.dir, 'base', mode, args.items)
        change = per_item(args.dir, 'change', mode, args.items)
        if base is None or change is None:
            print(f'{mode}: no pair of runs', file=sys.stderr)
            continue
        for p in ('ring', 'shims', 'harness'):
            b = sum(v for k, v in base.items() if part(k) == p)
            c = sum(v for k, v in change.items() if part(k) == p)
            print(f'| {mode} | {p} | {b:.2f} | {c:.2f} | {c - b:+.2f} |'
                  if md else f'{mode:16}{p:9}{b:9.2f}{c:9.2f}{c - b:+9.2f}')
        moved = sorted(((change.get(k, 0) - base.get(k, 0), k)
                        for k in set(base) | set(change)),
                       key=lambda x: -abs(x[0]))
        named = [f'{k[0]} in {k[1]} ({part(k)}) {d:+.2f}'
                 for d, k in moved if abs(d) >= MOVED]
        named = '; '.join(named) or f'no row by {MOVED} or more'
        print(f'| {mode} | moved | {named} | | |' if md else
              f'{mode:16}moved:   {named}')


if __name__ == '__main__':
    main()
