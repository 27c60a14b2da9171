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
        row = ROW.match(line)
        if row and row.group(2) != 'PROGRAM':
            func = row.group(3).split('@')[0]
            cost[(os.path.basename(row.group(2)), func)] += int(
                row.group(1).replace(',', ''))
    return cost


def part(key):
    """ring, shims or harness: the part a (file, function) row is of."""
    return ('ring' if key[0] == 'ptr_ring.h' else
            'shims' if key[0] in SHIMS else 'harness')


def per_item(where, side, mode, items):
    """{(file, function): Ir per item} of SIDE's MODE, over its runs."""
    total = collections.Counter()
    runs = 0
    for small in sorted(glob.glob(f'{where}/{side}-*.{mode}.{items}')):
        big = small[:-len(str(items))] + str(2 * items)
        if not os.path.exists(big):
            continue
        short, long = rows(small), rows(big)
        for k in set(short) | set(long):
            total[k] += (long[k] - short[k]) / (2 * items)
        runs += 1
    return {k: v / runs for k, v in total.items()} if runs else None


def main():
    """The command line."""
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n', maxsplit=1)[0])
    parser.add_argument('dir')
    parser.add_argument('items', type=int)
    parser.add_argument('modes', nargs='+')
    parser.add_argument('--format', choices=('text', 'markdown'),
                        default='text')
    args = parser.parse_args()
    markdown = args.format == 'markdown'
    print('| mode | part | base | change | delta |\n|---|---|---|---|---|'
          if markdown else f'{"mode":16}{"part":9}{"base":>9}{"change":>9}'
          f'{"delta":>9}')
    for mode in args.modes:
        base = per_item(args.dir, 'base', mode, args.items)
        change = per_item(args.dir, 'change', mode, args.items)
        if base is None or change is None:
            print(f'{mode}: no pair of runs', file=sys.stderr)
            continue
        for what in ('ring', 'shims', 'harness'):
            old = sum(v for k, v in base.items() if part(k) == what)
            new = sum(v for k, v in change.items() if part(k) == what)
            print(f'| {mode} | {what} | {old:.2f} | {new:.2f} | '
                  f'{new - old:+.2f} |' if markdown else
                  f'{mode:16}{what:9}{old:9.2f}{new:9.2f}{new - old:+9.2f}')
        moved = sorted(((change.get(k, 0) - base.get(k, 0), k)
                        for k in set(base) | set(change)),
                       key=lambda x: -abs(x[0]))
        named = [f'{k[0]} in {k[1]} ({part(k)}) {d:+.2f}'
                 for d, k in moved if abs(d) >= MOVED]
        named = '; '.join(named) or f'no row by {MOVED} or more'
        print(f'| {mode} | moved | {named} | | |' if markdown else
              f'{mode:16}moved:   {named}')


if __name__ == '__main__':
    main()
